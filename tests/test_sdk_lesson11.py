"""Lesson 11's box: many workers with the official SDK, checked against minimcp.

Three workers of ``sdk/lesson11_stateless_server.py`` (``stateless_http=True``) behind a balancer
that sends every request to the next worker in turn: ``minimcp``'s client (lesson 08's, in the
2025-11-25 era) uses them as one server, though no two consecutive requests meet the same worker
and they share nothing. What the SDK gives up for it is the session: none is assigned, so the
client has none to end.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import Any

import httpx2
import pytest
from balancer import start_balancer
from http_support import ACCEPT_BOTH, INITIALIZE
from sdk_support import sdk_http_server

mcp = pytest.importorskip("mcp", reason="the SDK boxes' tests need the official SDK (mcp==2.3.0)")

from minimcp.client import http_client  # noqa: E402

TIMEOUT = 30.0


async def test_minimcp_uses_three_stateless_sdk_workers_as_one_server() -> None:
    trace: list[str] = []
    progress: list[Any] = []
    async with AsyncExitStack() as workers:
        urls = [
            await workers.enter_async_context(sdk_http_server("lesson11_stateless_server.py"))
            for _ in range(3)
        ]
        async with httpx2.AsyncClient(timeout=TIMEOUT) as http:  # no session is assigned
            opened = await http.post(urls[0], json=INITIALIZE, headers={"Accept": ACCEPT_BOTH})
        assert opened.status_code == 200 and "mcp-session-id" not in opened.headers
        balancer, url, stop = await start_balancer(urls)
        try:
            async with http_client(url, on_http=trace.append) as client:
                for steps in (2, 3):
                    result = await client.call_tool(
                        "run_analysis",
                        {"steps": steps},
                        timeout=TIMEOUT,
                        progress=lambda *args: progress.append(args),
                    )
                    assert result["content"][0]["text"] == f"Analysed in {steps} steps"
        finally:
            await stop()
    assert progress == [(1, 2, "Step 1 of 2"), (2, 2, "Step 2 of 2")] + [
        (n, 3, f"Step {n} of 3") for n in (1, 2, 3)
    ]
    sent = balancer.sent_to
    assert len(set(sent)) == 3  # every worker answered some of the session's requests
    assert all(a != b for a, b in zip(sent, sent[1:], strict=False))  # never one twice in a row
    assert not [line for line in trace if line.startswith("DELETE")]  # no session to end
