"""Who a session belongs to, for how long, and how many one client may hold (issue 24, 6 and 12).

A session is bound to the user who opened it for exactly as long as the session lives: no number of
other sessions sheds the binding, and a DELETE the endpoint refused leaves it in place. One client
cannot fill the cap of sessions for everyone: with a guard, each user has a cap of their own;
without one, each peer address. Each test checks the exact status, then that the endpoint serves
the next request.
"""

from __future__ import annotations

import time
from typing import Any

import httpx2
import jwt
import pytest
from complete_support import complete_server, running_complete
from cryptography.hazmat.primitives.asymmetric import rsa
from http_support import INITIALIZE, TIMEOUT, RawHttp, raw_session, running
from test_http_server import error_of

from minimcp.auth import guards, protect
from minimcp.cli import parser
from minimcp.rpc.jsonrpc import INVALID_REQUEST
from minimcp.transports.http.asgi import SESSION_HEADER

ISSUER = "http://127.0.0.1:9/auth"  # never contacted: the resource server checks what it signed
KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
PING = {"jsonrpc": "2.0", "id": 2, "method": "ping"}


def headers_of(resource: str, sub: str) -> dict[str, str]:
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": resource, "sub": sub, "scope": "mcp", "exp": now + 300}
    signed = jwt.encode(claims, KEY, algorithm="RS256", headers={"kid": "rsa", "typ": "at+jwt"})
    return {**ACCEPT, "authorization": f"Bearer {signed}"}


async def open_session(client: httpx2.AsyncClient, url: str, headers: dict[str, str]) -> str:
    response = await client.post(url, json=INITIALIZE, headers=headers)
    assert response.status_code == 200
    session_id: str = response.headers[SESSION_HEADER]
    return session_id


async def ping(
    client: httpx2.AsyncClient, url: str, headers: dict[str, str], session_id: str
) -> Any:
    return await client.post(url, json=PING, headers={**headers, SESSION_HEADER: session_id})


async def test_other_sessions_do_not_shed_a_binding(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the fix, the guard remembered 10,000 owners and forgot the oldest: here, 3."""
    monkeypatch.setattr(guards, "MAX_BOUND_SESSIONS", 3, raising=False)
    guard = protect(ISSUER, {"rsa": KEY.public_key()}, scopes=["mcp"])
    async with running_complete(complete_server(step_delay=0.001), around=guard) as http:
        ada, bob = headers_of(http.url, "ada"), headers_of(http.url, "bob")
        async with httpx2.AsyncClient(timeout=TIMEOUT) as client:
            adas = await open_session(client, http.url, ada)
            for _ in range(4):
                await open_session(client, http.url, bob)
            refused = await ping(client, http.url, bob, adas)
            assert refused.status_code == 404
            assert refused.json()["error"]["code"] == -32600
            assert (await ping(client, http.url, ada, adas)).status_code == 200


async def test_a_refused_delete_keeps_the_binding() -> None:
    """A DELETE the endpoint answers 400 (an unknown protocol version) ends nothing: the session
    lives on, still its owner's alone."""
    guarded: list[guards.ProtectedEndpoint] = []

    def around(url: str, app: Any) -> guards.ProtectedEndpoint:
        guarded.append(protect(ISSUER, {"rsa": KEY.public_key()}, scopes=["mcp"])(url, app))
        return guarded[0]

    async with running_complete(complete_server(step_delay=0.001), around=around) as http:
        ada, bob = headers_of(http.url, "ada"), headers_of(http.url, "bob")
        async with httpx2.AsyncClient(timeout=TIMEOUT) as client:
            adas = await open_session(client, http.url, ada)
            bad_version = {**ada, SESSION_HEADER: adas, "mcp-protocol-version": "1999-01-01"}
            assert (await client.delete(http.url, headers=bad_version)).status_code == 400
            refused = await ping(client, http.url, bob, adas)
            assert refused.status_code == 404
            assert (await ping(client, http.url, ada, adas)).status_code == 200
            # A DELETE that ends the session ends its binding with it: the id is unknown to all.
            ended = await client.delete(http.url, headers={**ada, SESSION_HEADER: adas})
            assert ended.status_code == 200
            assert (await ping(client, http.url, ada, adas)).status_code == 404
            assert adas not in guarded[0].owners


async def test_one_address_cannot_fill_the_cap_for_everyone() -> None:
    """Without a guard the owner is the peer's address: here, as on any one machine, 127.0.0.1,
    so every client of the test shares it."""
    async with running(max_sessions=10, max_sessions_per_owner=2) as http:
        async with raw_session(http.url) as first, raw_session(http.url) as second:
            third = RawHttp(http.url)
            response = await third.post(INITIALIZE)
            assert (response.status_code, response.headers["retry-after"]) == (503, "10")
            assert error_of(response) == (
                INVALID_REQUEST,
                "Service unavailable: 2 sessions already open for this client",
            )
            await first.ping()
            assert (await second.http.delete(http.url, headers=second.headers())).status_code == 200
            await third.initialize()  # a place of its own came free
            await third.ping()
            await third.close()


async def test_one_user_cannot_fill_the_cap_for_everyone() -> None:
    """With a guard the owner is the token's user: Bob, on the same address, still gets in."""
    guard = protect(ISSUER, {"rsa": KEY.public_key()}, scopes=["mcp"])
    options: dict[str, Any] = {"max_sessions": 10, "max_sessions_per_owner": 2}
    async with running_complete(complete_server(step_delay=0.001), around=guard, **options) as http:
        ada, bob = headers_of(http.url, "ada"), headers_of(http.url, "bob")
        async with httpx2.AsyncClient(timeout=TIMEOUT) as client:
            adas = [await open_session(client, http.url, ada) for _ in range(2)]
            refused = await client.post(http.url, json=INITIALIZE, headers=ada)
            assert (refused.status_code, refused.headers["retry-after"]) == (503, "10")
            assert refused.json()["error"] == {
                "code": INVALID_REQUEST,
                "message": "Service unavailable: 2 sessions already open for this client",
            }
            bobs = await open_session(client, http.url, bob)
            assert (await ping(client, http.url, bob, bobs)).status_code == 200
            assert (await ping(client, http.url, ada, adas[0])).status_code == 200


def test_serve_caps_the_sessions_of_one_client_by_default() -> None:
    options = parser().parse_args(["serve", "--transport", "http"])
    assert options.max_sessions_per_client == 100
