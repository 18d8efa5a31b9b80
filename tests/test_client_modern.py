"""Lesson 12: minimcp's client in both eras: mode="auto" probes, falls back, remembers; a 2026
request carries its envelope and its headers, and is asked again while the server needs input."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path
from typing import Any

import pytest
from complete_support import complete_server, running_complete
from http_support import TIMEOUT, header_tap
from stdio_wiretap import wiretapped

from minimcp.client import (
    Client,
    ClientAnswers,
    http_client,
    modern_http_client,
    modern_stdio_client,
)
from minimcp.rpc import RpcError, memory_pair
from minimcp.server import Server
from minimcp.server.eras import answer_both_eras
from minimcp.session import RequestContext, UnsupportedVersion
from minimcp.session.eras import VERDICTS, Mode, TwoEras
from minimcp.transports.http.modern_headers import header_problem

ASSISTANT = [sys.executable, "-m", "minimcp", "serve", "--example", "assistant"]


def methods_sent(wire: Path) -> list[str]:
    return [json.loads(line).get("method") for line in wire.read_text().splitlines()]


async def github_user(params: dict[str, Any]) -> dict[str, Any]:
    return {"action": "accept", "content": {"github_user": "octocat"}}


async def test_auto_speaks_2026_and_answers_the_servers_questions(
    repo_root: Path, tmp_path: Path
) -> None:
    wire = tmp_path / "wire.jsonl"
    async with modern_stdio_client(
        wiretapped(wire, "--example", "assistant"),
        Mode.AUTO,
        answers=ClientAnswers(elicitation=github_user),
    ) as client:
        assert (client.protocol_version, client.session.conversation.era) == (
            "2026-07-28",
            "modern",
        )
        assert client.server_info["name"] == "assistant"
        result = await client.call_tool("link_github", timeout=TIMEOUT)
        assert result["content"][0]["text"] == "Linked to GitHub user octocat."
    sent = [json.loads(line) for line in wire.read_text().splitlines()]
    assert [m["method"] for m in sent] == ["server/discover", "tools/call", "tools/call"]
    first, retry = sent[1], sent[2]
    assert retry["id"] != first["id"] and "inputResponses" not in first["params"]
    assert retry["params"]["inputResponses"] == {
        "elicitation-1": {"action": "accept", "content": {"github_user": "octocat"}}
    }
    assert isinstance(retry["params"]["requestState"], str)
    assert retry["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] == {
        "elicitation": {"form": {}}
    }


async def test_auto_falls_back_to_initialize_and_remembers_the_verdict(
    repo_root: Path, tmp_path: Path
) -> None:
    wire = tmp_path / "wire.jsonl"
    command = wiretapped(wire, "--legacy-only")
    VERDICTS.pop(" ".join(command), None)
    async with modern_stdio_client(command, Mode.AUTO) as client:
        assert (client.protocol_version, client.session.conversation.era) == (
            "2025-11-25",
            "legacy",
        )
    assert methods_sent(wire)[:3] == ["server/discover", "initialize", "notifications/initialized"]
    wire.unlink()
    # the same server: no probe this time
    async with modern_stdio_client(command, Mode.AUTO) as client:
        assert client.session.conversation.era == "legacy"
    assert methods_sent(wire)[:2] == ["initialize", "notifications/initialized"]


async def test_a_pinned_2026_version_does_not_fall_back(repo_root: Path) -> None:
    with pytest.raises(RpcError) as caught:
        async with modern_stdio_client(
            [sys.executable, "-m", "minimcp", "serve", "--legacy-only"], Mode.MODERN
        ):
            pass
    assert (caught.value.code, caught.value.message) == (
        -32601,
        "Method not found: server/discover",
    )


async def test_a_newer_only_server_that_also_speaks_2025_gets_initialize() -> None:
    server = complete_server()
    server.modern_versions = (
        "2027-01-01",
    )  # a modern server of a revision this client does not speak
    client_end, server_end = memory_pair()
    serving = asyncio.ensure_future(server.serve(server_end))
    async with Client(client_end, conversation=TwoEras(Mode.AUTO)) as client:
        assert (client.session.conversation.era, client.protocol_version) == (
            "legacy",
            "2025-11-25",
        )
    await asyncio.wait_for(serving, TIMEOUT)


async def test_no_version_in_common_is_unsupported() -> None:
    server = complete_server()
    server.modern_versions, server.protocol_versions = ("2027-01-01",), ()
    client_end, server_end = memory_pair()
    serving = asyncio.ensure_future(server.serve(server_end))
    with pytest.raises(UnsupportedVersion):
        async with Client(client_end, conversation=TwoEras(Mode.AUTO)):
            pass
    await asyncio.wait_for(serving, TIMEOUT)


async def test_a_server_that_never_stops_asking_is_given_up_on() -> None:
    server = Server("asker")
    answer_both_eras(server)  # lesson 12's piece: the server answers 2026-07-28 too

    @server.tool()
    async def endless(context: RequestContext) -> str:
        """Asks a new question every round."""
        round_number = len(context.answers.given if context.answers else {}) + 1
        await context.ask(
            {
                f"q{round_number}": {
                    "method": "elicitation/create",
                    "params": {
                        "message": "Again?",
                        "requestedSchema": {"type": "object", "properties": {}},
                    },
                }
            }
        )
        return "never"

    async with (
        running_complete(server) as http,
        modern_http_client(
            http.url,
            Mode.AUTO,
            answers=ClientAnswers(elicitation=lambda params: {"action": "accept", "content": {}}),
        ) as client,
    ):
        with pytest.raises(RpcError) as caught:
            await client.call_tool("endless", timeout=TIMEOUT)
        assert caught.value.message == "tools/call: the server still needed input after 10 rounds"


async def test_over_http_a_2026_request_carries_its_headers_and_header_parameters() -> None:
    server = complete_server()

    def route(region: str, priority: int | None = None) -> str:
        return f"{region} {priority}"

    server.add_tool(
        route,
        input_schema={
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "priority": {"type": "integer", "x-mcp-header": "Priority"},
            },
        },
    )
    seen: list[dict[str, str]] = []
    async with (
        running_complete(server, around=header_tap(seen)) as http,
        modern_http_client(http.url, Mode.AUTO) as client,
    ):
        await client.list_tools()  # learns which arguments travel as headers
        result = await client.call_tool(
            "route", {"region": "Hello, 世界", "priority": 7}, timeout=TIMEOUT
        )
        # the server checked the headers: they agree
        assert result["content"][0]["text"] == "Hello, 世界 7"
    call = seen[-1]
    assert (call["mcp-method"], call["mcp-name"], call["mcp-protocol-version"]) == (
        "tools/call",
        "route",
        "2026-07-28",
    )
    assert (call["mcp-param-region"], call["mcp-param-priority"]) == (
        "=?base64?SGVsbG8sIOS4lueVjA==?=",
        "7",
    )
    assert all("mcp-session-id" not in headers for headers in seen)


#: An argument inside an object argument: the spec allows ``x-mcp-header`` on it ("Nested object
#: properties are permitted as long as every step in the chain is a ``properties`` key").
NESTED_REGION = {"region": {"type": "string", "x-mcp-header": "Region"}}


async def test_a_nested_header_argument_keeps_its_tool_and_travels_as_a_header() -> None:
    """Before, the client dropped such a tool from ``list_tools()``: now it keeps it, and sends
    the value at the argument's path as its header, which the server checks."""
    server = complete_server()

    def locate(where: dict[str, Any]) -> str:
        return f"in {where['region']}"

    where = {"type": "object", "properties": {**NESTED_REGION, "zone": {"type": "string"}}}
    server.add_tool(locate, input_schema={"type": "object", "properties": {"where": where}})
    seen: list[dict[str, str]] = []
    async with (
        running_complete(server, around=header_tap(seen)) as http,
        modern_http_client(http.url, Mode.AUTO) as client,
    ):
        assert "locate" in [tool["name"] for tool in await client.list_tools()]
        arguments = {"where": {"region": "eu-west1", "zone": "b"}}
        result = await client.call_tool("locate", arguments, timeout=TIMEOUT)
        assert result["content"][0]["text"] == "in eu-west1"
    assert seen[-1]["mcp-param-region"] == "eu-west1"


