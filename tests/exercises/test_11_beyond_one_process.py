"""Checks for lesson 11's exercise: an event store on Redis Streams, and a session-to-worker router.

Each test's docstring is the hint a student sees when it fails (``python tools/check.py 11``).
Part 1 runs twice: on the exercise's ``FakeRedis``, and on a real ``redis-server`` (skipped if none
is on PATH).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import pytest

from minimcp.transports.cluster.redis_store import connect

# -- Exercise 1 · An event store on Redis Streams --------------------------------------------------


@pytest.fixture(params=["fake", "real"])
async def redis(request: pytest.FixtureRequest, exercise: Any) -> AsyncIterator[Any]:
    """The exercise's FakeRedis, or a client of a private redis-server (emptied first)."""
    if request.param == "fake":
        yield exercise.FakeRedis()
        return
    client = connect(request.getfixturevalue("redis_url"))
    await client.flushdb()
    try:
        yield client
    finally:
        await client.aclose()


async def ttl_of(redis: Any, key: str) -> int:
    return redis.ttls.get(key, -2) if hasattr(redis, "ttls") else await redis.ttl(key)


async def test_events_are_numbered_from_zero_in_their_streams_key(
    exercise: Any, redis: Any
) -> None:
    """append: XADD to "mcp:events:<stream id>" with id "0-*" and the field "data"; entry 0-k is the
    event "<stream id>-<k - 1>"."""
    store = exercise.RedisStreamStore(redis)
    assert [await store.append("s1", data) for data in ("a", "b", "c")] == ["s1-0", "s1-1", "s1-2"]
    assert await store.append("s2", "x") == "s2-0"  # each stream is numbered on its own
    assert await redis.xrange("mcp:events:s1", "-", "+") == [
        ("0-1", {"data": "a"}),
        ("0-2", {"data": "b"}),
        ("0-3", {"data": "c"}),
    ]


async def test_every_append_sets_the_streams_expiry(exercise: Any, redis: Any) -> None:
    """append: after XADD, EXPIRE the key for the store's ttl (seconds), so an abandoned stream goes
    away."""
    store = exercise.RedisStreamStore(redis, ttl=120)
    await store.append("s1", "a")
    assert 118 <= await ttl_of(redis, "mcp:events:s1") <= 120


async def test_the_events_after_one_are_replayed_exactly(exercise: Any, redis: Any) -> None:
    """events_after("s1-1"): XRANGE from the exclusive bound "(0-2" to "+": the events s1-2, s1-3...
    with their data, in order; after the last event, an empty list."""
    store = exercise.RedisStreamStore(redis)
    for data in ("a", "b", "c", "d", "é\nf"):
        await store.append("s1", data)
    assert await store.events_after("s1-1") == [("s1-2", "c"), ("s1-3", "d"), ("s1-4", "é\nf")]
    assert await store.events_after("s1-4") == []


async def test_a_replay_pushes_back_the_expiry(exercise: Any, redis: Any) -> None:
    """events_after: a stream a client still resumes is in use: EXPIRE it again for the full ttl."""
    store = exercise.RedisStreamStore(redis, ttl=300)
    await store.append("s1", "a")
    await store.append("s1", "b")
    await redis.expire("mcp:events:s1", 5)
    await store.events_after("s1-0")
    assert 298 <= await ttl_of(redis, "mcp:events:s1") <= 300


async def test_a_stream_keeps_only_its_newest_events(exercise: Any, redis: Any) -> None:
    """append: MAXLEN max_events, exact (approximate=False): Redis trims the oldest entries."""
    store = exercise.RedisStreamStore(redis, max_events=3)
    for data in "abcde":
        await store.append("s1", data)
    assert [entry_id for entry_id, _ in await redis.xrange("mcp:events:s1", "-", "+")] == [
        "0-3",
        "0-4",
        "0-5",
    ]
    assert await store.events_after("s1-2") == [("s1-3", "d"), ("s1-4", "e")]
    # s1-1 itself was trimmed, but every event after it is still there: the replay is exact.
    assert await store.events_after("s1-1") == [("s1-2", "c"), ("s1-3", "d"), ("s1-4", "e")]


async def test_a_replay_with_a_gap_is_refused(exercise: Any, redis: Any) -> None:
    """events_after: if the first entry after n is not 0-(n+2), the next events were trimmed: raise
    UnknownEventId("event id too old") rather than skip them silently."""
    store = exercise.RedisStreamStore(redis, max_events=3)
    for data in "abcde":
        await store.append("s1", data)
    with pytest.raises(exercise.UnknownEventId) as refused:
        await store.events_after("s1-0")  # s1-1 is gone
    assert str(refused.value) == "event id too old"


