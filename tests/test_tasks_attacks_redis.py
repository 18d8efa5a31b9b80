"""Lesson 13 on lesson 11's workers, attacked: what Redis holds may be anything, and many clients
may ask at once.

Whatever can write to the shared Redis can write anything under a task's key. A record that is not
a task is no task: ``-32602`` as for an unknown id, a line in the worker's log, and the worker
serves on. And a flood of ``tasks/get`` from many clients at once, on the worker that does not run
the task, is answered, every one. Real worker processes and a private ``redis-server``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from http_support import TIMEOUT
from support import START_TIMEOUT
from test_tasks_cluster import answer_of, get, start_task, until_status
from test_tasks_http import body, headers, post
from worker_support import Workers, start_serve, stderr_of, workers_on_redis

from minimcp.server.task_model import TaskRecord
from minimcp.server.task_redis import RedisTaskStore, key_of
from minimcp.transports.cluster.redis_store import connect

pytestmark = pytest.mark.timeout(4 * START_TIMEOUT)

GOOD = TaskRecord(id="t").to_json()
#: What may lie under a task's key instead of its record, named for what is wrong with it.
NOT_RECORDS: dict[str, Any] = {
    "not JSON": "not json",
    "not text": b"\xff\xfe not even text",
    "an array": "[1, 2]",
    "a string": '"a string"',
    "other fields": json.dumps({"foo": 1}),
    "a field too many": json.dumps({**GOOD, "surplus": True}),
    "no such status": json.dumps({**GOOD, "status": "bogus"}),
    "questions not a map": json.dumps({**GOOD, "status": "input_required", "questions": "?"}),
    "result not an object": json.dumps({**GOOD, "result": "done", "status": "completed"}),
    "created after year 9999": json.dumps({**GOOD, "created_at": 1e300}),
    "created at NaN": json.dumps({**GOOD, "created_at": float("nan")}),
    "a time to live no float holds": json.dumps({**GOOD, "ttl_ms": 10**400}),
    "another task's record": json.dumps({**GOOD, "id": "someone-else"}),
}


@pytest.mark.parametrize("kept", NOT_RECORDS.values(), ids=NOT_RECORDS.keys())
async def test_a_record_that_is_not_a_task_is_no_task(
    redis_url: str, kept: Any, caplog: pytest.LogCaptureFixture
) -> None:
    store = RedisTaskStore(redis_url)
    try:
        await store.create(TaskRecord(id="t"))
        await store.redis.set(key_of("t"), kept)  # bypasses the store: anything goes
        caplog.set_level(logging.ERROR, "minimcp.tasks")
        assert await store.get("t") is None
        assert await store.update("t", lambda task: None) is None
        await store.create(TaskRecord(id="next"))  # the store goes on
        assert await store.get("next") is not None
    finally:
        await store.redis.delete(key_of("t"), key_of("next"), "mcp:tasks")
        await store.close()
    assert "task t: its " in caplog.text and "in Redis" in caplog.text


@pytest.fixture
async def two_workers(redis_url: str) -> AsyncIterator[Workers]:
    options = ("--example", "conformance", "--redis", redis_url)
    async with workers_on_redis(redis_url, lambda port: start_serve(port, *options)) as workers:
        yield workers


async def test_a_corrupted_task_is_unknown_and_the_worker_serves_on(
    two_workers: Workers, redis_url: str
) -> None:
    (process, url), (_, other) = two_workers
    redis = connect(redis_url)
    async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
        for kept in ("not json", json.dumps({"id": 5})):
            task_id = await start_task(http, url, "slow_compute", seconds=600)
            await redis.set(key_of(task_id), kept)
            for method in ("tasks/get", "tasks/update", "tasks/cancel"):
                message = body(method, 2, taskId=task_id, inputResponses={})
                answer = await post(http, url if method == "tasks/get" else other, message)
                assert answer.status_code == 400
                assert answer.json()["error"] == {
                    "code": -32602,
                    "message": f"Invalid params: no task {task_id!r} (unknown, or expired)",
                }
        served = await start_task(http, url, "slow_compute", seconds=0.5)
        done = await until_status(http, url, served, "completed", "failed", "cancelled")
    await redis.aclose()
    assert done["status"] == "completed"
    assert "its record in Redis is unreadable" in stderr_of(process)


CLIENTS, ASKED = 100, 600


async def test_a_flood_of_tasks_get_from_many_clients_is_answered(two_workers: Workers) -> None:
    (_, first), (_, second) = two_workers
    limits = httpx2.Limits(max_connections=CLIENTS)
    async with httpx2.AsyncClient(timeout=4 * TIMEOUT, limits=limits) as http:
        task_id = await start_task(http, first, "slow_compute", seconds=600)
        asked = body("tasks/get", 2, taskId=task_id)

        async def ask() -> Any:
            answer = await http.post(second, json=asked, headers=headers(asked))
            return answer.status_code, answer_of(answer).get("result", {}).get("status")

        answers = await asyncio.gather(*(ask() for _ in range(ASKED)))
        assert answers == [(200, "working")] * ASKED  # every one, on the worker not running it
        assert (await get(http, second, task_id))["status"] == "working"
        await post(http, second, body("tasks/cancel", 3, taskId=task_id))
        ended = await until_status(http, first, task_id, "cancelled", "completed", "failed")
    assert ended["status"] == "cancelled"
