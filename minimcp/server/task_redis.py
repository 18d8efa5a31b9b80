"""Tasks on Redis: any of lesson 11's workers reads, answers and cancels any task (lesson 13).

A 2026-07-28 request may reach any worker: the ``tasks/get`` that follows a task up may well reach
another worker than the one running it. So the workers keep their tasks in the Redis they already
share (lesson 11), the same way for all:

* ``mcp:task:<id>``: the task, as JSON, expiring with it (``PX``: what is left of its time to live);
* ``mcp:tasks``: every task's id, scored by when it expires, so that the bound on how many are
  kept holds for all the workers together (a Lua script counts and adds, as one step);
* ``mcp:tasks-of:<principal>``: the same for each principal's own tasks, for their share
  (``max_tasks_per_principal``); it expires with the principal's newest task;
* a change is ``WATCH``, ``GET``, change, ``SET … XX KEEPTTL`` in ``MULTI``: if another worker
  changed the task meanwhile, Redis refuses, and the change is made again on the new task;
* each worker that runs tasks listens on a channel of its own, ``mcp:task-worker:<id>``: while it
  lives, ``PUBSUB NUMSUB`` counts it (lesson 11's test of life: Redis drops a dead process's
  connection at once). A task whose worker is gone is failed by the first ``tasks/get`` that sees
  it, on any worker.

The work itself stays on the worker that started it; a cancel or an answer that reaches another
worker is written into the task, and the worker running it looks again at least every ``poll``
seconds.

Whatever can write to Redis can write anything under a task's key: a record that is not a task
(not JSON, another shape, another task's) is no task. The server logs it and answers as for an
unknown task (``-32602``); the work of that task stops, and the worker serves on.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from typing import Any

from redis.exceptions import WatchError

from minimcp.server.task_model import TaskRecord
from minimcp.server.task_store import (
    DEFAULT_MAX_TASK_BYTES,
    DEFAULT_MAX_TASKS,
    DEFAULT_MAX_TASKS_PER_PRINCIPAL,
    DEFAULT_TTL_MS,
    Change,
    StoreFull,
    check_size,
    share_full,
)
from minimcp.transports.cluster.redis_store import connect

INDEX = "mcp:tasks"

log = logging.getLogger("minimcp.tasks")

# Forget the expired ids, then add this one if there is room, in its principal's share (KEYS[3],
# if it has a principal) and in the store: one step, whatever other workers do. 1: added; -1: the
# principal keeps its share already; 0: the store is full.
CREATE = """
if KEYS[3] then
    redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[3])
    if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[6]) then return -1 end
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return 0 end
redis.call('ZADD', KEYS[2], ARGV[4], KEYS[1])
if KEYS[3] then
    redis.call('ZADD', KEYS[3], ARGV[4], KEYS[1])
    if tonumber(ARGV[2]) > 0 and redis.call('PTTL', KEYS[3]) < tonumber(ARGV[2]) then
        redis.call('PEXPIRE', KEYS[3], ARGV[2])
    end
end
if tonumber(ARGV[2]) > 0 then
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else
    redis.call('SET', KEYS[1], ARGV[1])
