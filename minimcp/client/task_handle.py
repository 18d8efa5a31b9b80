"""Following a task from the client: its handle, the polling loop and its bounds (lesson 13).

A server that speaks the tasks extension may answer a ``tools/call`` with a **handle** instead of
a result (``resultType: "task"``): the work goes on without the request, and the client asks how it
is going with ``tasks/get`` until the task is over. A :class:`TaskHandle` is the client's side of
one task:

* ``await handle.poll()``: one ``tasks/get``, the task as it is now;
* ``await handle.wait()``: poll until the task is over, as often as the server suggests
  (``pollIntervalMs``), within bounds the caller sets (:class:`Polling`); a task waiting for the
  client (``input_required``) gets its questions answered by the callbacks lesson 09 built, sent
  back with ``tasks/update``; then the result, or the error the task ended in;
* ``await handle.cancel()``: ``tasks/cancel``, "stop, please" (the server decides when).

The extension says what a client SHOULD do, and this module does it: honour the suggested interval
(which may change while the task runs), answer each question once (a question stays listed until
the server has taken its answer), and keep the task's id, so that whoever stops waiting can follow
the task again later (:class:`TaskStillRunning` names it).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from minimcp.rpc.aio import call
from minimcp.rpc.jsonrpc import INTERNAL_ERROR, RpcError
from minimcp.rpc.task_names import (
    CANCELLED,
    COMPLETED,
    FAILED,
    INPUT_REQUIRED,
    TERMINAL,
)
from minimcp.session.client import ClientSession
from minimcp.session.eras import MAX_ROUNDS, answer_all
from minimcp.session.progress import ProgressCallback

UNKNOWN = "unknown"  # a handle made from a task's id alone, before its first poll

#: Seconds between two polls when the server suggests no interval.
DEFAULT_INTERVAL = 1.0


class TaskFailed(RpcError):
    """The task ended in a JSON-RPC error (``failed``): the error the request would have had."""

    def __init__(self, task_id: str, error: dict[str, Any]) -> None:
        code = error.get("code")
        message = str(error.get("message", "the task failed"))
        super().__init__(
            code if isinstance(code, int) else INTERNAL_ERROR, message, error.get("data")
        )
        self.task_id = task_id


class TaskCancelled(RpcError):
    """The task ended ``cancelled``: it has no result."""

    def __init__(self, task_id: str, why: str | None = None) -> None:
        super().__init__(
            INTERNAL_ERROR,
            f"task {task_id} was cancelled: {why or 'no reason given'}",
            {"taskId": task_id},
        )
        self.task_id = task_id


class TaskStillRunning(TimeoutError):
    """The bounds of the follow ran out before the task ended. The task goes on, on the server:
    its id is all it takes to follow it again (``follow_task(client, task_id)``)."""

    def __init__(self, task_id: str, status: str, why: str) -> None:
        super().__init__(f"task {task_id} is still {status} after {why}: follow it later by its id")
        self.task_id = task_id
        self.status = status


# --8<-- [start:polling]
@dataclass
class Polling:
    """How a client follows a task: the interval's bounds, and when to stop waiting.

    The server suggests an interval (``pollIntervalMs``, which may change as the task goes); the
    client keeps it between ``floor`` and ``ceiling`` seconds, so that neither a server's whim nor
    a missing suggestion makes it poll in a tight loop or fall asleep. ``deadline`` (seconds from
    the start of the follow) and ``max_polls`` bound the whole follow; None means no bound.
    ``sleep`` and ``clock`` are the ones of asyncio and of the system, unless a test gives its own.
    """

    floor: float = 0.1
    ceiling: float = 30.0
    deadline: float | None = 600.0
    max_polls: int | None = None
    sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep
    clock: Callable[[], float] = time.monotonic

    def interval(self, task: dict[str, Any]) -> float:
        """Seconds to wait before the next poll: the server's suggestion, within the bounds."""
        suggested = task.get("pollIntervalMs")
        seconds = suggested / 1000 if isinstance(suggested, int | float) else DEFAULT_INTERVAL
        return min(max(seconds, self.floor), self.ceiling)


# --8<-- [end:polling]


