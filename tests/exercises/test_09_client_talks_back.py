"""Checks for lesson 09's exercise: a client that declares what it answers, answers or refuses the
server's requests with the spec's codes, and answers them inside a tools/call.

Each test's docstring is the hint a student sees when it fails (``python tools/check.py 09``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

TIMEOUT = 5

SAMPLED = {
    "role": "assistant",
    "content": {"type": "text", "text": "Paris"},
    "model": "course-model",
    "stopReason": "endTurn",
}
ACCEPTED = {"action": "accept", "content": {"name": "Ada"}}
ROOT = {"uri": "file:///home/ada/notes", "name": "notes"}
SAMPLE_PARAMS: dict[str, Any] = {
    "messages": [{"role": "user", "content": {"type": "text", "text": "Capital of France?"}}],
    "maxTokens": 50,
}


def model(params: dict[str, Any]) -> dict[str, Any]:
    return SAMPLED


def person(params: dict[str, Any]) -> dict[str, Any]:
    return ACCEPTED


def everything(exercise: Any) -> Any:
    """A client that offers all three, elicitation in both modes."""
    return exercise.ClientAnswers(
        sampling=model, elicitation=person, elicitation_modes=("form", "url"), roots=[ROOT]
    )


def request(request_id: Any, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


# -- Exercise 1 · Declare what you answer ----------------------------------------------------------


def test_a_client_given_nothing_declares_nothing(exercise: Any) -> None:
    """No handler, no roots: capabilities() is {} (no key at all, not a key with None)."""
    assert exercise.ClientAnswers().capabilities() == {}


def test_each_handler_declares_its_capability(exercise: Any) -> None:
    """sampling -> "sampling": {}; elicitation -> "elicitation": {"form": {}} (one key per mode);
    roots, even an empty list -> "roots": {}."""
    assert exercise.ClientAnswers(sampling=model).capabilities() == {"sampling": {}}
    assert exercise.ClientAnswers(elicitation=person).capabilities() == {
        "elicitation": {"form": {}}
    }
    assert exercise.ClientAnswers(roots=[]).capabilities() == {"roots": {}}


def test_the_details_are_declared_inside(exercise: Any) -> None:
    """sampling_tools=True -> "sampling": {"tools": {}}; every mode in elicitation_modes is a key
    of "elicitation"."""
    answers = exercise.ClientAnswers(
        sampling=model,
        sampling_tools=True,
        elicitation=person,
        elicitation_modes=("form", "url"),
        roots=[ROOT],
    )
    assert answers.capabilities() == {
        "sampling": {"tools": {}},
        "elicitation": {"form": {}, "url": {}},
        "roots": {},
    }
    url_only = exercise.ClientAnswers(elicitation=person, elicitation_modes=("url",))
    assert url_only.capabilities() == {"elicitation": {"url": {}}}


# -- Exercise 2 · Answer, or refuse with the right code -------------------------------------------


def test_declared_requests_may_be_answered(exercise: Any) -> None:
    """refusal() is None for what was declared, and for ping (always answered)."""
    answers = everything(exercise)
    assert answers.refusal("ping", {}) is None
    assert answers.refusal("sampling/createMessage", SAMPLE_PARAMS) is None
    assert answers.refusal("elicitation/create", {"message": "Name?"}) is None
    assert answers.refusal("elicitation/create", {"mode": "url", "url": "https://x"}) is None
    assert answers.refusal("roots/list", {}) is None
    assert exercise.ClientAnswers().refusal("ping", {}) is None


@pytest.mark.parametrize("method", ["sampling/createMessage", "elicitation/create", "roots/list"])
def test_what_was_never_declared_is_method_not_found(exercise: Any, method: str) -> None:
    """A request whose handler was not given: (-32601, "Method not found: <method>")."""
    code, message = exercise.ClientAnswers().refusal(method, {})
    assert code == exercise.METHOD_NOT_FOUND == -32601
    assert method in message


def test_a_method_the_client_does_not_know_is_method_not_found(exercise: Any) -> None:
    """Any other method, even with every handler given: -32601."""
    refused = everything(exercise).refusal("tools/list", {})
    assert refused is not None and refused[0] == -32601


def test_what_the_declaration_left_out_is_invalid_params(exercise: Any) -> None:
    """Sampling with "tools" or "toolChoice" but no sampling_tools, and an elicitation mode not
    declared ("mode" missing means "form"): (-32602, ...)."""
    answers = exercise.ClientAnswers(sampling=model, elicitation=person, elicitation_modes=("url",))
    with_tools = {**SAMPLE_PARAMS, "tools": [{"name": "x", "inputSchema": {"type": "object"}}]}
    choosing = {**SAMPLE_PARAMS, "toolChoice": {"mode": "auto"}}
    for method, params in [
        ("sampling/createMessage", with_tools),
        ("sampling/createMessage", choosing),
        ("elicitation/create", {"message": "Name?"}),
        ("elicitation/create", {"mode": "form", "message": "Name?"}),
    ]:
        refused = answers.refusal(method, params)
        assert refused is not None and refused[0] == exercise.INVALID_PARAMS == -32602, params
    tools_declared = exercise.ClientAnswers(sampling=model, sampling_tools=True)
    assert tools_declared.refusal("sampling/createMessage", with_tools) is None


def test_each_answer_is_a_json_rpc_response(exercise: Any) -> None:
    """respond() returns {"jsonrpc": "2.0", "id": <the request's id>, "result": ...}: {} for ping,
    {"roots": [...]} for roots/list, the handler's return value for the others."""
    answers = everything(exercise)
    assert answers.respond(request(1, "ping")) == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert answers.respond(request("r", "roots/list")) == {
        "jsonrpc": "2.0",
        "id": "r",
        "result": {"roots": [ROOT]},
    }
    sampled = answers.respond(request(2, "sampling/createMessage", SAMPLE_PARAMS))
    assert sampled == {"jsonrpc": "2.0", "id": 2, "result": SAMPLED}
    asked = answers.respond(request(3, "elicitation/create", {"message": "Name?"}))
    assert asked == {"jsonrpc": "2.0", "id": 3, "result": ACCEPTED}


def test_a_handler_is_given_the_params(exercise: Any) -> None:
    """The handler receives the request's "params" dict, as it came."""
    seen: list[dict[str, Any]] = []

    def remember(params: dict[str, Any]) -> dict[str, Any]:
        seen.append(params)
        return SAMPLED

    exercise.ClientAnswers(sampling=remember).respond(
        request(4, "sampling/createMessage", SAMPLE_PARAMS)
    )
    assert seen == [SAMPLE_PARAMS]


def test_a_refusal_is_an_error_response_and_no_handler_runs(exercise: Any) -> None:
    """Refused: {"jsonrpc": "2.0", "id": ..., "error": {"code": ..., "message": ...}}, and the
    handler is never called."""
    called: list[str] = []

    def never(params: dict[str, Any]) -> dict[str, Any]:
        called.append("called")
        return ACCEPTED

    answers = exercise.ClientAnswers(elicitation=never)  # form only
    response = answers.respond(request(5, "elicitation/create", {"mode": "url", "url": "x"}))
    assert response["jsonrpc"] == "2.0" and response["id"] == 5 and "result" not in response
    assert response["error"]["code"] == -32602 and isinstance(response["error"]["message"], str)
    response = answers.respond(request(6, "roots/list"))
    assert response["error"]["code"] == -32601
    assert called == []


def test_a_user_who_says_no_is_error_minus_one(exercise: Any) -> None:
    """A sampling handler that raises Refused: error -1, with the exception's text (or "User
    rejected sampling request" when it has none)."""

    def no(params: dict[str, Any]) -> dict[str, Any]:
        raise exercise.Refused("Not for this server")

    def silent_no(params: dict[str, Any]) -> dict[str, Any]:
        raise exercise.Refused()

    response = exercise.ClientAnswers(sampling=no).respond(
        request(7, "sampling/createMessage", SAMPLE_PARAMS)
    )
    assert response == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {"code": exercise.USER_REJECTED, "message": "Not for this server"},
    }
    response = exercise.ClientAnswers(sampling=silent_no).respond(
        request(8, "sampling/createMessage", SAMPLE_PARAMS)
    )
    assert response["error"] == {"code": -1, "message": "User rejected sampling request"}


