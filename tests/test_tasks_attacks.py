"""Lesson 13 attacked as a hostile peer on the same machine would: the tasks extension over HTTP.

Every route of the extension, with what a careless or hostile client sends: task ids that are no
task ids, answers that do not fit their questions or the store, more tasks than the server keeps,
another user's task, a listener that never reads. Each gets its exact error, memory stays within
its bound, and the server serves afterwards. (Lesson 11's workers on Redis:
``test_tasks_attacks_redis.py``.)
"""

from __future__ import annotations

import asyncio
import gc
import json
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import urlsplit

import httpx2
import pytest
from complete_support import running_complete
from http_support import TIMEOUT
from task_support import TaskServer, call, envelope, refused, yes
from test_modern import peer
from test_session_owners import ISSUER, KEY, headers_of
from test_tasks_http import HEADERS, body, headers, post

from minimcp.auth import protect
from minimcp.server import report_progress
from minimcp.server.task_store import MemoryTaskStore, size_of
from minimcp.server.tasks import as_task
from minimcp.session import RequestContext

TOO_LARGE = "Request body larger than 4194304 bytes"  # lesson 08's bound on a POST's body


def raw(method: str, name: str | None, **params: Any) -> tuple[dict[str, Any], dict[str, str]]:
    """A request as a hostile client writes it: any params, and ``Mcp-Name`` as it likes."""
    message = {"jsonrpc": "2.0", "id": 9, "method": method, "params": {"_meta": envelope()}}
    message["params"].update(params)
    sent = {**HEADERS, "mcp-method": method}
    if name is not None:
        sent["mcp-name"] = name
    return message, sent


async def error_of(http: httpx2.AsyncClient, url: str, method: str, **params: Any) -> Any:
    """Status, code and message of the answer to ``method`` (its ``Mcp-Name``: the id, if any)."""
    name = params.get("taskId")
    message, sent = raw(method, name if isinstance(name, str) else "x", **params)
    answer = await http.post(url, json=message, headers=sent)
    error = answer.json()["error"]
    return answer.status_code, error["code"], error["message"]


async def until_status(
    http: httpx2.AsyncClient, url: str, task_id: str, *statuses: str, **more: str
) -> dict[str, Any]:
    for number in range(int(TIMEOUT / 0.02)):
        answer = await post(http, url, body("tasks/get", number + 10, taskId=task_id), **more)
        task: dict[str, Any] = answer.json()["result"]
        if task["status"] in statuses:
            return task
        await asyncio.sleep(0.02)  # a client's pace between polls, not a wait for something
    raise AssertionError(f"task {task_id} never reached {statuses}")


async def start(http: httpx2.AsyncClient, url: str, tool: str, **more: str) -> str:
    answer = await post(http, url, body("tools/call", name=tool, arguments={}), **more)
    assert answer.json()["result"]["resultType"] == "task", answer.text
    return str(answer.json()["result"]["taskId"])


@pytest.mark.parametrize("method", ["tasks/get", "tasks/update", "tasks/cancel"])
async def test_a_task_id_that_is_no_task_id_gets_its_exact_error(method: str) -> None:
    served = TaskServer()
    async with running_complete(served.server) as server, httpx2.AsyncClient() as http:
        for params in ({"taskId": 5}, {"taskId": None}, {"taskId": {"a": 1}}, {"taskId": [1]}, {}):
            assert await error_of(http, server.url, method, **params) == (  # Mcp-Name cannot
                400,  # repeat it: the header rule answers first
                -32020,
                "Header mismatch: Mcp-Name header value 'x' does not match body value "
                f"{params.get('taskId')!r}",
            )
        # 50 KB, repeated in Mcp-Name: a megabyte there is a head too large (431, lesson 08)
        status, code, message = await error_of(http, server.url, method, taskId="y" * 50_000)
        assert (status, code) == (400, -32602) and len(message) < 200  # a line, not a megabyte
        assert message.endswith("… (unknown, or expired)")
        task_id = await start(http, server.url, "held")
        junk = {"junk": ["x"] * 1000, "inputResponses": {}, "taskId": task_id}
        accepted = await post(http, server.url, body(method, 3, **junk))
        assert accepted.status_code == 200 and "result" in accepted.json()
        served.release.set()
        assert await until_status(http, server.url, task_id, "completed", "cancelled")


@pytest.mark.parametrize("method", ["tasks/get", "tasks/update", "tasks/cancel"])
async def test_over_a_connection_any_id_that_is_no_task_is_invalid_params(method: str) -> None:
    async with peer(TaskServer().server) as (connection, _):
        for params in ({"taskId": 5}, {"taskId": {"a": 1}}, {"taskId": "y" * 1_000_000}, {}):
            error = await refused(connection, method, inputResponses={}, junk=[1], **params)
            assert error.code == -32602 and len(error.message) < 200
        assert (await call(connection, "tools/call", name="quick", arguments={}))["content"]


