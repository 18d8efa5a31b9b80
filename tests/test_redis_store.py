"""The event store on Redis Streams (minimcp.transports.cluster.redis_store), on a real, private
redis-server.

Each test module starts its own ``redis-server`` on a free loopback port (no disk, no persistence)
and stops it at the end; CI installs the server from the distribution's packages. Two stores on one
Redis stand for two worker processes: what one appends, the other replays.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import AsyncIterator

import httpx2
import pytest
import pytest_asyncio
from complete_support import complete_server, running_complete
from http_support import ACCEPT_BOTH, INITIALIZE, TIMEOUT, raw_session, read_events
from support import free_port

from minimcp.transports.cluster.endpoint import on_redis
from minimcp.transports.cluster.redis_store import RedisEventStore, StoreUnavailable, connect
from minimcp.transports.event_store import UnknownEventId

pytestmark = pytest.mark.skipif(
    shutil.which("redis-server") is None,
    reason="needs redis-server (CI installs it: apt-get install redis-server)",
)


@pytest_asyncio.fixture
async def store(redis_url: str) -> AsyncIterator[RedisEventStore]:
    opened = RedisEventStore(redis_url, max_events=5)
    await opened.redis.flushdb()
    try:
        yield opened
    finally:
        await opened.close()


async def test_ids_read_like_lesson_08s_and_a_replay_is_exact(store: RedisEventStore) -> None:
    ids = [await store.append("abc123", f"message {n}") for n in range(3)]
    assert ids == ["abc123-0", "abc123-1", "abc123-2"]
    stream, events = await store.events_after("abc123-0")
    assert (stream, [(event.id, event.data) for event in events]) == (
        "abc123",
        [("abc123-1", "message 1"), ("abc123-2", "message 2")],
    )
    assert (await store.events_after("abc123-2"))[1] == []  # the client saw everything


async def test_another_worker_replays_what_one_stored(
    store: RedisEventStore, redis_url: str
) -> None:
    other = RedisEventStore(redis_url)
    try:
        await store.append("s1", "")  # a priming event
        await store.append("s1", '{"jsonrpc":"2.0","method":"notifications/progress"}')
        stream, events = await other.events_after("s1-0")
        assert (stream, [(event.id, event.data) for event in events]) == (
            "s1",
            [("s1-1", '{"jsonrpc":"2.0","method":"notifications/progress"}')],
        )
        assert await other.append("s1", "from the other worker") == "s1-2"  # one sequence for both
    finally:
        await other.close()


@pytest.mark.parametrize(
    ("event_id", "message"),
    [
        ("s2-7", "unknown event id 's2-7'"),  # beyond the last
        ("nothing-0", "unknown event id 'nothing-0'"),  # no such stream
        ("s2-x", "malformed event id 's2-x'"),
        ("s2-0", "event id 's2-0' is too old: its successors were forgotten"),  # trimmed (max 5)
    ],
)
async def test_what_cannot_be_replayed_exactly_is_refused(
    store: RedisEventStore, event_id: str, message: str
) -> None:
    for n in range(7):
        await store.append("s2", f"m{n}")
    with pytest.raises(UnknownEventId, match=message):
        await store.events_after(event_id)
    assert [event.id for event in (await store.events_after("s2-1"))[1]] == [
        "s2-2",
        "s2-3",
        "s2-4",
        "s2-5",
        "s2-6",
    ]


async def test_forget_and_expiry(redis_url: str) -> None:
    store = RedisEventStore(redis_url, ttl=1)
    try:
        await store.append("gone", "a")
        await store.append("gone", "b")
        await store.forget("gone")
        with pytest.raises(UnknownEventId):
            await store.events_after("gone-0")
        await store.append("old", "a")
        assert 0 < await store.redis.ttl("mcp:events:old") <= 1
    finally:
        await store.close()


async def test_redis_going_away_is_a_clear_error() -> None:
    store = RedisEventStore(f"redis://127.0.0.1:{free_port()}/0")  # nothing listens there
    try:
        with pytest.raises(StoreUnavailable, match="the shared store is unavailable"):
            await store.append("s", "x")
    finally:
        await store.close()


async def test_the_http_endpoint_resumes_a_stream_from_redis(redis_url: str) -> None:
    """Lesson 08's endpoint with the Redis store: a long task's stream, cut, is replayed from
    Redis."""
    store = RedisEventStore(redis_url)
    async with running_complete(complete_server(step_delay=0.05), event_store=store) as http:
        client = httpx2.AsyncClient(timeout=TIMEOUT)
        headers = {"accept": ACCEPT_BOTH, "content-type": "application/json"}
        answer = await client.post(http.url, json=INITIALIZE, headers=headers)
        headers |= {
            "mcp-session-id": answer.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-11-25",
        }
        await client.post(
            http.url,
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
            headers=headers,
        )
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {
                "name": "run_analysis",
                "arguments": {"steps": 4},
                "_meta": {"progressToken": "p"},
            },
        }
        async with client.stream("POST", http.url, json=call, headers=headers) as stream:
            first = await read_events(stream, 2)  # the priming event and step 1, then the cut
        await asyncio.sleep(0.4)  # the task goes on, its events go to Redis
        async with client.stream(
            "GET", http.url, headers={**headers, "last-event-id": first[-1].id}
        ) as resumed:
            rest = await read_events(resumed)
        await client.aclose()
    # steps 2-4, then the answer
    assert [event.id.rsplit("-", 1)[1] for event in rest] == ["2", "3", "4", "5"]
    assert [json.loads(event.data).get("params", {}).get("progress") for event in rest[:-1]] == [
        2,
        3,
        4,
    ]
    assert '"result"' in rest[-1].data
    await store.close()


async def bytes_kept(store: RedisEventStore) -> int:
    """What Redis holds of the events themselves, in bytes, counted from the streams."""
    kept = 0
    for key in await store.redis.keys("mcp:events:*"):
        kept += sum(
            len(fields.get("data", "").encode()) for _, fields in await store.redis.xrange(key)
        )
    return kept


async def test_the_store_keeps_the_byte_budget_of_lesson_08(redis_url: str) -> None:
    store = RedisEventStore(redis_url, max_bytes=1000)
    await store.redis.flushdb()
    try:
        await store.append("first", "x" * 600)
        await store.append("second", "y" * 600)  # over budget: the least recently used goes first
        assert await bytes_kept(store) == await store.size() == 600
        with pytest.raises(UnknownEventId):
            await store.events_after("first-0")
        for _ in range(5):
            await store.append("second", "z" * 300)  # then the current stream's oldest events
        assert await bytes_kept(store) == await store.size() <= 1000
        newest = await store.append("second", "w" * 5000)  # alone over it: the newest is kept
        assert newest == "second-6" and await bytes_kept(store) == await store.size() == 5000
        await store.forget("second")
        assert await store.size() == 0
        await store.append("third", "after")  # and the store goes on
        assert [event.data for event in (await store.events_after("third-0"))[1]] == []
    finally:
        await store.close()


async def test_redis_workers_keep_max_event_bytes(redis_url: str) -> None:
    """Three calls with a 10 kB progress token, the budget 16 kB: Redis holds at most that."""
    budget = 16 * 1024
    redis = connect(redis_url)
    await redis.flushdb()
    await redis.aclose()
    endpoint = on_redis(redis_url, max_event_bytes=budget)
    server = complete_server(step_delay=0.001)
    async with running_complete(server, endpoint=endpoint) as http, raw_session(http.url) as raw:
        for n in range(3):
            call = {
                "jsonrpc": "2.0",
                "id": 10 + n,
                "method": "tools/call",
                "params": {
                    "name": "run_analysis",
                    "arguments": {"steps": 5},
                    "_meta": {"progressToken": "t" * 10_000},
                },
            }
            assert (await raw.post(call)).status_code == 200
        store = http.app.event_store
        assert 0 < await bytes_kept(store) == await store.size() <= budget
        await raw.ping()
