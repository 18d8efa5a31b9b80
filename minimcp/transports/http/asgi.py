"""ASGI plumbing: an HTTP request in, an HTTP response out, nothing of MCP (lesson 08).

ASGI is the interface between an async Python web server (uvicorn) and an application: the
application is a coroutine called once per HTTP request with ``scope`` (method, path, headers),
``receive`` (the body, and news of a disconnect) and ``send`` (the status and headers, then the
body, in as many pieces as it likes: that is what makes streaming possible).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from minimcp.rpc.jsonrpc import INVALID_REQUEST, ErrorResponse, RequestId, encode

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

#: The headers Streamable HTTP adds (lower-case, as :class:`HttpRequest` keeps them): the session a
#: request belongs to, the protocol version it speaks, and the last event a resuming client saw.
SESSION_HEADER = "mcp-session-id"
VERSION_HEADER = "mcp-protocol-version"
LAST_EVENT_ID = "last-event-id"


@dataclass
class HttpRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names; a repeated header's values joined with ", "
    # Whose sessions the request counts among, for the cap of sessions per owner: the ASGI scope's
    # "owner" if an app in front named one (lesson 10's guard: the token's user), else the peer's
    # address. On one machine every client is 127.0.0.1: one owner.
    owner: str = ""
    # Who the request is from, if an app in front authenticated them (lesson 10's guard names the
    # token's user in the scope's "owner"); None if nobody did. Lesson 12 binds what it hands the
    # client to carry back (a request state) to this principal.
    principal: str | None = None

    @classmethod
    def from_scope(cls, scope: Scope) -> HttpRequest:
        headers: dict[str, str] = {}
        for raw_name, raw_value in scope["headers"]:
            name, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        peer = scope.get("client") or ("", 0)
        principal = scope.get("owner")
        owner = peer[0] if principal is None else principal
        return cls(scope["method"], scope["path"], headers, owner, principal)

    def accepts(self, media_type: str) -> bool:
        """Does the ``Accept`` header allow ``media_type`` (wildcards included)?"""
        kind = media_type.split("/")[0]
        for item in self.headers.get("accept", "").split(","):
            offered = item.split(";")[0].strip().lower()
            if offered in (media_type, f"{kind}/*", "*/*"):
                return True
        return False


#: What a request gets while the server stops: a new session (lesson 08) and a 2026-07-28 request
#: still in flight or newly come (lesson 12) alike.
SHUTTING_DOWN = "Service unavailable: the server is shutting down"


class Refusal(Exception):
    """An HTTP error answer: the status, and a JSON-RPC error (without an id) as its body."""

    def __init__(
        self,
        status: int,
        message: str,
        code: int = INVALID_REQUEST,
        headers: dict[str, str] | None = None,
        request_id: RequestId | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.headers = headers or {}
        self.request_id = request_id


async def send_response(
    send: Send,
    status: int,
    body: bytes = b"",
    content_type: str | None = None,
    headers: dict[str, str] | None = None,
) -> None:
    """A whole, ordinary HTTP response in one go."""
    raw = [
        (name.encode("latin-1"), value.encode("latin-1")) for name, value in (headers or {}).items()
    ]
    if content_type:
        raw.append((b"content-type", content_type.encode("latin-1")))
    raw.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


async def send_refusal(send: Send, refusal: Refusal) -> None:
    error = ErrorResponse(refusal.request_id, refusal.code, str(refusal))
    await send_response(
        send, refusal.status, encode(error).encode(), "application/json", refusal.headers
    )


async def read_body(receive: Receive, limit: int) -> bytes:
    """The request body, or :class:`Refusal` 413 as soon as it grows past ``limit`` bytes."""
    chunks, size = [], 0
    while True:
        event = await receive()
        if event["type"] == "http.disconnect":
            raise ConnectionError("the client went away while sending its request")
        chunk = event.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise Refusal(413, f"Request body larger than {limit} bytes")
        chunks.append(chunk)
        if not event.get("more_body", False):
            return b"".join(chunks)
