"""The authorization server and the resource server against a hostile client, third part (issue 24).

Item 2 (slow clients on the authorization server's routes), item 16 (the authorization server's
details: the verifier's length, redirect URIs, errors that must not redirect at once, loopback
ports) and item 17 (a token that is not an access token). Each test checks the exact status and
the RFC's error, then that the server serves the next request.
"""

from __future__ import annotations

import asyncio
import logging
import os
import resource
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from subprocess import Popen
from typing import Any

import httpx2
import jwt
import pytest
import pytest_asyncio
from complete_support import complete_server, running_complete
from http_support import INITIALIZE, TIMEOUT
from support import free_port, until
from test_auth_hardening import ACCEPT, ISSUER, KEYS, RSA_KEY, serves
from test_auth_server import REDIRECT, Flow
from websockets.exceptions import InvalidStatus
from worker_support import exited, start_serve, stderr_of, until_listening

from minimcp.auth import protect, websocket_guard
from minimcp.auth.authorization_server import RunningAuthorizationServer, start_authorization_server
from minimcp.auth.discovery import s256
from minimcp.client import websocket_client
from minimcp.transports.http.tally import Tally
from minimcp.transports.websocket import start_websocket

ROOT = Path(__file__).resolve().parent.parent


@pytest_asyncio.fixture
async def server() -> AsyncIterator[RunningAuthorizationServer]:
    running_server = await start_authorization_server()
    try:
        yield running_server
    finally:
        await running_server.close()


# -- 2. a slow client on the authorization server's routes ---------------------------------------
IDLE = 1_100  # more than the process's connection cap, fewer than its 1,024 files
FILES = 1_024  # what a process may usually open: the server runs under this limit


def limit_files() -> None:
    """In the server's process, before it starts: the usual limit on open files."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(FILES, hard), hard))


@asynccontextmanager
async def serving_with_auth(mcp_port: int, auth_port: int) -> AsyncIterator[Popen[bytes]]:
    """``python -m minimcp serve --transport http --auth`` under 1,024 files, a 1 s header
    deadline, once it listens (its log goes to a file: a flood must not block it)."""
    options = ["--auth", str(auth_port), "--auth-consent", "auto", "--header-timeout", "1"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = start_serve(mcp_port, *options, cwd=ROOT, env=env, preexec_fn=limit_files)
    try:
        await until_listening(process)
        yield process
    finally:
        process.terminate()
        with suppress(TimeoutError):
            await exited(process, 10)
        if process.poll() is None:
            process.kill()
            process.wait(10)


async def hold(port: int, count: int) -> list[asyncio.StreamWriter]:
    """``count`` connections that say nothing (those the server refuses are closed at once)."""
    held = []
    for _ in range(count):
        with suppress(OSError):
            held.append((await asyncio.open_connection("127.0.0.1", port))[1])
    return held


async def first_answer(url: str, within: float) -> tuple[httpx2.Response, float]:
    """The first answer to ``GET url``, trying again while the server refuses the connection."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    while True:
        try:
            async with httpx2.AsyncClient(timeout=within) as client:
                return await client.get(url), loop.time() - started
        except httpx2.HTTPError:
            if loop.time() - started > within:
                raise
            await asyncio.sleep(0.05)


async def trickle(port: int) -> tuple[float, float | None]:
    """Send a request head a byte every 0.1 s (8 s in all): when it began, when the server hung
    up (None: it never did)."""
    head = b"GET /jwks.json HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 40
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    begun = time.monotonic()
    try:
        for byte in head:
            with suppress(ConnectionError):
                writer.write(bytes([byte]))
                await writer.drain()
            with suppress(asyncio.TimeoutError):
                if await asyncio.wait_for(reader.read(1), 0.1) == b"":
                    return begun, time.monotonic()
        return begun, None
    finally:
        writer.close()


