"""Lesson 11: several workers share one Redis; any request may reach any of them.

Each test starts workers (lesson 08's endpoint on Redis, on free loopback ports) against a private
``redis-server`` (conftest's ``redis_url``) and sends each request to another worker than the last.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import httpx2
import pytest
from complete_support import complete_server
from http_support import ACCEPT_BOTH, INITIALIZE, TIMEOUT, SSEReader, read_events

from minimcp.transports.cluster.endpoint import on_redis
from minimcp.transports.cluster.redis_store import connect
from minimcp.transports.http.server import HttpServer, start_http
from minimcp.transports.http.stateless import Revision2026

INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


@asynccontextmanager
async def workers(
    redis_url: str,
    count: int = 2,
    build: Callable[[], Any] = lambda: complete_server(step_delay=0.05),
    **options: Any,
) -> AsyncIterator[list[HttpServer]]:
    """``count`` workers of ``build()`` (the course server), each with its own Server, all on one
    Redis, serving both eras (lesson 12's 2026-07-28 strategy given to each, as ``minimcp serve``
    does)."""
    redis = connect(redis_url)
    await redis.flushdb()
    await redis.aclose()
    async with AsyncExitStack() as stack:
        started = []
        for _ in range(count):
            server = build()
            running = await start_http(
                server, endpoint=on_redis(redis_url), stand_alone=Revision2026(server), **options
            )
            stack.push_async_callback(running.close)
            started.append(running)
        yield started


class Client:
    """Raw HTTP, one session, each request to the next worker in turn (a round-robin load
    balancer)."""

    def __init__(self, urls: list[str]) -> None:
        self.urls = urls
        self.turn = 0
        self.http = httpx2.AsyncClient(timeout=TIMEOUT)
        self.headers = {"accept": ACCEPT_BOTH, "content-type": "application/json"}

    def next_url(self) -> str:
        url = self.urls[self.turn % len(self.urls)]
        self.turn += 1
        return url

    async def post(self, body: dict[str, Any], url: str | None = None) -> httpx2.Response:
        return await self.http.post(url or self.next_url(), json=body, headers=self.headers)

    async def open(self) -> None:
        answer = await self.post(INITIALIZE)
        assert answer.status_code == 200, answer.text
        self.headers |= {
            "mcp-session-id": answer.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-11-25",
        }
        assert (await self.post(INITIALIZED)).status_code == 202

    async def aclose(self) -> None:
        await self.http.aclose()


@pytest.fixture
async def cluster(redis_url: str) -> AsyncIterator[tuple[list[HttpServer], Client]]:
    async with workers(redis_url) as running:
        client = Client([worker.url for worker in running])
        try:
            yield running, client
        finally:
            await client.aclose()


async def test_a_session_opened_on_one_worker_is_served_through_another(cluster) -> None:
    (first, second), client = cluster
    await client.open()  # initialize on the first, initialized on the second
    session_id = client.headers["mcp-session-id"]
    assert session_id in first.app.sessions and session_id not in second.app.sessions
    answer = await client.post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, second.url)
    assert answer.headers["content-type"].startswith("application/json")
    assert [tool["name"] for tool in answer.json()["result"]["tools"]][:1] == ["read_events"]
    assert first.app.sessions[session_id].initialized  # the forwarded notification arrived


async def test_a_forwarded_call_streams_its_progress_and_answer(cluster) -> None:
    (first, second), client = cluster
    await client.open()
    call = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {
            "name": "run_analysis",
            "arguments": {"steps": 3},
            "_meta": {"progressToken": "p"},
        },
    }
    async with client.http.stream("POST", second.url, json=call, headers=client.headers) as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        events = await read_events(stream)
    assert events[0].data == ""  # the priming event
    said = [json.loads(event.data) for event in events[1:]]
    assert [note["params"]["progress"] for note in said[:-1]] == [1, 2, 3]
    assert said[-1]["id"] == 3 and "result" in said[-1]


async def test_a_cut_stream_resumes_on_another_worker(cluster) -> None:
    (first, second), client = cluster
    await client.open()
    call = {
        "jsonrpc": "2.0",
        "id": 4,
        "method": "tools/call",
        "params": {
            "name": "run_analysis",
            "arguments": {"steps": 4},
            "_meta": {"progressToken": "p"},
        },
    }
    async with client.http.stream("POST", first.url, json=call, headers=client.headers) as stream:
        seen = await read_events(stream, 2)  # the priming event and step 1, then the cut
    await asyncio.sleep(0.3)
    headers = {**client.headers, "last-event-id": seen[-1].id}
    async with client.http.stream("GET", second.url, headers=headers) as resumed:
        rest = await read_events(resumed)
    said = [json.loads(event.data) for event in rest]
    assert [note["params"]["progress"] for note in said[:-1]] == [2, 3, 4]
    assert said[-1]["id"] == 4 and "result" in said[-1]


async def test_forged_ids_get_the_same_answers_on_every_worker(cluster) -> None:
    (first, second), client = cluster
    await client.open()
    for worker in (first, second):
        forged = {**client.headers, "mcp-session-id": "f" * 32}
        answer = await client.http.post(
            worker.url, json={"jsonrpc": "2.0", "id": 9, "method": "ping"}, headers=forged
        )
        assert (answer.status_code, answer.json()["error"]["message"]) == (
            404,
            "Session not found: it expired or was ended; initialize a new one",
        )
        foreign = {**client.headers, "last-event-id": "0123456789ab-0"}
        answer = await client.http.get(worker.url, headers=foreign)
        assert answer.status_code == 400
        assert "names no stream of this session" in answer.json()["error"]["message"]
    answer = await client.post({"jsonrpc": "2.0", "id": 10, "method": "ping"})
    assert answer.json() == {"jsonrpc": "2.0", "id": 10, "result": {}}  # still serving


async def test_a_reused_id_is_refused_by_the_owner_for_the_forwarder(cluster) -> None:
    (first, second), client = cluster
    await client.open()
    call = {
        "jsonrpc": "2.0",
        "id": 5,
        "method": "tools/call",
        "params": {"name": "run_analysis", "arguments": {"steps": 20}},
    }  # a second long: still running
    async with client.http.stream("POST", first.url, json=call, headers=client.headers) as running:
        again = await client.post(call, second.url)
        assert again.status_code == 400
        assert again.json()["error"]["code"] == -32600 and again.json()["id"] == 5
        await read_events(running)


async def test_delete_on_another_worker_ends_the_session(cluster) -> None:
    (first, second), client = cluster
    await client.open()
    session_id = client.headers["mcp-session-id"]
    answer = await client.http.delete(second.url, headers=client.headers)
    assert answer.status_code == 200
    for _ in range(100):
        if session_id not in first.app.sessions:
            break
        await asyncio.sleep(0.02)
    for worker in (first, second):
        answer = await client.post({"jsonrpc": "2.0", "id": 11, "method": "ping"}, worker.url)
        assert answer.status_code == 404


async def test_delete_takes_the_sessions_streams_out_of_redis(cluster, redis_url: str) -> None:
    (first, second), client = cluster
    await client.open()
    for n, worker in enumerate((first, second)):  # a stream written on the owner, one forwarded
        call = {
            "jsonrpc": "2.0",
            "id": 20 + n,
            "method": "tools/call",
            "params": {
                "name": "run_analysis",
                "arguments": {"steps": 2},
                "_meta": {"progressToken": "p"},
            },
        }
        async with client.http.stream("POST", worker.url, json=call, headers=client.headers) as s:
            await read_events(s)
    redis = connect(redis_url)
    try:
        assert await redis.keys("mcp:events:*")  # the session's streams, kept for resumption
        async with client.http.stream("GET", second.url, headers=client.headers) as response:
            channel = SSEReader(response)
            await channel.read(1)  # the priming event: the channel is followed on the second
            answer = await client.http.delete(first.url, headers=client.headers)
            assert answer.status_code == 200
            assert await channel.read() == []  # it ends with the session
        for worker in (first, second):
            await worker.app.manager.background.wait()  # whatever was still to be written
        assert await redis.keys("mcp:events:*") == []
        assert await redis.keys("mcp:session:*") == []
    finally:
        await redis.aclose()
    client.headers = {"accept": ACCEPT_BOTH, "content-type": "application/json"}
    await client.open()  # and the workers serve the next session
    for worker in (first, second):
        answer = await client.post({"jsonrpc": "2.0", "id": 30, "method": "ping"}, worker.url)
        assert answer.json() == {"jsonrpc": "2.0", "id": 30, "result": {}}


async def test_the_announcement_channel_on_another_worker_hears_the_owner_and_yields_to_a_newer_one(
    cluster,
) -> None:
    (first, second), client = cluster
    await client.open()
    async with client.http.stream("GET", second.url, headers=client.headers) as response:
        channel = SSEReader(response)
        (priming,) = await channel.read(1)
        assert priming.data == ""
        # the owner's server changes: its sessions hear it
        first.app.server.add_tool(lambda: "late", "late")
        (notice,) = await channel.read(1)
        assert json.loads(notice.data) == {
            "jsonrpc": "2.0",
            "method": "notifications/tools/list_changed",
        }
        async with client.http.stream("GET", first.url, headers=client.headers) as newer:
            await read_events(newer, 1)  # its priming event: the newest connection has the channel
            assert await channel.read() == []  # and the older one, on the other worker, ended
