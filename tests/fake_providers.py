"""A model provider on loopback, for the tests: it speaks the Anthropic Messages API and OpenAI's
Chat Completions as their documentation writes them, and answers what the test scripted.

One small ASGI app, served by uvicorn on 127.0.0.1 and a free port in the test's own event loop
(started and waited for as the other HTTP tests do: ``launch`` and ``started``). It records every
request (path, headers, JSON body), so a test checks what minimcp sent, and answers each with the
next :class:`Reply` of its script: a text answer, tool calls, or an HTTP error with the body and
headers the real API sends. No internet, no key, no luck.

* Anthropic: ``POST /v1/messages``; the model's base URL is :attr:`FakeProvider.url`.
* OpenAI: ``POST /v1/chat/completions``; the base URL is ``url + "/v1"``.

On the host's side, :func:`calendar_server` has a tool for every kind of result (text, image,
structured content, error), and :func:`host_with` connects a host to it in memory.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Annotated, Any

from minimcp.client import Client
from minimcp.host import Host
from minimcp.host.providers import AnthropicModel, OpenAIModel
from minimcp.rpc import memory_pair
from minimcp.server import Server, ToolError, ToolResult, image_content, text_content
from minimcp.transports.http.server import bind, launch, started

#: A key a test hands the chat: recognisable, so a test can prove it is printed nowhere.
FAKE_KEY = "sk-test-NEVER-PRINT-ME-0123456789abcdef"
#: The image :func:`calendar_server`'s ``chart`` returns (not a real PNG: nobody looks).
PNG = b"\x89PNG\r\n\x1a\n-a-tiny-chart-"
#: How long a test waits for one step (a handshake in memory).
STEP = 10.0


@dataclass
class Reply:
    """One scripted answer: a status, a JSON body, headers; ``hang``: no answer until the end."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    hang: bool = False


@dataclass
class Seen:
    """One request the fake received."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class FakeProvider:
    """The ASGI app: records each request, answers with the script's next reply."""

    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.seen: list[Seen] = []
        self.url = ""
        self.arrived = asyncio.Event()  # set at each request (for a test that waits for one)
        self.released = asyncio.Event()  # a hanging reply waits for this (set at the end)
        self.models: list[Any] = []  # the models talking to it, closed when it stops

    def owns(self, model: Any) -> Any:
        """``model``, which talks to this fake: its connections are closed when the fake stops,
        on the test's own event loop (a provider's client left to the garbage collector closes
        them on whichever loop runs then, and a later test logs the failure)."""
        self.models.append(model)
        return model

    def script(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [seen.body for seen in self.seen]

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "http"
        raw = b""
        while True:
            message = await receive()
            raw += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {name.decode(): value.decode() for name, value in scope["headers"]}
        self.seen.append(Seen(scope["path"], headers, json.loads(raw or b"{}")))
        self.arrived.set()
        reply = self.replies.popleft() if self.replies else Reply(500, {"error": "unscripted"})
        if reply.hang:
            await self.released.wait()
        response_headers = [(b"content-type", b"application/json")]
        response_headers += [(k.encode(), v.encode()) for k, v in reply.headers.items()]
        start = {"type": "http.response.start", "status": reply.status}
        await send({**start, "headers": response_headers})
        await send({"type": "http.response.body", "body": json.dumps(reply.body).encode()})


@asynccontextmanager
async def fake_provider() -> AsyncIterator[FakeProvider]:
    """A :class:`FakeProvider` listening on a free loopback port, until the block ends."""
    fake = FakeProvider()
    sock = bind("127.0.0.1", 0)
    fake.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    server, serving = launch(fake, sock, lifespan="off")
    try:
        await started(server, serving)
        yield fake
    finally:
        fake.released.set()
        for model in fake.models:
            await model.aclose()
        server.should_exit = True
        await asyncio.wait_for(serving, 10)


# -- Anthropic Messages API: the bodies its documentation shows ----------------------------------
def claude_text(text: str, stop: str = "end_turn", model: str = "claude-test-1") -> Reply:
    """A Message with one text block."""
    return Reply(body=claude_message([{"type": "text", "text": text}], stop, model))


def claude_tools(*calls: tuple[str, str, dict[str, Any]], text: str | None = None) -> Reply:
    """A Message asking for tools: ``(id, name, input)`` each, maybe after some text."""
    content = [{"type": "text", "text": text}] if text else []
    content += [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in calls]
    return Reply(body=claude_message(content, "tool_use", "claude-test-1"))


def claude_message(content: list[dict[str, Any]], stop: str, model: str) -> dict[str, Any]:
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 7},
    }


