"""Sampling and elicitation (minimcp.sampling, minimcp.elicitation): the server asks the client.

The client here is minimcp's own ``Client`` with ``on_request`` answering the server's requests,
over the in-memory cable; every test also checks what the client was actually sent.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from support import TIMEOUT

from minimcp.client import Client
from minimcp.rpc import RpcError, memory_pair
from minimcp.server import Server, assistant
from minimcp.server.elicitation import (
    UrlElicitationRequired,
    elicit,
    elicit_url,
    elicitation_complete,
)
from minimcp.server.sampling import create_message, text_of
from minimcp.session import RequestContext
from minimcp.session.forms import supports_mode

Answer = Callable[[str, dict[str, Any]], Awaitable[Any]]

MODEL_ANSWER = {
    "role": "assistant",
    "content": {"type": "text", "text": "Paris."},
    "model": "test-model",
    "stopReason": "endTurn",
}
FORM = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "age": {"type": "integer", "minimum": 0, "default": 30},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
    },
    "required": ["name"],
}


class Recorder:
    """The client's side: records each request it is sent and answers with the next scripted
    reply."""

    def __init__(self, *replies: Any) -> None:
        self.replies = list(replies)
        self.received: list[tuple[str, dict[str, Any]]] = []
        self.notes: list[tuple[str, dict[str, Any]]] = []

    async def on_request(self, method: str, params: dict[str, Any]) -> Any:
        self.received.append((method, params))
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply

    async def on_notification(self, method: str, params: dict[str, Any]) -> None:
        self.notes.append((method, params))


@asynccontextmanager
async def talking_to(
    server: Server, capabilities: dict[str, Any], recorder: Recorder
) -> AsyncIterator[Client]:
    """A minimcp client declaring ``capabilities``, whose ``recorder`` answers the server's
    requests."""
    client_end, server_end = memory_pair()
    serving = asyncio.ensure_future(server.serve(server_end))
    try:
        async with Client(
            client_end,
            capabilities=capabilities,
            on_request=recorder.on_request,
            on_notification=recorder.on_notification,
        ) as client:
            yield client
    finally:
        await asyncio.wait_for(serving, TIMEOUT)


def asking_server() -> Server:
    server = Server("asking")

    @server.tool()
    async def ask(question: str, context: RequestContext) -> str:
        """Ask the client's model, with every option."""
        messages = [question, assistant("Let me think."), "Go on."]
        answer = await create_message(
            context,
            messages,
            max_tokens=40,
            system_prompt="Be brief.",
            temperature=0.2,
            stop_sequences=["\n\n"],
            model_preferences={"hints": [{"name": "small"}], "speedPriority": 0.9},
            timeout=TIMEOUT,
        )
        return f"{answer['model']}: {text_of(answer)}"

    @server.tool()
    async def ask_plainly(question: str, context: RequestContext) -> str:
        """Ask with a single string and nothing else."""
        return text_of(await create_message(context, question, max_tokens=10, timeout=TIMEOUT))

    @server.tool()
    async def ask_with_tools(context: RequestContext) -> str:
        """Sampling that offers the model a tool."""
        answer = await create_message(
            context,
            "Weather in Paris?",
            max_tokens=100,
            timeout=TIMEOUT,
            tools=[{"name": "weather", "inputSchema": {"type": "object"}}],
            tool_choice={"mode": "auto"},
        )
        return answer["stopReason"]

    @server.tool()
    async def fill_form(context: RequestContext) -> str:
        """Ask the user for a form."""
        answer = await elicit(context, "Tell me about you", FORM, timeout=TIMEOUT)
        return f"{answer['action']} {answer.get('content')}"

    @server.tool()
    async def open_page(context: RequestContext) -> str:
        """Send the user to a page."""
        answer = await elicit_url(
            context, "Please sign in", "https://example.com/connect?e=42", "e-42", timeout=TIMEOUT
        )
        await elicitation_complete(context.session, "e-42")
        return answer["action"]

    @server.tool()
    async def broken_form(context: RequestContext) -> str:
        """A form with a nested object, which forms do not allow."""
        await elicit(
            context, "Nested?", {"type": "object", "properties": {"address": {"type": "object"}}}
        )
        return "unreachable"

    return server


