"""The tasks extension on a server: a tool call answered with a handle, its result fetched later.

Every lesson so far answered a tool call within its request: an hour of work meant an hour of
open connection, and a client, a worker or a network that did not last the hour lost the answer.
Revision 2026-07-28's ``io.modelcontextprotocol/tasks`` extension (SEP-2663, lesson 13) lets the
server answer with a **task handle** instead, and keep the work going on its own::

    → tools/call {"name": "slow_compute", "arguments": {"seconds": 60}, "_meta": {...extensions}}
    ← {"resultType": "task", "taskId": "786512e2-…", "status": "working", "pollIntervalMs": 1000…}
    → tasks/get {"taskId": "786512e2-…"}      ← {"status": "working", …}   (again, and again)
    → tasks/get {"taskId": "786512e2-…"}      ← {"status": "completed", "result": {"content": …}}

How a server takes part, through seams the earlier lessons offer (:func:`serve_tasks`):

* it **declares** the extension under ``capabilities.extensions``, in ``server/discover`` alone
  (lesson 12's settings for the era: a 2025-11-25 handshake has no extensions to show);
* it installs ``tasks/get``, ``tasks/update`` and ``tasks/cancel`` (:mod:`task_methods
  <minimcp.server.task_methods>`), and its own ``tools/call`` in front of lesson 04's (the
  server's table of methods, lesson 03's ``method``);
* each tool says whether it runs as a task: never (the default), ``optional`` (when the client
  can take a handle) or ``required`` (a client that cannot gets ``-32021``). A task-supporting call
  runs as usual; if it is still running after ``grace`` seconds, or the tool calls
  :func:`~minimcp.server.task_context.as_task`, it becomes a task and the client gets its handle.
  A call that ends sooner is answered as always (a ``required`` one, as a task already over).

The server decides, never the client: a client only says it *can* take a handle, by listing the
extension in each request's capabilities. Tasks live in a store (:mod:`task_store
<minimcp.server.task_store>`), kept for their time to live and within a size bound.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from minimcp.rpc.aio import TaskKeeper
from minimcp.rpc.jsonrpc import INTERNAL_ERROR, RpcError
from minimcp.rpc.limits import SERVER_BUSY
from minimcp.rpc.task_names import CANCELLED, COMPLETED, EXTENSION, FAILED
from minimcp.server.eras import answer_both_eras
from minimcp.server.server import ToolServer, parentheses_please
from minimcp.server.subscriptions import Subscriptions
from minimcp.server.task_context import TaskContext, TaskRun, as_task
from minimcp.server.task_methods import TaskMethods, missing_extension, negotiated, principal_of
from minimcp.server.task_model import TaskRecord, handle, move
from minimcp.server.task_notices import TaskTopic, Telling
from minimcp.server.task_store import MemoryTaskStore, StoreFull, TaskStore, TaskTooLarge
from minimcp.session.context import RequestContext
from minimcp.transports.http.modern_headers import name_header

__all__ = ["OPTIONAL", "REQUIRED", "Tasks", "as_task", "serve_tasks"]

log = logging.getLogger("minimcp.tasks")

F = TypeVar("F", bound=Callable[..., Any])

OPTIONAL = "optional"  # a task when the client can take one; else answered as usual
REQUIRED = "required"  # always a task: a client that cannot take one gets -32021
#: Seconds a task-supporting call may run before it becomes a task: less than the half second
#: after which lesson 12's HTTP answers with a stream, so that a handle comes as plain JSON.
GRACE = 0.25
WATCH = 0.5  # seconds between two looks at the store for a cancel that came to another worker

_served: weakref.WeakKeyDictionary[ToolServer, Tasks] = weakref.WeakKeyDictionary()


# --8<-- [start:serve_tasks]
def serve_tasks(
    server: ToolServer,
    store: TaskStore | None = None,
    *,
    grace: float = GRACE,
    poll_interval_ms: int = 1_000,
    worker: str | None = None,
) -> Tasks:
    """Add the tasks extension to ``server``; its :class:`Tasks` (the same on a second call).

    ``store``: where tasks are kept (one process's by default; lesson 11's workers share one in
    Redis, and each says which ``worker`` it is)."""
    tasks = _served.get(server)
    if tasks is None:
        era = answer_both_eras(server)  # an extension of 2026-07-28: the server speaks it
        tasks = _served[server] = Tasks(server, grace, poll_interval_ms)
        tasks.keep_in(store if store is not None else MemoryTaskStore(), worker)
        # declared in server/discover: a 2025-11-25 handshake has no extensions to show it in
        era.capabilities.setdefault("extensions", {})[EXTENSION] = {}
        # Lesson 04's registry first (the first tool makes it, with its tools/call): ours goes
        # in front of it, and calls it.
        _ = server.tools
        server.method("tools/call")(tasks.call_tool)
        server.method("tasks/get")(tasks.methods.get)
        server.method("tasks/update")(tasks.methods.update)
        server.method("tasks/cancel")(tasks.methods.cancel)
        for method in ("tasks/get", "tasks/update", "tasks/cancel"):
            name_header(method, "taskId")  # over HTTP, Mcp-Name repeats the task's id
    return tasks


def tasks_of(server: ToolServer) -> Tasks | None:
    """The tasks of ``server``, if it serves the extension."""
    return _served.get(server)


# --8<-- [end:serve_tasks]


class Tasks:
    """A server's tasks: which tools run as tasks, the work running here, and where tasks are
    kept."""

    def __init__(self, server: ToolServer, grace: float, poll_interval_ms: int) -> None:
        self.server = server
        self.grace = grace
        self.poll_interval_ms = poll_interval_ms
        self.support: dict[str, str] = {}  # tool name → OPTIONAL or REQUIRED
        self.running: dict[str, asyncio.Task[Any]] = {}  # this worker's work, by task id
        self.store: TaskStore = MemoryTaskStore()
        self.worker: str | None = None
        self.methods = TaskMethods(self.store, self.running)
        self._keeper = TaskKeeper()

    def keep_in(self, store: TaskStore, worker: str | None = None) -> None:
        """Keep the tasks in ``store`` from now on, this process being ``worker`` (lesson 11's
        workers share one store in Redis; a task names the worker that runs it). The server's
        listeners hear of each change (lesson 12's ``subscriptions/listen``)."""
        subscriptions = self.server.subscriptions
        if isinstance(subscriptions, Subscriptions):
            subscriptions.add_topic("taskIds", TaskTopic(store))
            store = Telling(store, subscriptions)
        self.store = self.methods.store = store
        self.worker = self.methods.worker = worker

    def tool(
        self, name: str | None = None, *, support: str = OPTIONAL, **options: Any
    ) -> Callable[[F], F]:
        """Decorator: ``@tasks.tool(support="required")`` registers a tool (as ``@server.tool()``
        does, with the same options) that runs as a task."""
        parentheses_please("tool", name)

        def register(function: F) -> F:
            tool = self.server.add_tool(function, name, **options)
            self.allow(tool.name, support)
            return function

        return register

    def allow(self, tool: str, support: str = OPTIONAL) -> None:
        """Let the tool called ``tool`` run as a task (``optional``) or only so (``required``)."""
        if support not in (OPTIONAL, REQUIRED):
            raise ValueError(f"task support is {OPTIONAL!r} or {REQUIRED!r}, not {support!r}")
        self.support[tool] = support

    # --8<-- [start:call_tool]
    async def call_tool(self, context: RequestContext) -> dict[str, Any]:
        """``tools/call``: lesson 04's, unless the tool runs as a task and the client can take one.

        A tool that never runs as a task, or an unknown one, is lesson 04's business. A client
        that did not list the extension on this request gets the ordinary answer, or ``-32021``
        for a tool that runs only as a task."""
        name = context.params.get("name")
        support = self.support.get(name) if isinstance(name, str) else None
        if support is None or self.server.tools.get(str(name)) is None:
            return await self.server.tools.call_tool(context)
        if not negotiated(context):
            if support == REQUIRED:
                raise missing_extension()
            return await self.server.tools.call_tool(context)
        return await self.start(context, support == REQUIRED)

    # --8<-- [end:call_tool]

    # --8<-- [start:start]
    async def start(self, context: RequestContext, required: bool) -> dict[str, Any]:
        """Run the call; answer as usual if it ends within the grace (a ``required`` one as a task
        already over), else with the handle of the task it becomes."""
        run = TaskRun(self.store, poll=WATCH)
        task_context = TaskContext(context.session, context.request, original=context, run=run)
        work = self._keeper.spawn(self.server.tools.call_tool(task_context))
        wanted = asyncio.ensure_future(run.wanted.wait())
        try:
            await asyncio.wait(
                {work, wanted}, timeout=self.grace, return_when=asyncio.FIRST_COMPLETED
            )
        except asyncio.CancelledError:  # the request was cancelled before there was a task
            work.cancel()
            raise
        finally:
            wanted.cancel()
        if work.done() and (not required or work.exception() is not None):
            return work.result()  # the ordinary answer (or error: lesson 12's questions first)
        try:
            task = await self.create(context, run)
        except BaseException:
            work.cancel()  # no task to run it for
            raise
        self.running[task.id] = work
        self._keeper.spawn(self.follow(task.id, work))
        return {"resultType": "task", **handle(task)}

    # --8<-- [end:start]

    async def create(self, context: RequestContext, run: TaskRun) -> TaskRecord:
        """A new task for the call, kept in the store before its handle leaves (the extension:
        a ``tasks/get`` right after must find it)."""
        task = TaskRecord(
            id=str(uuid.uuid4()),  # unguessable: the id is all a client needs to reach the task
            poll_interval_ms=self.poll_interval_ms,
            principal=principal_of(context),
            worker=self.worker,
        )
        try:
            await self.store.create(task)
        except StoreFull as full:
            raise RpcError(SERVER_BUSY, f"Server busy: {full}; try again later") from None
        run.task_id = task.id
        run.created.set()  # the tool goes on, a task now
        return task

    # --8<-- [start:follow]
    async def follow(self, task_id: str, work: asyncio.Task[Any]) -> None:
        """Watch the work till it ends, stopping it if the task is cancelled (maybe through
        another worker) or forgotten; then keep its outcome in the task. If the store fails
        (Redis down), the work is stopped too: nobody would be left to keep its outcome."""
        try:
            while not work.done():
                changed = asyncio.ensure_future(self.store.wait(task_id, WATCH))
                await asyncio.wait({work, changed}, return_when=asyncio.FIRST_COMPLETED)
                changed.cancel()
                task = None if work.done() else await self.store.get(task_id)
                if not work.done() and (task is None or task.cancel_requested or task.over):
                    work.cancel()
            await asyncio.wait({work})
            await self.store.update(task_id, lambda task: settle(task, work))
        except TaskTooLarge as large:
            why = f"Internal error: the result is too large to keep ({large})"
            await self.store.update(task_id, lambda task: fail(task, INTERNAL_ERROR, why))
        except Exception:  # the store failed (Redis down, say)
            work.cancel()
            log.exception("task %s: the store failed, so its work is stopped", task_id)
        finally:
            self.running.pop(task_id, None)

    # --8<-- [end:follow]


# --8<-- [start:settle]
def settle(task: TaskRecord, work: asyncio.Task[Any]) -> None:
    """Keep in the task how its work ended: its result, its JSON-RPC error, or cancelled."""
    if task.over:
        return  # failed or cancelled meanwhile: that stays
    if work.cancelled():
        move(task, CANCELLED, "Cancelled at the client's request")
    elif isinstance(work.exception(), RpcError):
        error = work.exception()
        assert isinstance(error, RpcError)
        fail(task, error.code, error.message, error.data)
    elif work.exception() is not None:
        log.error("task %s failed", task.id, exc_info=work.exception())
        fail(task, INTERNAL_ERROR, "Internal error while running the task")
    else:
        move(task, COMPLETED)
        task.result = work.result()


def fail(task: TaskRecord, code: int, message: str, data: Any = None) -> None:
    """The task failed with this JSON-RPC error (never a tool's own error: that completes)."""
    if task.over:
        return
    move(task, FAILED, message)
    task.error = {"code": code, "message": message}
    if data is not None:
        task.error["data"] = data


# --8<-- [end:settle]
