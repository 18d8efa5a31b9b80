"""Lesson 13: the tasks extension, served over one connection in the 2026-07-28 era.

Whether a call becomes a task (never for a tool that does not run as one; when it outlasts the
grace, or says so; at once when required), the three methods and their errors (``-32021`` without
the extension, ``-32602`` only for an unknown task), cancelling (idempotent once over), the
outcome kept (completed, with ``isError`` for a tool's own error; failed, for a protocol error),
questions asked inside a task (``input_required``, answered with ``tasks/update``, partly or at
once), questions asked *before* it (lesson 12's multi round-trip), and work that outlives the
client's connection.
"""

from __future__ import annotations

from typing import Any

import pytest
from support import TIMEOUT
from task_support import (
    CAPABILITIES,
    TaskServer,
    call,
    connected,
    refused,
    start,
    until_status,
    yes,
)
from test_modern import peer

from minimcp.rpc.task_names import EXTENSION
from minimcp.server.task_methods import WORKER_GONE
from minimcp.server.task_store import MemoryTaskStore
from minimcp.session.eras import Mode, TwoEras

TASK_FIELDS = {"taskId", "status", "result", "error", "inputRequests"}


def text_of(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


async def test_discover_declares_the_extension() -> None:
    async with peer(TaskServer().server) as (connection, _):
        found = await call(connection, "server/discover")
    assert found["capabilities"]["extensions"] == {EXTENSION: {}}
    assert "tasks" not in found["capabilities"]


async def test_a_2025_handshake_shows_no_extensions() -> None:
    """2025-11-25's capabilities have no ``extensions`` field: the extension is 2026-07-28's, and
    only ``server/discover`` declares it."""
    async with connected(TaskServer(), conversation=TwoEras(Mode.LEGACY)) as client:
        assert client.session.protocol_version == "2025-11-25"
        assert "extensions" not in client.session.server_capabilities


# -- a task or not ---------------------------------------------------------------------------------


async def test_a_tool_that_never_runs_as_a_task_answers_as_always() -> None:
    async with peer(TaskServer().server) as (connection, _):
        result = await call(connection, "tools/call", name="echo", arguments={"text": "hi"})
        # a 2025-11-25 client's `task` hint changes nothing: the server alone decides
        hinted = await call(
            connection, "tools/call", name="echo", arguments={"text": "hi"}, task={"ttl": 1}
        )
    for answer in (result, hinted):
        assert answer["resultType"] == "complete" and text_of(answer) == "hi"
        assert "taskId" not in answer


async def test_a_call_that_ends_within_the_grace_is_answered_at_once() -> None:
    async with peer(TaskServer().server) as (connection, _):
        result = await call(connection, "tools/call", name="quick", arguments={})
    assert (result["resultType"], text_of(result)) == ("complete", "quick")


async def test_a_required_call_is_a_task_even_when_it_ends_at_once() -> None:
    async with peer(TaskServer().server) as (connection, _):
        task_id = await start(connection, "quick_required")
        task = await until_status(connection, task_id, "completed")
    assert text_of(task["result"]) == "quick, as a task"


async def test_a_call_that_outlasts_the_grace_becomes_a_task() -> None:
    served = TaskServer()
    async with peer(served.server) as (connection, _):
        handle = await call(connection, "tools/call", name="slow", arguments={})
        assert handle["resultType"] == "task" and not TASK_FIELDS - {"taskId", "status"} & set(
            handle
        )
        assert handle["status"] == "working" and handle["ttlMs"] == 3_600_000
        assert (await call(connection, "tasks/get", taskId=handle["taskId"]))["status"] == "working"
        served.release.set()
        task = await until_status(connection, handle["taskId"], "completed")
    assert (task["resultType"], text_of(task["result"])) == ("complete", "late")
    assert "io.modelcontextprotocol/related-task" not in task["result"].get("_meta", {})


async def test_as_task_gives_the_handle_at_once_and_progress_becomes_the_status_message() -> None:
    served = TaskServer(grace=TIMEOUT * 10)  # only as_task can make it a task in time
    async with peer(served.server) as (connection, _):
        task_id = await start(connection, "held")
        for _ in range(int(TIMEOUT / 0.02)):
            task = await call(connection, "tasks/get", taskId=task_id)
            if task.get("statusMessage") == "halfway":
                break
        assert (task["status"], task["statusMessage"]) == ("working", "halfway")
        served.release.set()
        done = await until_status(connection, task_id, "completed")
    assert text_of(done["result"]) == "released"


# -- negotiation and unknown tasks -----------------------------------------------------------------


async def test_without_the_extension_calls_are_answered_as_always() -> None:
    async with peer(TaskServer().server) as (connection, _):
        result = await call(connection, "tools/call", {}, name="quick", arguments={})
        assert (result["resultType"], text_of(result)) == ("complete", "quick")


async def test_without_the_extension_a_required_tool_is_refused_with_what_it_needs() -> None:
    async with peer(TaskServer().server) as (connection, _):
        await call(connection, "tools/call", name="quick", arguments={})  # declared here ...
        error = await refused_without(connection, "tools/call", name="quick_required", arguments={})
    # ... which counts for nothing on the next request: each says it for itself
    assert error.code == -32021
    assert error.data == {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("tasks/get", {"taskId": "gate-test"}),
        ("tasks/update", {"taskId": "gate-test", "inputResponses": {}}),
        ("tasks/cancel", {"taskId": "gate-test"}),
    ],
)
async def test_the_task_methods_need_the_extension(method: str, params: dict[str, Any]) -> None:
    async with peer(TaskServer().server) as (connection, _):
        error = await refused_without(connection, method, **params)
    assert error.code == -32021


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("tasks/get", {"taskId": "nobody"}),
        ("tasks/update", {"taskId": "nobody", "inputResponses": {}}),
        ("tasks/cancel", {"taskId": "nobody"}),
        ("tasks/get", {"taskId": 42}),
        ("tasks/get", {}),
    ],
)
async def test_an_unknown_task_is_invalid_params(method: str, params: dict[str, Any]) -> None:
    async with peer(TaskServer().server) as (connection, _):
        error = await refused(connection, method, **params)
        assert (error.code, error.message) == (
            -32602,
            f"Invalid params: no task {params.get('taskId')!r} (unknown, or expired)",
        )
        assert (await call(connection, "tools/call", name="quick", arguments={}))["content"]


