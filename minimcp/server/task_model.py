"""A task: its statuses, the moves between them, and how it looks on the wire (lesson 13).

Revision 2026-07-28 moved tasks out of the core protocol into an official extension,
``io.modelcontextprotocol/tasks`` (SEP-2663). A task is a **durable state machine** for one request
the server chose to answer later: the client gets a handle at once (``resultType: "task"``), then
asks ``tasks/get`` until the task is over. Five statuses, and only these moves between them::

    working ──────────► input_required      (the work needs an answer from the client)
    input_required ───► working             (every question answered: the work goes on)
    working, input_required ──► completed | failed | cancelled     (the end: nothing moves again)

* ``completed``: the request has its result, inlined under ``result``: a tool that reported an
  error (``isError: true``) *completed*, its error is in its result;
* ``failed``: the request ended in a JSON-RPC error (a protocol error, a worker that died),
  inlined under ``error``; never for a tool's own error;
* ``cancelled``: the client asked ``tasks/cancel`` and the work stopped.

:class:`TaskRecord` is everything a server keeps of one task (its store, :mod:`task_store
<minimcp.server.task_store>`, keeps them); :func:`move` is the state machine; :func:`detailed` and
:func:`handle` are the task as ``tasks/get`` and ``tools/call`` show it.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from minimcp.rpc.task_names import (
    CANCELLED,
    COMPLETED,
    FAILED,
    INPUT_REQUIRED,
    TERMINAL,
    WORKING,
)

# --8<-- [start:moves]
#: The moves the extension allows, from each status that is not terminal.
MOVES = {
    WORKING: (INPUT_REQUIRED, COMPLETED, FAILED, CANCELLED),
    INPUT_REQUIRED: (WORKING, COMPLETED, FAILED, CANCELLED),
}


class MoveRefused(Exception):
    """A move the state machine does not allow (from a terminal status, or to the same one)."""


# --8<-- [end:moves]


@dataclass
class TaskRecord:
    """What a server keeps of one task. Times are seconds since the epoch (``time.time()``)."""

    id: str
    status: str = WORKING
    created_at: float = field(default_factory=time.time)
    updated_at: float = 0.0  # set to created_at when 0
    ttl_ms: int | None = 3_600_000  # how long after its creation it is kept (None: for ever)
    poll_interval_ms: int = 1_000  # how often the client should ask, at most
    status_message: str | None = None
    result: dict[str, Any] | None = None  # once completed: the request's result
    error: dict[str, Any] | None = None  # once failed: the JSON-RPC error
    #: Questions the work waits on (input_required), by key: what ``tasks/get`` shows the client.
    questions: dict[str, Any] = field(default_factory=dict)
    #: Answers that came with ``tasks/update`` and that the work has not taken yet, by key.
    answers: dict[str, Any] = field(default_factory=dict)
    #: Every key of a question asked so far: a key is never used twice in a task's life.
    keys: list[str] = field(default_factory=list)
    principal: str | None = None  # who created it: only they may see it (None: nobody signed in)
    worker: str | None = None  # which process runs its work (lesson 11's workers)
    cancel_requested: bool = False  # tasks/cancel came (maybe through another worker)

    def __post_init__(self) -> None:
        self.updated_at = self.updated_at or self.created_at

    @property
    def over(self) -> bool:
        return self.status in TERMINAL

    def expired(self, now: float | None = None) -> bool:
        """Whether its time to live has passed: the store may forget it then, not before."""
        if self.ttl_ms is None:
            return False
        return (now if now is not None else time.time()) >= self.created_at + self.ttl_ms / 1000

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> TaskRecord:
        """The record :meth:`to_json` wrote; :class:`ValueError` if ``data`` is not one (a store
        shared with other processes, lesson 11's Redis, may hold anything under a task's key)."""
        problem = shape_problem(data)
        if problem is not None:
            raise ValueError(f"not a task record: {problem}"[:200])  # a line, not all it holds
        return cls(**data)


NUMBER = (int, float)
LAST_MOMENT = 253_402_300_799  # 9999-12-31T23:59:59Z: the last second ISO 8601 writes plainly
OPTIONAL_TEXT = (str, type(None))
#: The JSON type of each field of a record, as :meth:`TaskRecord.to_json` writes it.
SHAPE: dict[str, tuple[type, ...]] = {
    "id": (str,),
    "status": (str,),
    "created_at": NUMBER,
    "updated_at": NUMBER,
    "ttl_ms": (int, type(None)),
    "poll_interval_ms": (int,),
    "status_message": OPTIONAL_TEXT,
    "result": (dict, type(None)),
    "error": (dict, type(None)),
    "questions": (dict,),
    "answers": (dict,),
    "keys": (list,),
    "principal": OPTIONAL_TEXT,
    "worker": OPTIONAL_TEXT,
    "cancel_requested": (bool,),
}


def shape_problem(data: Any) -> str | None:
    """What makes ``data`` something other than a task record (None: it is one): every field,
    nothing else, each of its type, and a status the extension knows."""
    if not isinstance(data, dict):
        return f"a JSON {type(data).__name__}, not an object"
    if set(data) != set(SHAPE):
        return f"its fields are {sorted(data)}"
    for name, types in SHAPE.items():
        if not isinstance(data[name], types):
            return f"{name} is {data[name]!r}"
    if data["status"] not in (*MOVES, *TERMINAL):
        return f"status is {data['status']!r}"
    for name in ("created_at", "updated_at"):
        if not 0 <= data[name] <= LAST_MOMENT:  # not NaN either: iso() could not write it
            return f"{name} is {data[name]!r}"
    for name in ("ttl_ms", "poll_interval_ms"):
        if data[name] is not None and not 0 < data[name] < 2**53:  # what a float holds exactly
            return f"{name} is {data[name]!r}"
    return None


# --8<-- [start:move]
def move(task: TaskRecord, status: str, message: str | None = None) -> None:
    """Move ``task`` to ``status`` (the extension's state machine), or refuse with
    :class:`MoveRefused`. Entering ``working`` again drops the questions it answered."""
    if status not in MOVES.get(task.status, ()):
        raise MoveRefused(f"a task cannot go from {task.status!r} to {status!r}")
    task.status = status
    task.status_message = message
    task.updated_at = time.time()
    if status != INPUT_REQUIRED:
        task.questions = {}


# --8<-- [end:move]


# --8<-- [start:wire]
def handle(task: TaskRecord) -> dict[str, Any]:
    """The task as ``tools/call`` answers it (``CreateTaskResult``): a flat handle, with no result,
    error or questions (``tasks/get`` carries those)."""
    shown: dict[str, Any] = {
        "taskId": task.id,
        "status": task.status,
        "createdAt": iso(task.created_at),
        "lastUpdatedAt": iso(task.updated_at),
        "ttlMs": task.ttl_ms,
        "pollIntervalMs": task.poll_interval_ms,
    }
    if task.status_message:
        shown["statusMessage"] = task.status_message
    return shown


def detailed(task: TaskRecord) -> dict[str, Any]:
    """The task as ``tasks/get`` shows it (``DetailedTask``): its handle, and what its status
    carries: the questions, the result or the error."""
    shown = handle(task)
    if task.status == INPUT_REQUIRED:
        shown["inputRequests"] = dict(task.questions)
    elif task.status == COMPLETED:
        shown["result"] = task.result
    elif task.status == FAILED:
        shown["error"] = task.error
    return shown


def iso(moment: float) -> str:
    """An ISO 8601 timestamp in UTC, to the millisecond: ``2026-07-28T10:30:00.125Z``."""
    text = datetime.fromtimestamp(moment, UTC).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


# --8<-- [end:wire]