@dataclass(eq=False)
class TaskHandle:
    """The client's side of one task: its id, what it last looked like, and how to follow it."""

    session: ClientSession  # lesson 03's session: the requests go through its conversation
    task: dict[str, Any]  # the task as last seen (the handle, then each tasks/get)
    timeout: float | None = 30.0  # each request's own timeout (never the whole follow's)
    answered: set[str] = field(default_factory=set)  # question keys answered already
    rounds: int = 0  # rounds of questions answered so far: at most lesson 12's MAX_ROUNDS

    @property
    def task_id(self) -> str:
        return str(self.task["taskId"])

    @property
    def status(self) -> str:
        return str(self.task.get("status"))

    @property
    def done(self) -> bool:
        return self.status in TERMINAL

    async def poll(self) -> dict[str, Any]:
        """``tasks/get``: the task as it is now."""
        params = {"taskId": self.task_id}
        self.task = await self.session.request("tasks/get", params, self.timeout)
        return self.task

    # --8<-- [start:cancel]
    async def cancel(self) -> None:
        """``tasks/cancel``: ask the server to stop the task. It answers at once; the task ends
        ``cancelled`` when the work has stopped (or otherwise, if it finished first)."""
        await self.session.request("tasks/cancel", {"taskId": self.task_id}, self.timeout)

    async def cancel_quietly(self) -> None:
        """Cancel, from a caller that is itself being cancelled: the request is shielded from
        that cancellation, and whatever goes wrong with it is only the server's loss."""
        try:
            await asyncio.shield(self.cancel())
        except (RpcError, TimeoutError, ConnectionError, asyncio.CancelledError):
            pass

    # --8<-- [end:cancel]

    # --8<-- [start:input_required]
    async def answer_questions(self) -> None:
        """Answer the questions the task waits on, each once: through the client's answers
        (lesson 09's callbacks), sent back with ``tasks/update``. A question answered already may
        still be listed until the server takes the answer: it is not asked again."""
        asked = self.task.get("inputRequests") or {}
        fresh = {key: question for key, question in asked.items() if key not in self.answered}
        if not fresh:
            return
        if self.rounds >= MAX_ROUNDS:  # a server that never stops asking: the user is spared
            why = f"task {self.task_id} still asks after {MAX_ROUNDS} rounds of questions"
            raise RpcError(INTERNAL_ERROR, why)
        self.rounds += 1
        answers = await answer_all(self.session, fresh)
        params = {"taskId": self.task_id, "inputResponses": answers}
        await self.session.request("tasks/update", params, self.timeout)
        self.answered.update(answers)

    # --8<-- [end:input_required]

    # --8<-- [start:wait]
    async def wait(
        self,
        polling: Polling | None = None,
        progress: ProgressCallback | None = None,
        *,
        cancel_if_stopped: bool = False,
    ) -> dict[str, Any]:
        """Follow the task to its end and return its result (or raise its error).

        ``progress(n, None, message)`` hears each new ``statusMessage``. ``cancel_if_stopped``:
        if this wait is itself cancelled, or ends in an error of the client's own (a question its
        answers could not answer, a lost connection), cancel the task too: ``call_tool`` does, as
        its caller never saw the task's id, and nobody else would ever follow it."""
        bounds = polling or Polling()
        started, polls = bounds.clock(), 0
        heard = _Messages(progress)
        try:
            if self.status == UNKNOWN:
                await self.poll()
            await heard.tell(self.task)
            while not self.done:
                if self.status == INPUT_REQUIRED:
                    await self.answer_questions()
                if bounds.max_polls is not None and polls >= bounds.max_polls:
                    raise TaskStillRunning(self.task_id, self.status, f"{polls} polls")
                left = (
                    None if bounds.deadline is None else started + bounds.deadline - bounds.clock()
                )
                if left is not None and left <= 0:
                    raise TaskStillRunning(self.task_id, self.status, f"{bounds.deadline:g} s")
                pause = bounds.interval(self.task)
                await bounds.sleep(pause if left is None else min(pause, left))
                polls += 1
                await heard.tell(await self.poll())
        except TaskStillRunning:
            raise  # a bound ran out: the task goes on, for whoever follows it by its id
        except (asyncio.CancelledError, Exception):  # stopped, or a question we could not answer
            if cancel_if_stopped and not self.done:
                await self.cancel_quietly()
            raise
        return self.outcome()

    # --8<-- [end:wait]

    def outcome(self) -> dict[str, Any]:
        """What a task that is over ended in: its result; or its error, raised."""
        if self.status == COMPLETED:
            result: dict[str, Any] = self.task.get("result") or {}
            return result
        if self.status == FAILED:
            raise TaskFailed(self.task_id, self.task.get("error") or {})
        if self.status == CANCELLED:
            raise TaskCancelled(self.task_id, self.task.get("statusMessage"))
        raise RuntimeError(f"task {self.task_id} is not over: it is {self.status}")


class _Messages:
    """Each new ``statusMessage`` of a task, to a progress callback: the n-th as progress n (a
    progress must grow with each notice), with no total (a task's length is unknown)."""

    def __init__(self, progress: ProgressCallback | None) -> None:
        self.progress = progress
        self.last: str | None = None
        self.count = 0

    async def tell(self, task: dict[str, Any]) -> None:
        message = task.get("statusMessage")
        if self.progress is None or not isinstance(message, str) or message == self.last:
            return
        self.last, self.count = message, self.count + 1
        await call(self.progress, self.count, None, message)