# -- Exercise 3 · A question inside a tools/call ---------------------------------------------------


class Wire:
    """Both directions of a connection, as queues: the test plays the server on the other end."""

    def __init__(self) -> None:
        self.to_client: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.to_server: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def send(self, message: dict[str, Any]) -> None:
        await self.to_server.put(message)

    async def receive(self) -> dict[str, Any]:
        return await self.to_client.get()


async def play(
    exercise: Any,
    answers: Any,
    server: Callable[[Wire], Awaitable[None]],
    request_id: Any = 1,
    wire: Wire | None = None,
) -> Any:
    """Run call_tool against ``server`` (a coroutine playing the other end); its result."""
    wire = wire or Wire()
    call = exercise.call_tool(wire, answers, request_id, "capital", {"country": "France"})
    result, _ = await asyncio.wait_for(asyncio.gather(call, server(wire)), TIMEOUT)
    return result


def tool_result(request_id: Any, text: str) -> dict[str, Any]:
    content = [{"type": "text", "text": text}]
    return {"jsonrpc": "2.0", "id": request_id, "result": {"content": content, "isError": False}}


async def test_the_call_is_sent_and_its_answer_returned(exercise: Any) -> None:
    """Send {"jsonrpc": "2.0", "id": ..., "method": "tools/call", "params": {"name": ...,
    "arguments": ...}}, then return the "result" of the response with that id."""

    async def server(wire: Wire) -> None:
        call = await wire.to_server.get()
        assert call == {
            "jsonrpc": "2.0",
            "id": 9,
            "method": "tools/call",
            "params": {"name": "capital", "arguments": {"country": "France"}},
        }
        await wire.to_client.put(tool_result(9, "Paris"))

    result = await play(exercise, exercise.ClientAnswers(), server, request_id=9)
    assert result == tool_result(9, "Paris")["result"]