def claude_error(status: int, kind: str, message: str, **headers: str) -> Reply:
    """An error as the API sends it: ``{"type": "error", "error": {"type", "message"}}``."""
    body = {"type": "error", "error": {"type": kind, "message": message}}
    return Reply(status, body, {k.replace("_", "-"): v for k, v in headers.items()})


# -- OpenAI Chat Completions: the bodies its documentation shows ---------------------------------
def gpt_text(text: str, finish: str = "stop", model: str = "gpt-test-1") -> Reply:
    """A chat completion whose message is text."""
    return Reply(body=gpt_completion({"role": "assistant", "content": text}, finish, model))


def gpt_tools(*calls: tuple[str, str, dict[str, Any]]) -> Reply:
    """A chat completion asking for tools: ``(id, name, arguments)`` each."""
    tool_calls = [
        {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
        for i, n, a in calls
    ]
    message = {"role": "assistant", "content": None, "tool_calls": tool_calls}
    return Reply(body=gpt_completion(message, "tool_calls", "gpt-test-1"))


def gpt_completion(message: dict[str, Any], finish: str, model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-01",
        "object": "chat.completion",
        "created": 1767225600,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19},
    }


def gpt_error(status: int, message: str, code: str | None = None, **headers: str) -> Reply:
    """An error as the API sends it: ``{"error": {"message", "type", "param", "code"}}``."""
    error = {"message": message, "type": "invalid_request_error", "param": None, "code": code}
    return Reply(status, {"error": error}, {k.replace("_", "-"): v for k, v in headers.items()})


# -- the host's side ------------------------------------------------------------------------------
def calendar_server() -> Server:
    """A server whose tools answer in every way a tool can: text, an image, structured content,
    and an error."""
    server = Server("calendar")

    @server.tool()
    def read_events(date: Annotated[str, "YYYY-MM-DD"]) -> str:
        """Read the events of a day."""
        return f"Events for {date}:\n- 09:00 Daily meeting"

    @server.tool()
    def chart() -> ToolResult:
        """The week, as a chart."""
        return ToolResult(content=[text_content("This week:"), image_content(PNG, "image/png")])

    @server.tool(output_schema={"type": "object", "properties": {"events": {"type": "integer"}}})
    def stats() -> dict[str, Any]:
        """How busy the week is."""
        return {"events": 4}

    @server.tool()
    def broken() -> str:
        """Always fails."""
        raise ToolError("the disk is full")

    return server


def claude_at(fake: FakeProvider, **options: Any) -> AnthropicModel:
    """An Anthropic model whose API is ``fake``."""
    model = AnthropicModel("claude-test-1", base_url=fake.url, api_key=FAKE_KEY, **options)
    return fake.owns(model)  # type: ignore[no-any-return]


def gpt_at(fake: FakeProvider, **options: Any) -> OpenAIModel:
    """An OpenAI model whose API is ``fake``."""
    model = OpenAIModel("gpt-test-1", base_url=fake.url + "/v1", api_key=FAKE_KEY, **options)
    return fake.owns(model)  # type: ignore[no-any-return]


async def host_with(model: Any, **options: Any) -> Host:
    """A host with ``model``, connected to :func:`calendar_server` over an in-memory cable (use it
    as ``async with await host_with(model) as host``)."""
    client_end, server_end = memory_pair()
    asyncio.ensure_future(calendar_server().serve(server_end))  # ends when the host closes
    host = Host(model, **options)
    await asyncio.wait_for(host.connect("calendar", Client(client_end)), STEP)
    return host