async def call(
    client: Client, name: str, arguments: dict[str, Any] | None = None
) -> dict[str, Any]:
    return await client.call_tool(name, arguments, timeout=TIMEOUT)


def error_text(result: dict[str, Any]) -> str:
    assert result["isError"] is True
    return result["content"][0]["text"]


# -- sampling --------------------------------------------------------------------------------------
async def test_a_tool_samples_the_clients_model_and_gets_its_answer_as_a_dict() -> None:
    recorder = Recorder(
        MODEL_ANSWER,
        {
            **MODEL_ANSWER,
            "content": [{"type": "text", "text": "One, "}, {"type": "text", "text": "two."}],
        },
    )
    async with talking_to(asking_server(), {"sampling": {}}, recorder) as client:
        result = await call(client, "ask", {"question": "Capital of France?"})
        assert result == {"content": [{"type": "text", "text": "test-model: Paris."}]}
        assert (await call(client, "ask_plainly", {"question": "Count"}))["content"][0][
            "text"
        ] == "One, two."
    assert recorder.received == [
        (
            "sampling/createMessage",
            {
                "messages": [
                    {"role": "user", "content": {"type": "text", "text": "Capital of France?"}},
                    {"role": "assistant", "content": {"type": "text", "text": "Let me think."}},
                    {"role": "user", "content": {"type": "text", "text": "Go on."}},
                ],
                "maxTokens": 40,
                "systemPrompt": "Be brief.",
                "temperature": 0.2,
                "stopSequences": ["\n\n"],
                "modelPreferences": {"hints": [{"name": "small"}], "speedPriority": 0.9},
            },
        ),
        (
            "sampling/createMessage",
            {
                "messages": [{"role": "user", "content": {"type": "text", "text": "Count"}}],
                "maxTokens": 10,
            },
        ),
    ]


async def test_no_sampling_capability_no_request_and_the_model_reads_why() -> None:
    recorder = Recorder()
    async with talking_to(asking_server(), {"elicitation": {}}, recorder) as client:
        result = await call(client, "ask", {"question": "Capital of France?"})
        assert error_text(result) == (
            "The client did not declare the 'sampling' capability, so this server "
            "cannot send it sampling/createMessage"
        )
        await client.ping(TIMEOUT)
    assert recorder.received == []


async def test_sampling_with_tools_needs_the_tools_sub_capability() -> None:
    recorder = Recorder(
        {
            **MODEL_ANSWER,
            "stopReason": "toolUse",
            "content": [{"type": "tool_use", "id": "c1", "name": "weather", "input": {}}],
        }
    )
    async with talking_to(asking_server(), {"sampling": {}}, recorder) as client:
        assert error_text(await call(client, "ask_with_tools")) == (
            "The client did not declare 'sampling.tools', so this server cannot send it "
            "a sampling request with tools"
        )
    assert recorder.received == []
    async with talking_to(asking_server(), {"sampling": {"tools": {}}}, recorder) as client:
        assert (await call(client, "ask_with_tools"))["content"][0]["text"] == "toolUse"
    assert recorder.received[0][1]["tools"] == [
        {"name": "weather", "inputSchema": {"type": "object"}}
    ]
    assert recorder.received[0][1]["toolChoice"] == {"mode": "auto"}


async def test_a_refusal_or_a_malformed_answer_fails_the_tool_and_the_server_goes_on() -> None:
    rejected = RpcError(-1, "User rejected sampling request")  # the code the spec suggests
    recorder = Recorder(rejected, {"role": "assistant"}, "Paris", MODEL_ANSWER)
    async with talking_to(asking_server(), {"sampling": {}}, recorder) as client:
        assert error_text(await call(client, "ask_plainly", {"question": "?"})) == (
            "Tool ask_plainly failed: RpcError: User rejected sampling request"
        )
        assert error_text(await call(client, "ask_plainly", {"question": "?"})) == (
            "The client's answer to sampling/createMessage is not a message: {'role': 'assistant'}"
        )
        assert error_text(await call(client, "ask_plainly", {"question": "?"})) == (
            "The client's answer to sampling/createMessage is not a message: 'Paris'"
        )
        assert (await call(client, "ask_plainly", {"question": "?"}))["content"][0][
            "text"
        ] == "Paris."


