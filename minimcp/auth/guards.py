"""The resource server's checks in front of each network cable (lesson 10).

:class:`ProtectedEndpoint` wraps lesson 08's ASGI application and knows nothing of MCP but the one
thing a per-tool scope needs: the name in a ``tools/call``. It also binds each session to the user
who opened it: a session id is not a credential, and another user's token must not reach into it.
The binding lives exactly as long as the session: the session manager tells the guard when one
ends (expired, deleted, or stopped), and nothing else forgets it.
``start_http(server, around=protect(...))`` puts it in front of the Streamable HTTP endpoint.

A WebSocket is checked once, on its upgrade request: ``start_websocket(server,
authorize=websocket_guard(...))``.

The checks themselves, and the refusals, are :mod:`minimcp.auth.resource`'s.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from minimcp.auth.resource import AuthRefusal, BearerGuard, ProtectedResource
from minimcp.transports.framing import DEFAULT_MAX_FRAME
from minimcp.transports.http.app import StreamableHTTP
from minimcp.transports.http.asgi import (
    SESSION_HEADER,
    VERSION_HEADER,
    HttpRequest,
    Receive,
    Refusal,
    Scope,
    Send,
    read_body,
    send_refusal,
    send_response,
)
from minimcp.transports.http.sessions import SessionManager

App = Callable[[Scope, Receive, Send], Any]


# --8<-- [start:endpoint]
class ProtectedEndpoint(BearerGuard):
    """An ASGI app that lets a request reach ``app`` only with a valid token for ``resource``."""

    def __init__(
        self, app: App, resource: ProtectedResource, max_body: int = DEFAULT_MAX_FRAME
    ) -> None:
        super().__init__(resource)
        self.app = app
        self.max_body = max_body
        # Mcp-Session-Id → the sub that opened it, for as long as the session is open
        self.owners: dict[str, str] = {}
        self.sessions: SessionManager | None = None  # the sessions watched (see watch)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan: nothing to guard
            await self.app(scope, receive, send)
            return
        request = HttpRequest.from_scope(scope)
        # Public, and readable from a browser page (CORS)
        if request.path in self.resource.metadata_paths():
            if request.method == "OPTIONS":
                await send_response(
                    send,
                    204,
                    headers={
                        "access-control-allow-origin": "*",
                        "access-control-allow-headers": VERSION_HEADER,
                    },
                )
                return
            body = json.dumps(self.resource.metadata()).encode()
            await send_response(
                send, 200, body, "application/json", {"access-control-allow-origin": "*"}
            )
            return
        if request.path != self.resource.path:  # not ours to guard: the app answers (404)
            await self.app(scope, receive, send)
            return
        try:
            claims = self.check_token(request, scope.get("query_string", b""))
            receive = await self.check_request(request, claims, receive)
        except AuthRefusal as refusal:  # RFC 6750's JSON error body, with the challenge header
            body = json.dumps(
                {"error": refusal.error, "error_description": str(refusal)}
                if refusal.error
                else {"error_description": str(refusal)}
            ).encode()
            await send_response(send, refusal.status, body, "application/json", refusal.headers)
            return
        except Refusal as refusal:  # what the endpoint itself would answer (a body too large, ...)
            await send_refusal(send, refusal)
            return
        # The user, not the address, owns the sessions this request opens (a cap per user)
        owned = {**scope, "auth": claims, "owner": claims["sub"]}
        await self.app(owned, receive, self.bind_session(request, claims, send))

    # --8<-- [end:endpoint]

    # --8<-- [start:check_request]
    async def check_request(
        self, request: HttpRequest, claims: Mapping[str, Any], receive: Receive
    ) -> Receive:
        """Another user's session is not found; a tool with scopes of its own needs them too.

        Reading a POST's body to find the tool consumes it, so what the app receives is a replay.
        """
        session_id = request.headers.get(SESSION_HEADER)
        if (
            session_id is not None
            and session_id in self.owners
            and self.owners[session_id] != claims["sub"]
        ):
            # Exactly what an unknown session gets from the endpoint: no hint that it exists.
            raise Refusal(404, "Session not found: it expired or was ended; initialize a new one")
        if request.method != "POST" or not self.resource.tool_scopes:
            return receive
        body = await read_body(receive, self.max_body)
        self.require(claims, self.resource.tool_scopes.get(tool_called(body) or "", []))
        return replay(body, receive)

    # --8<-- [end:check_request]

    def watch(self, sessions: SessionManager) -> None:
        """Forget a session's owner when the session ends, and only then: however many sessions
        others open, and whatever a refused DELETE said, the binding lasts as the session does."""
        self.sessions = sessions
        sessions.on_forget.append(self.unbind)

    def unbind(self, session_id: str) -> None:
        self.owners.pop(session_id, None)

    def bind_session(self, request: HttpRequest, claims: Mapping[str, Any], send: Send) -> Send:
        """Remember who opened each session: the Mcp-Session-Id sent to a request without one."""
        if SESSION_HEADER in request.headers:
            return send

        async def send_and_remember(event: dict[str, Any]) -> None:
            if event["type"] == "http.response.start":
                for name, value in event.get("headers", []):
                    session_id = value.decode("latin-1")
                    if name.lower() == SESSION_HEADER.encode() and self.is_open(session_id):
                        self.owners[session_id] = claims["sub"]
            await send(event)

        return send_and_remember

    def is_open(self, session_id: str) -> bool:
        """Whether the session still lives (one that ended at once must leave no binding)."""
        return self.sessions is None or session_id in self.sessions.sessions


def tool_called(body: bytes) -> str | None:
    """The tool a ``tools/call`` body names; None for any other message, or one that is not JSON."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):  # not JSON, or nested too deep: the endpoint says so
        return None
    if (
        isinstance(message, dict)
        and message.get("method") == "tools/call"
        and isinstance(message.get("params"), dict)
    ):
        name = message["params"].get("name")
        return name if isinstance(name, str) else None
    return None


def replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the app the body already read, then what the connection says next
    (its disconnect, which a streaming answer watches for)."""
    sent = False

    async def receive_again() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return receive_again


def protect(
    issuer: str,
    keys: Mapping[str, Any],
    *,
    scopes: Iterable[str] = (),
    tool_scopes: Mapping[str, list[str]] | None = None,
    name: str | None = None,
) -> Callable[[str, StreamableHTTP], ProtectedEndpoint]:
    """``start_http(server, around=protect(...))``: the endpoint, guarded, once its URL is known."""

    def around(url: str, app: StreamableHTTP) -> ProtectedEndpoint:
        endpoint = ProtectedEndpoint(
            app, ProtectedResource(url, issuer, keys, list(scopes), dict(tool_scopes or {}), name)
        )
        endpoint.watch(app.manager)
        return endpoint

    return around


def websocket_guard(
    issuer: str, keys: Mapping[str, Any], *, scopes: Iterable[str] = ()
) -> Callable[[str, str, Mapping[str, str], bytes], tuple[int, dict[str, str], str] | None]:
    """``start_websocket(server, authorize=websocket_guard(...))``: the same rules over WebSocket.

    A WebSocket's one HTTP request is its upgrade; once accepted, the socket stays open, so the
    token is checked there (its audience is the ``ws://`` URL). The same port answers the metadata's
    plain GETs. Each answer is (status, headers, body); None lets the request go on.
    """
    guards: dict[str, BearerGuard] = {}

    def authorize(
        url: str, path: str, headers: Mapping[str, str], query: bytes
    ) -> tuple[int, dict[str, str], str] | None:
        guard = guards.setdefault(
            url, BearerGuard(ProtectedResource(url, issuer, keys, list(scopes)))
        )
        if path in guard.resource.metadata_paths():
            return 200, {"Content-Type": "application/json"}, json.dumps(guard.resource.metadata())
        if path != guard.resource.path:
            return None  # not ours: the endpoint answers (404)
        try:
            guard.check_token(HttpRequest("GET", path, dict(headers)), query)
        except AuthRefusal as refusal:
            return refusal.status, refusal.headers, f"{refusal}\n"
        return None

    return authorize
