"""The MCP server as an OAuth resource server (minimcp.auth): every refusal, exactly, and the server
serving after.

A real uvicorn on a free loopback port serves the course server behind ``ProtectedEndpoint``; tokens
are real JWTs signed with a real RSA key (PyJWT and cryptography), and every request is raw HTTP, so
each test sees the exact status, ``WWW-Authenticate`` header and body.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import jwt
import pytest
import pytest_asyncio
from complete_support import complete_server, running_complete
from cryptography.hazmat.primitives.asymmetric import rsa
from http_support import INITIALIZE, TIMEOUT
from websockets.exceptions import InvalidStatus

from minimcp.auth import bearer_token, challenge, protect
from minimcp.auth.bearer import MalformedAuthorization
from minimcp.auth.guards import websocket_guard
from minimcp.auth.resource import WELL_KNOWN
from minimcp.client import websocket_client
from minimcp.transports.websocket import start_websocket

ISSUER = (
    "http://127.0.0.1:9/auth"  # never contacted: the resource server only checks what it signed
)
KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
OTHER_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
KEYS = {"course-key": KEY.public_key()}
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def token(
    resource: str,
    *,
    key: Any = KEY,
    kid: str = "course-key",
    algorithm: str = "RS256",
    **claims: Any,
) -> str:
    now = int(time.time())
    body = {
        "iss": ISSUER,
        "aud": resource,
        "sub": "ada",
        "scope": "mcp",
        "iat": now,
        "exp": now + 300,
        **claims,
    }
    body = {name: value for name, value in body.items() if value is not None}
    return jwt.encode(body, key, algorithm=algorithm, headers={"kid": kid, "typ": "at+jwt"})


class Endpoint:
    def __init__(self, url: str) -> None:
        self.url = url
        self.http = httpx2.AsyncClient(timeout=TIMEOUT)

    async def post(
        self, message: dict[str, Any], bearer: str | None = None, **headers: str
    ) -> httpx2.Response:
        extra = {"authorization": f"Bearer {bearer}"} if bearer is not None else {}
        return await self.http.post(
            self.url, content=json.dumps(message), headers={**ACCEPT, **extra, **headers}
        )

    async def session(self, bearer: str) -> str:
        response = await self.post(INITIALIZE, bearer)
        assert response.status_code == 200, response.text
        session_id = response.headers["mcp-session-id"]
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await self.post(note, bearer, **{"mcp-session-id": session_id})).status_code == 202
        return session_id

    async def serves(self, bearer: str) -> None:
        """After a refusal, a good token still gets in."""
        await self.session(bearer)


@pytest_asyncio.fixture
async def endpoint() -> AsyncIterator[Endpoint]:
    guard = protect(
        ISSUER, KEYS, scopes=["mcp"], tool_scopes={"run_analysis": ["mcp:analysis"]}, name="course"
    )
    async with running_complete(complete_server(step_delay=0.001), around=guard) as http:
        client = Endpoint(http.url)
        try:
            yield client
        finally:
            await client.http.aclose()


def metadata_url(endpoint: Endpoint) -> str:
    return endpoint.url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")


def error_of(response: httpx2.Response) -> tuple[int, str, dict[str, Any]]:
    return response.status_code, response.headers.get("www-authenticate", ""), response.json()


# -- the headers, on their own ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, None),
        ("Bearer abc.def-ghi_~+/==", "abc.def-ghi_~+/=="),
        ("bearer  x", "x"),
        ("BEARER y", "y"),
    ],
)
def test_a_bearer_token_is_read_from_the_header(header: str | None, expected: str | None) -> None:
    assert bearer_token(header) == expected


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("Basic YWRhOnNlY3JldA==", "the Authorization scheme must be Bearer, not 'Basic'"),
        ("Bearer", "the bearer token is missing or has characters a token may not have"),
        ("Bearer two words", "the bearer token is missing or has characters a token may not have"),
    ],
)
def test_a_malformed_header_is_refused(header: str, message: str) -> None:
    with pytest.raises(MalformedAuthorization, match=message):
        bearer_token(header)


def test_a_challenge_quotes_its_parameters() -> None:
    assert (
        challenge(error="invalid_token", error_description='say "no"', scope=None)
        == 'Bearer error="invalid_token", error_description="say \\"no\\""'
    )
    assert challenge() == "Bearer"


# -- the metadata ----------------------------------------------------------------------------------
async def test_the_metadata_is_served_at_both_well_known_urls(endpoint: Endpoint) -> None:
    resource = endpoint.url
    expected = {
        "resource": resource,
        "authorization_servers": [ISSUER],
        "scopes_supported": ["mcp", "mcp:analysis"],
        "bearer_methods_supported": ["header"],
        "resource_name": "course",
    }
    for url in (
        metadata_url(endpoint),
        resource.replace("/mcp", "/.well-known/oauth-protected-resource"),
    ):
        response = await endpoint.http.get(url)
        assert (response.status_code, response.json()) == (200, expected)


# -- the refusals ----------------------------------------------------------------------------------
async def test_no_token_gets_401_and_where_to_get_one(endpoint: Endpoint) -> None:
    status, header, body = error_of(await endpoint.post(INITIALIZE))
    assert (status, header) == (
        401,
        f'Bearer resource_metadata="{metadata_url(endpoint)}", scope="mcp"',
    )
    assert body == {
        "error_description": "Authorization required: a Bearer token from the authorization server"
    }
    await endpoint.serves(token(endpoint.url))


@pytest.mark.parametrize(
    ("authorization", "description"),
    [
        ("Basic YWRhOnNlY3JldA==", "the Authorization scheme must be Bearer, not 'Basic'"),
        ("Bearer a b", "the bearer token is missing or has characters a token may not have"),
    ],
)
async def test_a_malformed_header_gets_400(
    endpoint: Endpoint, authorization: str, description: str
) -> None:
    status, header, body = error_of(await endpoint.post(INITIALIZE, authorization=authorization))
    assert (status, body) == (
        400,
        {
            "error": "invalid_request",
            "error_description": f"Malformed Authorization header: {description}",
        },
    )
    assert header.startswith('Bearer error="invalid_request"')
    await endpoint.serves(token(endpoint.url))


async def test_a_token_in_the_url_gets_400(endpoint: Endpoint) -> None:
    good = token(endpoint.url)
    response = await endpoint.http.post(
        f"{endpoint.url}?access_token={good}", content=json.dumps(INITIALIZE), headers=ACCEPT
    )
    description = "Access tokens go in the Authorization header, never in the URL"
    assert error_of(response)[::2] == (
        400,
        {"error": "invalid_request", "error_description": description},
    )
    await endpoint.serves(good)


BAD_TOKENS = {
    "expired": (lambda url: token(url, exp=int(time.time()) - 120), "The token expired"),
    "not yet valid": (
        lambda url: token(url, nbf=int(time.time()) + 600),
        "The token is not valid yet",
    ),
    "forged": (lambda url: token(url, key=OTHER_KEY), "The token's signature does not match"),
    "unknown key": (
        lambda url: token(url, kid="other-key"),
        "The token is signed with a key this server does not know",
    ),
    "wrong issuer": (
        lambda url: token(url, iss="http://127.0.0.1:9/evil"),
        f"The token was not issued by {ISSUER}",
    ),
    "for another server": (
        lambda url: token(url, aud="http://127.0.0.1:9/other/mcp"),
        "The token is not meant for this server ({url})",
    ),
    "no subject": (lambda url: token(url, sub=None), "The token has no 'sub' claim"),
    "symmetric": (
        lambda url: token(url, key="a-shared-secret-of-at-least-32-bytes!", algorithm="HS256"),
        "The token's algorithm 'HS256' is not accepted",
    ),
    "not a jwt": (lambda url: "not-a-jwt", "The token is not a JWT"),
}


@pytest.mark.parametrize("case", list(BAD_TOKENS))
async def test_a_bad_token_gets_401_invalid_token_and_why(endpoint: Endpoint, case: str) -> None:
    make, description = BAD_TOKENS[case]
    description = description.format(url=endpoint.url)
    status, header, body = error_of(await endpoint.post(INITIALIZE, make(endpoint.url)))
    assert (status, body) == (401, {"error": "invalid_token", "error_description": description})
    assert header == (
        f'Bearer error="invalid_token", error_description="{description}", '
        f'resource_metadata="{metadata_url(endpoint)}", scope="mcp"'
    )
    await endpoint.serves(token(endpoint.url))


async def test_a_token_without_the_scope_gets_403_insufficient_scope(endpoint: Endpoint) -> None:
    status, header, body = error_of(
        await endpoint.post(INITIALIZE, token(endpoint.url, scope="other"))
    )
    assert (status, body) == (
        403,
        {"error": "insufficient_scope", "error_description": "The token lacks the scope mcp"},
    )
    assert header == (
        'Bearer error="insufficient_scope", error_description="The token lacks the scope mcp", '
        f'resource_metadata="{metadata_url(endpoint)}", scope="mcp"'
    )
    await endpoint.serves(token(endpoint.url))


async def test_a_tool_with_a_scope_of_its_own_needs_a_step_up(endpoint: Endpoint) -> None:
    basic = token(endpoint.url)
    session = {"mcp-session-id": await endpoint.session(basic)}
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "run_analysis", "arguments": {"steps": 1}},
    }
    status, header, body = error_of(await endpoint.post(call, basic, **session))
    assert (status, body["error"]) == (403, "insufficient_scope")
    # everything this request needs, to ask for at once
    assert header.endswith('scope="mcp mcp:analysis"')
    stepped_up = token(endpoint.url, scope="mcp mcp:analysis")
    response = await endpoint.post(call, stepped_up, **session)
    assert response.status_code == 200 and "Analysed 12 courses" in response.text
    other = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "read_events", "arguments": {"date": "2025-03-21"}},
    }
    # other tools need no more
    assert (await endpoint.post(other, basic, **session)).status_code == 200


async def test_a_session_belongs_to_the_user_who_opened_it(endpoint: Endpoint) -> None:
    ada, bob = token(endpoint.url, sub="ada"), token(endpoint.url, sub="bob")
    session = {"mcp-session-id": await endpoint.session(ada)}
    ping = {"jsonrpc": "2.0", "id": 5, "method": "ping"}
    response = await endpoint.post(ping, bob, **session)
    assert (response.status_code, response.json()["error"]["message"]) == (
        404,
        "Session not found: it expired or was ended; initialize a new one",
    )  # as if it did not exist
    assert (await endpoint.post(ping, ada, **session)).json() == {
        "jsonrpc": "2.0",
        "id": 5,
        "result": {},
    }


# -- the WebSocket cable: the same checks, once, on the upgrade ------------------------------------
async def test_a_websocket_upgrade_needs_a_token_for_the_ws_url() -> None:
    running_ws = await start_websocket(
        complete_server(step_delay=0.001), authorize=websocket_guard(ISSUER, KEYS, scopes=["mcp"])
    )
    try:
        with pytest.raises(InvalidStatus) as refused:
            await websocket_client(running_ws.url).__aenter__()
        response = refused.value.response
        assert response.status_code == 401
        metadata_url = running_ws.url.replace("ws://", "http://").replace(
            "/mcp", WELL_KNOWN + "/mcp"
        )
        assert (
            response.headers["WWW-Authenticate"]
            == f'Bearer resource_metadata="{metadata_url}", scope="mcp"'
        )
        metadata = (
            await httpx2.AsyncClient().get(metadata_url)
        ).json()  # the same port answers plain GETs
        assert (metadata["resource"], metadata["authorization_servers"]) == (
            running_ws.url,
            [ISSUER],
        )
        for_http = token(running_ws.url.replace("ws://", "http://"))  # a token for another resource
        with pytest.raises(InvalidStatus) as wrong:
            await websocket_client(
                running_ws.url, additional_headers={"Authorization": f"Bearer {for_http}"}
            ).__aenter__()
        assert wrong.value.response.status_code == 401
        good = {"Authorization": f"Bearer {token(running_ws.url)}"}
        async with websocket_client(running_ws.url, additional_headers=good) as client:
            assert client.server_info["name"] == "course-server"
    finally:
        await running_ws.close()


async def test_a_2026_request_needs_a_token_too_and_gets_in_with_one(endpoint: Endpoint) -> None:
    """Lesson 12: a request with no session is checked like any other, and served once its token is
    good."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    discover = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}}
    headers = {"mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover"}
    refused = await endpoint.post(discover, **headers)
    assert refused.status_code == 401 and refused.headers["www-authenticate"].startswith("Bearer ")
    answer = await endpoint.post(discover, token(endpoint.url), **headers)
    assert answer.status_code == 200 and "mcp-session-id" not in answer.headers
    assert answer.json()["result"]["supportedVersions"][0] == "2026-07-28"
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"_meta": meta, "name": "run_analysis", "arguments": {"steps": 1}},
    }
    stepped = await endpoint.post(
        call,
        token(endpoint.url),
        **{**headers, "mcp-method": "tools/call", "mcp-name": "run_analysis"},
    )
    assert (
        stepped.status_code == 403
        and 'scope="mcp mcp:analysis"' in stepped.headers["www-authenticate"]
    )
