"""The client answers the server (minimcp.client.answers): sampling, elicitation, roots, and what it
hears.

A minimcp server whose tool ``ask`` sends any request to the client *without* the server's own
capability checks (``context.send_request``), so that the client's rules are what is tested: what it
declares, the exact error for what it never declared, the defaults it fills in, the answers it
refuses to send, and that the connection keeps serving after each.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from support import TIMEOUT, Notes, connected

from minimcp.client import Client, ClientAnswers, Refused
from minimcp.client.answers import to_root
from minimcp.rpc import RpcError
from minimcp.server import Server
from minimcp.session import RequestContext
from minimcp.session.tool_messages import tool_message_problem

MODEL_ANSWER = {
    "role": "assistant",
    "content": {"type": "text", "text": '{"a": 1}'},
    "model": "rules",
    "stopReason": "endTurn",
}
SAMPLE = {
    "messages": [
        {"role": "user", "content": {"type": "text", "text": "Translate <a>1</a> to JSON"}}
    ],
    "maxTokens": 50,
}
FORM = {
    "type": "object",
    "properties": {
        "user": {"type": "string", "minLength": 1},
        "public": {"type": "boolean", "default": True},
        "plan": {"type": "string", "enum": ["free", "pro"], "default": "free"},
    },
    "required": ["user"],
}


def raw_server() -> tuple[Server, list[str]]:
    """A server with ``ask(method, params)``: it sends the request as is and returns what came
    back."""
    server = Server("asks-anything")
    heard: list[str] = []

    @server.tool()
    async def ask(method: str, params: dict[str, Any], context: RequestContext) -> str:
        """Send one request to the client, unchecked; answer its result or its error as JSON."""
        try:
            return json.dumps(await context.send_request(method, params, TIMEOUT))
        except RpcError as error:
            return json.dumps({"code": error.code, "message": error.message})

    @server.on_notification("notifications/roots/list_changed")
    async def roots_changed(session: Any, notification: Any) -> None:
        heard.append(notification.method)

    return server, heard


async def ask(client: Client, method: str, params: dict[str, Any]) -> Any:
    result = await client.call_tool("ask", {"method": method, "params": params}, timeout=TIMEOUT)
    assert not result.get("isError"), result
    return json.loads(result["content"][0]["text"])


async def still_serving(client: Client) -> None:
    """After a bad request, the same connection answers the next one."""
    assert [tool["name"] for tool in await client.list_tools()] == ["ask"]
    await client.ping()


# -- what the client declares ----------------------------------------------------------------------
def test_each_handler_declares_its_capability_and_nothing_else(tmp_path: Path) -> None:
    assert ClientAnswers().capabilities() == {}
    answers = ClientAnswers(
        sampling=lambda p: MODEL_ANSWER,
        sampling_tools=True,
        elicitation=lambda p: {"action": "cancel"},
        elicitation_modes=("form", "url"),
        roots=[tmp_path],
    )
    assert answers.capabilities() == {
        "sampling": {"tools": {}},
        "elicitation": {"form": {}, "url": {}},
        "roots": {"listChanged": True},
    }


async def test_the_server_sees_the_declared_capabilities(tmp_path: Path) -> None:
    server, _ = raw_server()
    async with connected(
        server, answers=ClientAnswers(sampling=lambda p: MODEL_ANSWER, roots=[tmp_path])
    ):
        (session,) = server.sessions
        assert session.client_capabilities == {"sampling": {}, "roots": {"listChanged": True}}


def test_bad_options_are_refused_at_once() -> None:
    with pytest.raises(
        ValueError, match=r"elicitation_modes: name 'form', 'url' or both, not \['chat'\]"
    ):
        ClientAnswers(elicitation=lambda p: {}, elicitation_modes=("chat",))
    with pytest.raises(
        ValueError, match=r"a root's \"uri\" must be a file:// URI, not 'https://x.test/'"
    ):
        to_root({"uri": "https://x.test/", "name": "web"})


# -- sampling --------------------------------------------------------------------------------------
async def test_sampling_reaches_the_handler_and_its_answer_the_server() -> None:
    seen: list[dict[str, Any]] = []

    async def model(params: dict[str, Any]) -> dict[str, Any]:
        seen.append(params)
        return MODEL_ANSWER

    server, _ = raw_server()
    async with connected(server, answers=ClientAnswers(sampling=model)) as client:
        assert await ask(client, "sampling/createMessage", SAMPLE) == MODEL_ANSWER
    assert seen == [SAMPLE]


async def test_a_refusal_is_error_minus_one_with_the_reason() -> None:
    def no(params: dict[str, Any]) -> dict[str, Any]:
        raise Refused("The user declined to share the conversation")

    server, _ = raw_server()
    async with connected(server, answers=ClientAnswers(sampling=no)) as client:
        assert await ask(client, "sampling/createMessage", SAMPLE) == {
            "code": -1,
            "message": "The user declined to share the conversation",
        }
        await still_serving(client)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            {**SAMPLE, "tools": [{"name": "x", "inputSchema": {"type": "object"}}]},
            "This client did not declare sampling.tools: ask without tools",
        ),
        (
            {"messages": [], "maxTokens": 5},
            'sampling/createMessage needs "messages" (a non-empty list) and '
            '"maxTokens" (an integer)',
        ),
    ],
)
async def test_bad_sampling_requests_are_invalid_params(
    params: dict[str, Any], message: str
) -> None:
    server, _ = raw_server()
    async with connected(server, answers=ClientAnswers(sampling=lambda p: MODEL_ANSWER)) as client:
        assert await ask(client, "sampling/createMessage", params) == {
            "code": -32602,
            "message": message,
        }
        await still_serving(client)


@pytest.mark.parametrize("method", ["sampling/createMessage", "elicitation/create", "roots/list"])
async def test_a_request_never_declared_is_method_not_found(method: str) -> None:
    server, _ = raw_server()
    async with connected(server) as client:
        assert await ask(client, method, SAMPLE) == {
            "code": -32601,
            "message": f"Method not found: {method}",
        }
        await still_serving(client)


# -- elicitation -----------------------------------------------------------------------------------
async def test_an_accepted_form_gets_its_defaults_and_is_checked() -> None:
    server, _ = raw_server()
    answers = ClientAnswers(
        elicitation=lambda p: {"action": "accept", "content": {"user": "octocat"}}
    )
    async with connected(server, answers=answers) as client:
        answer = await ask(
            client, "elicitation/create", {"message": "Your GitHub user?", "requestedSchema": FORM}
        )
    assert answer == {
        "action": "accept",
        "content": {"user": "octocat", "public": True, "plan": "free"},
    }


async def test_an_answer_that_breaks_the_form_is_not_sent() -> None:
    server, _ = raw_server()
    answers = ClientAnswers(
        elicitation=lambda p: {"action": "accept", "content": {"user": "", "plan": "gold"}}
    )
    async with connected(server, answers=answers) as client:
        answer = await ask(
            client, "elicitation/create", {"message": "Your GitHub user?", "requestedSchema": FORM}
        )
        assert answer == {
            "code": -32603,
            "message": "The answer does not fit the form: plan: 'gold' is not one "
            "of ['free', 'pro']; user: '' should be non-empty",
        }
        await still_serving(client)


@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_nothing_typed_leaves_when_the_user_says_no(action: str) -> None:
    server, _ = raw_server()
    answers = ClientAnswers(elicitation=lambda p: {"action": action, "content": {"user": "secret"}})
    async with connected(server, answers=answers) as client:
        answer = await ask(
            client, "elicitation/create", {"message": "Your GitHub user?", "requestedSchema": FORM}
        )
    assert answer == {"action": action}


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            {"mode": "url", "message": "Sign in", "url": "https://x.test/", "elicitationId": "e1"},
            "This client did not declare elicitation mode 'url'",
        ),
        (
            {"mode": "voice", "message": "Say it"},
            "This client did not declare elicitation mode 'voice'",
        ),
        (
            {
                "message": "Address?",
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "address": {"type": "object", "properties": {"city": {"type": "string"}}}
                    },
                },
            },
            "This form cannot be shown: form field 'address': the type must be one of "
            "array, boolean, integer, number, string",
        ),
        (
            {"message": "Nothing?"},
            "This form cannot be shown: a form's requestedSchema is "
            '{"type": "object", "properties": {...}}',
        ),
    ],
)
async def test_a_question_the_client_cannot_ask_is_invalid_params(
    params: dict[str, Any], message: str
) -> None:
    server, _ = raw_server()
    async with connected(
        server, answers=ClientAnswers(elicitation=lambda p: {"action": "cancel"})
    ) as client:
        assert await ask(client, "elicitation/create", params) == {
            "code": -32602,
            "message": message,
        }
        await still_serving(client)


async def test_url_mode_and_its_completion_notice() -> None:
    completed: list[str] = []
    server, _ = raw_server()
    answers = ClientAnswers(
        elicitation=lambda p: {"action": "accept", "content": {"ignored": 1}},
        elicitation_modes=("url",),
    )
    async with connected(
        server, answers=answers, on_elicitation_complete=completed.append
    ) as client:
        url = {
            "mode": "url",
            "message": "Connect GitHub",
            "url": "https://x.test/connect",
            "elicitationId": "e1",
        }
        assert await ask(client, "elicitation/create", url) == {"action": "accept"}
        (session,) = server.sessions
        for elicitation_id in ("unknown", "e1", "e1"):  # only the open one counts, and only once
            await session.notify(
                "notifications/elicitation/complete", {"elicitationId": elicitation_id}
            )
        await client.ping()  # the notices were read before the pong
    assert completed == ["e1"]


# -- roots -----------------------------------------------------------------------------------------
async def test_roots_are_listed_and_a_change_is_announced(tmp_path: Path) -> None:
    first, second = tmp_path / "notes", tmp_path / "code"
    server, heard = raw_server()
    async with connected(server, answers=ClientAnswers(roots=[first])) as client:
        assert await ask(client, "roots/list", {}) == {
            "roots": [{"uri": first.as_uri(), "name": "notes"}]
        }
        await client.set_roots([first, {"uri": second.as_uri(), "name": "The code"}])
        # no change: no notice
        await client.set_roots([first, {"uri": second.as_uri(), "name": "The code"}])
        assert await ask(client, "roots/list", {}) == {
            "roots": [
                {"uri": first.as_uri(), "name": "notes"},
                {"uri": second.as_uri(), "name": "The code"},
            ]
        }
    assert heard == ["notifications/roots/list_changed"]


async def test_set_roots_needs_roots_declared() -> None:
    server, _ = raw_server()
    async with connected(server) as client:
        with pytest.raises(RuntimeError, match=r"this client did not declare roots"):
            await client.set_roots(["/tmp"])


# -- what the client hears -------------------------------------------------------------------------
async def test_log_messages_reach_on_log() -> None:
    server = Server("talkative")
    server.enable_logging()
    lines: list[tuple[str, str | None, Any]] = []
    notes: Notes = asyncio.Queue()
    async with connected(server, notes, on_log=lambda *line: lines.append(line)):
        (session,) = server.sessions
        await session.notify(
            "notifications/message", {"level": "warning", "logger": "db", "data": {"slow": 3}}
        )
        await asyncio.wait_for(notes.get(), TIMEOUT)
    assert lines == [("warning", "db", {"slow": 3})]


# -- sampling with tools: a tool loop's messages must be balanced ----------------------------------
USE = {
    "role": "assistant",
    "content": [
        {"type": "tool_use", "id": "c1", "name": "weather", "input": {}},
        {"type": "tool_use", "id": "c2", "name": "weather", "input": {}},
    ],
}
RESULT_1 = {"type": "tool_result", "toolUseId": "c1", "content": [{"type": "text", "text": "18°C"}]}
RESULT_2 = {"type": "tool_result", "toolUseId": "c2", "content": [{"type": "text", "text": "15°C"}]}
ASK = {"role": "user", "content": {"type": "text", "text": "Weather in Paris and London?"}}


@pytest.mark.parametrize(
    ("messages", "problem"),
    [
        ([ASK, USE, {"role": "user", "content": [RESULT_1, RESULT_2]}], None),
        (
            [ASK, USE, {"role": "user", "content": [RESULT_1]}],
            "Tool result missing in request (message 3: expected results for ['c1', 'c2'])",
        ),
        ([ASK, USE], "Tool result missing in request (the last message uses ['c1', 'c2'])"),
        (
            [
                ASK,
                USE,
                {"role": "user", "content": [RESULT_1, RESULT_2, {"type": "text", "text": "and?"}]},
            ],
            "Tool results mixed with other content (message 3)",
        ),
        (
            [ASK, {"role": "user", "content": RESULT_1}],
            "Tool result with no tool use before it (message 2)",
        ),
    ],
)
def test_the_tool_loop_balance_rule(messages: list[dict[str, Any]], problem: str | None) -> None:
    assert tool_message_problem(messages) == problem


async def test_an_unbalanced_tool_loop_is_invalid_params_and_a_balanced_one_is_answered() -> None:
    server, _ = raw_server()
    async with connected(
        server, answers=ClientAnswers(sampling=lambda p: MODEL_ANSWER, sampling_tools=True)
    ) as client:
        tools = [{"name": "weather", "inputSchema": {"type": "object"}}]
        assert await ask(
            client,
            "sampling/createMessage",
            {"messages": [ASK, USE], "maxTokens": 50, "tools": tools},
        ) == {
            "code": -32602,
            "message": "Tool result missing in request (the last message uses ['c1', 'c2'])",
        }
        balanced = [ASK, USE, {"role": "user", "content": [RESULT_1, RESULT_2]}]
        assert (
            await ask(
                client,
                "sampling/createMessage",
                {"messages": balanced, "maxTokens": 50, "tools": tools},
            )
            == MODEL_ANSWER
        )
