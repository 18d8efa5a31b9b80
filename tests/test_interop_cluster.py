"""Lesson 11 against the official SDK: its client, behind a load balancer that sends every request
to another worker than the last, runs the course server on three workers sharing one Redis."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from balancer import start_balancer
from complete_support import complete_server
from test_cluster import workers

from minimcp.client import ClientAnswers, modern_http_client
from minimcp.session.eras import Mode
from minimcp.session.input_required import StateSeal
from minimcp.transports.cluster.redis_store import connect

mcp = pytest.importorskip("mcp", reason="the interop tests need the official SDK (mcp==2.3.0)")

from mcp import Client  # noqa: E402
from test_interop_http import course_server_with_a_polling_tool  # noqa: E402

from minimcp.server.elicitation import elicit  # noqa: E402
from minimcp.server.eras import answer_both_eras  # noqa: E402
from minimcp.session import RequestContext  # noqa: E402

TIMEOUT = 30.0


async def test_the_sdk_client_runs_three_workers_each_request_elsewhere(redis_url: str) -> None:
    async with workers(redis_url, 3, build=course_server_with_a_polling_tool) as running:
        balancer, url, stop = await start_balancer([worker.url for worker in running])
        try:
            async with asyncio.timeout(TIMEOUT), Client(url, mode="legacy") as client:
                tools = await client.list_tools()
                assert "run_analysis" in [tool.name for tool in tools.tools]
                progress: list[Any] = []

                async def on_progress(
                    done: float, total: float | None, message: str | None
                ) -> None:
                    progress.append((done, total, message))

                result = await client.call_tool(
                    "run_analysis", {"steps": 3}, progress_callback=on_progress
                )
                assert progress == [(n, 3, f"Step {n} of 3") for n in (1, 2, 3)]
                assert "Analysed 12 courses" in result.content[0].text

                progress.clear()  # its stream cut half-way, and resumed through another worker
                result = await client.call_tool("long_job", {}, progress_callback=on_progress)
                assert result.content[0].text == "done"
                assert progress == [(1, 2, "first half"), (2, 2, "second half")]
                (course,) = (await client.read_resource("courses://AI101")).contents
                assert course.text.startswith('{"id": "AI101"')
            sent = balancer.sent_to
            # never the same worker twice in a row
            assert all(a != b for a, b in zip(sent, sent[1:], strict=False))
            assert len(set(sent)) == 3
        finally:
            await stop()


def asking_course_server(key: bytes) -> Any:
    """The course server with a tool that asks the user; every worker seals request states with
    ``key``."""
    server = complete_server(step_delay=0.01)
    answer_both_eras(server).seal = StateSeal(key)  # lesson 12's settings: one key for every worker

    @server.tool()
    async def greet(context: RequestContext) -> str:
        """Asks the user's name."""
        answer = await elicit(
            context, "Your name?", {"type": "object", "properties": {"name": {"type": "string"}}}
        )
        return f"Hello, {answer['content']['name']}!"

    return server


async def test_in_2026_any_worker_serves_any_request_with_nothing_in_redis(redis_url: str) -> None:
    """Lesson 12: with no session there is nothing to share. The SDK's client in mode="auto" and
    minimcp's own run three workers, each request elsewhere; a question's state is sealed on one
    worker and opened on another (one key for all), and Redis holds no session at all."""
    key = bytes(range(32))
    async with workers(redis_url, 3, build=lambda: asking_course_server(key)) as running:
        balancer, url, stop = await start_balancer([worker.url for worker in running])
        try:
            async with asyncio.timeout(TIMEOUT), Client(url, mode="auto") as client:
                assert client.protocol_version == "2026-07-28"
                progress: list[float] = []

                async def on_progress(
                    done: float, total: float | None, message: str | None
                ) -> None:
                    progress.append(done)

                result = await client.call_tool(
                    "run_analysis", {"steps": 3}, progress_callback=on_progress
                )
                assert progress == [1, 2, 3] and "Analysed 12 courses" in result.content[0].text
            answer = {"action": "accept", "content": {"name": "Ada"}}
            answers = ClientAnswers(elicitation=lambda params: answer)
            async with (
                asyncio.timeout(TIMEOUT),
                modern_http_client(url, Mode.AUTO, answers=answers) as mini,
            ):
                assert (await mini.call_tool("greet"))["content"][0]["text"] == "Hello, Ada!"
            assert len(set(balancer.sent_to)) == 3
            redis = connect(redis_url)
            assert await redis.keys("mcp:session:*") == []
            await redis.aclose()
        finally:
            await stop()
