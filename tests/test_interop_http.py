"""Interop over Streamable HTTP with the official Python SDK (mcp==2.3.0), the oracle.

Both directions, a resumed stream in each: the SDK's client (``mcp.Client(url)``, modes ``legacy``
and ``auto``) runs the course server behind ``minimcp.http``; minimcp's HTTP client runs the SDK's
``MCPServer`` served with an event store (tests/servers/sdk_http_server.py), whose tool closes its
SSE connection half-way. Only the tests import ``mcp``.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest
from complete_support import complete_server, running_complete
from support import START_TIMEOUT, free_port

mcp = pytest.importorskip("mcp", reason="the interop tests need the official SDK (mcp==2.3.0)")

from mcp import Client  # noqa: E402

from minimcp.client import http_client  # noqa: E402
from minimcp.server import report_progress  # noqa: E402
from minimcp.session import RequestContext  # noqa: E402

TIMEOUT = 30.0


def course_server_with_a_polling_tool():
    """The course server, plus a tool that ends its SSE connection between two progress steps."""
    server = complete_server(step_delay=0.005)

    @server.tool()
    async def long_job(context: RequestContext) -> str:
        """Works in two steps, without holding its connection open in between."""
        await report_progress(context, 1, 2, "first half")
        context.close_sse_stream(retry_ms=50)
        await asyncio.sleep(0.1)
        await report_progress(context, 2, 2, "second half")
        return "done"

    return server


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_sdk_client_runs_the_course_server_over_http(mode: str) -> None:
    async def scenario(url: str) -> None:
        async with Client(url, mode=mode) as client:
            # "auto" probes with server/discover, which minimcp answers: 2026-07-28, no session
            # (lesson 12)
            assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
            assert client.server_info.name == "course-server"
            assert (client.session.initialize_result is not None) == (mode == "legacy")
            tools = await client.list_tools()
            assert [tool.name for tool in tools.tools] == [
                "read_events",
                "find_similar_courses",
                "run_analysis",
                "long_job",
            ]
            result = await client.call_tool("read_events", {"date": "2025-03-21"})
            assert result.content[0].text.startswith("Events for 2025-03-21:")

            progress: list[Any] = []

            async def on_progress(done: float, total: float | None, message: str | None) -> None:
                progress.append((done, total, message))

            result = await client.call_tool(
                "run_analysis", {"steps": 3}, progress_callback=on_progress
            )
            assert progress == [(n, 3, f"Step {n} of 3") for n in (1, 2, 3)]
            assert "Analysed 12 courses" in result.content[0].text

            # a stream the server ends half-way (2025-11-25): the SDK resumes it with Last-Event-ID
            progress.clear()
            result = await client.call_tool("long_job", {}, progress_callback=on_progress)
            assert result.content[0].text == "done"
            assert progress == [(1, 2, "first half"), (2, 2, "second half")]

            (course,) = (await client.read_resource("courses://AI101")).contents
            assert course.text.startswith('{"id": "AI101"')
            templates = await client.list_resource_templates()
            assert [t.uri_template for t in templates.resource_templates] == ["courses://{id}"]
            prompt = await client.get_prompt("course-similar-by-name", {"names": "Cache"})
            assert "c4ch" in prompt.messages[0].content.text

    async with running_complete(course_server_with_a_polling_tool()) as http:
        await asyncio.wait_for(scenario(http.url), TIMEOUT)
        await asyncio.sleep(0.1)
        assert http.app.sessions == {}  # the SDK's client sent DELETE when it closed


async def test_minimcp_client_runs_the_sdk_server_over_http_and_resumes_its_stream(
    repo_root,
) -> None:
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.servers.sdk_http_server",
        str(port),
        cwd=str(repo_root),
        stderr=asyncio.subprocess.PIPE,
    )
    trace: list[str] = []

    async def ready() -> None:
        while (await process.stderr.readline()).strip() != b"ready":
            pass

    async def scenario() -> None:
        async with http_client(f"http://127.0.0.1:{port}/mcp", on_http=trace.append) as client:
            assert client.server_info["name"] == "sdk-http"
            assert client.protocol_version == "2025-11-25"
            progress: list[Any] = []
            result = await client.call_tool(
                "read_events",
                {"date": "2025-03-21"},
                timeout=TIMEOUT,
                progress=lambda *args: progress.append(args),
            )
            assert result["content"] == [
                {"type": "text", "text": "Events for 2025-03-21:\n- 09:00 Daily meeting"}
            ]
            assert progress == [(n, 3, f"step {n} of 3") for n in (1, 2, 3)]
            assert [r["uri"] for r in await client.list_resources(timeout=TIMEOUT)] == [
                "courses://all"
            ]
            (content,) = (await client.read_resource("courses://c4ch", timeout=TIMEOUT))["contents"]
            assert content["text"] == '{"id": "c4ch"}'
            prompt = await client.get_prompt(
                "course-similar-by-name", {"names": "Cache"}, timeout=TIMEOUT
            )
            assert prompt["messages"][0]["content"]["text"] == "Find courses similar to: Cache."

    try:
        await asyncio.wait_for(ready(), START_TIMEOUT)
        await asyncio.wait_for(scenario(), TIMEOUT)
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), TIMEOUT)
    resumed = [line for line in trace if line.startswith("GET (Last-Event-ID")]
    assert resumed and all(line.endswith("-> 200 text/event-stream") for line in resumed)
    assert trace[-1] == "DELETE -> 200"