@pytest.mark.parametrize(
    ("properties", "problem"),
    [
        ({"region": {"type": "string", "x-mcp-header": "Region"}}, None),
        (
            {"region": {"type": "string", "x-mcp-header": ""}},
            "argument 'region': x-mcp-header '' is not a header name",
        ),
        (
            {"region": {"type": "string", "x-mcp-header": "My Region"}},
            "argument 'region': x-mcp-header 'My Region' is not a header name",
        ),
        (
            {"region": {"type": "string", "x-mcp-header": "Région"}},
            "argument 'region': x-mcp-header 'Région' is not a header name",
        ),
        (
            {
                "a": {"type": "string", "x-mcp-header": "MyField"},
                "b": {"type": "string", "x-mcp-header": "myfield"},
            },
            "argument 'b': x-mcp-header 'myfield' is used twice",
        ),
        (
            {"ratio": {"type": "number", "x-mcp-header": "Ratio"}},
            "argument 'ratio': x-mcp-header needs a string, integer or boolean, not 'number'",
        ),
        (
            {"tags": {"type": "array", "items": {"type": "string", "x-mcp-header": "Tag"}}},
            "x-mcp-header is honoured only on properties reached through properties alone",
        ),
        (
            {"where": {"type": "object", "properties": NESTED_REGION}},
            None,
        ),
        (
            {"where": {"anyOf": [{"type": "object", "properties": NESTED_REGION}]}},
            "x-mcp-header is honoured only on properties reached through properties alone",
        ),
        (
            {
                "region": {"type": "string", "x-mcp-header": "region"},
                "where": {"type": "object", "properties": NESTED_REGION},
            },
            "argument 'where.region': x-mcp-header 'Region' is used twice",
        ),
    ],
)
def test_which_header_annotations_a_client_can_honour(
    properties: dict[str, Any], problem: str | None
) -> None:
    assert header_problem({"type": "object", "properties": properties}) == problem


