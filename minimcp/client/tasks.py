"""The client that takes task handles: ``call_tool`` follows a task to its result (lesson 13).

A client says it can take a handle by listing the tasks extension in each request's capabilities
(2026-07-28 has no session to remember it). Then any ``tools/call`` may come back as a task
(``resultType: "task"``), and the client decides what its caller sees:

* **the result**, as always: ``await client.call_tool(...)`` follows the task
  (:meth:`TaskHandle.wait <minimcp.client.task_handle.TaskHandle.wait>`) and returns what the tool
  returned. The call's ``timeout`` bounds each request, never the task: a task lasts as long as
  its :class:`Polling` allows. Each new status message goes to the call's ``progress`` callback,
  as a progress notice would; cancelling the call (asyncio) cancels the task too;
* **the handle**: ``await start_task(client, ...)`` returns the :class:`TaskHandle` to follow, poll,
  cancel, or keep the id of (``follow_task(client, task_id)`` follows it again later).

:class:`TasksConversation` does it, plugged into lesson 12's conversation through the one seam it
offers for kinds of result it does not know (``TwoEras.other_result``)::

    Client(transport, conversation=TasksConversation(Mode.MODERN))
    async with tasks_http_client("http://127.0.0.1:8000/mcp") as client: ...
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from contextvars import ContextVar
from dataclasses import replace
from functools import partial
from typing import Any

from minimcp.client.client import Client
from minimcp.client.modern import modern_http_client, modern_stdio_client
from minimcp.client.task_handle import (
    UNKNOWN,
    Polling,
    TaskCancelled,
    TaskFailed,
    TaskHandle,
    TaskStillRunning,
)
from minimcp.rpc.jsonrpc import INTERNAL_ERROR, RpcError
from minimcp.rpc.task_names import COMPLETED, EXTENSION
from minimcp.session.client import ClientSession, Params
from minimcp.session.envelope import Envelope
from minimcp.session.eras import Mode, TwoEras
from minimcp.session.progress import PROGRESS, ProgressCallback, ProgressToken, token_of
from minimcp.transports.http.modern_headers import name_header

__all__ = [
    "EXTENSION",
    "Polling",
    "TaskCancelled",
    "TaskFailed",
    "TaskHandle",
    "TaskStillRunning",
    "TasksConversation",
    "follow_task",
    "start_task",
    "tasks_http_client",
    "tasks_stdio_client",
]

#: The methods that may be answered with a task (the extension: ``tools/call`` alone, for now).
TASK_METHODS = ("tools/call",)
#: The extension's own methods: over HTTP, each carries ``Mcp-Name: <taskId>``.
FOLLOWING_METHODS = ("tasks/get", "tasks/update", "tasks/cancel")

#: True while :func:`start_task` sends its call: the conversation hands the task back unfollowed.
_handing_back: ContextVar[bool] = ContextVar("handing_back", default=False)


class TasksConversation(TwoEras):
    """Lesson 12's conversation, which also takes task handles, and follows them."""

    def __init__(
        self,
        mode: Mode = Mode.AUTO,
        server_key: str | None = None,
        polling: Polling | None = None,
    ) -> None:
        super().__init__(mode, server_key)
        self.polling = polling or Polling()  # how every call_tool follows its task
        self.heard: dict[ProgressToken, float] = {}  # the last progress of each call in flight
        for method in FOLLOWING_METHODS:  # a gateway routes them by the task's id
            name_header(method, "taskId")

    def envelope(self, session: ClientSession, version: str | None = None) -> Envelope:
        """Lesson 12's envelope, whose capabilities list the extension: on every request."""
        plain = super().envelope(session, version)
        extensions = {**plain.client_capabilities.get("extensions", {}), EXTENSION: {}}
        return replace(
            plain, client_capabilities={**plain.client_capabilities, "extensions": extensions}
        )

    async def open(self, session: ClientSession, timeout: float | None) -> dict[str, Any]:
        """Lesson 12's opening; and from now on, the session's progress notices are noted on
        their way to the client (see :meth:`note_progress`)."""
        forward = session.on_notification

        async def noting(method: str, params: dict[str, Any]) -> None:
            self.note_progress(method, params)
            if forward is not None:
                await forward(method, params)

        session.on_notification = noting
        return await super().open(session, timeout)

    def note_progress(self, method: str, params: dict[str, Any]) -> None:
        """Note the last progress a call heard before it became a task: the task's status
        messages, told to the same callback as progress, go on from there (a progress must grow
        with each notice, or the client drops it)."""
        token, progress = params.get("progressToken"), params.get("progress")
        if (
            method == PROGRESS
            and isinstance(token, str | int)
            and isinstance(progress, int | float)
        ):
            self.heard[token] = progress

    async def request(
        self, session: ClientSession, method: str, params: Params, timeout: float | None
    ) -> Any:
        try:
            return await super().request(session, method, params, timeout)
        finally:
            token = token_of(params)
            if token is not None:
                self.heard.pop(token, None)  # the call is over: so is its progress

    # --8<-- [start:other_result]
    async def other_result(
        self,
        session: ClientSession,
        method: str,
        params: Params,
        result: dict[str, Any],
        timeout: float | None,
    ) -> Any:
        """A task's handle (``resultType: "task"``): followed to its result, unless the caller
        wants the handle (:func:`start_task`). Any other kind: lesson 12's error."""
        if result.get("resultType") != "task":
            return await super().other_result(session, method, params, result, timeout)
        if method not in TASK_METHODS:  # the extension: an invalid answer to this request
            raise RpcError(INTERNAL_ERROR, f"{method} cannot be answered with a task")
        task = TaskHandle(session, result, timeout)
        if _handing_back.get():
            return task
        return await task.wait(
            self.polling, self.progress_of(session, params), cancel_if_stopped=True
        )

    # --8<-- [end:other_result]

    def progress_of(self, session: ClientSession, params: Params) -> ProgressCallback | None:
        """Where a call's task tells its status messages: as progress notices for the call's
        token, which reach its ``progress`` callback as the server's own would (none without a
        token: the caller asked for no progress)."""
        token = token_of(params)
        tell = session.on_notification
        if token is None or tell is None:
            return None
        before = self.heard.get(token, 0)  # what the call heard before it became a task

        async def progress(done: float, total: float | None, message: str | None) -> None:
            notice = {"progressToken": token, "progress": before + done, "message": message}
            await tell(PROGRESS, notice)

        return progress