async def test_idle_connections_on_the_auth_routes_starve_neither_endpoint() -> None:
    """1,100 idle connections to the authorization server of ``serve --auth``: the MCP endpoint
    answers at once, ``/jwks.json`` as soon as the deadline cut the idle ones, a slow header sender
    is cut off, and the refusals make one log line with a count, not one each."""
    mcp_port, auth_port = free_port(), free_port()
    async with serving_with_auth(mcp_port, auth_port) as process:
        held = await hold(auth_port, IDLE)
        try:
            started = time.monotonic()
            async with httpx2.AsyncClient(timeout=TIMEOUT) as client:
                mcp = await client.post(
                    f"http://127.0.0.1:{mcp_port}/mcp", json=INITIALIZE, headers=ACCEPT
                )
            assert mcp.status_code == 401  # answered: no token yet, the challenge says where
            assert "resource_metadata" in mcp.headers["www-authenticate"]
            assert time.monotonic() - started < 2
            jwks, waited = await first_answer(f"http://127.0.0.1:{auth_port}/jwks.json", 8)
            assert jwks.status_code == 200 and jwks.json()["keys"]
            assert waited < 4  # the 1 s deadline, a watch period, and the time to try again
        finally:
            for writer in held:
                writer.close()
        begun, dropped = await trickle(auth_port)
        assert dropped is not None and 0.8 < dropped - begun < 3  # cut off by the 1 s deadline
        log = [line.rstrip() for line in stderr_of(process).splitlines()]
        refusals = [line for line in log if "refused" in line and "connection" in line]
        assert 1 <= len(refusals) <= 2, log[-5:]
        assert not [line for line in log if "Too many open files" in line]


