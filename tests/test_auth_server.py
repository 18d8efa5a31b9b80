"""The course authorization server (minimcp.auth.authorization_server, grants), and the whole flow
through it.

A real uvicorn serves the authorization server on a free loopback port; raw HTTP checks each refusal
with its exact status and error; then minimcp's client gets in to a protected course server through
it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2
import pytest
import pytest_asyncio
from complete_support import complete_server, running_complete
from support import free_port, until
from worker_support import exited, start_serve, until_listening

from minimcp.auth import OAuth, protect
from minimcp.auth.authorization_server import RunningAuthorizationServer, start_authorization_server
from minimcp.auth.browser import in_the_browser
from minimcp.auth.discovery import pkce_pair
from minimcp.auth.tokens import TokenVerifier
from minimcp.client import http_client
from minimcp.transports.http.server import bind, launch, started

REDIRECT = "http://127.0.0.1:33418/callback"
RESOURCE = "http://127.0.0.1:8000/mcp"


@pytest_asyncio.fixture
async def server() -> AsyncIterator[RunningAuthorizationServer]:
    running_server = await start_authorization_server()
    try:
        yield running_server
    finally:
        await running_server.close()


class Flow:
    """One client of the authorization server, by hand: register, authorize, exchange."""

    def __init__(self, issuer: str) -> None:
        self.issuer = issuer
        self.http = httpx2.AsyncClient(timeout=10, follow_redirects=False)
        self.verifier, self.challenge = pkce_pair()

    async def register(self, **metadata: Any) -> dict[str, Any]:
        body = {"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none", **metadata}
        response = await self.http.post(f"{self.issuer}/register", json=body)
        assert response.status_code == 201, response.text
        self.client_id = response.json()["client_id"]
        return response.json()

    async def authorize(self, **overrides: str) -> httpx2.Response:
        query = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": REDIRECT,
            "state": "s-1",
            "code_challenge": self.challenge,
            "code_challenge_method": "S256",
            "resource": RESOURCE,
            "scope": "mcp",
            **overrides,
        }
        return await self.http.get(
            f"{self.issuer}/authorize?{urlencode({k: v for k, v in query.items() if v})}"
        )

    async def code(self) -> str:
        response = await self.authorize()
        assert response.status_code == 302
        return landed(response)["code"]

    async def token(self, **form: str) -> httpx2.Response:
        return await self.http.post(
            f"{self.issuer}/token", data={"client_id": self.client_id, "resource": RESOURCE, **form}
        )

    async def exchange(self, code: str, verifier: str | None = None) -> httpx2.Response:
        return await self.token(
            grant_type="authorization_code",
            code=code,
            redirect_uri=REDIRECT,
            code_verifier=verifier or self.verifier,
        )


def landed(response: httpx2.Response) -> dict[str, str]:
    location = response.headers["location"]
    assert location.startswith(REDIRECT + "?")
    return {name: values[0] for name, values in parse_qs(urlsplit(location).query).items()}


async def test_the_metadata_says_what_the_server_supports(
    server: RunningAuthorizationServer,
) -> None:
    metadata = (
        await httpx2.AsyncClient().get(f"{server.issuer}/.well-known/oauth-authorization-server")
    ).json()
    assert metadata["issuer"] == server.issuer
    assert metadata["code_challenge_methods_supported"] == ["S256"]
    assert metadata["client_id_metadata_document_supported"] is True


async def test_a_code_for_tokens_once_and_a_refresh_token_once(
    server: RunningAuthorizationServer,
) -> None:
    flow = Flow(server.issuer)
    await flow.register()
    code = await flow.code()
    response = await flow.exchange(code)
    assert response.status_code == 200 and response.headers["cache-control"] == "no-store"
    tokens = response.json()
    # The token verifies with the server's public key, for the resource the client named.
    verifier = TokenVerifier(server.issuer, RESOURCE, server.grants.public_keys())
    assert verifier.verify(tokens["access_token"])["scope"] == "mcp"
    refreshed = await flow.token(grant_type="refresh_token", refresh_token=tokens["refresh_token"])
    assert refreshed.status_code == 200
    reused = await flow.token(grant_type="refresh_token", refresh_token=tokens["refresh_token"])
    assert (reused.status_code, reused.json()) == (
        400,
        {
            "error": "invalid_grant",
            "error_description": "the refresh token is unknown, used, or not this client's",
        },
    )
    # Last: a code used again also revokes the tokens of its first use (RFC 6749, section 4.1.2)
    again = await flow.exchange(code)  # a code is good once
    assert (again.status_code, again.json()["error"]) == (400, "invalid_grant")


@pytest.mark.parametrize(
    ("overrides", "error", "description"),
    [
        ({"code_challenge": ""}, "invalid_request", "PKCE is required: send code_challenge"),
        (
            {"code_challenge_method": "plain"},
            "invalid_request",
            "code_challenge_method must be S256 (plain is not accepted)",
        ),
        (
            {"response_type": "token"},
            "unsupported_response_type",
            "only response_type=code is supported",
        ),
    ],
)
async def test_a_bad_authorization_request_goes_back_with_an_error(
    server: RunningAuthorizationServer, overrides: dict[str, str], error: str, description: str
) -> None:
    flow = Flow(server.issuer)
    await flow.register()
    answer = landed(await flow.authorize(**overrides))
    assert answer == {
        "error": error,
        "error_description": description,
        "state": "s-1",
        "iss": server.issuer,
    }


@pytest.mark.parametrize(
    ("overrides", "description"),
    [
        (
            {"redirect_uri": "http://127.0.0.1:33418/callback/evil"},
            "redirect_uri 'http://127.0.0.1:33418/callback/evil' is not registered for this client",
        ),
        ({"client_id": "nobody"}, "unknown client_id 'nobody'"),
    ],
)
async def test_what_must_not_redirect_gets_400(
    server: RunningAuthorizationServer, overrides: dict[str, str], description: str
) -> None:
    flow = Flow(server.issuer)
    await flow.register()
    response = await flow.authorize(**overrides)
    # never an open redirect
    assert response.status_code == 400 and "location" not in response.headers
    assert response.json()["error_description"] == description


async def test_a_wrong_verifier_or_redirect_uri_gets_no_token(
    server: RunningAuthorizationServer,
) -> None:
    flow = Flow(server.issuer)
    await flow.register()
    wrong = await flow.exchange(await flow.code(), verifier=pkce_pair()[0])
    assert wrong.json() == {
        "error": "invalid_grant",
        "error_description": "the code_verifier does not match the code_challenge",
    }
    moved = await flow.token(
        grant_type="authorization_code",
        code=await flow.code(),
        code_verifier=flow.verifier,
        redirect_uri="http://127.0.0.1:9/other",
    )
    assert (
        moved.json()["error_description"] == "redirect_uri differs from the authorization request's"
    )
    unknown = await flow.http.post(
        f"{server.issuer}/token", data={"client_id": "nobody", "grant_type": "x"}
    )
    assert (unknown.status_code, unknown.json()["error"]) == (401, "invalid_client")


async def test_a_person_who_says_no() -> None:
    refusing = await start_authorization_server(consent=lambda client, scope: False)
    try:
        flow = Flow(refusing.issuer)
        await flow.register()
        assert landed(await flow.authorize())["error"] == "access_denied"
    finally:
        await refusing.close()


async def test_minimcp_gets_in_through_the_course_authorization_server(
    server: RunningAuthorizationServer,
) -> None:
    """The whole lesson: a protected course server, its authorization server, and the client's
    flow."""
    guard = protect(server.issuer, server.grants.public_keys(), scopes=["mcp"])
    async with running_complete(complete_server(step_delay=0.001), around=guard) as http:
        oauth = OAuth(http.url, redirect_uri=REDIRECT)
        try:
            async with http_client(http.url, auth=oauth) as client:
                result = await client.call_tool("read_events", {"date": "2025-03-21"})
        finally:
            await oauth.aclose()
    assert result["content"][0]["text"].startswith("Events for 2025-03-21:")
    # registered dynamically
    assert oauth.client_id is not None and oauth.client_id.startswith("client-")


async def test_python_m_minimcp_serve_auth_protects_the_course_server() -> None:
    """``serve --transport http --auth``: the course authorization server beside it; no token, no
    entry."""
    port, auth_port = free_port(), free_port()
    process = start_serve(port, "--auth", str(auth_port), "--auth-consent", "auto")
    try:
        lines = [line.strip() for line in (await until_listening(process)).splitlines()[:2]]
        url = f"http://127.0.0.1:{port}/mcp"
        assert lines == [
            f"authorization server: http://127.0.0.1:{auth_port}",
            f"MCP endpoint: {url}",
        ]
        refused = await httpx2.AsyncClient().post(
            url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}
        )
        assert refused.status_code == 401
        oauth = OAuth(url, redirect_uri=REDIRECT)
        try:
            async with http_client(url, auth=oauth) as client:
                assert [tool["name"] for tool in await client.list_tools()][0] == "read_events"
        finally:
            await oauth.aclose()
    finally:
        process.terminate()
        await exited(process, 30)


@pytest.mark.parametrize(
    ("document", "works"),
    [
        (
            lambda url: {
                "client_id": url,
                "client_name": "doc-client",
                "redirect_uris": [REDIRECT],
            },
            True,
        ),
        # names another client
        (lambda url: {"client_id": url + "-other", "redirect_uris": [REDIRECT]}, False),
        # not loopback/https
        (lambda url: {"client_id": url, "redirect_uris": ["http://evil.example/callback"]}, False),
    ],
)
async def test_a_client_id_metadata_document_identifies_a_client(
    server: RunningAuthorizationServer, document: Any, works: bool
) -> None:
    """A client_id that is a URL is fetched: it must name itself exactly, and list the redirect
    URI."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/client.json"

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            body = json.dumps(document(url)).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-type", b"application/json")],
                }
            )
            await send({"type": "http.response.body", "body": body})

    documents_server, serving = launch(app, bind("127.0.0.1", port), lifespan="off")
    try:
        await started(documents_server, serving)
        flow = Flow(server.issuer)
        flow.client_id = url
        response = await flow.authorize()
        if works:
            assert response.status_code == 302 and "code" in landed(response)
            assert (await flow.exchange(landed(response)["code"])).status_code == 200
        else:
            assert (response.status_code, response.json()["error"]) == (400, "invalid_client")
    finally:
        documents_server.should_exit = True
        await asyncio.wait_for(serving, 10)