# --8<-- [start:start_task]
async def start_task(
    client: Client,
    name: str,
    arguments: dict[str, Any] | None = None,
    *,
    timeout: float | None = 30.0,
) -> TaskHandle:
    """Call a tool, and return the handle of its task rather than its result. A call the server
    answered at once (it may: the server alone decides) gives a handle already ``completed``."""
    params = {"name": name, "arguments": arguments or {}}
    handing_back = _handing_back.set(True)
    try:
        answer = await client.request("tools/call", params, timeout)
    finally:
        _handing_back.reset(handing_back)
    if isinstance(answer, TaskHandle):
        return answer
    done = {"taskId": "", "status": COMPLETED, "result": answer}  # no task: a result at once
    return TaskHandle(client.session, done, timeout)


def follow_task(client: Client, task_id: str, *, timeout: float | None = 30.0) -> TaskHandle:
    """The handle of a task started earlier, maybe by another process: its id is all it takes.
    Its status is unknown until the first ``poll()``."""
    return TaskHandle(client.session, {"taskId": task_id, "status": UNKNOWN}, timeout)


# --8<-- [end:start_task]


def tasks_stdio_client(
    command: Sequence[str], mode: Mode = Mode.AUTO, polling: Polling | None = None, **options: Any
) -> AbstractAsyncContextManager[Client]:
    """Lesson 12's ``modern_stdio_client``, taking task handles."""
    conversation = partial(TasksConversation, polling=polling)
    return modern_stdio_client(command, mode, conversation=conversation, **options)


def tasks_http_client(
    url: str, mode: Mode = Mode.AUTO, polling: Polling | None = None, **options: Any
) -> AbstractAsyncContextManager[Client]:
    """Lesson 12's ``modern_http_client``, taking task handles (and naming each task in the
    ``Mcp-Name`` header of the requests that follow it)."""
    conversation = partial(TasksConversation, polling=polling)
    return modern_http_client(url, mode, conversation=conversation, **options)
