"""Checks for lesson 13's exercise: a task's state machine, and the client's polling loop with its
bounds.

Each test's docstring is the hint a student sees when it fails (``python tools/check.py 13``).
No test waits for real: the polling loop is handed a clock and a ``sleep`` that only move it.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

STATUSES = ("working", "input_required", "completed", "failed", "cancelled")
ALLOWED = {
    ("working", "input_required"),
    ("working", "completed"),
    ("working", "failed"),
    ("working", "cancelled"),
    ("input_required", "working"),
    ("input_required", "completed"),
    ("input_required", "failed"),
    ("input_required", "cancelled"),
}
ASK_NAME = {"method": "elicitation/create", "params": {"message": "Your name?"}}
ASK_ROOTS = {"method": "roots/list"}
RESULT = {"content": [{"type": "text", "text": "Report ready"}], "isError": False}
ERROR = {"code": -32603, "message": "The worker died", "data": {"worker": "w1"}}

# -- Exercise 1 · A task's state machine -----------------------------------------------------------


def test_the_moves_the_extension_allows(exercise: Any) -> None:
    """allowed(status, to): True for exactly eight moves: working → input_required, completed,
    failed, cancelled; input_required → working, completed, failed, cancelled."""
    found = {(a, b) for a, b in itertools.product(STATUSES, STATUSES) if exercise.allowed(a, b)}
    assert found == ALLOWED


def test_nothing_leaves_a_terminal_status_nor_goes_to_itself(exercise: Any) -> None:
    """allowed is False out of completed, failed and cancelled, from a status to itself, and for a
    status the extension does not have ("paused")."""
    for over in ("completed", "failed", "cancelled"):
        assert not any(exercise.allowed(over, to) for to in STATUSES), over
    assert not any(exercise.allowed(status, status) for status in STATUSES)
    assert not exercise.allowed("working", "paused")
    assert not exercise.allowed("paused", "working")
    assert exercise.TERMINAL == ("completed", "failed", "cancelled")


def test_a_move_sets_the_status_and_its_message(exercise: Any) -> None:
    """move(task, to, message): task.status becomes `to`, task.status_message becomes `message`
    (None when none is given)."""
    task = exercise.Task("t1")
    exercise.move(task, "input_required", "Waiting for your name")
    assert (task.status, task.status_message) == ("input_required", "Waiting for your name")
    exercise.move(task, "working")
    assert (task.status, task.status_message) == ("working", None)
    exercise.move(task, "completed", "Done")
    assert (task.status, task.status_message) == ("completed", "Done")


def test_a_refused_move_says_why_and_changes_nothing(exercise: Any) -> None:
    """A move that is not allowed raises MoveRefused("a task cannot go from 'x' to 'y'"), and the
    task is left exactly as it was."""
    task = exercise.Task("t1", status="completed", result=RESULT, status_message="Done")
    with pytest.raises(exercise.MoveRefused, match="from 'completed' to 'working'"):
        exercise.move(task, "working")
    assert task == exercise.Task("t1", status="completed", result=RESULT, status_message="Done")
    task = exercise.Task("t2")
    with pytest.raises(exercise.MoveRefused, match="from 'working' to 'working'"):
        exercise.move(task, "working", "again")
    assert task == exercise.Task("t2")


def test_questions_last_only_while_input_is_required(exercise: Any) -> None:
    """Every move but one to input_required empties task.questions: they were answered, or will
    never be."""
    task = exercise.Task("t1", status="input_required", questions={"name": ASK_NAME})
    exercise.move(task, "working")
    assert task.questions == {}
    task = exercise.Task("t2", status="input_required", questions={"name": ASK_NAME})
    exercise.move(task, "failed")
    assert task.questions == {}
    task = exercise.Task("t3", questions={"name": ASK_NAME})
    exercise.move(task, "input_required")
    assert task.questions == {"name": ASK_NAME}


def test_cancel_stops_a_task_that_is_not_over(exercise: Any) -> None:
    """cancel(tasks, task_id) on a working or input_required task: it becomes cancelled (its
    questions dropped), and cancel returns True."""
    tasks = {
        "t1": exercise.Task("t1"),
        "t2": exercise.Task("t2", status="input_required", questions={"name": ASK_NAME}),
    }
    assert exercise.cancel(tasks, "t1") is True
    assert tasks["t1"].status == "cancelled"
    assert exercise.cancel(tasks, "t2") is True
    assert (tasks["t2"].status, tasks["t2"].questions) == ("cancelled", {})


def test_cancelling_a_task_that_is_over_changes_nothing(exercise: Any) -> None:
    """tasks/cancel is idempotent: a completed, failed or cancelled task stays exactly as it was,
    cancel returns False and raises nothing (cancelling twice is no error)."""
    tasks = {
        "done": exercise.Task("done", status="completed", result=RESULT),
        "broken": exercise.Task("broken", status="failed", error=ERROR),
        "stopped": exercise.Task("stopped", status="cancelled"),
    }
    for task_id in ("done", "broken", "stopped", "stopped"):
        assert exercise.cancel(tasks, task_id) is False, task_id
    assert tasks["done"] == exercise.Task("done", status="completed", result=RESULT)
    assert tasks["broken"] == exercise.Task("broken", status="failed", error=ERROR)
    assert tasks["stopped"].status == "cancelled"


def test_cancelling_an_unknown_task_is_the_only_error(exercise: Any) -> None:
    """cancel of an id that names no task raises UnknownTask (on the wire: -32602), and changes no
    other task."""
    tasks = {"t1": exercise.Task("t1")}
    with pytest.raises(exercise.UnknownTask):
        exercise.cancel(tasks, "t9")
    assert tasks == {"t1": exercise.Task("t1")}


def test_tasks_get_shows_what_each_status_carries(exercise: Any) -> None:
    """detailed(task): {"taskId", "status", "pollIntervalMs"}, "statusMessage" if there is one, and
    "inputRequests" (input_required), "result" (completed) or "error" (failed): nothing else."""
    base = {"taskId": "t1", "pollIntervalMs": 500}
    task = exercise.Task("t1", poll_interval_ms=500)
    assert exercise.detailed(task) == {**base, "status": "working"}
    task = exercise.Task("t1", "input_required", "Your name?", 500, {"name": ASK_NAME})
    assert exercise.detailed(task) == {
        **base,
        "status": "input_required",
        "statusMessage": "Your name?",
        "inputRequests": {"name": ASK_NAME},
    }
    task = exercise.Task("t1", "completed", poll_interval_ms=500, result=RESULT)
    assert exercise.detailed(task) == {**base, "status": "completed", "result": RESULT}
    task = exercise.Task("t1", "failed", poll_interval_ms=500, error=ERROR)
    assert exercise.detailed(task) == {**base, "status": "failed", "error": ERROR}
    task = exercise.Task("t1", "cancelled", poll_interval_ms=500, result=RESULT, error=ERROR)
    assert exercise.detailed(task) == {**base, "status": "cancelled"}


# -- Exercise 2 · Following a task: the client's polling loop, with its bounds ---------------------


class Time:
    """A clock that moves only when someone sleeps: ``sleeps`` keeps each wait asked for."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class Server:
    """Answers each tasks/get with the next of ``views`` (the last one again once they run out),
    and keeps the ids it was asked about."""

    def __init__(self, *views: dict[str, Any]) -> None:
        self.views = list(views)
        self.asked: list[str] = []

    async def get(self, task_id: str) -> dict[str, Any]:
        self.asked.append(task_id)
        return self.views.pop(0) if len(self.views) > 1 else self.views[0]


