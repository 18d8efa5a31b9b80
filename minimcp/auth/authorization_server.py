"""Lesson 10's authorization server over HTTP: metadata, authorize, token, register and keys.

The decisions are :mod:`minimcp.auth.grants`'; this module is the HTTP around them, an ASGI
application on uvicorn like lesson 08's endpoint:

* ``GET /.well-known/oauth-authorization-server``: its metadata (RFC 8414);
* ``GET /authorize``: the browser arrives here; the person consents (with ``page=True``, on a page
  with two buttons, posted back to ``POST /authorize``: :mod:`minimcp.auth.consent`; else
  ``consent(client, scope)``, a scripted person); the browser is sent back to the client with a
  code;
* ``POST /token``: codes and refresh tokens for tokens; ``Cache-Control: no-store``;
* ``POST /register``: dynamic client registration (RFC 7591);
* ``GET /jwks.json``: the public key its tokens are signed with.

Clients are pre-registered (``grants.clients``), registered dynamically, or identified by a Client
ID Metadata Document: a ``client_id`` that is a URL is fetched (:mod:`minimcp.auth.documents`).

Every endpoint here answers strangers, so each request is bounded: a body of at most
:data:`BODY_LIMIT` bytes (more: ``413``), an authorization request of at most :data:`QUERY_LIMIT`;
a body that is not what the endpoint reads gets the RFC's ``400``, never a ``500``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl

from minimcp.auth.consent import PAGE_HEADERS, ConsentPages, check_same_origin, error_page
from minimcp.auth.documents import ClientDocuments
from minimcp.auth.grants import Client, Grants
from minimcp.auth.validation import OAuthError, authorization_problem, on_this_machine
from minimcp.transports.http.asgi import (
    HttpRequest,
    Receive,
    Refusal,
    Scope,
    Send,
    read_body,
    send_response,
)
from minimcp.transports.http.server import DEFAULT_MAX_CONNECTIONS, bind, launch, started
from minimcp.transports.http.slow_clients import DEFAULT_HEADER_TIMEOUT, slow_client_limits

#: ``consent(client, scope)``: does the person allow it? The default is a person who always does.
Consent = Callable[[Client, str], Awaitable[bool] | bool]
NO_STORE = {"cache-control": "no-store", "pragma": "no-cache"}
BODY_LIMIT = 64 * 1024  # bytes of a POST: a form or a registration is far smaller
QUERY_LIMIT = 4 * 1024  # bytes of an authorization request: kept while it waits for the person
#: A browser-based client (the MCP Inspector) calls these endpoints from a page of another origin:
#: they carry no cookie and no ambient credential, so any origin may read their answers. Not
#: ``/authorize``: the person's page, whose decision no other origin may post.
CORS_PATHS = ("/.well-known/oauth-authorization-server", "/jwks.json", "/token", "/register")
CORS = {"access-control-allow-origin": "*"}
CORS_PREFLIGHT = {
    **CORS,
    "access-control-allow-methods": "GET, POST, OPTIONS",
    "access-control-allow-headers": "content-type, authorization, mcp-protocol-version",
}


class AuthorizationServer:
    """The ASGI application of the course authorization server.

    ``loopback_documents``: the development switch of :mod:`minimcp.auth.documents` (metadata
    documents served on this machine are fetched too).
    """

    def __init__(
        self,
        grants: Grants,
        consent: Consent | None = None,
        *,
        page: bool = False,
        loopback_documents: bool = False,
    ) -> None:
        self.grants = grants
        self.consent = consent  # a scripted person (None: one who always agrees) ...
        self.page = page  # ... or a real one, on a page with two buttons
        self.pages = ConsentPages()
        self.documents = ClientDocuments(loopback=loopback_documents)

    def metadata(self) -> dict[str, Any]:
        issuer = self.grants.issuer
        return {
            "issuer": issuer,
            "authorization_endpoint": f"{issuer}/authorize",
            "token_endpoint": f"{issuer}/token",
            "registration_endpoint": f"{issuer}/register",
            "jwks_uri": f"{issuer}/jwks.json",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": [
                "client_secret_basic",
                "client_secret_post",
                "none",
            ],
            "client_id_metadata_document_supported": True,
            "authorization_response_iss_parameter_supported": True,
        }

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        request = HttpRequest.from_scope(scope)
        cors = CORS if request.path in CORS_PATHS else {}
        try:
            await self.route(request, scope, receive, send)
        except OAuthError as error:
            body = {"error": error.error, "error_description": str(error)}
            await send_json(send, error.status, body, {**cors, **NO_STORE})
        except Refusal as refusal:  # a body past its limit: 413 (RFC 9110, section 15.5.14)
            body = {"error": "invalid_request", "error_description": str(refusal)}
            await send_json(send, refusal.status, body, cors)
        except ConnectionError:  # the client left in the middle of its request: nobody to answer
            return

    async def route(self, request: HttpRequest, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer one request: each endpoint is a method and a path."""
        route = (request.method, request.path)
        if request.method == "OPTIONS":  # a browser-based client's preflight (CORS)
            if request.path not in CORS_PATHS:
                raise OAuthError("invalid_request", f"{request.path} takes no other origin", 403)
            await send_response(send, 204, headers=CORS_PREFLIGHT)
        elif route == ("GET", "/.well-known/oauth-authorization-server"):
            await send_json(send, 200, self.metadata(), CORS)
        elif route == ("GET", "/jwks.json"):
            await send_json(send, 200, self.grants.jwks(), CORS)
        elif route == ("GET", "/authorize"):
            await self.get_authorize(authorization_request(scope), send)
        elif route == ("POST", "/authorize"):  # the person pressed a button on the consent page
            check_same_origin(request)
            form = await read_form(receive)
            await send_response(send, 302, headers={"location": await self.decide(form)})
        elif route == ("POST", "/token"):
            form = await read_form(receive)
            client = await self.token_client(form, request.headers.get("authorization"))
            await send_json(send, 200, self.grants.token(form, client), {**CORS, **NO_STORE})
        elif route == ("POST", "/register"):
            metadata = registration(await read_body(receive, BODY_LIMIT))
            await send_json(send, 201, registered(self.grants.register(metadata)), CORS)
        else:
            error = {"error": "not_found", "error_description": f"nothing at {request.path}"}
            await send_json(send, 404, error)

    async def get_authorize(self, query: dict[str, str], send: Send) -> None:
        """The person's page, or (nobody to ask, or nothing worth asking) the way back at once."""
        client = await self.client(query.get("client_id", ""))
        # A bad client or redirect URI: refused before anyone is asked, never redirected
        self.grants.redirect_uri(query, client)
        assert client is not None
        problem = authorization_problem(query)
        if self.page and problem is None:
            page = self.pages.page(query, client, self.grants.subject)
            await send_response(send, 200, page.encode(), "text/html; charset=utf-8", PAGE_HEADERS)
            return
        location = await self.authorize(query, client)
        if problem is not None and not on_this_machine(query.get("redirect_uri", "")):
            # Anyone may register a client: an error sent unasked to its site would make this
            # server an open redirector (RFC 9700, section 4.11.2). The person decides.
            page = error_page(problem[1], location)
            await send_response(send, 400, page.encode(), "text/html; charset=utf-8", PAGE_HEADERS)
            return
        await send_response(send, 302, headers={"location": location})

    async def authorize(self, query: dict[str, str], client: Client) -> str:
        """Where the browser goes back to, when the scripted person decides (or nobody needs to:
        a request that fails anyway gets its error back unasked, RFC 6749, section 4.1.2.1)."""
        consented = True
        if self.consent is not None and authorization_problem(query) is None:
            consented = await resolve(self.consent(client, query.get("scope", "")))
        return self.grants.authorize(query, client, consented)

    async def decide(self, form: dict[str, str]) -> str:
        """Where the browser goes back to, once the person pressed a button on the page."""
        query = self.pages.answered(form)
        client = await self.client(query.get("client_id", ""))
        return self.grants.authorize(query, client, consented=form.get("decision") == "allow")

    async def client(self, client_id: str) -> Client | None:
        """A registered client, or one described by its Client ID Metadata Document (a client_id
        with a scheme, ``https://…``, names one): :class:`OAuthError` if that is refused."""
        known = self.grants.clients.get(client_id)
        if known is not None or "://" not in client_id:
            return known
        return await self.documents.client(client_id)

    async def token_client(self, form: dict[str, str], authorization: str | None) -> Client:
        """Who a token request comes from: a metadata document's client (public: its URL is all
        it shows), or one the grants authenticate."""
        client_id = form.get("client_id", "")
        if authorization is None and client_id not in self.grants.clients and "://" in client_id:
            try:
                return await self.documents.client(client_id)
            except OAuthError as error:  # at the token endpoint, an unknown client is a 401
                raise OAuthError("invalid_client", str(error), 401) from None
        return self.grants.authenticate(form, authorization)