@pytest.mark.parametrize(
    ("event_id", "reason"),
    [
        ("s1", "malformed event id"),
        ("s1-", "malformed event id"),
        ("-3", "malformed event id"),
        ("s1-x", "malformed event id"),
        ("s1-²", "malformed event id"),  # a digit to str.isdigit, not to int()
        ("s1-2", "unknown event id"),  # past the last event
        ("other-0", "unknown event id"),  # no such stream
    ],
)
async def test_what_names_no_event_is_refused(
    exercise: Any, redis: Any, event_id: str, reason: str
) -> None:
    """events_after: "<stream id>-<n>", split at the last "-", n made of ASCII digits, else
    "malformed event id"; a stream that does not exist, or an n past its last entry (XREVRANGE
    count=1), "unknown event id"."""
    store = exercise.RedisStreamStore(redis)
    await store.append("s1", "a")
    await store.append("s1", "b")
    with pytest.raises(exercise.UnknownEventId) as refused:
        await store.events_after(event_id)
    assert str(refused.value) == reason
    assert await store.events_after("s1-0") == [("s1-1", "b")]  # the store still works


async def test_forget_drops_the_stream(exercise: Any, redis: Any) -> None:
    """forget: DEL the stream's key; its ids are unknown afterwards, and other streams stay."""
    store = exercise.RedisStreamStore(redis)
    await store.append("s1", "a")
    await store.append("s2", "b")
    await store.forget("s1")
    assert await redis.xrange("mcp:events:s1", "-", "+") == []
    with pytest.raises(exercise.UnknownEventId):
        await store.events_after("s1-0")
    assert await store.events_after("s2-0") == []


# -- Exercise 2 · A session-to-worker router -------------------------------------------------------

# 32 hex digits, like session ids
SESSIONS = [hashlib.md5(str(n).encode()).hexdigest() for n in range(3000)]


def test_the_score_is_the_first_8_bytes_of_sha256(exercise: Any) -> None:
    """score("worker-a", "s1"): sha256(b"worker-a/s1").digest()[:8] as a big-endian unsigned
    integer."""
    assert exercise.score("worker-a", "s1") == int.from_bytes(
        hashlib.sha256(b"worker-a/s1").digest()[:8], "big"
    )
    assert exercise.score("w", "é") == int.from_bytes(
        hashlib.sha256("w/é".encode()).digest()[:8], "big"
    )


def test_a_session_goes_to_the_worker_that_scores_it_highest(exercise: Any) -> None:
    """route: the worker with the highest score(worker, session); the order of the list does not
    matter."""
    workers = ["a", "b", "c"]
    for session_id in SESSIONS[:50]:
        best = max(
            workers,
            key=lambda worker: hashlib.sha256(f"{worker}/{session_id}".encode()).digest()[:8],
        )
        assert exercise.route(session_id, workers) == best
        assert exercise.route(session_id, list(reversed(workers))) == best


def test_no_workers_is_an_error(exercise: Any) -> None:
    """route raises ValueError("no workers") for an empty list."""
    with pytest.raises(ValueError) as refused:
        exercise.route("s1", [])
    assert str(refused.value) == "no workers"


def test_sessions_spread_evenly(exercise: Any) -> None:
    """route: 3,000 sessions over 3 workers, each gets about a third (SHA-256 looks random)."""
    counts = Counter(exercise.route(session_id, ["a", "b", "c"]) for session_id in SESSIONS)
    assert set(counts) == {"a", "b", "c"} and all(
        850 <= count <= 1150 for count in counts.values()
    ), counts


def test_a_new_worker_takes_only_its_share(exercise: Any) -> None:
    """moves: adding "d" moves only the sessions "d" now wins (about a quarter), each from its old
    worker."""
    moved = exercise.moves(SESSIONS, ["a", "b", "c"], ["a", "b", "c", "d"])
    assert all(new == "d" for _, new in moved.values())
    assert all(
        exercise.route(session_id, ["a", "b", "c"]) == old for session_id, (old, _) in moved.items()
    )
    assert 600 <= len(moved) <= 900, len(moved)


def test_a_removed_worker_moves_only_its_own_sessions(exercise: Any) -> None:
    """moves: removing "b" moves exactly the sessions "b" ran, to the others; nobody else moves."""
    had_b = {
        session_id for session_id in SESSIONS if exercise.route(session_id, ["a", "b", "c"]) == "b"
    }
    moved = exercise.moves(SESSIONS, ["a", "b", "c"], ["a", "c"])
    assert set(moved) == had_b
    assert {new for _, new in moved.values()} == {"a", "c"}
    assert exercise.moves(SESSIONS, ["a", "b"], ["a", "b"]) == {}
