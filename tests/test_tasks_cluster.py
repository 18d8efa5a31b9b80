"""Lesson 13 with lesson 11's workers: a task lives in the shared Redis, its work on one worker.

Two real worker processes (``python -m minimcp serve --example conformance --redis URL``) and one
private ``redis-server``. A task started on one worker is followed, answered and cancelled through
the other; and when the worker running a task is killed (SIGKILL, no goodbye), the next
``tasks/get``, on the worker still alive, fails it with a message that says why.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from http_support import TIMEOUT
from support import START_TIMEOUT
from test_tasks_http import body, post
from worker_support import Workers, start_serve, workers_on_redis

from minimcp.server.task_methods import WORKER_GONE

pytestmark = pytest.mark.timeout(4 * START_TIMEOUT)


@pytest.fixture
async def two_workers(redis_url: str) -> AsyncIterator[Workers]:
    options = ("--example", "conformance", "--redis", redis_url)
    async with workers_on_redis(redis_url, lambda port: start_serve(port, *options)) as workers:
        yield workers


def answer_of(response: httpx2.Response) -> dict[str, Any]:
    """The JSON-RPC answer of a POST: its body, or the last event of its stream (a request that
    runs past half a second is answered with a stream, lesson 12)."""
    if response.headers["content-type"].startswith("text/event-stream"):
        data = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
        answer: dict[str, Any] = json.loads(data[-1])
        return answer
    answer = response.json()
    return answer


async def start_task(http: httpx2.AsyncClient, url: str, tool: str, **arguments: Any) -> str:
    answer = await post(http, url, body("tools/call", name=tool, arguments=arguments))
    handle = answer_of(answer)["result"]
    assert handle["resultType"] == "task", handle
    return str(handle["taskId"])


async def get(http: httpx2.AsyncClient, url: str, task_id: str) -> dict[str, Any]:
    answer = await post(http, url, body("tasks/get", 2, taskId=task_id))
    assert answer.status_code == 200, answer.text
    task: dict[str, Any] = answer.json()["result"]
    return task


async def until_status(
    http: httpx2.AsyncClient, url: str, task_id: str, *statuses: str
) -> dict[str, Any]:
    """Poll ``tasks/get`` at ``url`` until the task is in one of ``statuses`` (bounded)."""
    for _ in range(int(START_TIMEOUT / 0.05)):
        task = await get(http, url, task_id)
        if task["status"] in statuses:
            return task
    raise AssertionError(f"task {task_id} never reached {statuses}: {task}")


async def test_a_task_on_one_worker_is_followed_answered_and_cancelled_through_another(
    two_workers: Workers,
) -> None:
    (_, first), (_, second) = two_workers
    async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
        long = await start_task(http, first, "slow_compute", seconds=600, label="long")
        assert (await get(http, second, long))["status"] == "working"
        ack = await post(http, second, body("tasks/cancel", 3, taskId=long))
        assert ack.json()["result"]["resultType"] == "complete"
        cancelled = await until_status(http, second, long, "cancelled", "completed", "failed")
        assert cancelled["status"] == "cancelled"  # the first worker stopped its work

        asking = await start_task(http, first, "confirm_delete", filename="notes.txt")
        parked = await until_status(http, second, asking, "input_required")
        answer = {"confirm": {"action": "accept", "content": {"confirm": True}}}
        update = body("tasks/update", 4, taskId=asking, inputResponses=answer)
        assert (await post(http, second, update)).status_code == 200
        done = await until_status(http, first, asking, "completed", "failed")
    assert set(parked["inputRequests"]) == {"confirm"}
    assert done["result"]["content"][0]["text"] == "notes.txt: deleted"


async def test_a_task_whose_worker_is_killed_fails_with_a_clear_status(
    two_workers: Workers,
) -> None:
    (doomed, first), (_, second) = two_workers
    async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
        task_id = await start_task(http, first, "slow_compute", seconds=600, label="doomed")
        assert (await get(http, second, task_id))["status"] == "working"
        os.kill(doomed.pid, signal.SIGKILL)  # no goodbye: Redis drops its connections
        doomed.wait(TIMEOUT)
        task = await until_status(http, second, task_id, "failed", "completed", "cancelled")
        again = await get(http, second, task_id)  # failed for good
    assert task["status"] == "failed" and task["statusMessage"] == WORKER_GONE
    assert task["error"] == {"code": -32603, "message": WORKER_GONE}
    assert again == task
