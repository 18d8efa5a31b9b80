"""Lesson 13: the client follows a task over Streamable HTTP, and names it in ``Mcp-Name``.

Against ``python -m minimcp serve --transport http``, the course server whose ``run_analysis`` may
run as a task: the client gets the handle, polls, and its caller sees the result and each step's
progress as the task's status message; a client without the extension is answered as before. And
against the course server inside the test, each ``tasks/*`` POST carries the task's id in its
``Mcp-Name`` header (the server refuses one without it: ``-32020``).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from complete_support import complete_server, running_complete
from http_support import TIMEOUT, header_tap
from worker_support import start_serve, until_listening

from minimcp.client import modern_http_client
from minimcp.client.tasks import Polling, start_task, tasks_http_client
from minimcp.examples.course_tasks import add_course_tasks
from minimcp.session.eras import Mode

STEPS = 12  # twelve steps of 50 ms: longer than the server's grace, so a task


@pytest.fixture
async def course_url() -> AsyncIterator[str]:
    """``python -m minimcp serve --transport http``, the course server, until the test ends."""
    process = start_serve(0)
    try:
        line = (await until_listening(process)).splitlines()[-1]
        match = re.fullmatch(r"MCP endpoint: (http://127\.0\.0\.1:\d+/mcp)", line)
        assert match, line
        yield match[1]
    finally:
        process.terminate()
        await asyncio.to_thread(process.wait, TIMEOUT)


async def test_run_analysis_runs_as_a_task_and_its_steps_reach_the_caller(course_url: str) -> None:
    heard: list[str | None] = []

    def progress(done: float, total: float | None, message: str | None) -> None:
        heard.append(message)

    polling = Polling(ceiling=0.1)  # the server suggests a second: poll faster, for the test
    async with tasks_http_client(course_url, Mode.MODERN, polling) as client:
        handle = await start_task(client, "run_analysis", {"steps": STEPS}, timeout=TIMEOUT)
        assert handle.status == "working" and handle.task_id
        assert (await handle.wait(polling))["content"][0]["text"].startswith("Analysed 12 courses")
        result = await client.call_tool(
            "run_analysis", {"steps": STEPS}, progress=progress, timeout=TIMEOUT
        )
    assert result["content"][0]["text"].startswith(f"Analysed 12 courses in {STEPS} steps")
    # the steps before it became a task (progress notices), then its status messages: in order
    steps = [int(message.split()[1]) for message in heard if message and message.startswith("Step")]
    assert steps == sorted(set(steps))
    # the server's grace (a quarter second) holds five steps of 50 ms at most: the later ones
    # came as the task's status messages
    assert steps[-1] > 5


async def test_a_client_without_the_extension_is_answered_as_before(course_url: str) -> None:
    async with modern_http_client(course_url, Mode.MODERN) as client:
        result = await client.call_tool("run_analysis", {"steps": STEPS}, timeout=TIMEOUT)
    assert result["resultType"] == "complete"
    assert result["content"][0]["text"].startswith(f"Analysed 12 courses in {STEPS} steps")


async def test_the_requests_that_follow_a_task_name_it_in_mcp_name() -> None:
    seen: list[dict[str, Any]] = []
    server = add_course_tasks(complete_server(step_delay=0.05)).server
    async with running_complete(server, around=header_tap(seen)) as http:
        async with tasks_http_client(http.url, Mode.MODERN, Polling(ceiling=0.1)) as client:
            handle = await start_task(client, "run_analysis", {"steps": STEPS}, timeout=TIMEOUT)
            await handle.wait(Polling(ceiling=0.1))
            await handle.cancel()  # over already: acknowledged all the same
    following = [headers for headers in seen if headers.get("mcp-method", "").startswith("tasks/")]
    assert {headers["mcp-method"] for headers in following} == {"tasks/get", "tasks/cancel"}
    assert {headers["mcp-name"] for headers in following} == {handle.task_id}