@pytest.mark.parametrize("method", ["tasks/result", "tasks/list"])
async def test_the_methods_the_extension_removed_are_unknown(method: str) -> None:
    async with peer(TaskServer().server) as (connection, _):
        error = await refused(connection, method, taskId="t")
    assert error.code == -32601


async def refused_without(connection: Any, method: str, **params: Any) -> Any:
    """Like ``refused``, from a request that does not declare the extension."""
    caps = {key: value for key, value in CAPABILITIES.items() if key != "extensions"}
    try:
        await call(connection, method, caps, **params)
    except Exception as error:
        return error
    raise AssertionError(f"{method} was answered")


# -- cancelling ------------------------------------------------------------------------------------


async def test_cancel_is_an_empty_ack_and_the_task_ends_cancelled() -> None:
    served = TaskServer()
    async with peer(served.server) as (connection, _):
        task_id = await start(connection, "held")
        ack = await call(connection, "tasks/cancel", taskId=task_id)
        assert ack["resultType"] == "complete" and not TASK_FIELDS & set(ack)
        task = await until_status(connection, task_id, "cancelled", "completed", "failed")
        assert task["status"] == "cancelled" and "result" not in task
        again = await call(connection, "tasks/cancel", taskId=task_id)  # idempotent
        assert again["resultType"] == "complete" and not TASK_FIELDS & set(again)
        assert (await call(connection, "tasks/get", taskId=task_id))["status"] == "cancelled"
        assert served.tasks.running == {}  # the work stopped


