"""Lesson 13 exercise: a task's life, from both ends, written by hand.

1. **A task's state machine.** The tasks extension (``io.modelcontextprotocol/tasks``) gives a
   task five statuses and a few moves between them; nothing leaves a task that is over. Write the
   moves allowed and refused, ``tasks/cancel`` (a task that is over stays as it is: cancelling
   twice is no error), and what ``tasks/get`` shows in each status. The names are those of
   ``minimcp/server/task_model.py``, the course's server side: read one beside the other.
2. **Following a task: the client's polling loop, with its bounds.** A client holding a task's
   handle asks ``tasks/get`` until the task is over: as often as the server suggests, but never
   more often or more rarely than the client allows, answering the task's questions on the way,
   and giving up after a bounded number of polls or at a deadline. Time is handed in (``sleep``
   and ``clock``): the tests never wait for real.

Check your work with ``python tools/check.py 13``. Only the standard library is needed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

# =================================================================================================
# Part 1 · A task's state machine (the tasks extension, "Task Status")
# =================================================================================================
#
# Five statuses. A task starts `working`; the three last ones are TERMINAL: a task that reaches
# one is over, and its status never changes again.
#
#     working ──────────► input_required      (the work needs an answer from the client)
#     input_required ───► working             (every question answered: the work goes on)
#     working, input_required ──► completed | failed | cancelled     (the end)
#
# That is every move there is: nothing out of a terminal status, and no move to the same status
# (`working` to `working` is no change, and a caller who asks for it has lost track of the task).
#
# allowed(status, to) -> True if the extension allows the move, False otherwise (a status it does
#   not know included).
#
# move(task, to, message=None): the move, or MoveRefused("a task cannot go from 'x' to 'y'") with
#   the task left exactly as it was. A move sets `status` and `status_message` (None clears it);
#   any move but one to input_required empties `questions` (they were answered, or will never be).
#
# cancel(tasks, task_id) -> what tasks/cancel does to tasks[task_id]:
#   * no such task ............................. UnknownTask (on the wire: -32602, the only error)
#   * a task that is over (any terminal status) . False, and nothing changes: a task that completed
#                                                 keeps its result, a cancelled one stays so
#   * working or input_required ................. True, once it is moved to cancelled
#
# detailed(task) -> the task as tasks/get shows it: {"taskId", "status", "pollIntervalMs"}, plus
#   "statusMessage" when there is one, plus what its status carries:
#   input_required: "inputRequests" (its questions, by key) · completed: "result" · failed: "error"

WORKING = "working"
INPUT_REQUIRED = "input_required"
COMPLETED = "completed"
FAILED = "failed"
CANCELLED = "cancelled"
#: A task in one of these is over: its status never changes again.
TERMINAL = (COMPLETED, FAILED, CANCELLED)


class MoveRefused(Exception):
    """A move the state machine does not allow (from a terminal status, or to the same one)."""


class UnknownTask(LookupError):
    """No task has this id (never created, or forgotten): ``tasks/cancel`` answers ``-32602``."""


@dataclass
class Task:
    """What a server keeps of one task (a few fields of ``task_model.TaskRecord``)."""

    id: str
    status: str = WORKING
    status_message: str | None = None
    poll_interval_ms: int = 1_000  # how often the client should ask, at most
    #: input_required: the questions the work waits on, by key (what tasks/get shows the client).
    questions: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] | None = None  # once completed: the request's result
    error: dict[str, Any] | None = None  # once failed: the JSON-RPC error


def allowed(status: str, to: str) -> bool:
    """Whether a task may go from ``status`` to ``to``."""
    # BEGIN SOLUTION: only working and input_required have moves: list them
    moves = {
        WORKING: (INPUT_REQUIRED, COMPLETED, FAILED, CANCELLED),
        INPUT_REQUIRED: (WORKING, COMPLETED, FAILED, CANCELLED),
    }
    return to in moves.get(status, ())
    # END SOLUTION


def move(task: Task, to: str, message: str | None = None) -> None:
    """Move ``task`` to ``to``, or refuse with :class:`MoveRefused` and change nothing."""
    # BEGIN SOLUTION: refuse first; then the status, its message, and the questions it leaves
    if not allowed(task.status, to):
        raise MoveRefused(f"a task cannot go from {task.status!r} to {to!r}")
    task.status = to
    task.status_message = message
    if to != INPUT_REQUIRED:
        task.questions = {}
    # END SOLUTION


def cancel(tasks: dict[str, Task], task_id: str) -> bool:
    """``tasks/cancel``: True if this call cancelled the task, False if it was over already."""
    # BEGIN SOLUTION: an unknown id is the only error; a task that is over is left alone
    task = tasks.get(task_id)
    if task is None:
        raise UnknownTask(task_id)
    if task.status in TERMINAL:
        return False
    move(task, CANCELLED)
    return True
    # END SOLUTION


def detailed(task: Task) -> dict[str, Any]:
    """The task as ``tasks/get`` shows it (``DetailedTask``): what its status carries inlined."""
    # BEGIN SOLUTION: the fields every status has, the message if any, then one field by status
    shown: dict[str, Any] = {
        "taskId": task.id,
        "status": task.status,
        "pollIntervalMs": task.poll_interval_ms,
    }
    if task.status_message:
        shown["statusMessage"] = task.status_message
    if task.status == INPUT_REQUIRED:
        shown["inputRequests"] = dict(task.questions)
    elif task.status == COMPLETED:
        shown["result"] = task.result
    elif task.status == FAILED:
        shown["error"] = task.error
    return shown
    # END SOLUTION


# =================================================================================================
# Part 2 · Following a task: the client's polling loop, with its bounds (the tasks extension,
#          "Polling")
# =================================================================================================
#
# A tools/call answered with a task gives the client a handle: {"resultType": "task", "taskId",
# "status", "pollIntervalMs", ...}, never the result itself. The client then asks tasks/get, which
# answers the task as detailed() shows it, until the task is over.
#
# interval(task, bounds) -> how many seconds to wait before the next tasks/get:
#   * the server's suggestion, task["pollIntervalMs"] / 1000, when it is a positive integer (not a
#     bool: True is an int in Python); absent, None, 0, negative or not an integer: bounds.default;
#   * then clamped: never less than bounds.floor (a server must not make the client hammer it),
#     never more than bounds.ceiling (nor make it wait for ever).
#
# follow(handle, get, answer, sleep, clock, bounds) -> the task's result. The loop:
#   1. wait `await sleep(interval(the last thing the server said, bounds))` (the handle first),
#   2. `task = await get(task_id)` (one poll), and by its status:
#      * completed ....... return task["result"] (a tool that reported an error, "isError": true,
#                          completed too: its result is returned, not raised)
#      * failed .......... raise TaskFailed(task_id, task["error"])
#      * cancelled ....... raise TaskCancelled(task_id, "...")
#      * input_required .. `await answer(task_id, questions)` with the questions of
#                          task["inputRequests"] whose key was not answered before (a key is used
#                          once in a task's life; the server may show an answered one until it
#                          takes the answer), at most once per key; then go on from 1
#      * anything else ... go on from 1 (working)
#   Bounds, checked before each wait: after bounds.max_polls polls, or when the next poll would
#   come after the deadline (clock() + the wait > the clock at the start + bounds.deadline), raise
#   GaveUp(task_id, "..."), without sleeping or polling again. The task may still be running: the
#   caller may follow it again later, or cancel it.

#: ``get(task_id)``: the task as ``tasks/get`` answers it.
Get = Callable[[str], Awaitable[dict[str, Any]]]
#: ``answer(task_id, questions)``: answers the questions, by key (a real client sends them with
#: ``tasks/update``, each answered by lesson 09's handlers).
Answer = Callable[[str, dict[str, Any]], Awaitable[None]]


@dataclass(frozen=True)
class Bounds:
    """How a client follows a task, whatever the server suggests. Times are in seconds."""

    floor: float = 0.1  # never ask more often than this
    ceiling: float = 30.0  # never wait longer than this between two polls
    default: float = 1.0  # when the server suggests no interval
    max_polls: int = 1_000  # at most this many tasks/get
    deadline: float | None = None  # give up this long after the start (None: no deadline)


DEFAULT_BOUNDS = Bounds()


class TaskError(Exception):
    """A task followed without getting its result; ``task_id`` says which."""

    def __init__(self, task_id: str, message: str) -> None:
        super().__init__(message)
        self.task_id = task_id


class TaskFailed(TaskError):
    """The task ended ``failed``: its JSON-RPC error's ``code``, ``message`` and ``data``."""

    def __init__(self, task_id: str, error: dict[str, Any]) -> None:
        super().__init__(task_id, f"task {task_id} failed: {error.get('message')}")
        self.code = error.get("code")
        self.data = error.get("data")


