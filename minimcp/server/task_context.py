"""What a tool runs with when its call may become a task (lesson 13).

A task-supporting tool is written like any other: a function, maybe with a ``context``. What
changes is *when* it runs: its call starts as an ordinary request, and becomes a task when the
server decides (it is still running after a short grace, or the tool says so: :func:`as_task`).
The tool's context follows it across that line, and behaves as each side requires:

* **before** the task exists, it is the request's own context: a question to the client is lesson
  12's multi round-trip (``input_required`` on the request itself, and the call runs again with the
  answers), a progress notice goes on the request's stream;
* **after**, there is no request any more, nor a stream: a question *parks* the task (``status:
  "input_required"``, the question under ``inputRequests`` in ``tasks/get``) until ``tasks/update``
  brings its answer, and the tool goes on where it stopped, its local variables intact; a progress
  notice becomes the task's ``statusMessage``, which the client reads when it polls.

:class:`TaskRun` is the task side of one call: its id once it has one, and its questions;
:class:`TaskContext` is the context that switches from one side to the other.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from minimcp.rpc.jsonrpc import RpcError
from minimcp.rpc.task_names import INPUT_REQUIRED, WORKING
from minimcp.server.task_model import TaskRecord, move
from minimcp.session.context import RequestContext
from minimcp.session.envelope import missing_capability
from minimcp.session.input_required import QUESTION_CAPABILITY
from minimcp.session.progress import PROGRESS
from minimcp.session.url_questions import as_asked_in_2026

if TYPE_CHECKING:
    from minimcp.server.task_store import TaskStore

log = logging.getLogger("minimcp.tasks")


# --8<-- [start:run]
@dataclass(eq=False)
class TaskRun:
    """The task side of one call: whether it is a task yet, and the questions it asked as one."""

    store: TaskStore
    poll: float  # seconds between two looks at the store while waiting for answers
    task_id: str | None = None  # set once the task exists: from then on, the call is a task
    wanted: asyncio.Event = field(default_factory=asyncio.Event)  # the tool asked to be a task
    created: asyncio.Event = field(default_factory=asyncio.Event)  # ... and now it is one
    used: set[str] = field(default_factory=set)  # every question key used in this task

    async def become_task(self) -> None:
        """Ask the server to make this call a task now, and wait until it is one."""
        if self.task_id is None:
            self.wanted.set()
            await self.created.wait()

    def fresh_key(self, key: str) -> str:
        """``key``, or ``key-2``, ``key-3``…: a question key is never used twice in a task."""
        fresh, n = key, 1
        while fresh in self.used:
            n += 1
            fresh = f"{key}-{n}"
        self.used.add(fresh)
        return fresh

    # --8<-- [end:run]

    # --8<-- [start:park]
    async def ask(self, questions: dict[str, dict[str, Any]]) -> dict[str, Any]:
        """Park the task on ``questions`` until ``tasks/update`` brings every answer; the answers,
        under the keys the tool chose."""
        assert self.task_id is not None
        keys = {self.fresh_key(key): key for key in questions}  # the task's key → the tool's
        asked = {fresh: as_asked_in_2026(questions[key]) for fresh, key in keys.items()}
        await self.store.update(self.task_id, lambda task: post(task, asked))
        answers: dict[str, Any] = {}
        taken: dict[str, Any] = {}  # what one look at the store found
        while len(answers) < len(asked):
            await self.store.update(self.task_id, lambda task: take(task, set(asked), taken))
            answers.update(taken)
            if len(answers) < len(asked):
                await self.store.wait(self.task_id, self.poll)
        return {keys[fresh]: answer for fresh, answer in answers.items()}


def post(task: TaskRecord, asked: dict[str, Any]) -> None:
    """Add questions to the task, which now waits for them (``input_required``)."""
    if task.over:
        return  # cancelled meanwhile: the work is about to stop
    if task.status == WORKING:
        move(task, INPUT_REQUIRED, "Waiting for the client's answers")
    task.questions.update(asked)
    task.keys.extend(asked)


def take(task: TaskRecord, keys: set[str], taken: dict[str, Any]) -> None:
    """Take the answers to ``keys`` that came (into ``taken``); once no question is left open,
    the task is ``working`` again."""
    taken.clear()  # a store may try a change twice (lesson 11's, when two workers collide)
    for key in keys & set(task.answers):
        taken[key] = task.answers.pop(key)
        task.questions.pop(key, None)
    if task.status == INPUT_REQUIRED and not task.questions:
        move(task, WORKING)


# --8<-- [end:park]


# --8<-- [start:context]
@dataclass
class TaskContext(RequestContext):
    """The context of a call that may become a task: the request's own until then
    (``original``), the task's after (``run``)."""

    original: RequestContext = field(kw_only=True)
    run: TaskRun = field(kw_only=True)

    @property
    def params(self) -> dict[str, Any]:
        """The request's params; once a task, with a progress token always (the task's id): a
        tool's progress is then its status message, which every ``tasks/get`` shows, whether or
        not the client asked for progress notices."""
        params = self.request.params or {}
        meta: dict[str, Any] = params["_meta"] if isinstance(params.get("_meta"), dict) else {}
        if self.run.task_id is None or "progressToken" in meta:
            return params
        return {**params, "_meta": {**meta, "progressToken": self.run.task_id}}

    @property
    def modern(self) -> bool:
        return self.original.modern

    @property
    def client_capabilities(self) -> dict[str, Any]:
        return self.original.client_capabilities

    @property
    def log_level(self) -> str | None:
        return self.original.log_level

    def missing_capability(self, name: str) -> RpcError | None:
        return self.original.missing_capability(name)

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Before the task: on the request's stream. After: a progress notice becomes the
        task's status message; anything else has nowhere to go."""
        if self.run.task_id is None:
            await self.original.notify(method, params)
        elif method == PROGRESS:
            await self.run.store.update(self.run.task_id, lambda task: say(task, params or {}))
        else:
            log.debug("task %s: %s dropped (a task has no stream)", self.run.task_id, method)

    async def send_request(
        self, method: str, params: dict[str, Any] | None = None, timeout: float | None = None
    ) -> Any:
        """One question to the client: a request of its own before the task, asked through
        :meth:`ask` after (under a key named after its method)."""
        if self.run.task_id is None:
            return await self.original.send_request(method, params, timeout)
        key = method.split("/")[0]
        answers = await self.ask({key: {"method": method, "params": params or {}}}, timeout)
        return answers[key]

    async def ask(
        self, questions: dict[str, dict[str, Any]], timeout: float | None = None
    ) -> dict[str, Any]:
        """Before the task: the request's way (lesson 12: ``input_required``). After: the task
        waits for the answers, asked in ``tasks/get`` and given with ``tasks/update``."""
        if self.run.task_id is None:
            return await self.original.ask(questions, timeout)
        for question in questions.values():  # never ask what the client cannot answer
            needed = QUESTION_CAPABILITY.get(question["method"])
            if needed is not None and needed not in self.client_capabilities:
                raise missing_capability(needed)
        return await self.run.ask(questions)

    def close_sse_stream(self, retry_ms: int | None = None) -> bool:
        return self.run.task_id is None and self.original.close_sse_stream(retry_ms)


# --8<-- [end:context]


def say(task: TaskRecord, progress: dict[str, Any]) -> None:
    """A progress notice as the task's status message: its ``message``, or "3/10"."""
    if task.over:
        return
    message = progress.get("message")
    if not isinstance(message, str):
        total = progress.get("total")
        message = f"{progress.get('progress')}/{total}" if total is not None else None
    if message:
        task.status_message = message
        task.updated_at = time.time()


# --8<-- [start:as_task]
async def as_task(context: RequestContext) -> None:
    """From here on, this call is a task: the client gets its handle now, and the tool goes on in
    the background. Call it after the questions that must be answered first (lesson 12's multi
    round-trip, on the request itself). Nothing happens where tasks are not in play: a tool that
    is not task-supporting, or a client that did not declare the extension."""
    if isinstance(context, TaskContext):
        await context.run.become_task()


# --8<-- [end:as_task]
