"""Lesson 13: minimcp's client follows tasks, against a real server on an in-memory cable.

``call_tool`` returns a task's final result as if there had been no task: it polls ``tasks/get``
as often as the server suggests, within the bounds the caller sets (the tests give the follow a
clock and a sleep of their own: nothing here waits for wall-clock time), answers the task's
questions through lesson 09's callbacks, and ends in the task's result or error. A caller may also
take the handle instead (``start_task``), poll it, cancel it, or follow it later by its id.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from support import TIMEOUT
from task_support import (
    FakeTime,
    TaskServer,
    accept,
    connected,
    status_on_server,
)

from minimcp.client import ClientAnswers
from minimcp.client.tasks import (
    Polling,
    TaskCancelled,
    TaskFailed,
    TaskStillRunning,
    follow_task,
    start_task,
)
from minimcp.host.chat import ToolCall
from minimcp.host.host import Host
from minimcp.rpc import RpcError
from minimcp.rpc.task_names import EXTENSION
from minimcp.session.eras import Mode, TwoEras


def text_of(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


# -- the result, as if there had been no task -----------------------------------------------------


async def test_call_tool_follows_the_task_to_its_result_at_the_suggested_interval() -> None:
    served = TaskServer()
    time = FakeTime(then={3: served.release.set})
    async with connected(served, time.polling()) as client:
        result = await client.call_tool("slow", timeout=TIMEOUT)
    assert text_of(result) == "late"
    # the server suggests a second (pollIntervalMs 1000): every pause is that second
    assert len(time.slept) >= 3 and set(time.slept) == {1.0}


async def test_the_interval_is_kept_within_the_floor_and_the_ceiling() -> None:
    assert Polling(floor=2.0).interval({"pollIntervalMs": 1000}) == 2.0
    assert Polling(ceiling=0.5).interval({"pollIntervalMs": 1000}) == 0.5
    assert Polling(floor=0.1).interval({"pollIntervalMs": 0}) == 0.1  # never a tight loop
    assert Polling(ceiling=30.0).interval({"pollIntervalMs": 10**9}) == 30.0  # never asleep
    assert Polling().interval({}) == 1.0  # no suggestion: a second
    served = TaskServer()
    time = FakeTime(then={2: served.release.set})
    async with connected(served, time.polling(floor=2.5)) as client:
        await client.call_tool("slow", timeout=TIMEOUT)
    assert set(time.slept) == {2.5}


async def test_the_request_timeout_does_not_bound_the_task() -> None:
    served = TaskServer()
    # each pause really lasts a little: twenty of them outlast the call's timeout three times over
    time = FakeTime(then={20: served.release.set}, pause=0.03)
    async with connected(served, time.polling()) as client:
        result = await client.call_tool("slow", timeout=0.2)
    assert text_of(result) == "late" and len(time.slept) >= 20


async def test_a_tool_error_completes_the_task_and_is_returned_as_a_result() -> None:
    async with connected(TaskServer()) as client:
        result = await client.call_tool("tool_error", timeout=TIMEOUT)
    assert result["isError"] is True and text_of(result) == "no good"


async def test_a_failed_task_raises_its_json_rpc_error() -> None:
    async with connected(TaskServer()) as client:
        with pytest.raises(TaskFailed) as failed:
            await client.call_tool("protocol_error", timeout=TIMEOUT)
    assert isinstance(failed.value, RpcError)
    assert (failed.value.code, failed.value.message) == (-32603, "crashed")
    assert failed.value.data == {"where": "here"} and failed.value.task_id


# -- input_required: lesson 09's callbacks answer ------------------------------------------------


async def test_a_tasks_question_is_answered_once_by_the_clients_answers() -> None:
    asked: list[dict[str, Any]] = []

    async def elicitation(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return await accept(params)

    answers = ClientAnswers(elicitation=elicitation)
    async with connected(TaskServer(), answers=answers) as client:
        one = await client.call_tool("confirm", timeout=TIMEOUT)
        assert text_of(one) == "confirm: accept"
        assert [params["message"] for params in asked] == ["Go on?"]  # asked once, polled often
        asked.clear()
        two = await client.call_tool("two", timeout=TIMEOUT)
        twice = await client.call_tool("twice", timeout=TIMEOUT)
    assert text_of(two) == "two: accept, accept" and text_of(twice) == "twice"
    assert [params["message"] for params in asked] == ["1?", "2?", "Sure?", "Really sure?"]


async def test_a_question_still_listed_after_its_answer_is_not_asked_again() -> None:
    asked: list[dict[str, Any]] = []

    async def elicitation(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return await accept(params)

    async with connected(TaskServer(), answers=ClientAnswers(elicitation=elicitation)) as client:
        handle = await start_task(client, "confirm", timeout=TIMEOUT)
        for _ in range(int(TIMEOUT / 0.01)):
            if (await handle.poll())["status"] == "input_required":
                break
            await asyncio.sleep(0.01)
        await handle.answer_questions()
        # the same snapshot again, as a server that has not taken the answer yet still shows it
        await handle.answer_questions()
        assert len(asked) == 1
        assert text_of(await handle.wait(FakeTime().polling())) == "confirm: accept"
    assert len(asked) == 1


async def test_questions_before_the_task_then_the_task() -> None:
    answers = ClientAnswers(elicitation=accept)
    async with connected(TaskServer(), answers=answers) as client:
        result = await client.call_tool("name_first", timeout=TIMEOUT)
    assert text_of(result) == "ready: accept"


# -- the handle ----------------------------------------------------------------------------------


async def test_start_task_gives_the_handle_and_wait_its_result() -> None:
    served = TaskServer()
    async with connected(served) as client:
        handle = await start_task(client, "slow", timeout=TIMEOUT)
        assert handle.status == "working" and not handle.done
        assert (await handle.poll())["status"] == "working"
        served.release.set()
        time = FakeTime()
        result = await handle.wait(time.polling())
    assert text_of(result) == "late" and handle.status == "completed"


async def test_a_call_answered_at_once_gives_a_handle_already_completed() -> None:
    async with connected(TaskServer()) as client:
        handle = await start_task(client, "quick", timeout=TIMEOUT)
        assert handle.done and text_of(await handle.wait()) == "quick"


async def test_a_task_is_followed_later_by_its_id_from_another_connection() -> None:
    served = TaskServer()
    async with connected(served) as first:
        task_id = (await start_task(first, "slow", timeout=TIMEOUT)).task_id
    served.release.set()
    async with connected(served) as later:
        handle = follow_task(later, task_id, timeout=TIMEOUT)
        assert text_of(await handle.wait(FakeTime().polling())) == "late"


async def test_the_deadline_and_the_poll_bound_end_the_wait_naming_the_task() -> None:
    served = TaskServer()
    time = FakeTime()
    async with connected(served, time.polling(deadline=5.0)) as client:
        with pytest.raises(TaskStillRunning) as late:
            await client.call_tool("slow", timeout=TIMEOUT)
        assert late.value.status == "working" and late.value.task_id in str(late.value)
        assert sum(time.slept) == 5.0
        handle = follow_task(client, late.value.task_id, timeout=TIMEOUT)
        with pytest.raises(TaskStillRunning, match=f"{late.value.task_id}.*after 3 polls"):
            await handle.wait(FakeTime().polling(max_polls=3))
        # the task went on meanwhile: it can still end well
        served.release.set()
        assert text_of(await handle.wait(FakeTime().polling())) == "late"


# -- cancelling ----------------------------------------------------------------------------------


async def test_cancel_by_the_handle() -> None:
    served = TaskServer()
    async with connected(served) as client:
        handle = await start_task(client, "slow", timeout=TIMEOUT)
        await handle.cancel()
        assert await status_on_server(served, handle.task_id, "cancelled") == "cancelled"
        with pytest.raises(TaskCancelled, match=handle.task_id):
            await handle.wait(FakeTime().polling())
        await handle.cancel()  # once over, cancelling again is no error


async def test_cancelling_call_tool_cancels_its_task() -> None:
    served = TaskServer()
    polled = asyncio.Event()
    time = FakeTime(then={1: polled.set})
    async with connected(served, time.polling()) as client:
        call = asyncio.ensure_future(client.call_tool("slow", timeout=TIMEOUT))
        await asyncio.wait_for(polled.wait(), TIMEOUT)  # a task, followed
        (task_id,) = served.tasks.running  # the work the server runs, by task id
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        assert await status_on_server(served, task_id, "cancelled") == "cancelled"


# -- negotiation ---------------------------------------------------------------------------------


async def test_every_request_says_the_client_takes_tasks() -> None:
    seen: list[dict[str, Any]] = []
    served = TaskServer()

    @served.server.tool()
    async def capabilities(context: Any) -> str:
        seen.append(context.client_capabilities)
        return "ok"

    async with connected(served, capabilities={"roots": {}}) as client:
        await client.call_tool("capabilities", timeout=TIMEOUT)
    assert seen == [{"roots": {}, "extensions": {EXTENSION: {}}}]


async def test_a_client_without_the_extension_gets_results_or_32021() -> None:
    async with connected(TaskServer(), conversation=TwoEras(Mode.MODERN)) as client:
        assert text_of(await client.call_tool("quick", timeout=TIMEOUT)) == "quick"
        with pytest.raises(RpcError) as refused:
            await client.call_tool("quick_required", timeout=TIMEOUT)
    assert refused.value.code == -32021


# -- the host ------------------------------------------------------------------------------------


async def test_the_hosts_progress_shows_the_tasks_status_messages() -> None:
    served = TaskServer(grace=TIMEOUT * 10)
    heard: list[tuple[str, str | None]] = []

    def on_progress(tool: str, done: float, total: float | None, message: str | None) -> None:
        heard.append((tool, message))
        served.release.set()  # halfway heard: let it finish

    async with Host(on_progress=on_progress) as host, connected(served) as client:
        host.clients["tasks"] = client
        answer = await host.call(ToolCall("tasks/held"))
    assert answer.content == "released" and not answer.is_error
    assert heard == [("tasks/held", "halfway")]
