"""Lesson 10's box: authorization written with the official SDK, checked against minimcp.

1. ``sdk/lesson10_protected_server.py``, trusting the course authorization server: a request
   without a token gets ``401`` and the challenge that says where to read how to get in; then
   ``minimcp``'s client (lesson 10's ``OAuth``) goes through the whole flow and calls its tool.
2. ``sdk/lesson10_oauth_client.py`` gets in to the course server protected as
   ``python -m minimcp serve --transport http --auth --auth-consent auto`` protects it.

Everything runs on loopback; the course authorization server grants every request (no person).
"""

from __future__ import annotations

import httpx2
import pytest
from complete_support import complete_server, running_complete
from http_support import INITIALIZE
from sdk_support import run_sdk_script, sdk_http_server

mcp = pytest.importorskip("mcp", reason="the SDK boxes' tests need the official SDK (mcp==2.3.0)")

from minimcp.auth import OAuth, protect  # noqa: E402
from minimcp.auth.authorization_server import start_authorization_server  # noqa: E402
from minimcp.client import http_client  # noqa: E402

TIMEOUT = 30.0
REDIRECT = "http://127.0.0.1:33419/callback"


async def test_minimcp_gets_in_to_the_sdk_protected_server() -> None:
    authorization = await start_authorization_server()
    try:
        async with sdk_http_server("lesson10_protected_server.py", authorization.issuer) as url:
            async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
                refused = await http.post(
                    url,
                    json=INITIALIZE,
                    headers={"Accept": "application/json, text/event-stream"},
                )
            assert refused.status_code == 401
            challenge = refused.headers["www-authenticate"]
            assert challenge.startswith("Bearer ") and "resource_metadata=" in challenge

            oauth = OAuth(url, redirect_uri=REDIRECT)
            try:
                async with http_client(url, auth=oauth) as client:
                    result = await client.call_tool("whoami", timeout=TIMEOUT)
            finally:
                await oauth.aclose()
        text = result["content"][0]["text"]
        assert text == "a protected server, written with the SDK"
        assert oauth.tokens["scope"] == "mcp" and oauth.resource == url
    finally:
        await authorization.close()


async def test_the_sdk_client_gets_in_to_the_protected_course_server() -> None:
    authorization = await start_authorization_server()
    try:
        guard = protect(authorization.issuer, authorization.grants.public_keys(), scopes=["mcp"])
        async with running_complete(complete_server(step_delay=0.001), around=guard) as http:
            printed = await run_sdk_script("lesson10_oauth_client.py", http.url)
        (client_id,) = authorization.grants.clients  # it registered itself
        assert client_id.startswith("client-")
    finally:
        await authorization.close()
    lines = printed.splitlines()
    assert lines[:2] == ["token scope: mcp", "Events for 2025-03-21:"]
