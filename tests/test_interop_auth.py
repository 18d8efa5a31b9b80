"""Interop for lesson 10 with the official Python SDK (mcp==2.3.0), both ways: the SDK's client,
with its own OAuth provider, gets in to a protected minimcp server through the course authorization
server; and minimcp's client gets in to an SDK server protected by the SDK's own auth support (its
token verifier checks the course authorization server's tokens).

Everything is real and on loopback: uvicorn serving the course authorization server and the
protected course server; the SDK's ``OAuthClientProvider`` doing discovery, dynamic registration,
PKCE and the token exchange. The "browser" is a function that opens the authorization URL and reads
where it redirects. Only the tests import ``mcp``.
"""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from complete_support import complete_server, running_complete

mcp = pytest.importorskip("mcp", reason="the interop tests need the official SDK (mcp==2.3.0)")

from mcp import Client as SdkClient  # noqa: E402
from mcp.client.auth import OAuthClientProvider  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.server.auth.provider import AccessToken  # noqa: E402
from mcp.server.auth.settings import AuthSettings  # noqa: E402
from mcp.server.mcpserver import MCPServer  # noqa: E402
from mcp.shared.auth import (  # noqa: E402
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

from minimcp.auth import InvalidToken, OAuth, TokenVerifier, protect  # noqa: E402
from minimcp.auth.authorization_server import start_authorization_server  # noqa: E402
from minimcp.client import http_client  # noqa: E402
from minimcp.transports.http.server import bind, launch, started  # noqa: E402

REDIRECT = "http://127.0.0.1:33419/callback"


class Memory:
    """The SDK's token storage, in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


async def test_the_sdk_client_gets_in_through_the_course_authorization_server() -> None:
    authorization = await start_authorization_server()
    landed: list[str] = []

    # the scripted person consents; where does the browser land?
    async def open_in_browser(url: str) -> None:
        async with httpx2.AsyncClient(follow_redirects=False) as http:
            landed.append((await http.get(url)).headers["location"])

    async def callback() -> AuthorizationCodeResult:
        query = {name: values[0] for name, values in parse_qs(urlsplit(landed[-1]).query).items()}
        return AuthorizationCodeResult(
            code=query["code"], state=query.get("state"), iss=query.get("iss")
        )

    try:
        guard = protect(authorization.issuer, authorization.grants.public_keys(), scopes=["mcp"])
        async with running_complete(complete_server(step_delay=0.001), around=guard) as http:
            provider = OAuthClientProvider(
                http.url,
                OAuthClientMetadata(
                    redirect_uris=[REDIRECT],
                    client_name="sdk-client",
                    token_endpoint_auth_method="none",
                ),
                Memory(),
                redirect_handler=open_in_browser,
                callback_handler=callback,
            )
            async with httpx2.AsyncClient(auth=provider, timeout=30) as authed:
                async with SdkClient(
                    streamable_http_client(http.url, http_client=authed), mode="legacy"
                ) as client:
                    result = await client.call_tool("read_events", {"date": "2025-03-21"})
                    assert result.content[0].text.startswith("Events for 2025-03-21:")
        assert len(landed) == 1 and landed[0].startswith(REDIRECT + "?code=")
        (client_id,) = authorization.grants.clients  # it registered itself dynamically
        assert client_id.startswith("client-")
    finally:
        await authorization.close()


class CourseTokens:
    """The SDK server's token verifier: minimcp's checks, on the course authorization server's
    keys."""

    def __init__(self, verifier: TokenVerifier) -> None:
        self.verifier = verifier

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            claims = self.verifier.verify(token)
        except InvalidToken:
            return None
        return AccessToken(
            token=token,
            client_id=claims.get("client_id", ""),
            scopes=claims.get("scope", "").split(),
            expires_at=claims["exp"],
            resource=claims["aud"],
            subject=claims["sub"],
        )


async def test_minimcp_gets_in_to_an_sdk_server_protected_by_the_sdks_own_auth() -> None:
    authorization = await start_authorization_server()
    sock = bind("127.0.0.1", 0)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    sdk = MCPServer(
        "sdk-protected",
        token_verifier=CourseTokens(
            TokenVerifier(authorization.issuer, url, authorization.grants.public_keys())
        ),
        auth=AuthSettings(
            issuer_url=authorization.issuer,
            resource_server_url=url,
            required_scopes=["mcp"],
            validate_token_resource=True,
        ),
    )  # the SDK checks the audience too (minimcp's verifier already does)

    @sdk.tool()
    def whoami() -> str:
        """Say hello."""
        return "hello from the SDK"

    uvicorn_server, serving = launch(sdk.streamable_http_app(), sock)
    oauth = OAuth(url, redirect_uri=REDIRECT)
    try:
        await started(uvicorn_server, serving)
        async with http_client(url, auth=oauth) as client:
            result = await client.call_tool("whoami", timeout=30)
        assert result["content"][0]["text"] == "hello from the SDK"
        assert oauth.tokens["scope"] == "mcp" and oauth.resource == url
    finally:
        await oauth.aclose()
        uvicorn_server.should_exit = True
        await asyncio.wait_for(serving, 10)
        await authorization.close()
