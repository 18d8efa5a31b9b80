"""Status notifications: a task's changes, told to the clients that listen for them (lesson 13).

Polling works everywhere, and a client must always be ready to poll. A client that would rather be
told asks to listen, the 2026-07-28 way (lesson 12's ``subscriptions/listen``), naming its tasks::

    → subscriptions/listen {"notifications": {"taskIds": ["786512e2-…"]}, "_meta": {...}}
    ← notifications/subscriptions/acknowledged {"notifications": {"taskIds": ["786512e2-…"]}}
    ← notifications/tasks {"taskId": "786512e2-…", "status": "completed", "result": {…}, …}

Each notice carries the whole task, exactly what ``tasks/get`` would answer at that moment. The
server agrees only to tasks the listener could ``tasks/get`` (its own, and known), and only if the
request declares the extension (``-32021`` otherwise).

:class:`TaskTopic` is the kind of notification the extension adds to lesson 12's listeners;
:class:`Telling` is a store that tells it each change as it keeps it. A change is told by the
worker that makes it: with lesson 11's workers, a listener on another one hears only the changes
made there, and polls for the rest.
"""

from __future__ import annotations

from typing import Any

from minimcp.rpc.jsonrpc import INVALID_PARAMS, RpcError
from minimcp.server.core import Audience
from minimcp.server.task_methods import MAX_TASK_ID, missing_extension, negotiated, principal_of
from minimcp.server.task_model import TaskRecord, detailed
from minimcp.server.task_store import Change, TaskStore
from minimcp.session.context import RequestContext

NOTICE = "notifications/tasks"
#: The most task ids one listener may name: each is looked up in the store (a round trip to Redis,
#: with lesson 11's workers), so a list of a hundred thousand would keep a worker busy for seconds.
#: A thousand is as many tasks as a server keeps by default.
MAX_LISTENED = 1_000


# --8<-- [start:topic]
class TaskTopic:
    """``taskIds`` in ``subscriptions/listen``: the tasks a listener hears about."""

    method = NOTICE

    def __init__(self, store: TaskStore) -> None:
        self.store = store

    async def agree(self, context: RequestContext, requested: Any) -> list[str]:
        """The listener's own tasks among ``requested``, those this server knows."""
        if not negotiated(context):
            raise missing_extension()
        if not (isinstance(requested, list) and all(isinstance(id, str) for id in requested)):
            raise RpcError(INVALID_PARAMS, 'Invalid params: "taskIds" must be a list of task ids')
        if len(requested) > MAX_LISTENED:
            raise RpcError(
                INVALID_PARAMS, f'Invalid params: "taskIds" names more than {MAX_LISTENED} tasks'
            )
        agreed = []
        for task_id in dict.fromkeys(requested):  # each once, in the order asked
            if len(task_id) > MAX_TASK_ID:
                continue  # none of ours: not worth a look
            task = await self.store.get(task_id)
            if task is not None and task.principal == principal_of(context):
                agreed.append(task_id)
        return agreed

    def wants(self, agreed: Any, params: dict[str, Any]) -> bool:
        return params.get("taskId") in agreed


# --8<-- [end:topic]


# --8<-- [start:telling]
class Telling:
    """A store that tells the listeners each change of a task, as ``tasks/get`` would show it."""

    def __init__(self, store: TaskStore, audience: Audience) -> None:
        self.store = store
        self.audience = audience  # the server's listeners (lesson 12)
        self.ttl_ms = store.ttl_ms
        self.told: dict[str, dict[str, Any]] = {}  # what each task last looked like, when told

    async def create(self, task: TaskRecord) -> None:
        await self.store.create(task)

    async def get(self, task_id: str) -> TaskRecord | None:
        return await self.store.get(task_id)

    async def update(self, task_id: str, change: Change) -> TaskRecord | None:
        task = await self.store.update(task_id, change)
        if task is not None and self.audience.listening:
            shown = detailed(task)
            if self.told.get(task_id) != shown:  # an answer kept, a flag set: nothing to see
                self.told[task_id] = shown
                await self.audience.deliver(NOTICE, shown)
        if task is None or task.over:
            self.told.pop(task_id, None)
        return task

    async def wait(self, task_id: str, timeout: float) -> None:
        await self.store.wait(task_id, timeout)

    async def alive(self, worker: str) -> bool:
        return await self.store.alive(worker)


# --8<-- [end:telling]
