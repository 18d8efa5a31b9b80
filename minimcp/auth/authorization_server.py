"""Lesson 10's authorization server over HTTP: metadata, authorize, token, register and keys.

The decisions are :mod:`minimcp.auth.grants`'; this module is the HTTP around them, an ASGI
application on uvicorn like lesson 08's endpoint:

* ``GET /.well-known/oauth-authorization-server``: its metadata (RFC 8414);
* ``GET /authorize``: the browser arrives here; the person consents (with ``page=True``, on a page
  with two buttons, posted back to ``POST /authorize``; else ``consent(client, scope)``, a scripted
  person); the browser is sent back to the client with a code;
* ``POST /token``: codes and refresh tokens for tokens; ``Cache-Control: no-store``;
* ``POST /register``: dynamic client registration (RFC 7591);
* ``GET /jwks.json``: the public key its tokens are signed with.

Clients are pre-registered (``grants.clients``), registered dynamically, or identified by a Client
ID Metadata Document: a ``client_id`` that is an https URL is fetched, and must name itself and its
redirect URIs (loopback http is accepted too, for this machine).
"""

from __future__ import annotations

import asyncio
import html
import json
import secrets
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl

import httpx2

from minimcp.auth.grants import Client, Grants, OAuthError, allowed_redirect
from minimcp.transports.http.asgi import HttpRequest, Receive, Scope, Send, read_body, send_response
from minimcp.transports.http.server import bind, launch, started

#: ``consent(client, scope)``: does the person allow it? The default is a person who always does.
Consent = Callable[[Client, str], Awaitable[bool] | bool]
NO_STORE = {"cache-control": "no-store", "pragma": "no-cache"}
#: A browser-based client (the MCP Inspector) calls these endpoints from a page of another origin:
#: they carry no cookie and no ambient credential, so any origin may read their answers (the
#: consent page is not one of them).
CORS = {"access-control-allow-origin": "*"}
CORS_PREFLIGHT = {
    **CORS,
    "access-control-allow-methods": "GET, POST, OPTIONS",
    "access-control-allow-headers": "content-type, authorization, mcp-protocol-version",
}