async def test_a_2026_client_leaves_out_a_tool_whose_headers_it_cannot_send() -> None:
    server = complete_server()
    server.add_tool(
        lambda ratio: str(ratio),
        "by_ratio",
        input_schema={
            "type": "object",
            "properties": {"ratio": {"type": "number", "x-mcp-header": "Ratio"}},
        },
    )
    async with running_complete(server) as http:
        async with (
            modern_http_client(http.url, Mode.AUTO) as modern,
            http_client(http.url) as legacy,
        ):
            assert "by_ratio" not in [tool["name"] for tool in await modern.list_tools()]
            # no headers in 2025
            assert "by_ratio" in [tool["name"] for tool in await legacy.list_tools()]


@pytest.mark.parametrize("mode", [Mode.MODERN, Mode.LEGACY])
async def test_a_cancelled_call_over_http_is_cancelled_as_its_era_says(
    mode: Mode, caplog: pytest.LogCaptureFixture
) -> None:
    """2026-07-28 over HTTP: the client closes the request's stream, and sends no
    ``notifications/cancelled`` ("required or expected" of no client, spec 2026-07-28,
    basic/patterns/cancellation); 2025-11-25: the notice, as lesson 09 taught. Either way the
    server stops the work, and nothing fails on either side."""
    server = complete_server()
    started, stopped = asyncio.Event(), asyncio.Event()

    async def hang() -> str:
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            stopped.set()
        return "never"

    server.add_tool(hang, "hang")
    seen: list[dict[str, str]] = []
    async with (
        running_complete(server, around=header_tap(seen)) as http,
        modern_http_client(http.url, mode) as client,
    ):
        call = asyncio.create_task(client.call_tool("hang", timeout=TIMEOUT))
        await asyncio.wait_for(started.wait(), TIMEOUT)
        posts_before = len([h for h in seen if h[":method"] == "POST"])
        call.cancel()
        await asyncio.wait_for(stopped.wait(), TIMEOUT)  # the server stopped the work
        assert (await client.list_tools())[0]["name"]  # and serves on
    posts = [h for h in seen if h[":method"] == "POST"][posts_before:]
    notices = [h for h in posts if "mcp-method" not in h and "mcp-session-id" in h]
    if mode == Mode.MODERN:
        assert [h.get("mcp-method") for h in posts] == ["tools/list"]  # no notice
    else:
        assert len(notices) >= 1  # notifications/cancelled, in its session
    failures = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert not failures