class TaskCancelled(TaskError):
    """The task ended ``cancelled``: someone called ``tasks/cancel``."""


class GaveUp(TaskError):
    """The client stopped following a task that was not over (too many polls, or the deadline)."""


def interval(task: dict[str, Any], bounds: Bounds = DEFAULT_BOUNDS) -> float:
    """Seconds to wait before the next ``tasks/get``: the server's suggestion, within bounds."""
    # BEGIN SOLUTION: a positive int (not a bool) in ms, or the default; then floor and ceiling
    suggested = task.get("pollIntervalMs")
    if isinstance(suggested, int) and not isinstance(suggested, bool) and suggested > 0:
        seconds = suggested / 1000
    else:
        seconds = bounds.default
    return min(max(seconds, bounds.floor), bounds.ceiling)
    # END SOLUTION


async def follow(
    handle: dict[str, Any],
    get: Get,
    answer: Answer,
    sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
    bounds: Bounds = DEFAULT_BOUNDS,
) -> dict[str, Any]:
    """Poll the task of ``handle`` until it is over: its result, or the reason there is none."""
    # BEGIN SOLUTION: check the bounds, wait, poll; act on the status; each question key once
    task_id = handle["taskId"]
    deadline = None if bounds.deadline is None else clock() + bounds.deadline
    task = handle
    polls = 0
    answered: set[str] = set()  # the question keys answered so far
    while True:
        wait = interval(task, bounds)
        if polls >= bounds.max_polls:
            raise GaveUp(task_id, f"task {task_id}: not over after {polls} polls")
        if deadline is not None and clock() + wait > deadline:
            raise GaveUp(task_id, f"task {task_id}: not over at the deadline")
        await sleep(wait)
        task = await get(task_id)
        polls += 1
        status = task.get("status")
        if status == COMPLETED:
            result: dict[str, Any] = task["result"]
            return result
        if status == FAILED:
            raise TaskFailed(task_id, task["error"])
        if status == CANCELLED:
            raise TaskCancelled(task_id, f"task {task_id} was cancelled")
        if status == INPUT_REQUIRED:
            asked = task.get("inputRequests") or {}
            new = {key: question for key, question in asked.items() if key not in answered}
            if new:
                answered.update(new)
                await answer(task_id, new)
    # END SOLUTION