async def test_tasks_update_takes_only_answers_that_fit_their_questions() -> None:
    served = TaskServer(MemoryTaskStore(max_task_bytes=4_000))
    async with running_complete(served.server) as server, httpx2.AsyncClient() as http:
        task_id = await start(http, server.url, "confirm")
        parked = await until_status(http, server.url, task_id, "input_required")

        async def update(answers: Any) -> Any:
            return await error_of(http, server.url, "tasks/update", taskId=task_id, **answers)

        for wrong in ([1], "x", None):
            assert await update({"inputResponses": wrong}) == (
                400,
                -32602,
                'Invalid params: "inputResponses" must be an object',
            )
        assert await update({"inputResponses": {"confirm": {"no": "action"}}}) == (
            400,
            -32602,
            "Invalid params: inputResponses['confirm'] is not an answer to elicitation/create",
        )
        large = {"action": "accept", "content": {"ok": True, "pad": "z" * 10_000}}
        status, code, message = await update({"inputResponses": {"confirm": large}})
        assert (status, code) == (400, -32602)
        assert message.startswith("Invalid params: the answers are too large to keep (")
        huge = {"action": "accept", "content": {"ok": True, "pad": "z" * 5_000_000}}
        message, sent = raw("tasks/update", task_id, taskId=task_id, inputResponses={"c": huge})
        refused = await http.post(server.url, json=message, headers=sent)
        assert refused.status_code == 413 and refused.json()["error"]["message"] == TOO_LARGE
        unasked = body("tasks/update", 4, taskId=task_id, inputResponses={"nope": yes()})
        assert (await post(http, server.url, unasked)).status_code == 200  # ignored
        assert await until_status(http, server.url, task_id, "input_required") == parked
        answer = body("tasks/update", 5, taskId=task_id, inputResponses={"confirm": yes()})
        assert (await post(http, server.url, answer)).status_code == 200
        done = await until_status(http, server.url, task_id, "completed")
        assert (await post(http, server.url, answer)).status_code == 200  # over: ignored
        assert await until_status(http, server.url, task_id, "completed") == done
        working = await start(http, server.url, "held")  # not waiting for answers: ignored
        answer["params"]["taskId"] = working
        assert (await post(http, server.url, answer)).status_code == 200
        assert (await until_status(http, server.url, working, "working"))["status"] == "working"
        served.release.set()
    assert done["result"]["content"][0]["text"] == "confirm: accept"


