"""What the client's HTTP transport remembers of the MCP handshake it carries (lesson 08).

Streamable HTTP asks two things of a client that other cables do not (spec 2025-11-25,
basic/transports): to send the negotiated version in an ``MCP-Protocol-Version`` header on every
request after ``initialize``, and, when the server answers 404 for its session, to start a new
session (the handshake again) before trying once more. So the transport keeps the ``initialize``
request and the ``initialized`` notification it carried, and reads the version from the one answer
that has it: ``initialize``'s. (The session layer keeps its own record of the handshake; this is
only what the cable itself needs to speak HTTP.)
"""

from __future__ import annotations

import httpx2

from minimcp.rpc.jsonrpc import Message, Notification, Request, Response, parse
from minimcp.transports.sse import SSEParser


class SessionExpired(Exception):
    """The server answered 404 for our session id: the session is gone."""


def content_type(response: httpx2.Response) -> str:
    """The media type of a response, without parameters: ``"text/event-stream"``."""
    value: str = response.headers.get("content-type", "")
    return value.split(";")[0].strip().lower()


class Handshake:
    """The ``initialize`` request, the ``initialized`` notification, and the version agreed."""

    def __init__(self) -> None:
        self.initialize: Request | None = None
        self.initialized: Notification | None = None
        self.protocol_version: str | None = None  # sent as MCP-Protocol-Version once known

    def sent(self, message: Message) -> None:
        """The client sent ``message``: remember it if it is part of the handshake."""
        if isinstance(message, Request) and message.method == "initialize":
            self.initialize, self.protocol_version = message, None
        elif isinstance(message, Notification) and message.method == "notifications/initialized":
            self.initialized = message

    def received(self, answer: Message) -> None:
        """The server sent ``answer``: if it answers ``initialize``, learn the version from it."""
        if self.initialize is None or self.protocol_version is not None:
            return  # nothing to learn: only one answer carries the version
        if (
            isinstance(answer, Response)
            and answer.id == self.initialize.id
            and isinstance(answer.result, dict)
        ):
            self.protocol_version = answer.result.get("protocolVersion")

    async def read_answer(self, response: httpx2.Response) -> None:
        """Read the answer to a repeated ``initialize`` (JSON or SSE) only to learn its version.

        Nobody else reads this answer: it is parsed here, once."""
        if content_type(response) != "text/event-stream":
            self.received(parse(await response.aread()))
            return
        parser = SSEParser()
        async for chunk in response.aiter_bytes():
            for event in parser.feed(chunk):
                if event.data:
                    self.received(parse(event.data))
                    if self.protocol_version is not None:
                        return
