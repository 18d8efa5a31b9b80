"""Lesson 13: no one principal fills the task store for everyone.

Finished tasks keep their place for their time to live (their results are read then), so a user
who starts many tasks could leave no room for anyone else for an hour. Each principal keeps at most
``max_tasks_per_principal`` tasks at once: one past its share gets ``-32000`` naming its own limit,
while another principal still gets tasks. Without authorization every client is the same nobody,
and the store's bound is the only one. Both stores: one process's, and lesson 11's in Redis (on a
private ``redis-server``).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from types import SimpleNamespace

import httpx2
import pytest
from complete_support import running_complete
from http_support import TIMEOUT
from task_support import TaskServer, stores_on_redis
from test_session_owners import ISSUER, KEY, headers_of
from test_tasks_attacks import start, until_status
from test_tasks_http import body, post

from minimcp.auth import protect
from minimcp.server.task_model import TaskRecord
from minimcp.server.task_redis import RedisTaskStore
from minimcp.server.task_store import MemoryTaskStore, StoreFull, TaskStore

SHARE_FULL = "2 tasks of yours are kept already, as many as one user may keep"


async def test_over_http_a_user_past_its_share_is_busy_while_another_is_served(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = MemoryTaskStore(max_tasks=10, max_tasks_per_principal=2)
    served = TaskServer(store)
    guard = protect(ISSUER, {"rsa": KEY.public_key()}, scopes=["mcp"])
    async with (
        running_complete(served.server, around=guard) as server,
        httpx2.AsyncClient(timeout=TIMEOUT) as http,
    ):
        ada, bob = headers_of(server.url, "ada"), headers_of(server.url, "bob")
        hers = [await start(http, server.url, "held", **ada) for _ in range(2)]

        async def refused_to_ada() -> None:
            call = body("tools/call", 7, name="held", arguments={})
            answer = await post(http, server.url, call, **ada)
            assert answer.status_code == 200 and answer.json()["error"] == {
                "code": -32000,
                "message": f"Server busy: {SHARE_FULL}; try again later",
            }

        await refused_to_ada()
        his = await start(http, server.url, "held", **bob)  # another user: served
        served.release.set()
        for task_id in hers:
            await until_status(http, server.url, task_id, "completed", **ada)
        assert (await until_status(http, server.url, his, "completed", **bob))["taskId"] == his
        await refused_to_ada()  # over, but kept for their time to live: still hers
        an_hour_later = time.time() + 3_600
        monkeypatch.setattr(
            "minimcp.server.task_store.time", SimpleNamespace(time=lambda: an_hour_later)
        )
        again = await start(http, server.url, "held", **ada)  # forgotten: room in her share
        assert (await until_status(http, server.url, again, "completed", **ada))["taskId"] == again


async def shares_hold(store: TaskStore) -> None:
    """What every store promises of shares (max_tasks 3, max_tasks_per_principal 2)."""
    for number in range(2):
        await store.create(TaskRecord(id=f"ada-{number}", principal="ada"))
    with pytest.raises(StoreFull, match=f"^{SHARE_FULL}$"):
        await store.create(TaskRecord(id="ada-2", principal="ada"))
    assert await store.get("ada-2") is None
    await store.create(TaskRecord(id="bob-0", principal="bob"))  # another user: served
    with pytest.raises(StoreFull, match="^3 tasks are kept already$"):  # then the store is full
        await store.create(TaskRecord(id="bob-1", principal="bob"))


async def nobody_shares(store: TaskStore) -> None:
    """Without authorization (no principal), the bound is the store's alone (max_tasks 3)."""
    for number in range(3):
        await store.create(TaskRecord(id=f"anyone-{number}"))
    with pytest.raises(StoreFull, match="^3 tasks are kept already$"):
        await store.create(TaskRecord(id="anyone-3"))


async def test_in_memory_each_principal_keeps_its_share_and_nobody_the_stores() -> None:
    await shares_hold(MemoryTaskStore(max_tasks=3, max_tasks_per_principal=2))
    await nobody_shares(MemoryTaskStore(max_tasks=3, max_tasks_per_principal=2))


async def test_in_memory_an_expired_task_frees_its_place_in_the_share(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = MemoryTaskStore(max_tasks_per_principal=2)
    for number in range(2):
        await store.create(TaskRecord(id=f"ada-{number}", principal="ada"))
    an_hour_later = time.time() + 3_600
    monkeypatch.setattr(
        "minimcp.server.task_store.time", SimpleNamespace(time=lambda: an_hour_later)
    )
    await store.create(TaskRecord(id="ada-2", principal="ada", created_at=an_hour_later))
    await store.create(TaskRecord(id="ada-3", principal="ada", created_at=an_hour_later))
    assert len(store) == 2


@pytest.fixture
async def redis_stores(redis_url: str) -> AsyncIterator[list[RedisTaskStore]]:
    """Two workers' stores on one empty Redis (max_tasks 3, max_tasks_per_principal 2)."""
    async with stores_on_redis(redis_url, max_tasks=3, max_tasks_per_principal=2) as made:
        yield made


async def test_on_redis_the_shares_hold_for_all_workers_together(
    redis_stores: list[RedisTaskStore],
) -> None:
    one, other = redis_stores
    await one.create(TaskRecord(id="ada-0", principal="ada"))
    await other.create(TaskRecord(id="ada-1", principal="ada"))
    with pytest.raises(StoreFull, match=f"^{SHARE_FULL}$"):  # on either worker
        await one.create(TaskRecord(id="ada-2", principal="ada"))
    await other.redis.flushdb()
    await shares_hold(one)
    await other.redis.flushdb()
    await nobody_shares(other)


async def test_on_redis_an_expired_task_frees_its_place_in_the_share(
    redis_stores: list[RedisTaskStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    one, other = redis_stores
    for number in range(2):
        await one.create(TaskRecord(id=f"ada-{number}", principal="ada"))
    an_hour_later = time.time() + 3_600
    monkeypatch.setattr(
        "minimcp.server.task_redis.time", SimpleNamespace(time=lambda: an_hour_later)
    )
    await other.create(TaskRecord(id="ada-2", principal="ada", created_at=an_hour_later))
    await other.create(TaskRecord(id="ada-3", principal="ada", created_at=an_hour_later))
    with pytest.raises(StoreFull, match=f"^{SHARE_FULL}$"):
        await one.create(TaskRecord(id="ada-4", principal="ada", created_at=an_hour_later))


async def test_on_redis_a_share_ends_with_the_principals_newest_task(
    redis_stores: list[RedisTaskStore],
) -> None:
    one, _ = redis_stores
    await one.create(TaskRecord(id="ada-0", principal="ada"))
    await one.create(TaskRecord(id="ada-1", principal="ada", created_at=time.time() - 1_800))
    ttl_ms = await one.redis.pttl("mcp:tasks-of:ada")
    assert 3_500_000 < ttl_ms <= 3_600_000  # the newest task's time to live, not the older one's
