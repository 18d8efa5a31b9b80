"""The authorization server and the token verifier against a hostile client (issue 24).

Items 5 (HTTP 500 on unauthenticated input), 7 (refresh and code replay), 8 (unbounded memory) and
9 (the consent page); item 1, the metadata documents, is tests/test_auth_documents.py. Each test
checks the exact status and the RFC's error, then that the server serves the next request.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import jwt
import pytest
import pytest_asyncio
from complete_support import complete_server, running_complete
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from http_support import INITIALIZE, TIMEOUT
from test_auth_server import REDIRECT, Flow, landed
from websockets.exceptions import InvalidStatus

from minimcp.auth import protect, websocket_guard
from minimcp.auth.authorization_server import RunningAuthorizationServer, start_authorization_server
from minimcp.client import websocket_client
from minimcp.transports.websocket import start_websocket

ISSUER = "http://127.0.0.1:9/auth"  # never contacted: the resource server checks what it signed
RSA_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
EC_KEY = ec.generate_private_key(ec.SECP256R1())
KEYS = {"rsa": RSA_KEY.public_key(), "ec": EC_KEY.public_key()}
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest_asyncio.fixture
async def server() -> AsyncIterator[RunningAuthorizationServer]:
    running_server = await start_authorization_server()
    try:
        yield running_server
    finally:
        await running_server.close()


@pytest_asyncio.fixture
async def page_server() -> AsyncIterator[RunningAuthorizationServer]:
    running_server = await start_authorization_server(page=True)
    try:
        yield running_server
    finally:
        await running_server.close()


async def serves(issuer: str) -> None:
    """The server still does its work: a client registers and gets a code, then its tokens."""
    flow = Flow(issuer)
    await flow.register()
    response = await flow.authorize()
    if response.status_code == 200:  # a consent page: the person allows
        allow = {"nonce": nonce_of(response.text), "decision": "allow"}
        response = await flow.http.post(f"{issuer}/authorize", data=allow)
    assert (await flow.exchange(landed(response)["code"])).status_code == 200


def token(resource: str, key: Any, kid: str, algorithm: str) -> str:
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": resource, "sub": "ada", "scope": "mcp", "exp": now + 300}
    return jwt.encode(claims, key, algorithm=algorithm, headers={"kid": kid, "typ": "at+jwt"})


# -- 5. no 500 on unauthenticated input ----------------------------------------------------------
async def test_a_token_whose_algorithm_is_not_its_keys_gets_401_invalid_token() -> None:
    """An ES256 token naming the RSA key (RFC 6750, section 3.1), over HTTP and over WebSocket."""
    guard = protect(ISSUER, KEYS, scopes=["mcp"])
    async with running_complete(complete_server(step_delay=0.001), around=guard) as http:
        async with httpx2.AsyncClient(timeout=TIMEOUT) as client:
            forged = token(http.url, EC_KEY, "rsa", "ES256")
            headers = {**ACCEPT, "authorization": f"Bearer {forged}"}
            response = await client.post(http.url, json=INITIALIZE, headers=headers)
            assert (response.status_code, response.json()) == (
                401,
                {
                    "error": "invalid_token",
                    "error_description": "The token's algorithm 'ES256' is not its key's",
                },
            )
            for kid, key, algorithm in (("rsa", RSA_KEY, "RS256"), ("ec", EC_KEY, "ES256")):
                good = {**ACCEPT, "authorization": f"Bearer {token(http.url, key, kid, algorithm)}"}
                assert (
                    await client.post(http.url, json=INITIALIZE, headers=good)
                ).status_code == 200
    running_ws = await start_websocket(
        complete_server(step_delay=0.001), authorize=websocket_guard(ISSUER, KEYS, scopes=["mcp"])
    )
    try:
        forged = token(running_ws.url, EC_KEY, "rsa", "ES256")
        with pytest.raises(InvalidStatus) as refused:
            await websocket_client(
                running_ws.url, additional_headers={"Authorization": f"Bearer {forged}"}
            ).__aenter__()
        assert refused.value.response.status_code == 401
        assert 'error="invalid_token"' in refused.value.response.headers["WWW-Authenticate"]
        good = {"Authorization": f"Bearer {token(running_ws.url, EC_KEY, 'ec', 'ES256')}"}
        async with websocket_client(running_ws.url, additional_headers=good) as client:
            assert client.server_info["name"] == "course-server"
    finally:
        await running_ws.close()


@pytest.mark.parametrize(
    "body", [b"[]", b"null", b'"a string"', b"42", b"[" * 30_000 + b"]" * 30_000, b"{not json"]
)
async def test_a_registration_that_is_not_a_json_object_gets_400_invalid_client_metadata(
    server: RunningAuthorizationServer, body: bytes
) -> None:
    """RFC 7591, section 3.2.2."""
    async with httpx2.AsyncClient(timeout=TIMEOUT) as client:
        response = await client.post(f"{server.issuer}/register", content=body)
    assert (response.status_code, response.json()) == (
        400,
        {"error": "invalid_client_metadata", "error_description": "the body must be a JSON object"},
    )
    await serves(server.issuer)


@pytest.mark.parametrize("path", ["/register", "/token", "/authorize"])
async def test_a_body_over_64_kb_gets_413(
    page_server: RunningAuthorizationServer, path: str
) -> None:
    async with httpx2.AsyncClient(timeout=TIMEOUT) as client:
        response = await client.post(f"{page_server.issuer}{path}", content=b"a" * 70_000)
    assert (response.status_code, response.json()) == (
        413,
        {"error": "invalid_request", "error_description": "Request body larger than 65536 bytes"},
    )
    await serves(page_server.issuer)


@pytest.mark.parametrize(
    ("metadata", "error", "description"),
    [
        (
            {"token_endpoint_auth_method": ["none"]},
            "invalid_client_metadata",
            "token_endpoint_auth_method must be one of "
            "client_secret_basic, client_secret_post, none",
        ),
        (
            {"client_name": "x" * 60_000},
            "invalid_client_metadata",
            "client_name must be a string of at most 200 characters",
        ),
        (
            {"redirect_uris": [f"http://127.0.0.1:{port}/cb" for port in range(1000, 1011)]},
            "invalid_redirect_uri",
            "redirect_uris must be a list of 1 to 10 https or loopback URLs "
            "of at most 2000 characters",
        ),
        (
            {"redirect_uris": ["https://[::1/cb"]},
            "invalid_redirect_uri",
            "redirect_uris must be a list of 1 to 10 https or loopback URLs "
            "of at most 2000 characters",
        ),
    ],
)
async def test_a_registration_is_bounded_in_size(
    server: RunningAuthorizationServer, metadata: dict[str, Any], error: str, description: str
) -> None:
    body = {"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none", **metadata}
    async with httpx2.AsyncClient(timeout=TIMEOUT) as client:
        response = await client.post(f"{server.issuer}/register", json=body)
    assert (response.status_code, response.json()) == (
        400,
        {"error": error, "error_description": description},
    )
    await serves(server.issuer)


async def test_a_verifier_that_is_not_ascii_gets_400_invalid_grant(
    server: RunningAuthorizationServer,
) -> None:
    """RFC 6749, section 5.2 (it was a 400 saying "the body is not JSON")."""
    flow = Flow(server.issuer)
    await flow.register()
    response = await flow.exchange(await flow.code(), verifier="é" * 43)
    assert (response.status_code, response.json()) == (
        400,
        {
            "error": "invalid_grant",
            "error_description": "the code_verifier does not match the code_challenge",
        },
    )
    await serves(server.issuer)


async def test_a_secret_that_is_not_ascii_gets_401_invalid_client(
    server: RunningAuthorizationServer,
) -> None:
    """RFC 6749, section 5.2 (it was a 500: compare_digest refuses such a str)."""
    flow = Flow(server.issuer)
    registered = await flow.register(token_endpoint_auth_method="client_secret_post")
    response = await flow.token(
        grant_type="authorization_code",
        code="x",
        client_secret="é" * len(registered["client_secret"]),
    )
    assert (response.status_code, response.json()) == (
        401,
        {"error": "invalid_client", "error_description": "unknown client, or wrong secret"},
    )
    await serves(server.issuer)


async def test_a_deeply_nested_body_in_the_scope_check_gets_the_endpoints_parse_error() -> None:
    guard = protect(ISSUER, KEYS, scopes=["mcp"], tool_scopes={"run_analysis": ["mcp:analysis"]})
    async with running_complete(complete_server(step_delay=0.001), around=guard) as http:
        bearer = {**ACCEPT, "authorization": f"Bearer {token(http.url, RSA_KEY, 'rsa', 'RS256')}"}
        async with httpx2.AsyncClient(timeout=TIMEOUT) as client:
            nested = b"[" * 30_000 + b"]" * 30_000
            response = await client.post(http.url, content=nested, headers=bearer)
            assert response.status_code == 400
            assert response.json()["error"]["code"] == -32700  # lesson 08's answer: not JSON
            assert (await client.post(http.url, json=INITIALIZE, headers=bearer)).status_code == 200


# -- 7. refresh and code replay -------------------------------------------------------------------
async def test_a_rotated_refresh_token_used_again_revokes_its_family(
    server: RunningAuthorizationServer,
) -> None:
    """RFC 9700, section 4.14.2: the attacker refreshed first; the client's reuse ends both."""
    flow = Flow(server.issuer)
    await flow.register()
    stolen = (await flow.exchange(await flow.code())).json()["refresh_token"]
    attackers = await flow.token(grant_type="refresh_token", refresh_token=stolen)
    assert attackers.status_code == 200
    reused = await flow.token(grant_type="refresh_token", refresh_token=stolen)
    assert (reused.status_code, reused.json()["error"]) == (400, "invalid_grant")
    newer = attackers.json()["refresh_token"]
    revoked = await flow.token(grant_type="refresh_token", refresh_token=newer)
    assert (revoked.status_code, revoked.json()) == (
        400,
        {
            "error": "invalid_grant",
            "error_description": "the refresh token is unknown, used, or not this client's",
        },
    )
    await serves(server.issuer)


