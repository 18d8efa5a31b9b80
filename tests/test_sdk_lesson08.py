"""Lesson 08's box: Streamable HTTP written with the official SDK, checked against minimcp.

1. ``minimcp``'s HTTP client (lesson 08, part 2) talks to ``sdk/lesson08_http_server.py``: the
   progress of ``run_analysis`` arrives in order although the server cut the stream half-way on
   purpose (the client came back with ``Last-Event-ID``), and the session ends with ``DELETE``.
2. ``sdk/lesson08_http_client.py`` runs the course server over Streamable HTTP, as
   ``python -m minimcp serve --transport http`` serves it, and ends its session when it is done.
"""

from __future__ import annotations

from typing import Any

import pytest
from complete_support import running_complete
from sdk_support import run_sdk_script, sdk_http_server
from support import until

mcp = pytest.importorskip("mcp", reason="the SDK boxes' tests need the official SDK (mcp==2.3.0)")

from minimcp.client import http_client  # noqa: E402

TIMEOUT = 30.0


async def test_minimcp_resumes_the_stream_the_sdk_server_cut() -> None:
    trace: list[str] = []
    progress: list[Any] = []
    async with sdk_http_server("lesson08_http_server.py") as url:
        async with http_client(url, on_http=trace.append) as client:
            assert client.protocol_version == "2025-11-25"
            result = await client.call_tool(
                "run_analysis",
                {"steps": 3},
                timeout=TIMEOUT,
                progress=lambda *args: progress.append(args),
            )
    assert result["content"] == [{"type": "text", "text": "Analysed in 3 steps"}]
    assert progress == [(n, 3, f"Step {n} of 3") for n in (1, 2, 3)]
    assert trace[0].startswith("POST initialize #1 -> 200")  # the session is opened
    resumed = [line for line in trace if line.startswith("GET (Last-Event-ID")]
    assert resumed and all(line.endswith("-> 200 text/event-stream") for line in resumed)
    assert trace[-1] == "DELETE -> 200"  # and ended


async def test_the_sdk_client_runs_the_course_server_and_ends_its_session() -> None:
    async with running_complete() as http:
        printed = await run_sdk_script("lesson08_http_client.py", http.url)
        await until(lambda: http.app.sessions == {})  # the DELETE it sent, acted on
        assert http.app.sessions == {}
    lines = printed.splitlines()
    assert lines[:4] == [
        "protocol 2025-11-25",
        "progress: Step 1 of 3",
        "progress: Step 2 of 3",
        "progress: Step 3 of 3",
    ]
    assert lines[4].startswith("Analysed 12 courses in 3 steps")