class Answers:
    """The client's answers: keeps each call of answer(task_id, questions)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def answer(self, task_id: str, questions: dict[str, Any]) -> None:
        self.calls.append((task_id, questions))


def view(status: str, interval: Any = 200, **carried: Any) -> dict[str, Any]:
    """The task t1 as tasks/get shows it."""
    shown: dict[str, Any] = {"taskId": "t1", "status": status, **carried}
    if interval is not None:
        shown["pollIntervalMs"] = interval
    return shown


HANDLE = {"resultType": "task", **view("working", 500)}


async def follow(
    exercise: Any, server: Server, time: Time, handle: dict[str, Any] = HANDLE, **options: Any
) -> tuple[Any, Answers]:
    """exercise.follow(handle, ...) on a fake time: the result, and the answers given."""
    answers = Answers()
    result = await exercise.follow(
        handle, server.get, answers.answer, time.sleep, time.clock, **options
    )
    return result, answers


def test_the_servers_interval_is_kept_within_the_bounds(exercise: Any) -> None:
    """interval(task, bounds): pollIntervalMs / 1000 seconds, but never under bounds.floor nor over
    bounds.ceiling."""
    bounds = exercise.Bounds(floor=0.1, ceiling=30.0, default=1.0)
    assert exercise.interval(view("working", 2500), bounds) == 2.5
    assert exercise.interval(view("working", 5), bounds) == 0.1
    assert exercise.interval(view("working", 600_000), bounds) == 30.0
    assert exercise.interval(view("working", 250)) == 0.25  # the default bounds


def test_no_interval_or_a_bad_one_is_the_default(exercise: Any) -> None:
    """interval: no pollIntervalMs, or one that is None, 0, negative, a bool or not an integer,
    gives bounds.default (clamped like any other)."""
    bounds = exercise.Bounds(floor=0.1, ceiling=30.0, default=2.0)
    for bad in (None, 0, -300, True, "1000", 1.5):
        assert exercise.interval(view("working", bad), bounds) == 2.0, bad
    assert exercise.interval(view("working", None), bounds) == 2.0
    assert exercise.interval(view("working", None), exercise.Bounds(default=99.0)) == 30.0


async def test_a_completed_task_gives_its_result(exercise: Any) -> None:
    """follow: sleep the interval of the last thing the server said (the handle first), then
    get(task_id); on completed, return task["result"]."""
    server = Server(view("working", 300), view("working", None), view("completed", result=RESULT))
    time = Time()
    result, _ = await follow(exercise, server, time)
    assert result == RESULT
    assert server.asked == ["t1", "t1", "t1"]
    assert time.sleeps == [0.5, 0.3, 1.0]


async def test_a_tool_error_is_a_result_not_an_exception(exercise: Any) -> None:
    """A tool that reported an error ("isError": true) completed: follow returns its result."""
    failed_tool = {"content": [{"type": "text", "text": "No such file"}], "isError": True}
    result, _ = await follow(exercise, Server(view("completed", result=failed_tool)), Time())
    assert result == failed_tool


async def test_a_failed_task_raises_its_error(exercise: Any) -> None:
    """On failed, raise TaskFailed(task_id, task["error"]): its task_id, code, data, and the
    error's message in its text."""
    server = Server(view("working"), view("failed", error=ERROR))
    with pytest.raises(exercise.TaskFailed) as raised:
        await follow(exercise, server, Time())
    failure = raised.value
    assert (failure.task_id, failure.code, failure.data) == ("t1", -32603, {"worker": "w1"})
    assert "The worker died" in str(failure) and len(server.asked) == 2