async def test_a_tally_logs_at_most_one_line_per_interval_with_its_count(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The first refusal is logged at once; the next ones, counted, in one line per interval."""
    loop = asyncio.get_running_loop()
    tally = Tally(logging.getLogger("minimcp.http"), "refused %d connection(s)", interval=0.2)
    with caplog.at_level(logging.WARNING, "minimcp.http"):
        for _ in range(1_000):
            tally.add(loop)
        assert caplog.messages == ["refused 1 connection(s)"]
        await until(lambda: len(caplog.messages) == 2)
        assert caplog.messages == ["refused 1 connection(s)", "refused 999 connection(s)"]
        await until(lambda: tally.timer is None)  # a quiet interval: quiet until the next one
        assert tally.timer is None and len(caplog.messages) == 2
        tally.add(loop)
        assert caplog.messages[-1] == "refused 1 connection(s)"


# -- 16. the authorization server's details ------------------------------------------------------
async def test_a_verifier_shorter_than_43_characters_gets_400_invalid_grant(
    server: RunningAuthorizationServer,
) -> None:
    """RFC 7636, section 4.1: 43 to 128 characters. The error is ``invalid_grant`` (RFC 6749,
    section 5.2; RFC 7636, section 4.6): the verifier fails to prove the grant is this client's."""
    flow = Flow(server.issuer)
    await flow.register()
    flow.verifier = "a"
    flow.challenge = s256("a")
    response = await flow.exchange(await flow.code())
    assert (response.status_code, response.json()) == (
        400,
        {
            "error": "invalid_grant",
            "error_description": "the code_verifier must be 43 to 128 characters (RFC 7636, "
            "section 4.1)",
        },
    )
    await serves(server.issuer)


@pytest.mark.parametrize(
    "uri", ["https:", "https:/\\evil.example", "https:///path", "https://good.example\\@evil"]
)
async def test_a_redirect_uri_without_a_host_gets_400_invalid_redirect_uri(
    server: RunningAuthorizationServer, uri: str
) -> None:
    """RFC 7591, section 3.2.2; a redirect URI is an absolute URI (RFC 6749, section 3.1.2)."""
    async with httpx2.AsyncClient(timeout=TIMEOUT) as client:
        body = {"redirect_uris": [uri], "token_endpoint_auth_method": "none"}
        response = await client.post(f"{server.issuer}/register", json=body)
    assert (response.status_code, response.json()["error"]) == (400, "invalid_redirect_uri")
    await serves(server.issuer)


async def test_an_invalid_request_is_not_redirected_at_once_to_an_untrusted_uri(
    server: RunningAuthorizationServer,
) -> None:
    """RFC 9700, section 4.11.2: a client anyone registered, with a redirect URI off this machine,
    sends a request that fails on purpose (plain PKCE): the person is told, not sent there."""
    flow = Flow(server.issuer)
    elsewhere = "https://client.example/callback"
    await flow.register(redirect_uris=[elsewhere])
    response = await flow.authorize(redirect_uri=elsewhere, code_challenge_method="plain")
    assert response.status_code == 400 and "location" not in response.headers
    assert response.headers["content-type"].startswith("text/html")
    assert "code_challenge_method must be S256" in response.text
    assert "https://client.example/callback?error=invalid_request" in response.text  # a link
    await serves(server.issuer)


async def test_a_loopback_redirect_uri_accepts_any_port(
    server: RunningAuthorizationServer,
) -> None:
    """RFC 8252, section 7.3: a native client's listener gets whatever port is free."""
    flow = Flow(server.issuer)
    await flow.register()  # http://127.0.0.1:33418/callback
    other_port = REDIRECT.replace("33418", "50123")
    response = await flow.authorize(redirect_uri=other_port)
    assert response.status_code == 302
    assert response.headers["location"].startswith(other_port + "?code=")
    moved = await flow.authorize(redirect_uri="http://127.0.0.1:50123/elsewhere")
    assert (moved.status_code, moved.json()["error"]) == (400, "invalid_request")
    await serves(server.issuer)


# -- 17. a token that is not an access token -----------------------------------------------------
def signed(resource: str, typ: str | None) -> str:
    """A token signed by the right key with the right claims, whose header says ``typ``."""
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": resource, "sub": "ada", "scope": "mcp", "exp": now + 300}
    headers: dict[str, Any] = {"kid": "rsa", "typ": typ}
    return jwt.encode(claims, RSA_KEY, algorithm="RS256", headers=headers)


NOT_ACCESS = "The token is not an access token (its header's typ must be at+jwt, RFC 9068)"


async def test_a_token_that_is_not_typed_at_jwt_gets_401_invalid_token() -> None:
    """RFC 9068, sections 2.1 and 4; RFC 6750, section 3.1: over HTTP and over WebSocket."""
    guard = protect(ISSUER, KEYS, scopes=["mcp"])
    async with running_complete(complete_server(step_delay=0.001), around=guard) as http:
        async with httpx2.AsyncClient(timeout=TIMEOUT) as client:
            for typ in ("JWT", None, "id_token+jwt"):
                bearer = {"authorization": f"Bearer {signed(http.url, typ)}"}
                response = await client.post(
                    http.url, json=INITIALIZE, headers={**ACCEPT, **bearer}
                )
                assert (response.status_code, response.json()) == (
                    401,
                    {"error": "invalid_token", "error_description": NOT_ACCESS},
                )
            for typ in ("at+jwt", "application/at+jwt", "AT+JWT"):
                good = {**ACCEPT, "authorization": f"Bearer {signed(http.url, typ)}"}
                assert (
                    await client.post(http.url, json=INITIALIZE, headers=good)
                ).status_code == 200
    running_ws = await start_websocket(
        complete_server(step_delay=0.001), authorize=websocket_guard(ISSUER, KEYS, scopes=["mcp"])
    )
    try:
        plain = {"Authorization": f"Bearer {signed(running_ws.url, 'JWT')}"}
        with pytest.raises(InvalidStatus) as refused:
            await websocket_client(running_ws.url, additional_headers=plain).__aenter__()
        assert refused.value.response.status_code == 401
        assert 'error="invalid_token"' in refused.value.response.headers["WWW-Authenticate"]
        good = {"Authorization": f"Bearer {signed(running_ws.url, 'at+jwt')}"}
        async with websocket_client(running_ws.url, additional_headers=good) as client:
            assert client.server_info["name"] == "course-server"
    finally:
        await running_ws.close()


async def test_the_course_authorization_server_issues_at_jwt(
    server: RunningAuthorizationServer,
) -> None:
    flow = Flow(server.issuer)
    await flow.register()
    tokens = (await flow.exchange(await flow.code())).json()
    assert jwt.get_unverified_header(tokens["access_token"])["typ"] == "at+jwt"
