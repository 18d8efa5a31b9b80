"""Where a server keeps its tasks, for a stated time and within a stated size (lesson 13).

A task outlives the request that created it, and may outlive the connection, the client, even the
worker that runs it: so it is kept in a **store**, apart from the work. What a store promises:

* ``create`` returns only once the task is kept: a ``tasks/get`` right after the handle arrives
  finds it (the extension: "durably created" before ``CreateTaskResult``);
* a task is kept at least its time to live (``ttlMs``, from its creation), and may be forgotten
  after: a client that comes back later gets ``-32602``, "no such task";
* what is kept is bounded: at most ``max_tasks`` tasks at once (a new one beyond that is refused),
  each at most ``max_task_bytes`` once written as JSON, its result or questions included (a
  result too large to keep fails its task instead, :class:`TaskTooLarge`);
* no one fills the store for everyone: a principal (the user lesson 10's authorization signed in)
  keeps at most ``max_tasks_per_principal`` tasks at once, finished ones included (they are kept
  for their time to live too). Without authorization every client is the same nobody, and the
  only bound is the store's;
* ``update`` changes one task at a time, whole: every change goes through it, so that two changes
  at once (the work finishing, the client cancelling) never mix.

:class:`MemoryTaskStore` is the store of one process. Lesson 11's workers share one in Redis
(:mod:`minimcp.server.task_redis`), so that any worker reads, answers and cancels any task.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

from minimcp.server.task_model import TaskRecord

#: Defaults: a task is kept an hour; at most 1000 of them, each at most 64 KiB, and at most 100
#: of one principal's (a tenth of the store: one user alone never fills it).
DEFAULT_TTL_MS = 3_600_000
DEFAULT_MAX_TASKS = 1_000
DEFAULT_MAX_TASK_BYTES = 64 * 1024
DEFAULT_MAX_TASKS_PER_PRINCIPAL = 100

Change = Callable[[TaskRecord], None]


class StoreFull(Exception):
    """No room for another task: ``max_tasks`` are kept, none of them expired yet; or its
    principal keeps ``max_tasks_per_principal`` already (:func:`share_full`)."""


def share_full(limit: int) -> StoreFull:
    """The refusal of a principal's task beyond its share: it names their limit, not the store's."""
    return StoreFull(f"{limit} tasks of yours are kept already, as many as one user may keep")


class TaskTooLarge(Exception):
    """A change would make a task larger than ``max_task_bytes``: it is not made."""


# --8<-- [start:store]
class TaskStore(Protocol):
    """What the extension needs of a store (one process's, or lesson 11's workers' in Redis)."""

    ttl_ms: int | None  # how long a task is kept after its creation (None: until the server stops)

    async def create(self, task: TaskRecord) -> None:
        """Keep a new task; return only once any worker would find it (:class:`StoreFull`)."""

    async def get(self, task_id: str) -> TaskRecord | None:
        """The task, or None: never created, or forgotten after its time to live."""

    async def update(self, task_id: str, change: Change) -> TaskRecord | None:
        """Apply ``change`` to the task, whole, and keep it; the task as changed (None if there
        is no such task). :class:`TaskTooLarge` if it would outgrow the bound: nothing changes."""

    async def wait(self, task_id: str, timeout: float) -> None:
        """Return when the task may have changed, or after ``timeout`` seconds at most."""

    async def alive(self, worker: str) -> bool:
        """Whether the worker ``worker`` still runs (one process: always)."""


# --8<-- [end:store]


def size_of(task: TaskRecord) -> int:
    """The bytes a task takes once written as JSON: what the store's size bound counts."""
    return len(json.dumps(task.to_json(), separators=(",", ":")).encode())


def check_size(task: TaskRecord, limit: int) -> None:
    size = size_of(task)
    if size > limit:
        raise TaskTooLarge(f"the task would take {size} bytes, more than the {limit} kept")


# --8<-- [start:memory]
class MemoryTaskStore:
    """The tasks of one process, in a dict, oldest first: expiry forgets from the front."""

    def __init__(
        self,
        ttl_ms: int | None = DEFAULT_TTL_MS,
        max_tasks: int = DEFAULT_MAX_TASKS,
        max_task_bytes: int = DEFAULT_MAX_TASK_BYTES,
        max_tasks_per_principal: int = DEFAULT_MAX_TASKS_PER_PRINCIPAL,
    ) -> None:
        self.ttl_ms = ttl_ms
        self.max_tasks = max_tasks
        self.max_task_bytes = max_task_bytes
        self.max_tasks_per_principal = max_tasks_per_principal  # None's tasks: the store's bound
        # Every task has the same time to live, so the oldest created is the first to expire.
        self._tasks: OrderedDict[str, TaskRecord] = OrderedDict()
        self._held: dict[str, int] = {}  # how many tasks each principal keeps now
        self._changed: dict[str, asyncio.Event] = {}  # who waits on which task

    def __len__(self) -> int:
        return len(self._tasks)

    async def create(self, task: TaskRecord) -> None:
        self.forget_expired()
        principal = task.principal
        if principal is not None and self._held.get(principal, 0) >= self.max_tasks_per_principal:
            raise share_full(self.max_tasks_per_principal)
        if len(self._tasks) >= self.max_tasks:
            raise StoreFull(f"{self.max_tasks} tasks are kept already")
        task.ttl_ms = self.ttl_ms
        check_size(task, self.max_task_bytes)
        self._tasks[task.id] = TaskRecord.from_json(task.to_json())  # a copy: ours, not theirs
        if principal is not None:
            self._held[principal] = self._held.get(principal, 0) + 1

    async def get(self, task_id: str) -> TaskRecord | None:
        self.forget_expired()
        kept = self._tasks.get(task_id)
        return TaskRecord.from_json(kept.to_json()) if kept is not None else None

    async def update(self, task_id: str, change: Change) -> TaskRecord | None:
        task = await self.get(task_id)  # a copy: a change that fails leaves the kept one as it was
        if task is None:
            return None
        change(task)
        check_size(task, self.max_task_bytes)
        self._tasks[task_id] = task
        woken = self._changed.pop(task_id, None)
        if woken is not None:
            woken.set()
        return TaskRecord.from_json(task.to_json())

    async def wait(self, task_id: str, timeout: float) -> None:
        changed = self._changed.setdefault(task_id, asyncio.Event())
        try:
            async with asyncio.timeout(timeout):
                await changed.wait()
        except TimeoutError:
            pass

    async def alive(self, worker: str) -> bool:
        return True

    def forget_expired(self) -> None:
        """Forget the tasks whose time to live has passed (the oldest first, and only those)."""
        now = time.time()
        while self._tasks:
            oldest = next(iter(self._tasks.values()))
            if not oldest.expired(now):
                break
            self._tasks.popitem(last=False)
            self._changed.pop(oldest.id, asyncio.Event()).set()
            if oldest.principal is not None:  # one task fewer for its principal
                self._held[oldest.principal] -= 1
                if not self._held[oldest.principal]:
                    del self._held[oldest.principal]


# --8<-- [end:memory]
