"""Lesson 12: a header mismatch repeats what the client sent, but a line of it at most.

``-32020`` names the header and the body's value it contradicts. A client that puts a megabyte in
the body (a tool's name, the envelope's version, an argument mirrored in a header) gets that
megabyte back no more: the message quotes at most a hundred characters of each value, and the
server serves on.
"""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from complete_support import running_complete
from http_support import TIMEOUT
from test_http_modern import META, headers_for, message, still_serving, with_header_parameters

MEGABYTE = "y" * 1_000_000


def huge_envelope() -> dict[str, Any]:
    body = message("tools/list")
    body["params"]["_meta"] = {**META, "io.modelcontextprotocol/protocolVersion": MEGABYTE}
    return body


@pytest.mark.parametrize(
    ("body", "sent", "start"),
    [
        (
            message("tools/call", name=MEGABYTE, arguments={}),
            {"mcp-name": "short"},
            "Header mismatch: Mcp-Name header value 'short' does not match body value 'yyy",
        ),
        (
            message("tools/call", name="route", arguments={"region": MEGABYTE}),
            {"mcp-name": "route", "mcp-param-region": "eu-west1"},
            "Header mismatch: Mcp-Param-Region header value 'eu-west1' does not match body value "
            "'yyy",
        ),
        (
            huge_envelope(),
            {},
            "Header mismatch: MCP-Protocol-Version header value '2026-07-28' does not match body "
            "value 'yyy",
        ),
        (
            message(MEGABYTE),
            {"mcp-method": "tools/list"},
            "Header mismatch: Mcp-Method header value 'tools/list' does not match body value 'yyy",
        ),
    ],
    ids=["Mcp-Name", "Mcp-Param", "MCP-Protocol-Version", "Mcp-Method"],
)
async def test_a_megabyte_in_the_body_comes_back_as_a_line(
    body: dict[str, Any], sent: dict[str, str], start: str
) -> None:
    async with (
        running_complete(with_header_parameters()) as server,
        httpx2.AsyncClient(timeout=TIMEOUT) as http,
    ):
        answer = await http.post(server.url, json=body, headers={**headers_for(body), **sent})
        assert answer.status_code == 400 and len(answer.content) < 500
        error = answer.json()["error"]
        assert error["code"] == -32020
        assert error["message"].startswith(start) and error["message"].endswith("yyy…")
        assert "\n" not in error["message"]
        await still_serving(http, server.url)