async def test_the_server_asks_while_it_answers(exercise: Any) -> None:
    """A request that arrives before the tool's answer is answered at once, with respond(): the
    server waits for that answer before it finishes the tool."""

    async def server(wire: Wire) -> None:
        call = await wire.to_server.get()
        await wire.to_client.put(request("s-1", "sampling/createMessage", SAMPLE_PARAMS))
        sampled = await wire.to_server.get()
        assert sampled == {"jsonrpc": "2.0", "id": "s-1", "result": SAMPLED}
        await wire.to_client.put(request("e-1", "elicitation/create", {"message": "Name?"}))
        asked = await wire.to_server.get()
        assert asked == {"jsonrpc": "2.0", "id": "e-1", "result": ACCEPTED}
        text = sampled["result"]["content"]["text"]
        await wire.to_client.put(tool_result(call["id"], f"{text}, for Ada"))

    result = await play(exercise, everything(exercise), server)
    assert result["content"][0]["text"] == "Paris, for Ada"


async def test_a_nested_request_not_declared_is_refused(exercise: Any) -> None:
    """A nested request the client never declared gets the same error respond() gives (-32601 for
    roots/list), and the tool call still ends normally."""

    async def server(wire: Wire) -> None:
        call = await wire.to_server.get()
        await wire.to_client.put(request(77, "roots/list"))
        refused = await wire.to_server.get()
        assert refused["id"] == 77 and refused["error"]["code"] == -32601
        await wire.to_client.put(tool_result(call["id"], "no roots, fine"))

    result = await play(exercise, exercise.ClientAnswers(sampling=model), server)
    assert result["content"][0]["text"] == "no roots, fine"


async def test_notifications_and_other_answers_are_skipped(exercise: Any) -> None:
    """A notification (no "id") is not answered, and a response to another id is not the tool's:
    keep reading until the response with your id."""

    async def server(wire: Wire) -> None:
        call = await wire.to_server.get()
        progress = {"progressToken": "p", "progress": 1}
        await wire.to_client.put(
            {"jsonrpc": "2.0", "method": "notifications/progress", "params": progress}
        )
        await wire.to_client.put(tool_result("someone-else", "not yours"))
        await wire.to_client.put(tool_result(call["id"], "yours"))

    wire = Wire()
    result = await play(exercise, everything(exercise), server, wire=wire)
    assert result["content"][0]["text"] == "yours"
    assert wire.to_server.empty(), "a notification or a response is never answered"


async def test_an_error_answer_raises_tool_call_failed(exercise: Any) -> None:
    """The tool's response is an error: raise ToolCallFailed(code, message)."""

    async def server(wire: Wire) -> None:
        call = await wire.to_server.get()
        error = {"code": -32602, "message": "Unknown tool: capital"}
        await wire.to_client.put({"jsonrpc": "2.0", "id": call["id"], "error": error})

    with pytest.raises(exercise.ToolCallFailed) as failed:
        await play(exercise, exercise.ClientAnswers(), server)
    assert failed.value.code == -32602 and failed.value.message == "Unknown tool: capital"
