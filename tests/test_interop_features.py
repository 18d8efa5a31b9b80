"""Interop: the official SDK's client uses everything the course's example server offers, over
stdio.

``python -m minimcp serve`` runs as a child process; ``mcp.Client`` (mcp 2.3.0, the oracle) lists,
calls, reads and gets every tool, resource, template and prompt, follows progress, and sees the
errors the spec prescribes. minimcp itself never imports ``mcp``; only this test does.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

mcp = pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

TIMEOUT = 20

#: Arguments for each tool of the example server: a call for every tool it lists.
TOOL_CALLS: dict[str, dict[str, Any]] = {
    "read_events": {"date": "2025-03-21"},
    "find_similar_courses": {"ids": ["v1ws", "c4ch"]},
    "run_analysis": {"steps": 3},
}
#: A URI for each template it lists.
TEMPLATE_URIS = {"courses://{id}": "courses://AI101"}
#: Arguments for each prompt it lists.
PROMPT_ARGUMENTS: dict[str, dict[str, str] | None] = {
    "course-similar-by-name": {"names": "cache, views"},
    "general-summary": None,
    "course-overview": {"id": "AI101"},
}


@asynccontextmanager
async def sdk_client(mode: str = "legacy") -> AsyncIterator[Client]:
    server = StdioServerParameters(command=sys.executable, args=["-m", "minimcp", "serve"])
    async with Client(server, mode=mode, read_timeout_seconds=TIMEOUT) as client:
        yield client


async def test_the_sdk_lists_and_calls_every_tool() -> None:
    async with sdk_client() as client:
        assert client.server_info is not None and client.server_info.name == "course-server"
        listing = await client.list_tools()
        assert listing.next_cursor is None
        assert {tool.name for tool in listing.tools} == set(TOOL_CALLS)

        results = {}
        progress: list[tuple[float, float | None, str | None]] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append((done, total, message))

        for tool in listing.tools:
            callback = on_progress if tool.name == "run_analysis" else None
            result = await client.call_tool(
                tool.name, TOOL_CALLS[tool.name], progress_callback=callback
            )
            assert not result.is_error, (tool.name, result)
            results[tool.name] = result

        assert results["read_events"].content[0].text == (
            "Events for 2025-03-21:\n- 09:00 Doctor appointment\n"
            "- 12:30 Team meeting\n- 18:00 Gym session"
        )
        similar = results["find_similar_courses"]
        assert similar.structured_content is not None
        assert similar.structured_content["similar"][0]["id"] == "rd1s"
        assert json.loads(similar.content[0].text) == similar.structured_content
        assert results["run_analysis"].content[0].text.startswith("Analysed 12 courses in 3 steps")
        assert progress == [
            (1.0, 3.0, "Step 1 of 3"),
            (2.0, 3.0, "Step 2 of 3"),
            (3.0, 3.0, "Step 3 of 3"),
        ]

        # Errors: a bad date is a result the model reads; an unknown tool is a JSON-RPC error.
        bad = await client.call_tool("read_events", {"date": "21/03/2025"})
        assert bad.is_error and "YYYY-MM-DD" in bad.content[0].text
        with pytest.raises(MCPError) as caught:
            await client.call_tool("no_such_tool", {})
        assert caught.value.error.code == -32602
        assert (await client.list_tools()).tools  # and the server answers on


async def test_the_sdk_reads_every_resource_and_gets_every_prompt() -> None:
    async with sdk_client() as client:
        resources = await client.list_resources()
        assert [r.uri for r in resources.resources] == ["courses://all", "users://all"]
        for resource in resources.resources:
            (contents,) = (await client.read_resource(resource.uri)).contents
            assert contents.mime_type == "application/json"
            assert isinstance(json.loads(contents.text), list)

        templates = await client.list_resource_templates()
        assert {t.uri_template for t in templates.resource_templates} == set(TEMPLATE_URIS)
        for template in templates.resource_templates:
            (contents,) = (
                await client.read_resource(TEMPLATE_URIS[template.uri_template])
            ).contents
            assert json.loads(contents.text)["id"] == "AI101"
        with pytest.raises(MCPError) as caught:
            await client.read_resource("courses://NOPE")
        assert caught.value.error.code == -32002

        prompts = await client.list_prompts()
        assert {p.name for p in prompts.prompts} == set(PROMPT_ARGUMENTS)
        for prompt in prompts.prompts:
            result = await client.get_prompt(prompt.name, PROMPT_ARGUMENTS[prompt.name])
            assert result.messages and all(m.role == "user" for m in result.messages)
        similar = await client.get_prompt("course-similar-by-name", {"names": "cache, views"})
        assert "c4ch, v1ws" in similar.messages[0].content.text
        summary = await client.get_prompt("general-summary")  # no arguments at all
        assert summary.messages[0].content.text.startswith("Summarize the following content")
        overview = await client.get_prompt("course-overview", {"id": "AI101"})
        assert overview.messages[0].content.type == "resource"
        assert overview.messages[0].content.resource.uri == "courses://AI101"
        with pytest.raises(MCPError) as caught:
            await client.get_prompt("course-similar-by-name")  # its required argument is missing
        assert caught.value.error.code == -32602
        assert (await client.list_tools()).tools  # and the server answers on


async def test_the_sdk_in_auto_mode_speaks_2026_and_sees_the_same_server() -> None:
    # "auto" first probes `server/discover` (revision 2026-07-28); our server answers it, so the SDK
    # stays in the modern era: no initialize, every request with its own _meta (lesson 12).
    async with sdk_client("auto") as client:
        assert client.protocol_version == "2026-07-28"
        assert {tool.name for tool in (await client.list_tools()).tools} == set(TOOL_CALLS)
        assert {p.name for p in (await client.list_prompts()).prompts} == set(PROMPT_ARGUMENTS)
        (contents,) = (await client.read_resource("courses://AI101")).contents
        assert json.loads(contents.text)["name"] == "Intro to AI"
