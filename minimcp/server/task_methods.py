"""The three methods of the tasks extension: ``tasks/get``, ``tasks/update``, ``tasks/cancel``.

A client that holds a task's handle follows it with these (lesson 13). Each is refused with
``-32021`` unless the request declares the extension in its capabilities (2026-07-28 has no
session to remember it: every request says it again). Then:

* ``tasks/get``: the task as it is now (``DetailedTask``), its result or error inlined once it is
  over. A task nobody knows (never created, forgotten after its time to live, or someone else's)
  is ``-32602``; that is the only error about the task itself;
* ``tasks/update``: answers to the questions the task waits on, by key. Answers to keys that are
  not open are ignored; the reply is an empty acknowledgement, and the task moves on its own;
* ``tasks/cancel``: "stop, please". An empty acknowledgement too, the same for a task that is over
  already (cancelling twice is no error); the next ``tasks/get`` shows ``cancelled``.

The extension removed ``tasks/result`` and ``tasks/list`` of 2025-11-25's tasks: they are not
installed, so they get ``-32601`` like any unknown method.
"""

from __future__ import annotations

import asyncio
from typing import Any

from minimcp.rpc.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, RpcError
from minimcp.rpc.mcp import MISSING_CLIENT_CAPABILITY
from minimcp.rpc.task_names import EXTENSION, FAILED
from minimcp.server.task_model import TaskRecord, detailed, move
from minimcp.server.task_store import TaskStore, TaskTooLarge
from minimcp.session.context import RequestContext
from minimcp.session.envelope import MissingCapability
from minimcp.session.input_required import MalformedAnswer, answers_method
from minimcp.session.modern import ModernContext

#: What a task says when the worker running it died (lesson 11): the client learns it at once.
WORKER_GONE = "The worker running this task stopped before the task was over"
#: The longest task id worth looking up: ours are UUIDs (36 characters). A longer one names no
#: task, and is not sent to the store (Redis would take a key of a megabyte).
MAX_TASK_ID = 128


# --8<-- [start:negotiated]
def negotiated(context: RequestContext) -> bool:
    """Whether this request may use tasks: it stands alone (2026-07-28) and its capabilities list
    the extension. Each request says it for itself: a declaration on an earlier one counts for
    nothing."""
    extensions = context.client_capabilities.get("extensions")
    return context.modern and isinstance(extensions, dict) and EXTENSION in extensions


def missing_extension() -> RpcError:
    """``-32021``, naming the extension the request needs (the error's ``data`` says how to ask)."""
    return MissingCapability(
        MISSING_CLIENT_CAPABILITY,
        f"Missing required client capability: the {EXTENSION} extension",
        {"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
    )


# --8<-- [end:negotiated]


def principal_of(context: RequestContext) -> str | None:
    """Who sent the request, if the transport authenticated them (lesson 10): a task is theirs."""
    return context.principal if isinstance(context, ModernContext) else None


def no_such_task(task_id: Any) -> RpcError:
    """``-32602``, the same whether the task never was, was forgotten, or is someone else's: the
    error tells no one whether a task exists. The id is repeated, but never more than a line of it
    (a client that sends a megabyte does not get it back)."""
    shown = repr(task_id)
    if len(shown) > MAX_TASK_ID:
        shown = shown[:MAX_TASK_ID] + "…"
    return RpcError(INVALID_PARAMS, f"Invalid params: no task {shown} (unknown, or expired)")


class TaskMethods:
    """``tasks/get``, ``tasks/update`` and ``tasks/cancel`` over one store, for one worker."""

    def __init__(
        self, store: TaskStore, running: dict[str, asyncio.Task[Any]], worker: str | None = None
    ) -> None:
        self.store = store
        self.running = running  # the work this worker runs, by task id
        self.worker = worker  # this worker's id (lesson 11): None for a server of one process

    # --8<-- [start:find]
    async def find(self, context: RequestContext) -> TaskRecord:
        """The task the request names, as it is now; or the error the request earns."""
        if not negotiated(context):
            raise missing_extension()
        task_id = context.params.get("taskId")
        task = None
        if isinstance(task_id, str) and len(task_id) <= MAX_TASK_ID:  # else: none of ours
            task = await self.store.get(task_id)
        if task is None or task.principal != principal_of(context):  # another's is unknown
            raise no_such_task(task_id)
        if not task.over and task.worker not in (None, self.worker):
            if not await self.store.alive(task.worker):  # its worker died: say so, for good
                task = await self.store.update(task.id, worker_gone) or task
        return task

    # --8<-- [end:find]

    # --8<-- [start:methods]
    async def get(self, context: RequestContext) -> dict[str, Any]:
        """``tasks/get``: the task as it is now."""
        return detailed(await self.find(context))

    async def update(self, context: RequestContext) -> dict[str, Any]:
        """``tasks/update``: answers to the open questions; the others are ignored."""
        task = await self.find(context)
        responses = context.params.get("inputResponses")
        if not isinstance(responses, dict):
            raise RpcError(INVALID_PARAMS, 'Invalid params: "inputResponses" must be an object')
        fitting = {key: answer for key, answer in responses.items() if key in task.questions}
        for key, answer in fitting.items():
            if not answers_method(answer, task.questions[key]["method"]):
                raise MalformedAnswer(key, task.questions[key]["method"])
        if fitting and not task.over:
            try:
                await self.store.update(task.id, lambda kept: deliver(kept, fitting))
            except TaskTooLarge as large:  # the client's answers, not the server, are at fault
                raise RpcError(
                    INVALID_PARAMS, f"Invalid params: the answers are too large to keep ({large})"
                ) from None
        return {}

    async def cancel(self, context: RequestContext) -> dict[str, Any]:
        """``tasks/cancel``: ask the work to stop; the same empty answer if it is over already."""
        task = await self.find(context)
        if not task.over:
            await self.store.update(task.id, cancel_requested)
            work = self.running.get(task.id)
            if work is not None:  # this worker runs it: stop it now (another would see the flag)
                work.cancel()
        return {}

    # --8<-- [end:methods]


def deliver(task: TaskRecord, answers: dict[str, Any]) -> None:
    """Keep the answers to questions still open, for the work to take."""
    task.answers.update({key: value for key, value in answers.items() if key in task.questions})


def cancel_requested(task: TaskRecord) -> None:
    task.cancel_requested = True


def worker_gone(task: TaskRecord) -> None:
    if not task.over:
        move(task, FAILED, WORKER_GONE)
        task.error = {"code": INTERNAL_ERROR, "message": WORKER_GONE}