async def test_a_full_store_refuses_new_tasks_until_the_kept_ones_expire(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = MemoryTaskStore(max_tasks=3)
    served = TaskServer(store)
    async with running_complete(served.server) as server, httpx2.AsyncClient() as http:
        kept = [await start(http, server.url, "held") for _ in range(3)]

        async def busy() -> None:
            call = await post(http, server.url, body("tools/call", 7, name="held", arguments={}))
            assert call.status_code == 200 and call.json()["error"] == {
                "code": -32000,
                "message": "Server busy: 3 tasks are kept already; try again later",
            }

        for _ in range(20):
            await busy()
        assert len(store) == 3 and len(served.tasks.running) == 3  # the refused did not stay
        served.release.set()
        for task_id in kept:
            await until_status(http, server.url, task_id, "completed")
        await busy()  # over, but kept for their time to live: their results are read then
        an_hour_later = time.time() + 3_600
        monkeypatch.setattr(
            "minimcp.server.task_store.time", SimpleNamespace(time=lambda: an_hour_later)
        )
        accepted = await start(http, server.url, "held")  # room again: a task like any other
        assert (await until_status(http, server.url, accepted, "completed"))["taskId"] == accepted
        assert len(store) == 1


async def test_a_result_too_large_to_keep_fails_its_task_and_is_not_kept() -> None:
    store = MemoryTaskStore()
    served = TaskServer(store)
    async with running_complete(served.server) as server, httpx2.AsyncClient() as http:
        task_id = await start(http, server.url, "huge")  # 100 000 characters of result
        failed = await until_status(http, server.url, task_id, "failed", "completed")
        kept = await store.get(task_id)
        quick = await post(http, server.url, body("tools/call", name="quick", arguments={}))
        assert quick.json()["result"]["content"] == [{"type": "text", "text": "quick"}]
    assert failed["error"]["code"] == -32603
    assert failed["error"]["message"].startswith(
        "Internal error: the result is too large to keep (the task would take "
    )
    assert kept is not None and kept.result is None and size_of(kept) <= store.max_task_bytes


async def test_another_users_task_is_unknown_exactly_as_no_task_at_all() -> None:
    guard = protect(ISSUER, {"rsa": KEY.public_key()}, scopes=["mcp"])
    served = TaskServer()
    async with (
        running_complete(served.server, around=guard) as server,
        httpx2.AsyncClient(timeout=TIMEOUT) as http,
    ):
        ada, bob = headers_of(server.url, "ada"), headers_of(server.url, "bob")
        task_id = await start(http, server.url, "confirm", **ada)
        parked = await until_status(http, server.url, task_id, "input_required", **ada)
        for method in ("tasks/get", "tasks/update", "tasks/cancel"):
            for asked in (task_id, "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"):  # hers, and nobody's
                message = body(method, 2, taskId=asked, inputResponses={"confirm": yes()})
                by_bob = await post(http, server.url, message, **bob)
                assert by_bob.status_code == 400
                assert by_bob.json()["error"] == {
                    "code": -32602,
                    "message": f"Invalid params: no task {asked!r} (unknown, or expired)",
                }
        listen = body("subscriptions/listen", 3, notifications={"taskIds": [task_id]})
        async with http.stream(
            "POST", server.url, json=listen, headers=headers(listen, **bob)
        ) as s:
            first = json.loads((await anext(s.aiter_lines())).removeprefix("data: "))
        assert first["params"]["notifications"] == {}  # agreed to nothing: as for no task
        assert await until_status(http, server.url, task_id, "input_required", **ada) == parked


async def until(condition: Callable[[], bool]) -> None:
    for _ in range(int(TIMEOUT / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)  # a pace for looking again, not a wait for something
    raise AssertionError("never came true")


async def test_a_listener_names_at_most_a_thousand_tasks() -> None:
    async with running_complete(TaskServer().server) as server, httpx2.AsyncClient() as http:
        names = ["y" * 1_000_000] + [f"task-{number}" for number in range(1_000)]
        listen = body("subscriptions/listen", 3, notifications={"taskIds": names})
        refused = await post(http, server.url, listen)
        assert refused.status_code == 400 and refused.json()["error"] == {
            "code": -32602,
            "message": 'Invalid params: "taskIds" names more than 1000 tasks',
        }
        listen["params"]["notifications"]["taskIds"] = names[:1_000]  # as many as allowed
        async with http.stream("POST", server.url, json=listen, headers=headers(listen)) as s:
            first = json.loads((await anext(s.aiter_lines())).removeprefix("data: "))
    assert first["params"]["notifications"] == {}  # none of them is a task


def rss_bytes() -> int:
    """The resident memory of this process (the server runs in it)."""
    gc.collect()
    return int(Path("/proc/self/statm").read_text().split()[1]) * 4096


NOTICES, NOTICE_BYTES = 3_000, 40_000  # 120 MB said to a listener that reads none of it


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads memory from /proc")
async def test_a_listener_that_never_reads_is_let_go_and_memory_stays_bounded() -> None:
    served, go = TaskServer(), asyncio.Event()

    @served.tasks.tool()
    async def chatter(context: RequestContext) -> str:
        await as_task(context)
        await go.wait()
        for number in range(NOTICES):  # each one a notice: a new status message
            await report_progress(context, number, NOTICES, f"{number} " + "z" * NOTICE_BYTES)
        return "said it all"

    async with running_complete(served.server) as server, httpx2.AsyncClient() as http:
        task_id = await start(http, server.url, "chatter")
        listen = body("subscriptions/listen", 3, notifications={"taskIds": [task_id]})
        url, data = urlsplit(server.url), json.dumps(listen).encode()
        _, writer = await asyncio.open_connection(url.hostname, url.port)
        lines = [f"POST {url.path} HTTP/1.1", f"host: {url.netloc}", f"content-length: {len(data)}"]
        lines += [f"{name}: {value}" for name, value in headers(listen).items()]
        writer.write("\r\n".join(lines).encode() + b"\r\n\r\n" + data)  # then reads nothing
        listeners = served.server.subscriptions.listeners
        await until(lambda: bool(listeners))
        before = rss_bytes()
        go.set()
        done = await until_status(http, server.url, task_id, "completed")  # served all along
        grown = rss_bytes() - before
        assert grown < NOTICES * NOTICE_BYTES / 2, f"{grown} bytes more"
        await until(lambda: not listeners)  # let go once too far behind
        writer.close()
    assert done["result"]["content"][0]["text"] == "said it all"
