"""The MCP server as an OAuth 2.1 resource server: a guard in front of the endpoint (lesson 10).

Over stdio a server trusts the process that started it. On a network address anyone can call, so a
protected server lets a request through only with a valid access token (spec 2025-11-25,
basic/authorization):

* **no token**: ``401`` with ``WWW-Authenticate: Bearer resource_metadata="…", scope="…"``: where to
  read how to get one, and which scopes to ask for;
* **the metadata** (RFC 9728, *Protected Resource Metadata*) at the well-known URL: this resource's
  canonical URI, its authorization servers, its scopes;
* **a bad token** (forged, expired, for another server…): ``401``, ``error="invalid_token"``, why;
* **a good token without a scope this request needs**: ``403``, ``error="insufficient_scope"``, and
  the scope to ask for (the client may *step up*: ask the user for more, and try again);
* **a malformed header, or a token in the URL**: ``400``, ``error="invalid_request"``.

:class:`ProtectedEndpoint` wraps lesson 08's ASGI application and knows nothing of MCP but the one
thing a per-tool scope needs: the name in a ``tools/call``. It also binds each session to the user
who opened it: a session id is not a credential, and another user's token must not reach into it.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from minimcp.auth.bearer import MalformedAuthorization, bearer_token, challenge
from minimcp.auth.tokens import InvalidToken, TokenVerifier, scopes_of
from minimcp.transports.framing import DEFAULT_MAX_FRAME
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

App = Callable[[Scope, Receive, Send], Any]
WELL_KNOWN = "/.well-known/oauth-protected-resource"
#: How many sessions' owners are remembered; the oldest are forgotten first.
MAX_BOUND_SESSIONS = 10_000


@dataclass
class ProtectedResource:
    """A protected MCP endpoint, for OAuth: its canonical URI, who issues its tokens, its scopes."""

    resource: str  # the canonical URI of the MCP endpoint: http://127.0.0.1:8000/mcp (RFC 8707)
    issuer: str  # the authorization server (its issuer identifier)
    keys: Mapping[str, Any]  # kid → the public keys the authorization server signs with
    scopes: list[str] = field(default_factory=list)  # needed for every request
    tool_scopes: dict[str, list[str]] = field(default_factory=dict)  # and more for some tools
    name: str | None = None

    def __post_init__(self) -> None:
        self.verifier = TokenVerifier(self.issuer, self.resource, self.keys)
        parts = urlsplit(self.resource)
        self.path = parts.path or "/"
        # The metadata is an HTTP document, even for a ws:// resource (whose server also answers
        # plain GETs).
        scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
        self.origin = f"{scheme}://{parts.netloc}"

    # --8<-- [start:metadata]
    def metadata(self) -> dict[str, Any]:
        """The Protected Resource Metadata document (RFC 9728, section 2)."""
        document: dict[str, Any] = {
            "resource": self.resource,
            "authorization_servers": [self.issuer],
            "scopes_supported": sorted(
                {*self.scopes, *(s for scopes in self.tool_scopes.values() for s in scopes)}
            ),
            "bearer_methods_supported": ["header"],  # never in the body, never in the URL
        }
        if self.name:
            document["resource_name"] = self.name
        return document

    def metadata_paths(self) -> list[str]:
        """Where the document is served: the path's URL (RFC 9728, section 3.1), then the root."""
        specific = WELL_KNOWN + self.path.rstrip("/") if self.path != "/" else WELL_KNOWN
        return [specific, WELL_KNOWN] if specific != WELL_KNOWN else [WELL_KNOWN]

    def metadata_url(self) -> str:
        return self.origin + self.metadata_paths()[0]

    # --8<-- [end:metadata]


class AuthRefusal(Refusal):
    """An OAuth error answer: a status, an RFC 6750 ``error`` code, and the challenge header."""

    def __init__(self, status: int, error: str | None, description: str, header: str) -> None:
        super().__init__(status, description, headers={"www-authenticate": header})
        self.error = error