def authorization_request(scope: Scope) -> dict[str, str]:
    """``GET /authorize``'s parameters; a request kept while a person reads its page is bounded."""
    query: bytes = scope.get("query_string", b"")
    if len(query) > QUERY_LIMIT:
        raise OAuthError(
            "invalid_request", f"the authorization request is longer than {QUERY_LIMIT} bytes"
        )
    return dict(parse_qsl(query.decode("latin-1")))


def registration(body: bytes) -> dict[str, Any]:
    """A registration request's metadata: a JSON object, or 400 ``invalid_client_metadata``
    (RFC 7591, section 3.2.2), whatever else the body is (an array, a string, deep nesting)."""
    try:
        metadata = json.loads(body or b"{}")
    except (ValueError, RecursionError):
        metadata = None
    if not isinstance(metadata, dict):
        raise OAuthError("invalid_client_metadata", "the body must be a JSON object")
    return metadata


async def read_form(receive: Receive) -> dict[str, str]:
    """A POST's ``application/x-www-form-urlencoded`` body, as a dict."""
    return dict(parse_qsl((await read_body(receive, BODY_LIMIT)).decode("utf-8", "replace")))


def registered(client: Client) -> dict[str, Any]:
    """The answer to a dynamic registration (RFC 7591): the client as the server now knows it."""
    method = "none" if client.secret is None else "client_secret_basic"
    answer: dict[str, Any] = {
        "client_id": client.client_id,
        "redirect_uris": client.redirect_uris,
        "client_name": client.name,
        "token_endpoint_auth_method": method,
    }
    return {**answer, "client_secret": client.secret} if client.secret else answer


