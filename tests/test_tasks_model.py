"""Lesson 13: a task's statuses, the moves between them, and its two shapes on the wire.

Five statuses; from ``working`` and ``input_required`` a task may go to the other or end
(``completed``, ``failed``, ``cancelled``), and once it has ended it never moves again. The handle
``tools/call`` answers carries no result, error or questions; ``tasks/get`` inlines what the status
carries, and nothing else.
"""

from __future__ import annotations

import re

import pytest

from minimcp.rpc.task_names import CANCELLED, COMPLETED, FAILED, INPUT_REQUIRED, TERMINAL, WORKING
from minimcp.server.task_model import MoveRefused, TaskRecord, detailed, handle, iso, move

STATUSES = (WORKING, INPUT_REQUIRED, COMPLETED, FAILED, CANCELLED)
ALLOWED = {
    (WORKING, INPUT_REQUIRED),
    (WORKING, COMPLETED),
    (WORKING, FAILED),
    (WORKING, CANCELLED),
    (INPUT_REQUIRED, WORKING),
    (INPUT_REQUIRED, COMPLETED),
    (INPUT_REQUIRED, FAILED),
    (INPUT_REQUIRED, CANCELLED),
}


def task_in(status: str) -> TaskRecord:
    return TaskRecord(id="t-1", status=status, created_at=1_000.0)


@pytest.mark.parametrize(("start", "end"), sorted(ALLOWED))
def test_the_moves_the_extension_allows(start: str, end: str) -> None:
    task = task_in(start)
    move(task, end, "why")
    assert (task.status, task.status_message) == (end, "why")
    assert task.updated_at > task.created_at


@pytest.mark.parametrize(
    ("start", "end"),
    [(start, end) for start in STATUSES for end in STATUSES if (start, end) not in ALLOWED],
)
def test_every_other_move_is_refused_and_changes_nothing(start: str, end: str) -> None:
    task = task_in(start)
    with pytest.raises(MoveRefused):
        move(task, end)
    assert (task.status, task.updated_at) == (start, 1_000.0)


def test_a_terminal_status_is_for_good() -> None:
    assert set(TERMINAL) == {COMPLETED, FAILED, CANCELLED}
    for status in TERMINAL:
        assert task_in(status).over
    assert not task_in(WORKING).over and not task_in(INPUT_REQUIRED).over


def test_working_again_drops_the_questions_answered() -> None:
    task = task_in(INPUT_REQUIRED)
    task.questions = {"confirm": {"method": "elicitation/create", "params": {}}}
    move(task, WORKING)
    assert task.questions == {}


def test_the_handle_is_flat_and_carries_no_result_error_or_questions() -> None:
    task = task_in(COMPLETED)
    task.result = {"content": [{"type": "text", "text": "42"}]}
    task.questions = {"k": {}}
    shown = handle(task)
    assert set(shown) == {
        "taskId",
        "status",
        "createdAt",
        "lastUpdatedAt",
        "ttlMs",
        "pollIntervalMs",
    }
    assert shown["ttlMs"] == 3_600_000 and isinstance(shown["pollIntervalMs"], int)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", shown["createdAt"])


@pytest.mark.parametrize(
    ("status", "inlined"),
    [
        (WORKING, set()),
        (INPUT_REQUIRED, {"inputRequests"}),
        (COMPLETED, {"result"}),
        (FAILED, {"error"}),
        (CANCELLED, set()),
    ],
)
def test_tasks_get_inlines_only_what_the_status_carries(status: str, inlined: set[str]) -> None:
    task = task_in(status)
    task.questions = {"k": {"method": "elicitation/create"}}
    task.result = {"content": []}
    task.error = {"code": -32603, "message": "broken"}
    extra = set(detailed(task)) - set(handle(task))
    assert extra == inlined


def test_a_status_message_shows_when_there_is_one() -> None:
    task = task_in(WORKING)
    assert "statusMessage" not in handle(task)
    task.status_message = "3/10"
    assert detailed(task)["statusMessage"] == "3/10"


def test_times_are_iso_8601_in_utc() -> None:
    assert iso(0.0) == "1970-01-01T00:00:00.000Z"
    assert iso(1.25) == "1970-01-01T00:00:01.250Z"


def test_expiry_counts_from_creation() -> None:
    task = TaskRecord(id="t", created_at=100.0, ttl_ms=2_000)
    assert not task.expired(101.9)
    assert task.expired(102.0)
    assert not TaskRecord(id="t", created_at=0.0, ttl_ms=None).expired(1e12)


def test_a_record_survives_json() -> None:
    task = task_in(INPUT_REQUIRED)
    task.questions = {"k": {"method": "roots/list"}}
    task.keys = ["k"]
    assert TaskRecord.from_json(task.to_json()) == task