async def test_a_code_used_twice_revokes_the_tokens_of_its_first_use(
    server: RunningAuthorizationServer,
) -> None:
    """RFC 6749, section 4.1.2."""
    flow = Flow(server.issuer)
    await flow.register()
    code = await flow.code()
    first = (await flow.exchange(code)).json()["refresh_token"]
    replayed = await flow.exchange(code)
    assert (replayed.status_code, replayed.json()["error"]) == (400, "invalid_grant")
    revoked = await flow.token(grant_type="refresh_token", refresh_token=first)
    assert (revoked.status_code, revoked.json()["error"]) == (400, "invalid_grant")
    await serves(server.issuer)


async def test_a_refresh_refused_with_invalid_target_does_not_spend_the_token(
    server: RunningAuthorizationServer,
) -> None:
    flow = Flow(server.issuer)
    await flow.register()
    refresh = (await flow.exchange(await flow.code())).json()["refresh_token"]
    elsewhere = await flow.token(
        grant_type="refresh_token", refresh_token=refresh, resource="http://127.0.0.1:9/other"
    )
    assert (elsewhere.status_code, elsewhere.json()) == (
        400,
        {
            "error": "invalid_target",
            "error_description": "resource differs from the one authorized",
        },
    )
    again = await flow.token(grant_type="refresh_token", refresh_token=refresh)
    assert again.status_code == 200 and again.json()["refresh_token"] != refresh