async def test_cancelling_a_task_that_is_over_changes_nothing() -> None:
    async with peer(TaskServer().server) as (connection, _):
        task_id = await start(connection, "quick_required")
        await until_status(connection, task_id, "completed")
        ack = await call(connection, "tasks/cancel", taskId=task_id)
        assert not TASK_FIELDS & set(ack)
        task = await call(connection, "tasks/get", taskId=task_id)
    assert (task["status"], text_of(task["result"])) == ("completed", "quick, as a task")


# -- how a task ends -------------------------------------------------------------------------------


async def test_a_tool_error_completes_the_task_with_is_error() -> None:
    async with peer(TaskServer().server) as (connection, _):
        task_id = await start(connection, "tool_error")
        task = await until_status(connection, task_id, "completed", "failed")
    assert task["status"] == "completed" and task["result"]["isError"] is True
    assert text_of(task["result"]) == "no good" and "error" not in task


async def test_a_protocol_error_fails_the_task_with_the_error_inlined() -> None:
    async with peer(TaskServer().server) as (connection, _):
        task_id = await start(connection, "protocol_error")
        task = await until_status(connection, task_id, "completed", "failed")
    assert task["status"] == "failed" and "result" not in task
    assert task["error"] == {"code": -32603, "message": "crashed", "data": {"where": "here"}}


async def test_a_tool_that_crashes_is_a_tool_error_and_tells_nothing_of_its_insides() -> None:
    async with peer(TaskServer().server) as (connection, _):
        task_id = await start(connection, "bug")
        task = await until_status(connection, task_id, "completed", "failed")
    assert task["status"] == "completed" and task["result"]["isError"] is True  # lesson 04's rule
    assert "/secret" not in str(task)


async def test_a_result_too_large_to_keep_fails_its_task() -> None:
    async with peer(TaskServer().server) as (connection, _):
        task_id = await start(connection, "huge")
        task = await until_status(connection, task_id, "completed", "failed")
    assert task["status"] == "failed" and task["error"]["code"] == -32603
    assert "too large to keep" in task["error"]["message"]


async def test_a_full_store_refuses_a_new_task_and_stops_its_work() -> None:
    served = TaskServer(store=MemoryTaskStore(max_tasks=1))
    async with peer(served.server) as (connection, _):
        first = await start(connection, "held")
        error = await refused(connection, "tools/call", name="held", arguments={})
        assert (error.code, error.message) == (
            -32000,
            "Server busy: 1 tasks are kept already; try again later",
        )
        assert list(served.tasks.running) == [first]  # the refused call's work is not running
        served.release.set()
        await until_status(connection, first, "completed")


# -- questions inside a task, and before it --------------------------------------------------------


async def test_a_question_parks_the_task_until_tasks_update_answers_it() -> None:
    async with peer(TaskServer().server) as (connection, _):
        task_id = await start(connection, "confirm")
        task = await until_status(connection, task_id, "input_required")
        assert task["inputRequests"]["confirm"]["method"] == "elicitation/create"
        ignored = await call(
            connection, "tasks/update", taskId=task_id, inputResponses={"nope": yes()}
        )
        assert ignored["resultType"] == "complete" and not TASK_FIELDS & set(ignored)
        assert (await call(connection, "tasks/get", taskId=task_id))["status"] == "input_required"
        error = await refused(
            connection, "tasks/update", taskId=task_id, inputResponses={"confirm": {"x": 1}}
        )
        assert error.code == -32602
        await call(connection, "tasks/update", taskId=task_id, inputResponses={"confirm": yes()})
        done = await until_status(connection, task_id, "completed")
    assert text_of(done["result"]) == "confirm: accept"


