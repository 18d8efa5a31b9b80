"""The 2026-07-28 era on lesson 08's endpoint: requests that stand alone (lesson 12).

Lesson 08's :class:`~minimcp.transports.http.app.StreamableHTTP` serves every request in a session,
and asks a :class:`~minimcp.transports.http.seams.StandAlone` strategy first whether a request needs
none. :class:`Revision2026` is lesson 12's strategy: it recognises a 2026-07-28 request by its
headers and its envelope, and serves it with :func:`~minimcp.transports.http.modern.serve_one`::

    StreamableHTTP(server, stand_alone=Revision2026(server))     # both eras on one endpoint
    start_http(server, stand_alone=Revision2026(server))         # the same, on uvicorn

One endpoint then serves both eras: a client of the initialize era gets lesson 08's sessions, a
2026-07-28 client gets one answer per POST, and neither notices the other.
"""

from __future__ import annotations

from typing import Protocol

from minimcp.rpc.jsonrpc import Message, Request
from minimcp.rpc.mcp import has_envelope
from minimcp.transports.http.asgi import (
    SESSION_HEADER,
    VERSION_HEADER,
    HttpRequest,
    Receive,
    Refusal,
    Send,
)
from minimcp.transports.http.modern import AloneServer, InFlight, serve_one


class ModernServer(AloneServer, Protocol):
    """A server of both eras: the initialize era's versions, and the 2026 ones it serves request by
    request (empty: it serves none, like a 2025 server)."""

    protocol_versions: tuple[str, ...]
    modern_versions: tuple[str, ...]


# --8<-- [start:revision_2026]
class Revision2026:
    """2026-07-28, as a :class:`~minimcp.transports.http.seams.StandAlone` strategy for lesson 08's
    endpoint."""

    def __init__(self, server: ModernServer) -> None:
        self.server = server
        self.in_flight = InFlight()  # what a server that stops still answers

    def screen(self, request: HttpRequest) -> None:
        """A 2026-07-28 client has no session to GET or DELETE: POST is all there is."""
        version = request.headers.get(VERSION_HEADER)
        if version in self.server.modern_versions:
            raise Refusal(
                405,
                f"Method not allowed: {request.method} (MCP {version} is served over POST only)",
                headers={"allow": "POST"},
            )

    def takes(self, request: HttpRequest, message: Message) -> bool:
        """Whether a POST speaks 2026-07-28: its version header names no version of the initialize
        era, and it either names a 2026 one or carries the 2026 envelope; or, with no header and no
        session, the body carries the envelope (then the missing header is refused)."""
        if not self.server.modern_versions:
            return False
        version = request.headers.get(VERSION_HEADER)
        envelope = isinstance(message, Request) and has_envelope(message.params)
        if version is None:
            return envelope and SESSION_HEADER not in request.headers
        return version not in self.server.protocol_versions and (
            version in self.server.modern_versions or envelope
        )

    async def serve(
        self,
        request: HttpRequest,
        message: Message,
        send: Send,
        receive: Receive,
        stream_after: float,
        keepalive: float,
    ) -> None:
        """One request, answered with no session around it."""
        await serve_one(
            self.server, request, message, send, receive, stream_after, keepalive, self.in_flight
        )

    async def close(self) -> None:
        """The server stops: every request in flight gets its last answer now."""
        self.in_flight.stop()


# --8<-- [end:revision_2026]
