"""Lesson 13: the task store keeps each task for its time to live, and no more than it is allowed.

A task is found right after ``create``; kept until its time to live has passed (counted from its
creation), not a moment less; forgotten after. At most ``max_tasks`` are kept, each at most
``max_task_bytes`` as JSON: past either bound the store refuses, and what it keeps is unchanged.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from minimcp.rpc.task_names import COMPLETED, WORKING
from minimcp.server.task_model import TaskRecord, move
from minimcp.server.task_store import (
    MemoryTaskStore,
    StoreFull,
    TaskTooLarge,
    size_of,
)


async def test_a_task_is_found_as_soon_as_it_is_created() -> None:
    store = MemoryTaskStore()
    await store.create(TaskRecord(id="a"))
    found = await store.get("a")
    assert found is not None and found.status == WORKING
    assert await store.get("nobody") is None


async def test_what_the_store_hands_out_is_a_copy() -> None:
    store = MemoryTaskStore()
    task = TaskRecord(id="a")
    await store.create(task)
    task.status = COMPLETED  # the caller's copy, not the store's
    found = await store.get("a")
    assert found is not None and found.status == WORKING
    found.status = COMPLETED
    assert (await store.get("a")).status == WORKING  # type: ignore[union-attr]


async def test_the_store_stamps_its_time_to_live_on_every_task() -> None:
    store = MemoryTaskStore(ttl_ms=5_000)
    await store.create(TaskRecord(id="a", ttl_ms=None))
    assert (await store.get("a")).ttl_ms == 5_000  # type: ignore[union-attr]


async def test_a_task_is_kept_for_its_time_to_live_and_forgotten_after() -> None:
    store = MemoryTaskStore(ttl_ms=60_000)
    now = time.time()
    await store.create(TaskRecord(id="old", created_at=now - 61))  # its minute has passed
    await store.create(TaskRecord(id="young", created_at=now - 59))  # one second to go
    assert await store.get("old") is None
    assert await store.get("young") is not None
    assert len(store) == 1


async def test_an_update_of_a_forgotten_task_finds_nothing() -> None:
    store = MemoryTaskStore(ttl_ms=1_000)
    await store.create(TaskRecord(id="old", created_at=time.time() - 2))
    assert await store.update("old", lambda task: move(task, COMPLETED)) is None


async def test_at_most_max_tasks_are_kept_and_an_expired_one_makes_room() -> None:
    store = MemoryTaskStore(ttl_ms=60_000, max_tasks=2)
    await store.create(TaskRecord(id="a", created_at=time.time() - 120))
    await store.create(TaskRecord(id="b"))
    await store.create(TaskRecord(id="c"))  # "a" expired: its place is free
    with pytest.raises(StoreFull):
        await store.create(TaskRecord(id="d"))
    assert await store.get("d") is None
    assert {await store.get(name) is not None for name in "bc"} == {True}


async def test_a_change_that_outgrows_the_bound_is_not_made() -> None:
    store = MemoryTaskStore(max_task_bytes=2_000)
    await store.create(TaskRecord(id="a"))

    def complete_hugely(task: TaskRecord) -> None:
        move(task, COMPLETED)
        task.result = {"content": [{"type": "text", "text": "x" * 5_000}]}

    with pytest.raises(TaskTooLarge):
        await store.update("a", complete_hugely)
    kept = await store.get("a")
    assert kept is not None and kept.status == WORKING and kept.result is None
    assert size_of(kept) <= 2_000


async def test_a_task_too_large_to_start_with_is_refused() -> None:
    store = MemoryTaskStore(max_task_bytes=100)
    with pytest.raises(TaskTooLarge):
        await store.create(TaskRecord(id="a", status_message="x" * 500))
    assert await store.get("a") is None


async def test_a_waiter_wakes_when_its_task_changes() -> None:
    store = MemoryTaskStore()
    await store.create(TaskRecord(id="a"))
    waiting = asyncio.ensure_future(store.wait("a", timeout=30))
    await asyncio.sleep(0)  # the waiter is waiting
    assert not waiting.done()
    await store.update("a", lambda task: move(task, COMPLETED))
    await asyncio.wait_for(waiting, 5)  # well before its 30 s


async def test_a_waiter_gives_up_after_its_timeout() -> None:
    store = MemoryTaskStore()
    await store.create(TaskRecord(id="a"))
    await asyncio.wait_for(store.wait("a", timeout=0.01), 5)


async def test_one_process_has_no_dead_workers() -> None:
    assert await MemoryTaskStore().alive("any")