async def test_answers_may_come_one_at_a_time() -> None:
    async with peer(TaskServer().server) as (connection, _):
        task_id = await start(connection, "two")
        task = await until_status(connection, task_id, "input_required")
        assert set(task["inputRequests"]) == {"first", "second"}
        await call(connection, "tasks/update", taskId=task_id, inputResponses={"first": yes()})
        task = await call(connection, "tasks/get", taskId=task_id)
        assert (task["status"], set(task["inputRequests"])) == ("input_required", {"second"})
        await call(connection, "tasks/update", taskId=task_id, inputResponses={"second": yes()})
        done = await until_status(connection, task_id, "completed")
    assert text_of(done["result"]) == "two: accept, accept"


async def test_a_question_key_is_never_used_twice_in_a_task() -> None:
    async with peer(TaskServer().server) as (connection, _):
        task_id = await start(connection, "twice")
        first = await until_status(connection, task_id, "input_required")
        await call(connection, "tasks/update", taskId=task_id, inputResponses={"confirm": yes()})
        for _ in range(int(TIMEOUT / 0.02)):
            second = await call(connection, "tasks/get", taskId=task_id)
            if "confirm-2" in second.get("inputRequests", {}):
                break
        assert set(first["inputRequests"]) == {"confirm"}
        assert set(second["inputRequests"]) == {"confirm-2"}
        # the old key's answer, sent again, answers nothing
        await call(connection, "tasks/update", taskId=task_id, inputResponses={"confirm": yes()})
        assert (await call(connection, "tasks/get", taskId=task_id))["status"] == "input_required"
        await call(connection, "tasks/update", taskId=task_id, inputResponses={"confirm-2": yes()})
        await until_status(connection, task_id, "completed")


async def test_a_question_the_client_cannot_answer_fails_the_task() -> None:
    async with peer(TaskServer().server) as (connection, _):
        caps = {"extensions": {EXTENSION: {}}}  # no elicitation
        handle = await call(connection, "tools/call", caps, name="confirm", arguments={})
        task = await until_status_with(connection, caps, handle["taskId"])
    assert task["status"] == "failed" and task["error"]["code"] == -32021


async def until_status_with(connection: Any, caps: dict[str, Any], task_id: str) -> Any:
    for _ in range(int(TIMEOUT / 0.02)):
        task = await call(connection, "tasks/get", caps, taskId=task_id)
        if task["status"] in ("completed", "failed", "cancelled"):
            return task
    raise AssertionError("never over")


async def test_questions_before_the_task_are_asked_on_the_request_itself() -> None:
    async with peer(TaskServer().server) as (connection, _):
        first = await call(connection, "tools/call", name="name_first", arguments={})
        assert first["resultType"] == "input_required" and "taskId" not in first
        assert set(first["inputRequests"]) == {"name"}
        handle = await call(
            connection,
            "tools/call",
            name="name_first",
            arguments={},
            inputResponses={"name": yes()},
            requestState=first["requestState"],
        )
        assert handle["resultType"] == "task" and "requestState" not in handle
        done = await until_status(connection, handle["taskId"], "completed")
    assert text_of(done["result"]) == "ready: accept"


# -- work that outlives its client -----------------------------------------------------------------


async def test_a_task_outlives_the_connection_that_started_it() -> None:
    served = TaskServer()
    async with peer(served.server) as (connection, _):
        task_id = await start(connection, "held")
    served.release.set()  # the client is gone; the work goes on and ends
    async with peer(served.server) as (connection, _):  # a new connection finds it
        done = await until_status(connection, task_id, "completed")
    assert text_of(done["result"]) == "released"


async def test_a_task_of_a_dead_worker_fails_with_a_clear_message() -> None:
    class DeadWorkers(MemoryTaskStore):
        async def alive(self, worker: str) -> bool:
            return worker == "me"

    served = TaskServer()
    served.tasks.keep_in(DeadWorkers(), worker="me")
    async with peer(served.server) as (connection, _):
        task_id = await start(connection, "held")
        await served.tasks.store.update(task_id, lambda task: setattr(task, "worker", "gone"))
        task = await call(connection, "tasks/get", taskId=task_id)
    assert task["status"] == "failed" and task["statusMessage"] == WORKER_GONE
    assert task["error"] == {"code": -32603, "message": WORKER_GONE}