# -- 8. bounded memory ----------------------------------------------------------------------------
async def test_registrations_are_capped_the_oldest_forgotten(
    server: RunningAuthorizationServer,
) -> None:
    server.grants.max_registered = 5
    flows = [Flow(server.issuer) for _ in range(8)]
    for flow in flows:
        await flow.register()
    assert len(server.grants.clients) == 5
    oldest = await flows[0].authorize()
    assert (oldest.status_code, oldest.json()["error"]) == (400, "invalid_client")
    assert (await flows[-1].authorize()).status_code == 302
    await serves(server.issuer)


async def test_unused_codes_expire_and_are_capped(server: RunningAuthorizationServer) -> None:
    flow = Flow(server.issuer)
    await flow.register()
    stale = await flow.code()
    codes = server.grants.codes
    codes.clock = lambda: time.monotonic() + 61  # a minute later: past the code's lifetime
    await flow.code()
    assert len(codes) == 1  # the stale one was purged
    expired = await flow.exchange(stale)
    assert (expired.status_code, expired.json()["error"]) == (400, "invalid_grant")
    codes.limit = 3
    for _ in range(10):
        await flow.code()
    assert len(codes) == 3
    await serves(server.issuer)


async def test_consent_pages_never_answered_expire_and_are_capped(
    page_server: RunningAuthorizationServer,
) -> None:
    flow = Flow(page_server.issuer)
    await flow.register()
    first = nonce_of((await flow.authorize()).text)
    pending = page_server.app.pages.pending
    pending.clock = lambda: time.monotonic() + 601  # ten minutes later: past the page's lifetime
    late = await flow.http.post(
        f"{page_server.issuer}/authorize", data={"nonce": first, "decision": "allow"}
    )
    assert (late.status_code, late.json()["error_description"]) == (
        400,
        "this consent page is unknown or was already answered",
    )
    pending.limit = 3
    nonces = [nonce_of((await flow.authorize()).text) for _ in range(10)]
    assert len(pending) == 3
    answered = await flow.http.post(
        f"{page_server.issuer}/authorize", data={"nonce": nonces[-1], "decision": "allow"}
    )
    assert "code" in landed(answered)