def test_text_of_keeps_only_text_blocks() -> None:
    assert text_of({"content": {"type": "image", "data": "", "mimeType": "image/png"}}) == ""
    blocks = [{"type": "text", "text": "a"}, {"type": "tool_use"}, {"type": "text", "text": "b"}]
    assert text_of({"content": blocks}) == "ab"


# -- elicitation: form mode ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "reply",
    [
        {"action": "accept", "content": {"name": "Ada", "age": 36, "tags": ["a"]}},
        {"action": "decline"},
        {"action": "cancel"},
    ],
)
async def test_a_form_is_sent_without_mode_and_every_action_comes_back(
    reply: dict[str, Any],
) -> None:
    recorder = Recorder(reply)
    async with talking_to(asking_server(), {"elicitation": {}}, recorder) as client:
        text = (await call(client, "fill_form"))["content"][0]["text"]
    assert text == f"{reply['action']} {reply.get('content')}"
    assert recorder.received == [
        ("elicitation/create", {"message": "Tell me about you", "requestedSchema": FORM})
    ]


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ({"action": "accept", "content": {"age": 3}}, "'name' is a required property"),
        (
            {"action": "accept", "content": {"name": "Ada", "age": -1}},
            "age: -1 is less than the minimum of 0",
        ),
        (
            {"action": "accept", "content": {"name": "Ada", "tags": ["c"]}},
            "tags/0: 'c' is not one of ['a', 'b']",
        ),
    ],
)
async def test_accepted_content_must_fit_the_schema(reply: dict[str, Any], problem: str) -> None:
    recorder = Recorder(reply, {"action": "decline"})
    async with talking_to(asking_server(), {"elicitation": {"form": {}}}, recorder) as client:
        assert error_text(await call(client, "fill_form")) == (
            f"The client's answer does not fit the requested schema: {problem}"
        )
        assert (await call(client, "fill_form"))["content"][0]["text"] == "decline None"


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ({"action": "accept"}, 'The user accepted the form but the client sent no "content"'),
        (
            {"action": "maybe"},
            'The client\'s answer to elicitation/create has no valid "action": '
            "{'action': 'maybe'}",
        ),
        (
            ["accept"],
            "The client's answer to elicitation/create has no valid \"action\": ['accept']",
        ),
    ],
)
async def test_a_malformed_answer_fails_the_tool(reply: Any, message: str) -> None:
    recorder = Recorder(reply)
    async with talking_to(asking_server(), {"elicitation": {}}, recorder) as client:
        assert error_text(await call(client, "fill_form")) == message
        await client.ping(TIMEOUT)


async def test_no_elicitation_capability_or_no_form_mode_means_no_request() -> None:
    recorder = Recorder()
    async with talking_to(asking_server(), {"sampling": {}}, recorder) as client:
        assert error_text(await call(client, "fill_form")) == (
            "The client did not declare the 'elicitation' capability, so this server cannot "
            "send it elicitation/create"
        )
    async with talking_to(asking_server(), {"elicitation": {"url": {}}}, recorder) as client:
        assert error_text(await call(client, "fill_form")) == (
            "The client's elicitation capability does not include form mode"
        )
        await client.ping(TIMEOUT)
    assert recorder.received == []


async def test_a_schema_forms_cannot_show_is_the_servers_bug(
    caplog: pytest.LogCaptureFixture,
) -> None:
    recorder = Recorder()
    async with talking_to(asking_server(), {"elicitation": {}}, recorder) as client:
        assert error_text(await call(client, "broken_form")) == (
            "Tool broken_form failed with an internal error (the server's log has the details)"
        )
        assert (
            "form field 'address': the type must be one of array, boolean, integer, number, string"
            in caplog.text
        )
    assert recorder.received == []


def test_modes_from_the_capability() -> None:
    # {} is form mode, for older clients
    assert supports_mode({}, "form") and not supports_mode({}, "url")
    assert supports_mode({"form": {}}, "form") and not supports_mode({"form": {}}, "url")
    assert supports_mode({"url": {}}, "url") and not supports_mode({"url": {}}, "form")
    assert supports_mode({"form": {}, "url": {}}, "form") and supports_mode(
        {"form": {}, "url": {}}, "url"
    )