# -- a person with a browser: the consent page, and the client's loopback listener -----------------
async def test_a_person_consents_on_a_page_and_the_browser_returns_to_the_listener() -> None:
    authorization = await start_authorization_server(page=True)
    redirect = f"http://127.0.0.1:{free_port()}/callback"
    seen: list[str] = []

    async def person(url: str) -> None:
        """The browser: the page, the Allow button, then the redirect to the client's listener."""
        async with httpx2.AsyncClient(follow_redirects=False, timeout=10) as browser:
            page = (await browser.get(url)).text
            seen.append(page.split("<h1>")[1].split("</h1>")[0])
            nonce = page.split("name=nonce value=")[1].split(">")[0]
            decided = await browser.post(
                f"{authorization.issuer}/authorize", data={"nonce": nonce, "decision": "allow"}
            )
            back = await browser.get(decided.headers["location"])
            seen.append(back.text.strip())
            again = await browser.post(
                f"{authorization.issuer}/authorize", data={"nonce": nonce, "decision": "allow"}
            )
            seen.append(again.json()["error_description"])

    def open_url(url: str) -> bool:
        asyncio.get_running_loop().create_task(person(url))
        return True

    try:
        guard = protect(authorization.issuer, authorization.grants.public_keys(), scopes=["mcp"])
        async with running_complete(complete_server(step_delay=0.001), around=guard) as http:
            oauth = OAuth(
                http.url,
                redirect_uri=redirect,
                client_name="course-app",
                authorize=in_the_browser(redirect, open_url=open_url, timeout=10),
            )
            try:
                async with http_client(http.url, auth=oauth) as client:
                    assert (await client.list_tools())[0]["name"] == "read_events"
            finally:
                await oauth.aclose()
        await until(lambda: len(seen) == 3)
        assert seen == [
            "Allow course-app?",
            "Done: you can close this page and go back to the application.",
            "this consent page is unknown or was already answered",
        ]
    finally:
        await authorization.close()


async def test_the_person_denies_on_the_page() -> None:
    authorization = await start_authorization_server(page=True)
    try:
        flow = Flow(authorization.issuer)
        await flow.register()
        page = (await flow.authorize()).text
        nonce = page.split("name=nonce value=")[1].split(">")[0]
        denied = await flow.http.post(
            f"{authorization.issuer}/authorize", data={"nonce": nonce, "decision": "deny"}
        )
        assert landed(denied)["error"] == "access_denied"
    finally:
        await authorization.close()


async def test_a_browser_based_client_may_call_the_endpoints_cors(
    server: RunningAuthorizationServer,
) -> None:
    client = httpx2.AsyncClient()
    preflight = await client.options(
        f"{server.issuer}/token",
        headers={"origin": "http://localhost:6274", "access-control-request-method": "POST"},
    )
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-origin"] == "*"
    metadata = await client.get(f"{server.issuer}/.well-known/oauth-authorization-server")
    assert metadata.headers["access-control-allow-origin"] == "*"
