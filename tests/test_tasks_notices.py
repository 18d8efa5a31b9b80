"""Lesson 13: status notifications, heard on lesson 12's ``subscriptions/listen``.

A listener names its tasks under ``taskIds``; the acknowledgment says which ones the server agreed
to (its own, that exist); then each change of one of them arrives as ``notifications/tasks``,
the whole task as ``tasks/get`` would show it. Without the extension, asking is ``-32021``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from support import until
from task_support import TaskServer, call, refused, start, until_status, yes
from test_modern import peer

from minimcp.rpc.jsonrpc import Notification
from minimcp.server.tasks import serve_tasks

SUBSCRIPTION = {"io.modelcontextprotocol/subscriptionId": 2}


def told(heard: list[Notification]) -> list[dict[str, Any]]:
    return [note.params or {} for note in heard if note.method == "notifications/tasks"]


async def test_a_listener_hears_each_change_of_its_tasks_as_tasks_get_shows_it() -> None:
    served = TaskServer()
    async with peer(served.server) as (connection, heard):
        task_id = await start(connection, "confirm")  # request 1
        listening = asyncio.ensure_future(
            call(
                connection,
                "subscriptions/listen",  # request 2
                notifications={"taskIds": [task_id, "not-a-task"], "toolsListChanged": True},
            )
        )
        await until(lambda: heard)
        assert (heard[0].method, heard[0].params) == (
            "notifications/subscriptions/acknowledged",
            {
                "notifications": {"toolsListChanged": True, "taskIds": [task_id]},
                "_meta": SUBSCRIPTION,
            },
        )
        await until_status(connection, task_id, "input_required")
        await call(connection, "tasks/update", taskId=task_id, inputResponses={"confirm": yes()})
        done = await until_status(connection, task_id, "completed")
        await until(lambda: any(note["status"] == "completed" for note in told(heard)))
        statuses = [note["status"] for note in told(heard)]
        assert "input_required" in statuses and statuses[-1] == "completed"
        last = told(heard)[-1]
        assert last == {
            **{k: v for k, v in done.items() if k not in ("resultType", "_meta")},
            "_meta": SUBSCRIPTION,
        }
        listening.cancel()


async def test_a_listener_hears_nothing_of_other_tasks() -> None:
    served = TaskServer()
    async with peer(served.server) as (connection, heard):
        mine = await start(connection, "held")
        other = await start(connection, "quick_required")
        listening = asyncio.ensure_future(
            call(connection, "subscriptions/listen", notifications={"taskIds": [mine]})
        )
        await until(lambda: heard)
        await until_status(connection, other, "completed")
        served.release.set()
        await until_status(connection, mine, "completed")
        await until(lambda: any(note["status"] == "completed" for note in told(heard)))
        assert {note["taskId"] for note in told(heard)} == {mine}
        listening.cancel()


async def test_asking_for_task_notices_needs_the_extension() -> None:
    async with peer(TaskServer().server) as (connection, _):
        error = await refused_listen(connection)
    assert error.code == -32021


async def refused_listen(connection: Any) -> Any:
    try:
        await call(connection, "subscriptions/listen", {}, notifications={"taskIds": ["t"]})
    except Exception as error:
        return error
    raise AssertionError("listened")


async def test_task_ids_must_be_a_list_of_strings() -> None:
    async with peer(TaskServer().server) as (connection, _):
        error = await refused(connection, "subscriptions/listen", notifications={"taskIds": "t"})
    assert error.code == -32602


async def test_serving_tasks_is_done_once_per_server() -> None:
    served = TaskServer()
    assert serve_tasks(served.server) is served.tasks
    assert list(served.server.subscriptions.topics) == ["taskIds"]  # type: ignore[attr-defined]
