"""Checks for lesson 09's exercise: a sampling approval policy, a form checked by hand, and a
cancellable task registry.

Each test's docstring is the hint a student sees when it fails (``python tools/check.py 09``).
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest

TIMEOUT = 5

# -- Exercise 1 · A sampling approval policy -------------------------------------------------------

REQUEST: dict[str, Any] = {
    "messages": [
        {"role": "user", "content": {"type": "text", "text": "Translate this XML to JSON: <a/>"}}
    ],
    "systemPrompt": "Answer with the JSON only.",
    "maxTokens": 200,
}


def test_an_untrusted_server_is_refused(exercise: Any) -> None:
    """A server that is not in `trusted` gets False, whatever it asks."""
    assert exercise.review("stranger", REQUEST, trusted={"assistant"}) is False


def test_a_modest_request_from_a_trusted_server_goes_through(exercise: Any) -> None:
    """Nothing to change: return True (not a copy). includeContext "none" and a temperature of 0–1
    are fine."""
    assert exercise.review("assistant", REQUEST, trusted={"assistant"}) is True
    calm = {**REQUEST, "includeContext": "none", "temperature": 0.0}
    assert exercise.review("assistant", calm, trusted={"assistant"}) is True


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ({"includeContext": "allServers"}, {"includeContext": "none"}),
        ({"includeContext": "thisServer"}, {"includeContext": "none"}),
        ({"maxTokens": 5000}, {"maxTokens": 500}),
        ({"temperature": 1.7}, {}),
        (
            {"temperature": -0.1, "maxTokens": 501, "includeContext": "allServers"},
            {"maxTokens": 500, "includeContext": "none"},
        ),
    ],
)
def test_a_request_is_edited_into_a_copy(
    exercise: Any, extra: dict[str, Any], expected: dict[str, Any]
) -> None:
    """Edit a deep copy: includeContext becomes "none", maxTokens is capped, a temperature outside
    0–1 is removed; return the copy and leave the request you were given exactly as it was."""
    request = {**REQUEST, **extra}
    before = copy.deepcopy(request)
    verdict = exercise.review("assistant", request, trusted=["assistant"], max_tokens=500)
    assert verdict == {**REQUEST, **expected}
    assert request == before, "the request passed in must not change"


def test_the_copy_is_deep(exercise: Any) -> None:
    """Deep: editing the returned copy's messages must not touch the original's (copy.deepcopy)."""
    request = {**copy.deepcopy(REQUEST), "maxTokens": 9999}
    edited = exercise.review("assistant", request, trusted={"assistant"})
    edited["messages"][0]["content"]["text"] = "changed"
    assert request["messages"][0]["content"]["text"] == "Translate this XML to JSON: <a/>"


# -- Exercise 2 · Check a form's answer by hand ---------------------------------------------------

FORM: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 3, "maxLength": 10},
        "age": {"type": "integer", "minimum": 18, "maximum": 99},
        "score": {"type": "number", "minimum": 0},
        "newsletter": {"type": "boolean"},
        "plan": {"type": "string", "enum": ["free", "pro"]},
    },
    "required": ["name", "plan"],
}


@pytest.mark.parametrize(
    ("value", "kind", "fits"),
    [
        ("x", "string", True),
        (3, "integer", True),
        (3, "number", True),
        (2.5, "number", True),
        (2.5, "integer", False),
        (True, "boolean", True),
        (True, "integer", False),
        (False, "number", False),
        ("3", "integer", False),
        (None, "string", False),
        (1, "boolean", False),
    ],
)
def test_fits_type(exercise: Any, value: Any, kind: str, fits: bool) -> None:
    """A bool is only a boolean (test it before int: True is an int in Python); an int is a number
    too."""
    assert exercise.fits_type(value, kind) is fits


def test_a_good_answer_has_no_problems(exercise: Any) -> None:
    """Everything present and in range: []. Optional fields may be left out."""
    assert exercise.form_problems(FORM, {"name": "Ada", "plan": "pro"}) == []
    full = {"name": "Ada", "age": 36, "score": 9.5, "newsletter": False, "plan": "free"}
    assert exercise.form_problems(FORM, full) == []


@pytest.mark.parametrize(
    ("content", "problems"),
    [
        ({}, ["name: required", "plan: required"]),
        ({"name": "Ada", "plan": "pro", "colour": "red"}, ["colour: not in the form"]),
        (
            {"name": "Al", "plan": "gold"},
            ["name: at least 3 characters", "plan: must be one of free, pro"],
        ),
        ({"name": "Ada Lovelace", "plan": "pro"}, ["name: at most 10 characters"]),
        (
            {"name": "Ada", "plan": "pro", "age": 17, "score": -1},
            ["age: at least 18", "score: at least 0"],
        ),
        ({"name": "Ada", "plan": "pro", "age": 100}, ["age: at most 99"]),
        (
            {"name": 7, "plan": "pro", "age": "36", "newsletter": "yes", "score": True},
            [
                "age: must be an integer",
                "name: must be a string",
                "newsletter: must be a boolean",
                "score: must be a number",
            ],
        ),
    ],
)
def test_each_problem_is_one_sorted_sentence(
    exercise: Any, content: dict[str, Any], problems: list[str]
) -> None:
    """One sentence per problem, in the words of the comment above form_problems, sorted; a value of
    the wrong type gets only the type sentence."""
    assert exercise.form_problems(FORM, content) == problems


# -- Exercise 3 · A cancellable task registry -----------------------------------------------------


class Outbox:
    """What the registry sent: (request id, result) pairs."""

    def __init__(self) -> None:
        self.sent: list[tuple[Any, Any]] = []

    async def send(self, request_id: Any, result: Any) -> None:
        self.sent.append((request_id, result))


async def test_work_runs_in_tasks_and_each_answer_is_sent(exercise: Any) -> None:
    """start() must return at once (create a task); when the work returns, send (id, result)."""
    outbox, gate = Outbox(), asyncio.Event()

    async def slow() -> str:
        await gate.wait()
        return "slow"

    async def quick() -> str:
        return "quick"

    tasks = exercise.Tasks(outbox.send)
    tasks.start(1, slow)
    tasks.start(2, quick)
    assert tasks.running() == [1, 2]
    await asyncio.sleep(0.01)
    assert outbox.sent == [(2, "quick")] and tasks.running() == [1]  # the quick one did not wait
    gate.set()
    await asyncio.wait_for(tasks.wait(), TIMEOUT)
    assert outbox.sent == [(2, "quick"), (1, "slow")] and tasks.running() == []


async def test_an_id_in_flight_cannot_start_twice(exercise: Any) -> None:
    """Ids are unique among the requests in flight: ValueError; once finished, the id may be used
    again."""
    outbox, gate = Outbox(), asyncio.Event()

    async def wait() -> str:
        await gate.wait()
        return "done"

    tasks = exercise.Tasks(outbox.send)
    tasks.start("a", wait)
    with pytest.raises(ValueError):
        tasks.start("a", wait)
    gate.set()
    await asyncio.wait_for(tasks.wait(), TIMEOUT)
    tasks.start("a", wait)
    await asyncio.wait_for(tasks.wait(), TIMEOUT)
    assert outbox.sent == [("a", "done"), ("a", "done")]


async def test_cancel_stops_the_work_and_nothing_is_sent(exercise: Any) -> None:
    """cancel(id) cancels the task (the work sees CancelledError) and returns True; no answer is
    sent."""
    outbox, seen = Outbox(), []

    async def forever() -> str:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise
        return "never"

    tasks = exercise.Tasks(outbox.send)
    tasks.start(7, forever)
    await asyncio.sleep(0)
    assert tasks.cancel(7) is True
    await asyncio.wait_for(tasks.wait(), TIMEOUT)
    assert seen == ["cancelled"] and outbox.sent == [] and tasks.running() == []


async def test_work_that_swallows_the_cancellation_still_sends_nothing(exercise: Any) -> None:
    """Even if the work catches CancelledError and returns, a cancelled request gets no answer:
    remember which ids were cancelled, and check before sending."""
    outbox = Outbox()

    async def stubborn() -> str:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            pass
        return "answered anyway"

    tasks = exercise.Tasks(outbox.send)
    tasks.start(8, stubborn)
    await asyncio.sleep(0)
    assert tasks.cancel(8) is True
    await asyncio.wait_for(tasks.wait(), TIMEOUT)
    assert outbox.sent == []


async def test_unknown_finished_and_protected_ids_are_ignored(exercise: Any) -> None:
    """cancel() returns False, and changes nothing, for an id never started, one already answered,
    and a protected one (initialize may not be cancelled: its answer is still sent)."""
    outbox, gate = Outbox(), asyncio.Event()

    async def initialize() -> dict[str, str]:
        await gate.wait()
        return {"protocolVersion": "2025-11-25"}

    async def quick() -> str:
        return "quick"

    tasks = exercise.Tasks(outbox.send, protected={0})
    tasks.start(0, initialize)
    tasks.start(1, quick)
    await asyncio.sleep(0.01)
    assert tasks.cancel("never-started") is False
    assert tasks.cancel(1) is False  # answered already: the two messages crossed
    assert tasks.cancel(0) is False
    gate.set()
    await asyncio.wait_for(tasks.wait(), TIMEOUT)
    assert outbox.sent == [(1, "quick"), (0, {"protocolVersion": "2025-11-25"})]


async def test_a_cancelled_id_may_be_used_again(exercise: Any) -> None:
    """Forget a cancelled id once its task is over: a new request with the same id is answered
    normally."""
    outbox = Outbox()

    async def forever() -> str:
        await asyncio.sleep(60)
        return "never"

    async def quick() -> str:
        return "again"

    tasks = exercise.Tasks(outbox.send)
    tasks.start(3, forever)
    await asyncio.sleep(0)
    tasks.cancel(3)
    await asyncio.wait_for(tasks.wait(), TIMEOUT)
    tasks.start(3, quick)
    await asyncio.wait_for(tasks.wait(), TIMEOUT)
    assert outbox.sent == [(3, "again")]