class BearerGuard:
    """The checks on a request's bearer token, and the refusals the spec prescribes.

    Every cable with an HTTP request to check uses them: each request of Streamable HTTP, the
    upgrade of a WebSocket.
    """

    def __init__(self, resource: ProtectedResource) -> None:
        self.resource = resource

    # --8<-- [start:check_token]
    def check_token(self, request: HttpRequest, query: bytes) -> dict[str, Any]:
        """The token's claims, or the refusal the spec prescribes for what is wrong with it."""
        if "access_token" in parse_qs(query.decode("latin-1")):
            raise self.refuse(
                400,
                "invalid_request",
                "Access tokens go in the Authorization header, never in the URL",
            )
        try:
            token = bearer_token(request.headers.get("authorization"))
        except MalformedAuthorization as error:
            raise self.refuse(
                400, "invalid_request", f"Malformed Authorization header: {error}"
            ) from None
        # No error code: the client simply has not authenticated yet (RFC 6750, 3.1)
        if token is None:
            raise self.refuse(
                401, None, "Authorization required: a Bearer token from the authorization server"
            )
        try:
            claims = self.resource.verifier.verify(token)
        except InvalidToken as error:
            raise self.refuse(401, "invalid_token", str(error)) from None
        self.require(claims, self.resource.scopes)
        return claims

    def require(self, claims: Mapping[str, Any], needed: Iterable[str]) -> None:
        """403 ``insufficient_scope`` (naming all scopes needed) if the token lacks one of them."""
        needed = list(needed)
        missing = [scope for scope in needed if scope not in scopes_of(claims)]
        if missing:
            raise self.refuse(
                403,
                "insufficient_scope",
                f"The token lacks the scope {' '.join(missing)}",
                scope=" ".join(dict.fromkeys([*self.resource.scopes, *needed])),
            )

    def refuse(
        self, status: int, error: str | None, description: str, scope: str | None = None
    ) -> AuthRefusal:
        if scope is None and status == 401:
            scope = " ".join(self.resource.scopes) or None
        header = challenge(
            error=error,
            error_description=description if error else None,
            resource_metadata=self.resource.metadata_url(),
            scope=scope,
        )
        return AuthRefusal(status, error, description, header)

    # --8<-- [end:check_token]


# --8<-- [start:endpoint]
class ProtectedEndpoint(BearerGuard):
    """An ASGI app that lets a request reach ``app`` only with a valid token for ``resource``."""

    def __init__(
        self, app: App, resource: ProtectedResource, max_body: int = DEFAULT_MAX_FRAME
    ) -> None:
        super().__init__(resource)
        self.app = app
        self.max_body = max_body
        # Mcp-Session-Id → the sub that opened it
        self.owners: OrderedDict[str, str] = OrderedDict()

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
        await self.app({**scope, "auth": claims}, receive, self.bind_session(request, claims, send))

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

    def bind_session(self, request: HttpRequest, claims: Mapping[str, Any], send: Send) -> Send:
        """Remember who opened each session: the Mcp-Session-Id sent to a request without one."""
        if SESSION_HEADER in request.headers:
            if request.method == "DELETE":
                self.owners.pop(request.headers[SESSION_HEADER], None)
            return send

        async def send_and_remember(event: dict[str, Any]) -> None:
            if event["type"] == "http.response.start":
                for name, value in event.get("headers", []):
                    if name.lower() == SESSION_HEADER.encode():
                        self.owners[value.decode("latin-1")] = claims["sub"]
                        while len(self.owners) > MAX_BOUND_SESSIONS:
                            self.owners.popitem(last=False)
            await send(event)

        return send_and_remember


def tool_called(body: bytes) -> str | None:
    """The tool a ``tools/call`` body names; None for any other message, or one that is not JSON."""
    try:
        message = json.loads(body)
    except ValueError:
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
) -> Callable[[str, App], ProtectedEndpoint]:
    """``start_http(server, around=protect(...))``: the endpoint, guarded, once its URL is known."""

    def around(url: str, app: App) -> ProtectedEndpoint:
        return ProtectedEndpoint(
            app, ProtectedResource(url, issuer, keys, list(scopes), dict(tool_scopes or {}), name)
        )

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