end
return 1
"""


def key_of(task_id: str) -> str:
    return f"mcp:task:{task_id}"


def index_of(principal: str) -> str:
    return f"mcp:tasks-of:{principal}"


def presence(worker: str) -> str:
    return f"mcp:task-worker:{worker}"


async def read(redis: Any, task_id: str) -> TaskRecord | None:
    """The task under ``task_id``'s key, read with ``redis`` (the client, or a pipeline watching
    the key); None if there is none, or if what is there is not that task (said in the log)."""
    try:
        raw = await redis.get(key_of(task_id))
        task = TaskRecord.from_json(json.loads(raw)) if raw is not None else None
    except ValueError as error:  # not text, not JSON, not a record: all ValueErrors
        log.error("task %.64s: its record in Redis is unreadable (%s)", task_id, error)
        return None
    if task is not None and task.id != task_id:
        log.error("task %.64s: its key in Redis holds the record of %.64s", task_id, task.id)
        return None
    return task


# --8<-- [start:redis]
class RedisTaskStore:
    """A :class:`~minimcp.server.task_store.TaskStore` every worker sharing ``url`` shares."""

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        worker: str | None = None,
        ttl_ms: int | None = DEFAULT_TTL_MS,
        max_tasks: int = DEFAULT_MAX_TASKS,
        max_task_bytes: int = DEFAULT_MAX_TASK_BYTES,
        max_tasks_per_principal: int = DEFAULT_MAX_TASKS_PER_PRINCIPAL,
        poll: float = 0.5,
    ) -> None:
        self.redis = connect(url)
        self.worker = worker or secrets.token_hex(4)  # this process, as its tasks name it
        self.ttl_ms = ttl_ms
        self.max_tasks = max_tasks
        self.max_task_bytes = max_task_bytes
        self.max_tasks_per_principal = max_tasks_per_principal  # None's tasks: the store's bound
        self.poll = poll  # seconds between two looks at a task another worker may change
        self._create = self.redis.register_script(CREATE)
        self._present: Any = None  # our presence channel, once we run a task
        self._changed: dict[str, asyncio.Event] = {}  # changes made here wake waiters at once

    async def create(self, task: TaskRecord) -> None:
        await self.be_present()  # before any task names us: alive, as long as we live
        task.ttl_ms = self.ttl_ms
        check_size(task, self.max_task_bytes)
        now = time.time()
        left_ms = 0 if task.ttl_ms is None else int(task.ttl_ms - (now - task.created_at) * 1000)
        if task.ttl_ms is not None and left_ms <= 0:
            return  # its time to live is over already: there is nothing to keep
        expires = "+inf" if task.ttl_ms is None else str(now + left_ms / 1000)
        data = json.dumps(task.to_json())
        keys = [key_of(task.id), INDEX]
        if task.principal is not None:  # nobody signed in: no share, the store's bound alone
            keys.append(index_of(task.principal))
        bounds = [self.max_tasks, self.max_tasks_per_principal]
        added = await self._create(keys, [data, left_ms, str(now), expires, *bounds])
        if added == -1:
            raise share_full(self.max_tasks_per_principal)
        if not added:
            raise StoreFull(f"{self.max_tasks} tasks are kept already")

    async def get(self, task_id: str) -> TaskRecord | None:
        return await read(self.redis, task_id)

    async def update(self, task_id: str, change: Change) -> TaskRecord | None:
        key = key_of(task_id)
        while True:  # until no other worker changed the task between our GET and our SET
            async with self.redis.pipeline(transaction=True) as pipe:
                try:
                    await pipe.watch(key)
                    task = await read(pipe, task_id)
                    if task is None:
                        return None
                    change(task)
                    check_size(task, self.max_task_bytes)
                    pipe.multi()
                    pipe.set(key, json.dumps(task.to_json()), xx=True, keepttl=True)
                    await pipe.execute()
                except WatchError:
                    continue
            self._changed.pop(task_id, asyncio.Event()).set()
            return task

    # --8<-- [end:redis]

    async def wait(self, task_id: str, timeout: float) -> None:
        changed = self._changed.setdefault(task_id, asyncio.Event())
        try:
            async with asyncio.timeout(min(timeout, self.poll)):
                await changed.wait()
        except TimeoutError:
            pass

    async def alive(self, worker: str) -> bool:
        counts = await self.redis.pubsub_numsub(presence(worker))
        return bool(counts) and int(counts[0][1]) > 0

    async def be_present(self) -> None:
        """Listen on our presence channel (once): the other workers see us alive while we are."""
        if self._present is None:
            self._present = self.redis.pubsub()
            await self._present.subscribe(presence(self.worker))

    async def close(self) -> None:
        if self._present is not None:
            await self._present.aclose()
        await self.redis.aclose()
