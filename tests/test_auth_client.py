"""The client's OAuth flow (minimcp.auth.client): the decisions it makes, and the answers it must
refuse.

The official conformance suite drives the whole flow against its own servers
(``python tools/conformance.py --client``: its authorization scenarios of 2025-11-25, 2025-03-26 and
2026-07-28, in CI). These tests stand one scripted authorization server and one resource server
behind an in-memory httpx transport, so that each test can bend one answer (a forged ``state``, a
mix-up's ``iss``, an expired token) and check exactly what the client does with it. What the client
refuses to trust has its own tests: ``tests/test_auth_client_trust.py``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2
import pytest

from minimcp.auth.client import AuthorizationFailed, OAuth
from minimcp.auth.discovery import s256

MCP = "http://mcp.test/mcp"
ISSUER = "http://auth.test"


class Servers:
    """A resource server that wants a token (and, for the tool ``admin``, the scope ``admin``), and
    an authorization server that registers, authorizes at once and issues tokens: every request
    recorded."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.challenge: dict[str, str] = {}  # code_challenge by code
        self.valid: dict[str, str] = {}  # access token → its scope
        self.issued = 0
        self.redirect_iss = ISSUER

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        url = str(request.url).split("?")[0]
        self.seen.append(f"{request.method} {url}")
        if url == MCP:
            return self.mcp(request)
        if url == "http://mcp.test/.well-known/oauth-protected-resource/mcp":
            return httpx2.Response(
                200,
                json={
                    "resource": MCP,
                    "authorization_servers": [ISSUER],
                    "scopes_supported": ["mcp"],
                },
            )
        if url == f"{ISSUER}/.well-known/oauth-authorization-server":
            return httpx2.Response(
                200,
                json={
                    "issuer": ISSUER,
                    "authorization_endpoint": f"{ISSUER}/authorize",
                    "token_endpoint": f"{ISSUER}/token",
                    "registration_endpoint": f"{ISSUER}/register",
                    "authorization_response_iss_parameter_supported": True,
                    "token_endpoint_auth_methods_supported": ["none"],
                },
            )
        if url == f"{ISSUER}/register":
            return httpx2.Response(201, json={"client_id": "client-1"})
        if url == f"{ISSUER}/token":
            return self.token(parse_qs(request.content.decode()))
        return httpx2.Response(404)

    def mcp(self, request: httpx2.Request) -> httpx2.Response:
        token = request.headers.get("authorization", "").removeprefix("Bearer ")
        metadata = 'resource_metadata="http://mcp.test/.well-known/oauth-protected-resource/mcp"'
        if token not in self.valid:
            return httpx2.Response(
                401, headers={"www-authenticate": f'Bearer {metadata}, scope="mcp"'}
            )
        if b'"admin"' in request.content and "admin" not in self.valid[token].split():
            return httpx2.Response(
                403,
                headers={
                    "www-authenticate": f'Bearer error="insufficient_scope", '
                    f'scope="mcp admin", {metadata}'
                },
            )
        return httpx2.Response(200, json={"ok": True})

    def authorize(self, url: str) -> str:
        query = {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}
        assert query["resource"] == MCP and query["code_challenge_method"] == "S256"
        code = f"code-{len(self.challenge)}"
        self.challenge[code] = query["code_challenge"]
        self.scope = query.get("scope", "")
        return (
            f"{query['redirect_uri']}?"
            f"{urlencode({'code': code, 'state': query['state'], 'iss': self.redirect_iss})}"
        )

    def token(self, form: dict[str, list[str]]) -> httpx2.Response:
        field = {name: values[0] for name, values in form.items()}
        assert field["resource"] == MCP and field["client_id"] == "client-1"
        if field["grant_type"] == "authorization_code":
            assert s256(field["code_verifier"]) == self.challenge[field["code"]], "PKCE"
        elif field.get("refresh_token") != "refresh-1":
            return httpx2.Response(400, json={"error": "invalid_grant"})
        self.issued += 1
        token = f"token-{self.issued}"
        self.valid[token] = self.scope
        return httpx2.Response(
            200, json={"access_token": token, "token_type": "Bearer", "refresh_token": "refresh-1"}
        )


def setup(servers: Servers, **options: Any) -> tuple[OAuth, httpx2.AsyncClient]:
    async def authorize(url: str) -> str:
        return servers.authorize(url)

    transport = httpx2.MockTransport(servers.handle)
    oauth = OAuth(MCP, authorize=authorize, http=httpx2.AsyncClient(transport=transport), **options)
    return oauth, httpx2.AsyncClient(transport=transport, auth=oauth)


async def test_the_whole_flow_then_the_request_again() -> None:
    servers = Servers()
    oauth, http = setup(servers)
    assert (await http.post(MCP, json={"method": "ping"})).status_code == 200
    assert servers.seen == [
        f"POST {MCP}",
        "GET http://mcp.test/.well-known/oauth-protected-resource/mcp",
        f"GET {ISSUER}/.well-known/oauth-authorization-server",
        f"POST {ISSUER}/register",
        f"POST {ISSUER}/token",
        f"POST {MCP}",
    ]
    assert servers.scope == "mcp" and oauth.tokens["access_token"] == "token-1"


async def test_a_forged_state_is_refused() -> None:
    servers = Servers()
    oauth, http = setup(servers)
    real = servers.authorize
    servers.authorize = lambda url: real(url).replace("state=", "state=forged")  # type: ignore[method-assign]
    with pytest.raises(
        AuthorizationFailed, match="the authorization response's state does not match"
    ):
        await http.post(MCP, json={"method": "ping"})


async def test_a_code_from_another_issuer_is_refused() -> None:
    servers = Servers()
    servers.redirect_iss = "http://evil.test"
    oauth, http = setup(servers)
    with pytest.raises(
        AuthorizationFailed, match="the authorization response came from 'http://evil.test'"
    ):
        await http.post(MCP, json={"method": "ping"})


async def test_an_expired_token_is_refreshed_without_asking_the_user_again() -> None:
    servers = Servers()
    oauth, http = setup(servers)
    await http.post(MCP, json={"method": "ping"})
    servers.valid.clear()  # the access token expired
    servers.seen.clear()
    assert (await http.post(MCP, json={"method": "ping"})).status_code == 200
    assert servers.seen == [f"POST {MCP}", f"POST {ISSUER}/token", f"POST {MCP}"]
    assert oauth.tokens["access_token"] == "token-2"


async def test_step_up_asks_for_the_named_scopes_and_gives_up_after_the_limit() -> None:
    servers = Servers()
    oauth, http = setup(servers)
    assert (await http.post(MCP, json={"tool": "admin"})).status_code == 200
    assert servers.scope == "mcp admin"  # the 403's scope, asked for at once
    stingy = Servers()
    oauth, http = setup(stingy, max_step_ups=1)
    stingy.authorize = lambda url, real=stingy.authorize: real(url.replace("admin", ""))  # type: ignore[method-assign]
    # the last 403, not a loop
    assert (await http.post(MCP, json={"tool": "admin"})).status_code == 403
    assert stingy.seen.count(f"POST {ISSUER}/token") == 2  # the first token, and one step-up