# -- elicitation: URL mode -------------------------------------------------------------------------
async def test_url_mode_sends_the_url_and_an_id_and_may_announce_completion() -> None:
    recorder = Recorder({"action": "accept"})
    async with talking_to(asking_server(), {"elicitation": {"url": {}}}, recorder) as client:
        assert (await call(client, "open_page"))["content"][0]["text"] == "accept"
    assert recorder.received == [
        (
            "elicitation/create",
            {
                "mode": "url",
                "message": "Please sign in",
                "url": "https://example.com/connect?e=42",
                "elicitationId": "e-42",
            },
        )
    ]
    assert ("notifications/elicitation/complete", {"elicitationId": "e-42"}) in recorder.notes


async def test_url_mode_needs_the_url_capability() -> None:
    recorder = Recorder()
    async with talking_to(asking_server(), {"elicitation": {}}, recorder) as client:
        assert error_text(await call(client, "open_page")) == (
            "The client's elicitation capability does not include url mode"
        )
    assert recorder.received == []


# -- the client side -------------------------------------------------------------------------------
async def test_a_client_without_on_request_refuses_with_method_not_found() -> None:
    server = asking_server()
    client_end, server_end = memory_pair()
    serving = asyncio.ensure_future(server.serve(server_end))
    # It *claims* sampling but cannot answer: the server hears -32601 and the tool reports it.
    async with Client(client_end, capabilities={"sampling": {}}) as client:
        assert error_text(await call(client, "ask_plainly", {"question": "?"})) == (
            "Tool ask_plainly failed: RpcError: Method not found: sampling/createMessage"
        )
        await client.ping(TIMEOUT)
    await asyncio.wait_for(serving, TIMEOUT)


# -- URL elicitation required: -32042 --------------------------------------------------------------
def test_a_required_url_elicitation_must_be_one() -> None:
    with pytest.raises(ValueError, match=r'each required elicitation is \{"mode": "url"'):
        UrlElicitationRequired([{"mode": "form", "message": "Name?"}])


async def test_a_tool_may_answer_its_call_with_url_elicitation_required() -> None:
    """-32042 answers the tools/call itself (the client acts on it), unlike every other failure of a
    tool."""
    server = Server("needs-a-sign-in")
    needed = {
        "mode": "url",
        "elicitationId": "e-7",
        "url": "https://calendar.example.com/connect?e=e-7",
        "message": "Connect your calendar first.",
    }

    @server.tool()
    def read_calendar() -> str:
        """Read the calendar, once it is connected."""
        raise UrlElicitationRequired([needed])

    async with talking_to(server, {"elicitation": {"url": {}}}, Recorder()) as client:
        with pytest.raises(RpcError) as raised:
            await client.call_tool("read_calendar", timeout=TIMEOUT)
        assert (raised.value.code, raised.value.message, raised.value.data) == (
            -32042,
            "This request requires more information.",
            {"elicitations": [needed]},
        )
        await client.ping()


async def test_the_server_refuses_to_send_an_unbalanced_tool_loop() -> None:
    """A tool loop that lost a tool result is the server's bug: create_message says so before
    sending."""
    server = Server("loop")

    @server.tool()
    async def lost_track(context: RequestContext) -> str:
        """Sample with a tool use and no result."""
        use = {
            "role": "assistant",
            "content": {"type": "tool_use", "id": "c1", "name": "weather", "input": {}},
        }
        try:
            await create_message(
                context, ["Weather?", use], max_tokens=10, tools=[{"name": "weather"}]
            )
        except ValueError as problem:
            return str(problem)
        return "sent"

    recorder = Recorder()
    async with talking_to(server, {"sampling": {"tools": {}}}, recorder) as client:
        result = await client.call_tool("lost_track", timeout=TIMEOUT)
    assert (
        result["content"][0]["text"]
        == "Tool result missing in request (the last message uses ['c1'])"
    )
    assert recorder.received == []  # nothing was sent