async def test_an_authorization_request_over_4_kb_gets_400(
    page_server: RunningAuthorizationServer,
) -> None:
    flow = Flow(page_server.issuer)
    await flow.register()
    response = await flow.authorize(scope="x" * 5000)
    assert (response.status_code, response.json()) == (
        400,
        {
            "error": "invalid_request",
            "error_description": "the authorization request is longer than 4096 bytes",
        },
    )
    assert (await flow.authorize()).status_code == 200


# -- 9. the consent page --------------------------------------------------------------------------
def nonce_of(page: str) -> str:
    return page.split("name=nonce value=")[1].split(">")[0]


async def test_the_consent_page_cannot_be_framed_and_says_where_the_code_goes(
    page_server: RunningAuthorizationServer,
) -> None:
    flow = Flow(page_server.issuer)
    await flow.register(client_name="Calendar")
    response = await flow.authorize()
    assert response.status_code == 200
    assert response.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert "access-control-allow-origin" not in response.headers
    assert f"({flow.client_id})" in response.text.replace("<code>", "").replace("</code>", "")
    assert "your browser goes on to <b>127.0.0.1:33418</b>" in response.text
    assert f"<code>{REDIRECT}</code>" in response.text


@pytest.mark.parametrize(
    ("overrides", "description"),
    [
        (
            {"code_challenge_method": "plain"},
            "code_challenge_method must be S256 (plain is not accepted)",
        ),
        ({"response_type": "token"}, "only response_type=code is supported"),
    ],
)
async def test_a_request_that_fails_anyway_is_not_put_to_the_person(
    page_server: RunningAuthorizationServer, overrides: dict[str, str], description: str
) -> None:
    flow = Flow(page_server.issuer)
    await flow.register()
    response = await flow.authorize(**overrides)
    assert response.status_code == 302  # straight back with the error: no page, no question
    assert landed(response)["error_description"] == description
    assert len(page_server.app.pages.pending) == 0


async def test_only_the_pages_own_origin_may_post_a_decision(
    page_server: RunningAuthorizationServer,
) -> None:
    flow = Flow(page_server.issuer)
    await flow.register()
    nonce = nonce_of((await flow.authorize()).text)
    authorize = f"{page_server.issuer}/authorize"
    preflight = await flow.http.options(
        authorize,
        headers={"origin": "https://evil.example", "access-control-request-method": "POST"},
    )
    assert preflight.status_code == 403
    assert "access-control-allow-origin" not in preflight.headers
    foreign = await flow.http.post(
        authorize,
        data={"nonce": nonce, "decision": "allow"},
        headers={"origin": "https://evil.example"},
    )
    assert (foreign.status_code, foreign.json()["error"]) == (403, "access_denied")
    own = await flow.http.post(
        authorize,
        data={"nonce": nonce, "decision": "allow"},
        headers={"origin": page_server.issuer},
    )
    assert own.status_code == 302 and "code" in landed(own)
    token_preflight = await flow.http.options(
        f"{page_server.issuer}/token",
        headers={"origin": "http://localhost:6274", "access-control-request-method": "POST"},
    )
    assert token_preflight.headers["access-control-allow-origin"] == "*"  # the Inspector's calls
