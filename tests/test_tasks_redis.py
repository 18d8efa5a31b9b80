"""Lesson 13: the task store lesson 11's workers share, on a private ``redis-server``.

The same promises as the store of one process (kept for the time to live, at most ``max_tasks``
for all the workers together, at most ``max_task_bytes`` each), plus what sharing needs: two
workers changing one task at once both get their change in, and a worker is alive exactly while
its process keeps its connection to Redis.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from task_support import stores_on_redis

from minimcp.rpc.task_names import COMPLETED, WORKING
from minimcp.server.task_model import TaskRecord, move
from minimcp.server.task_redis import RedisTaskStore
from minimcp.server.task_store import Change, StoreFull, TaskTooLarge


@pytest.fixture
async def stores(redis_url: str) -> AsyncIterator[list[RedisTaskStore]]:
    """Two workers' stores on one empty Redis."""
    async with stores_on_redis(redis_url, max_tasks=3, max_task_bytes=4_000) as made:
        yield made


async def test_a_task_created_by_one_worker_is_found_by_another(
    stores: list[RedisTaskStore],
) -> None:
    one, other = stores
    await one.create(TaskRecord(id="a", worker=one.worker))
    found = await other.get("a")
    assert found is not None and (found.status, found.worker) == (WORKING, one.worker)
    assert found.ttl_ms == 3_600_000
    assert await other.get("nobody") is None


async def test_a_task_is_forgotten_once_its_time_to_live_has_passed(
    stores: list[RedisTaskStore],
) -> None:
    one, _ = stores
    await one.create(TaskRecord(id="young"))
    await one.create(TaskRecord(id="old", created_at=time.time() - 3_599.9))  # 0.1 s to go
    assert await one.get("old") is not None
    found: list[TaskRecord | None] = [None]

    async def look() -> None:
        found[0] = await one.get("old")

    for _ in range(250):  # Redis forgets it on its own, a tenth of a second later
        await look()
        if found[0] is None:
            break
        await asyncio.sleep(0.02)
    assert found[0] is None and await one.get("young") is not None


async def test_the_bound_on_tasks_holds_for_all_workers_together(
    stores: list[RedisTaskStore],
) -> None:
    one, other = stores
    await one.create(TaskRecord(id="a"))
    await other.create(TaskRecord(id="b"))
    await one.create(TaskRecord(id="c", created_at=time.time() - 7_200))  # expired already
    await other.create(TaskRecord(id="d"))  # "c" took no room
    with pytest.raises(StoreFull):
        await one.create(TaskRecord(id="e"))
    assert await other.get("e") is None


async def test_two_workers_changing_one_task_at_once_both_get_their_change_in(
    stores: list[RedisTaskStore],
) -> None:
    one, other = stores
    await one.create(TaskRecord(id="a"))

    def note(key: str) -> Change:
        return lambda task: task.keys.append(key)

    changes = [store.update("a", note(f"{n}")) for n in range(10) for store in (one, other)]
    await asyncio.gather(*changes)
    task = await one.get("a")
    assert task is not None and sorted(task.keys) == sorted(f"{n}" for n in range(10) for _ in "xy")


async def test_a_change_too_large_is_not_made(stores: list[RedisTaskStore]) -> None:
    one, _ = stores
    await one.create(TaskRecord(id="a"))

    def huge(task: TaskRecord) -> None:
        move(task, COMPLETED)
        task.result = {"content": [{"type": "text", "text": "x" * 10_000}]}

    with pytest.raises(TaskTooLarge):
        await one.update("a", huge)
    kept = await one.get("a")
    assert kept is not None and kept.status == WORKING
    assert await one.update("nobody", huge) is None


async def test_a_worker_is_alive_while_it_keeps_its_connection(redis_url: str) -> None:
    watcher = RedisTaskStore(redis_url)
    runner = RedisTaskStore(redis_url)
    try:
        assert not await watcher.alive(runner.worker)  # it ran no task yet: nobody knows it
        await runner.create(TaskRecord(id="a", worker=runner.worker))
        assert await watcher.alive(runner.worker)
        await runner.close()  # as its process dying would
        for _ in range(250):  # Redis sees the connection closed at once, or nearly
            if not await watcher.alive(runner.worker):
                break
            await asyncio.sleep(0.02)
        assert not await watcher.alive(runner.worker)
    finally:
        await watcher.close()


async def test_a_waiter_wakes_at_a_change_made_here_and_looks_again_after_poll(
    stores: list[RedisTaskStore],
) -> None:
    one, other = stores
    await one.create(TaskRecord(id="a"))
    waiting = asyncio.ensure_future(one.wait("a", timeout=30))
    await asyncio.sleep(0)
    await one.update("a", lambda task: move(task, COMPLETED))
    await asyncio.wait_for(waiting, 5)
    await asyncio.wait_for(other.wait("a", timeout=30), 5)  # another's change: seen within poll
