"""Lesson 10, the client's side, with the official Python SDK (``mcp==2.3.0``): getting in to a
protected server.

``OAuthClientProvider`` is an httpx ``Auth``, as lesson 10's ``OAuth`` is: on the server's ``401``
it reads the challenge and the Protected Resource Metadata, discovers the authorization server,
registers (dynamic registration), sends the person to ``/authorize`` with PKCE, ``state`` and
``resource``, checks ``iss``, exchanges the code, and signs every later request with the token.
What it cannot do is be the person: ``redirect_handler`` opens the authorization URL, and
``callback_handler`` hands back what the browser came back with.

Against the course server, protected, with the course authorization server granting every request
(scripts: no consent page to click)::

    python -m minimcp serve --transport http --auth --auth-consent auto
    python sdk/lesson10_oauth_client.py [URL]     # default http://127.0.0.1:8000/mcp

``tests/test_sdk_lesson10.py`` runs it. This file is not part of ``minimcp``, which never imports
``mcp``.
"""

from __future__ import annotations

import sys
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
from mcp import Client, types
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from pydantic import AnyUrl

#: Where the authorization server sends the browser back (a loopback address, as RFC 8252 says).
REDIRECT = "http://127.0.0.1:33419/callback"


class MemoryStorage:
    """The SDK's ``TokenStorage``: the registration and the tokens, in memory, for one run."""

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


class Browser:
    """The person's browser, scripted: with ``--auth-consent auto`` the authorization server grants
    at once, so opening the URL is one GET, and the code is in where it redirects."""

    def __init__(self) -> None:
        self.landed = ""

    async def open(self, authorization_url: str) -> None:
        async with httpx2.AsyncClient(follow_redirects=False) as http:
            self.landed = (await http.get(authorization_url)).headers["location"]

    async def came_back(self) -> AuthorizationCodeResult:
        query = {name: values[0] for name, values in parse_qs(urlsplit(self.landed).query).items()}
        return AuthorizationCodeResult(
            code=query["code"], state=query.get("state"), iss=query.get("iss")
        )


def text_of(result: types.CallToolResult) -> str:
    """The text blocks of a tool's result, joined."""
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


async def get_in(url: str) -> None:
    """Get a token for the MCP server at ``url``, then call a tool with it."""
    storage, browser = MemoryStorage(), Browser()
    # --8<-- [start:box]
    provider = OAuthClientProvider(
        url,  # the MCP server: the flow starts from its 401
        OAuthClientMetadata(
            redirect_uris=[AnyUrl(REDIRECT)],
            client_name="lesson-10",
            token_endpoint_auth_method="none",
        ),
        storage,  # where the registration and the tokens are kept
        redirect_handler=browser.open,
        callback_handler=browser.came_back,
    )
    async with httpx2.AsyncClient(auth=provider, timeout=30) as authorized:
        cable = streamable_http_client(url, http_client=authorized)
        async with Client(cable, mode="legacy") as client:
            result = await client.call_tool("read_events", {"date": "2025-03-21"})
    # --8<-- [end:box]
    assert storage.tokens is not None
    print("token scope:", storage.tokens.scope)
    print(text_of(result))


def main() -> None:
    """``python sdk/lesson10_oauth_client.py [URL]``."""
    anyio.run(get_in, sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000/mcp")


if __name__ == "__main__":
    main()