async def test_a_cancelled_task_raises_task_cancelled(exercise: Any) -> None:
    """On cancelled, raise TaskCancelled(task_id, ...): the caller learns there is no result, and
    which task it was."""
    server = Server(view("input_required", inputRequests={"name": ASK_NAME}), view("cancelled"))
    with pytest.raises(exercise.TaskCancelled) as raised:
        await follow(exercise, server, Time())
    assert raised.value.task_id == "t1" and "t1" in str(raised.value)
    assert len(server.asked) == 2


async def test_questions_are_answered_once_each_and_the_loop_goes_on(exercise: Any) -> None:
    """On input_required, await answer(task_id, {key: question}) with only the keys not answered
    before (none new: no call), then go on polling."""
    server = Server(
        view("input_required", inputRequests={"name": ASK_NAME}),
        view("input_required", inputRequests={"name": ASK_NAME}),  # not taken yet
        view("input_required", inputRequests={"name": ASK_NAME, "roots": ASK_ROOTS}),
        view("working"),
        view("completed", result=RESULT),
    )
    time = Time()
    result, answers = await follow(exercise, server, time)
    assert result == RESULT
    assert answers.calls == [("t1", {"name": ASK_NAME}), ("t1", {"roots": ASK_ROOTS})]
    assert len(server.asked) == len(time.sleeps) == 5


async def test_the_loop_gives_up_after_max_polls(exercise: Any) -> None:
    """After bounds.max_polls polls of a task still running, raise GaveUp(task_id, ...) naming the
    task, without sleeping or polling again."""
    server = Server(view("working", 1))
    time = Time()
    bounds = exercise.Bounds(floor=0.1, max_polls=3)
    with pytest.raises(exercise.GaveUp) as raised:
        await follow(exercise, server, time, bounds=bounds)
    assert raised.value.task_id == "t1" and "t1" in str(raised.value)
    assert server.asked == ["t1"] * 3
    assert time.sleeps == [0.5, 0.1, 0.1]


async def test_the_loop_gives_up_rather_than_poll_past_the_deadline(exercise: Any) -> None:
    """With bounds.deadline, raise GaveUp(task_id, ...) when the next poll would come after
    clock() at the start + deadline, before sleeping: never wait past it."""
    server = Server(view("working", 4000))
    time = Time()
    bounds = exercise.Bounds(ceiling=30.0, deadline=10.0)
    with pytest.raises(exercise.GaveUp) as raised:
        await follow(exercise, server, time, view("working", 3000), bounds=bounds)
    assert raised.value.task_id == "t1" and "t1" in str(raised.value)
    # 3 s, then 4 s: 7 s from the start; 4 s more would end at 11 s, after the deadline.
    assert server.asked == ["t1", "t1"]
    assert time.sleeps == [3.0, 4.0]