async def resolve(value: Awaitable[bool] | bool) -> bool:
    return await value if not isinstance(value, bool) else value


async def send_json(
    send: Send, status: int, body: dict[str, Any], headers: dict[str, str] | None = None
) -> None:
    await send_response(send, status, json.dumps(body).encode(), "application/json", headers)


class RunningAuthorizationServer:
    """The course authorization server on 127.0.0.1: ``issuer`` (its URL), ``close()``."""

    def __init__(self, app: AuthorizationServer, server: Any, task: asyncio.Task[None]) -> None:
        self.app, self.grants, self._server, self._task = app, app.grants, server, task
        self.issuer = app.grants.issuer

    async def close(self) -> None:
        self._server.should_exit = True
        await asyncio.wait_for(asyncio.shield(self._task), 10)


async def start_authorization_server(
    host: str = "127.0.0.1",
    port: int = 0,
    consent: Consent | None = None,
    page: bool = False,
    loopback_documents: bool = True,
    *,
    header_timeout: float = DEFAULT_HEADER_TIMEOUT,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
) -> RunningAuthorizationServer:
    """Serve a fresh course authorization server (port 0: any free port); return once it listens.

    It is a development server, on this machine: by default it also fetches metadata documents
    served on this machine (``loopback_documents``, :mod:`minimcp.auth.documents`). Its routes keep
    lesson 08's two limits on slow clients, like the MCP endpoint (``header_timeout``,
    ``max_connections``): they answer strangers too, often in the same process.
    """
    sock = bind(host, port)
    app = AuthorizationServer(
        Grants(f"http://{host}:{sock.getsockname()[1]}"),
        consent,
        page=page,
        loopback_documents=loopback_documents,
    )
    limits = slow_client_limits(header_timeout, max_connections)
    server, task = launch(app, sock, lifespan="off", **limits)  # lesson 08's way, and its limits
    await started(server, task)
    return RunningAuthorizationServer(app, server, task)
