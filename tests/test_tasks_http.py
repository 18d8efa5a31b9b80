"""Lesson 13: tasks over Streamable HTTP without sessions, as the conformance suite meets them.

The handle comes back as the POST's answer, and the work goes on after that POST is over; each
``tasks/*`` request is a POST of its own, whose ``Mcp-Name`` header must repeat the task's id
(``-32020`` otherwise, status 400). Behind lesson 10's guard a task belongs to the user who
started it: another user's ``tasks/get`` finds nothing.
"""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from complete_support import running_complete
from http_support import TIMEOUT
from task_support import TaskServer, envelope
from test_session_owners import ISSUER, KEY, headers_of

from minimcp.auth import protect

HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2026-07-28",
}


def body(method: str, request_id: int = 1, **params: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {"_meta": envelope(), **params},
    }


def headers(message: dict[str, Any], **more: str) -> dict[str, str]:
    """What a 2026-07-28 client sends: the method, and the name it routes by (tool or task)."""
    params = message["params"]
    name = params.get("name", params.get("taskId"))
    sent = {**HEADERS, "mcp-method": message["method"], **more}
    if name is not None and "mcp-name" not in more:
        sent["mcp-name"] = name
    return sent


async def post(
    http: httpx2.AsyncClient, url: str, message: dict[str, Any], **more: str
) -> httpx2.Response:
    return await http.post(url, json=message, headers=headers(message, **more))


async def until_over(
    http: httpx2.AsyncClient, url: str, task_id: str, **more: str
) -> dict[str, Any]:
    for number in range(int(TIMEOUT / 0.02)):
        answer = await post(http, url, body("tasks/get", number + 10, taskId=task_id), **more)
        assert "result" in answer.json(), answer.json()
        task: dict[str, Any] = answer.json()["result"]
        if task["status"] in ("completed", "failed", "cancelled"):
            return task
    raise AssertionError(f"task {task_id} never ended")


async def test_a_task_over_http_the_handle_first_then_the_result() -> None:
    served = TaskServer()
    async with (
        running_complete(served.server) as server,
        httpx2.AsyncClient(timeout=TIMEOUT) as http,
    ):
        answer = await post(http, server.url, body("tools/call", name="held", arguments={}))
        assert answer.status_code == 200 and answer.headers["content-type"] == "application/json"
        handle = answer.json()["result"]
        assert handle["resultType"] == "task" and "mcp-session-id" not in answer.headers
        served.release.set()  # its POST is over: the work goes on all the same
        task = await until_over(http, server.url, handle["taskId"])
    assert task["result"]["content"] == [{"type": "text", "text": "released"}]


@pytest.mark.parametrize("method", ["tasks/get", "tasks/update", "tasks/cancel"])
@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("another-task", "Mcp-Name header value 'another-task' does not match body value"),
        (None, "the Mcp-Name header is required for"),
    ],
)
async def test_tasks_methods_carry_the_task_id_in_mcp_name(
    method: str, name: str | None, why: str
) -> None:
    served = TaskServer()
    async with (
        running_complete(served.server) as server,
        httpx2.AsyncClient(timeout=TIMEOUT) as http,
    ):
        handle = await post(http, server.url, body("tools/call", name="held", arguments={}))
        task_id = handle.json()["result"]["taskId"]
        message = body(method, 2, taskId=task_id, inputResponses={})
        sent = headers(message)
        if name is None:
            del sent["mcp-name"]
        else:
            sent["mcp-name"] = name
        refused = await http.post(server.url, json=message, headers=sent)
        assert refused.status_code == 400
        assert refused.json()["error"]["code"] == -32020
        assert why in refused.json()["error"]["message"]
        accepted = await post(http, server.url, message)
        assert accepted.status_code == 200 and "result" in accepted.json()
        served.release.set()


async def test_behind_the_guard_a_task_is_its_creators_alone() -> None:
    guard = protect(ISSUER, {"rsa": KEY.public_key()}, scopes=["mcp"])
    served = TaskServer()
    async with (
        running_complete(served.server, around=guard) as server,
        httpx2.AsyncClient(timeout=TIMEOUT) as http,
    ):
        ada, bob = headers_of(server.url, "ada"), headers_of(server.url, "bob")
        call = body("tools/call", name="held", arguments={})
        handle = await http.post(server.url, json=call, headers={**headers(call), **ada})
        task_id = handle.json()["result"]["taskId"]
        for method in ("tasks/get", "tasks/cancel"):
            asked = body(method, 2, taskId=task_id)
            by_bob = await http.post(server.url, json=asked, headers={**headers(asked), **bob})
            assert by_bob.status_code == 400 and by_bob.json()["error"]["code"] == -32602
        served.release.set()
        task = await until_over(http, server.url, task_id, authorization=ada["authorization"])
    assert task["status"] == "completed"  # bob's cancel never reached it