class AuthorizationServer:
    """The ASGI application of the course authorization server."""

    def __init__(
        self, grants: Grants, consent: Consent | None = None, *, page: bool = False
    ) -> None:
        self.grants = grants
        self.consent = consent  # a scripted person (None: one who always agrees) ...
        self.page = page  # ... or a real one, on a page with two buttons
        self.pending: dict[str, dict[str, str]] = {}  # a page's nonce → the request it shows

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
        try:
            await self.route(HttpRequest.from_scope(scope), scope, receive, send)
        except OAuthError as error:
            await send_json(
                send,
                error.status,
                {"error": error.error, "error_description": str(error)},
                NO_STORE,
            )
        except ValueError:
            await send_json(
                send, 400, {"error": "invalid_request", "error_description": "the body is not JSON"}
            )

    async def route(self, request: HttpRequest, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer one request: each endpoint is a method and a path."""
        route = (request.method, request.path)
        # A browser-based client's preflight (CORS): yes, from anywhere
        if request.method == "OPTIONS":
            await send_response(send, 204, headers=CORS_PREFLIGHT)
        elif route == ("GET", "/.well-known/oauth-authorization-server"):
            await send_json(send, 200, self.metadata())
        elif route == ("GET", "/jwks.json"):
            await send_json(send, 200, self.grants.jwks())
        elif route == ("GET", "/authorize"):
            query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
            if self.page:
                page = await self.consent_page(query)
                await send_response(send, 200, page.encode(), "text/html")
            else:
                await send_response(send, 302, headers={"location": await self.authorize(query)})
        elif route == ("POST", "/authorize"):  # the person pressed a button on the consent page
            form = await read_form(receive)
            await send_response(send, 302, headers={"location": await self.decide(form)})
        elif route == ("POST", "/token"):
            form = await read_form(receive)
            client = self.grants.authenticate(form, request.headers.get("authorization"))
            await send_json(send, 200, self.grants.token(form, client), NO_STORE)
        elif route == ("POST", "/register"):
            metadata = json.loads(await read_body(receive, 65536) or b"{}")
            await send_json(send, 201, registered(self.grants.register(metadata)))
        else:
            error = {"error": "not_found", "error_description": f"nothing at {request.path}"}
            await send_json(send, 404, error)

    async def authorize(self, query: dict[str, str]) -> str:
        """Where the browser goes back to.

        :class:`OAuthError` (a 400 page, no redirect) for a bad client.
        """
        client = await self.client(query.get("client_id", ""))
        # A bad client or redirect URI: refused before anyone is asked
        self.grants.redirect_uri(query, client)
        assert client is not None
        consented = self.consent is None or await resolve(
            self.consent(client, query.get("scope", ""))
        )
        return self.grants.authorize(query, client, consented)

    # --8<-- [start:consent_page]
    async def consent_page(self, query: dict[str, str]) -> str:
        """The page a person sees: who asks, for what, and two buttons.

        Only a nonce travels in the form: the request it stands for stays here, so a page elsewhere
        cannot post a decision of its own.
        """
        client = await self.client(query.get("client_id", ""))
        self.grants.redirect_uri(query, client)  # a bad client or redirect URI: a 400, not a page
        assert client is not None
        nonce = secrets.token_urlsafe(16)
        self.pending[nonce] = query
        who = html.escape(client.name or client.client_id)
        what = html.escape(query.get("scope") or "(no particular scope)")
        where = html.escape(query.get("resource", "(any resource)"))
        return (
            f"<!doctype html><title>Allow {who}?</title><h1>Allow {who}?</h1>"
            f"<p>{who} asks to act as <b>{self.grants.subject}</b> on <code>{where}</code>, "
            f"with the scope <code>{what}</code>.</p><form method=post action=/authorize>"
            f"<input type=hidden name=nonce value={nonce}>"
            "<button name=decision value=allow>Allow</button> "
            "<button name=decision value=deny>Deny</button>"
            "</form>"
        )

    async def decide(self, form: dict[str, str]) -> str:
        query = self.pending.pop(form.get("nonce", ""), None)
        if query is None:
            raise OAuthError(
                "invalid_request", "this consent page is unknown or was already answered"
            )
        client = await self.client(query.get("client_id", ""))
        return self.grants.authorize(query, client, consented=form.get("decision") == "allow")

    # --8<-- [end:consent_page]

    async def client(self, client_id: str) -> Client | None:
        """A registered client, or one described by its Client ID Metadata Document."""
        known = self.grants.clients.get(client_id)
        if known is not None or not client_id.startswith(
            ("https://", "http://127.0.0.1", "http://localhost")
        ):
            return known
        try:
            async with httpx2.AsyncClient(timeout=10, follow_redirects=False) as http:
                document = (await http.get(client_id)).json()
        except (httpx2.HTTPError, ValueError):
            return None
        uris = document.get("redirect_uris") if isinstance(document, dict) else None
        if (
            document.get("client_id") != client_id
            or not isinstance(uris, list)
            or not all(isinstance(uri, str) and allowed_redirect(uri) for uri in uris)
        ):
            return None  # the document must name itself exactly, and its redirect URIs
        client = Client(client_id, uris, None, str(document.get("client_name", "")))
        # Kept, so that its token request is recognised (a cache)
        self.grants.clients[client_id] = client
        return client


async def read_form(receive: Receive) -> dict[str, str]:
    """A POST's ``application/x-www-form-urlencoded`` body, as a dict."""
    return dict(parse_qsl((await read_body(receive, 65536)).decode("utf-8", "replace")))


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
    await send_response(
        send, status, json.dumps(body).encode(), "application/json", {**CORS, **(headers or {})}
    )


class RunningAuthorizationServer:
    """The course authorization server on 127.0.0.1: ``issuer`` (its URL), ``close()``."""

    def __init__(self, app: AuthorizationServer, server: Any, task: asyncio.Task[None]) -> None:
        self.app, self.grants, self._server, self._task = app, app.grants, server, task
        self.issuer = app.grants.issuer

    async def close(self) -> None:
        self._server.should_exit = True
        await asyncio.wait_for(asyncio.shield(self._task), 10)


async def start_authorization_server(
    host: str = "127.0.0.1", port: int = 0, consent: Consent | None = None, page: bool = False
) -> RunningAuthorizationServer:
    """Serve a fresh course authorization server (port 0: any free port); return once it listens."""
    sock = bind(host, port)
    app = AuthorizationServer(Grants(f"http://{host}:{sock.getsockname()[1]}"), consent, page=page)
    server, task = launch(app, sock, lifespan="off")  # lesson 08's way of running an ASGI app
    await started(server, task)
    return RunningAuthorizationServer(app, server, task)
