"""Checks for lesson 11's exercise: the take-over of a dead worker's session, and a
session-to-worker router.

Each test's docstring is the hint a student sees when it fails (``python tools/check.py 11``).
Part 1 runs against a real ``redis-server`` (skipped if none is on PATH), as the cluster's own
tests do.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import pytest

from minimcp.transports.cluster.redis_store import connect

# -- Exercise 1 · Take over a dead worker's session, and only once ---------------------------------

STATE = {"protocolVersion": "2025-11-25", "subscriptions": ["courses://all"]}
KEY = "mcp:session:s1"


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[Any]:
    """A client of a private redis-server, emptied first, with session s1 run by worker-1."""
    client = connect(redis_url)
    await client.flushdb()
    await client.hset(KEY, mapping={"owner": "worker-1", "state": json.dumps(STATE)})
    try:
        yield client
    finally:
        await client.aclose()


class Crowded:
    """A Redis client whose reads (HGET, HGETALL...) wait until every contender has read, or a
    second has passed: the worst moment for a claim made of a read, then a write."""

    READS = ("get", "hget", "hgetall", "hmget")

    def __init__(self, redis: Any, contenders: int) -> None:
        self.redis = redis
        self.contenders = contenders
        self.reads = 0
        self.all_read = asyncio.Event()

    def __getattr__(self, name: str) -> Any:
        command = getattr(self.redis, name)
        if name not in self.READS:
            return command

        async def read(*args: Any, **kwargs: Any) -> Any:
            answer = await command(*args, **kwargs)
            self.reads += 1
            if self.reads >= self.contenders:
                self.all_read.set()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.all_read.wait(), 1)
            return answer

        return read


async def only_worker_1_died(worker: str) -> bool:
    """alive(), for a cluster where only worker-1 died."""
    return worker != "worker-1"


async def test_a_claim_on_the_dead_owner_wins(exercise: Any, redis: Any) -> None:
    """claim(redis, "s1", "worker-1", "worker-3"): worker-1 is the owner, so worker-3 becomes it
    (HSET the "owner" field of mcp:session:s1) and the answer is True; the state stays."""
    assert await exercise.claim(redis, "s1", "worker-1", "worker-3") is True
    assert await redis.hgetall(KEY) == {"owner": "worker-3", "state": json.dumps(STATE)}


async def test_a_claim_on_another_owner_loses(exercise: Any, redis: Any) -> None:
    """The owner is no longer the worker you saw die (someone took the session over already):
    False, and the owner does not change."""
    await redis.hset(KEY, "owner", "worker-2")
    assert await exercise.claim(redis, "s1", "worker-1", "worker-3") is False
    assert await redis.hget(KEY, "owner") == "worker-2"


async def test_a_claim_on_an_unknown_session_creates_nothing(exercise: Any, redis: Any) -> None:
    """No such session (ended, or expired): False, and no key mcp:session:<id> appears."""
    assert await exercise.claim(redis, "gone", "worker-1", "worker-3") is False
    assert await redis.exists("mcp:session:gone") == 0


async def test_of_many_claims_at_once_exactly_one_wins(exercise: Any, redis: Any) -> None:
    """Twenty workers claim at the same moment: exactly one True, and it is the owner. A read then
    a write (HGET, then HSET) lets them all read worker-1 first: compare and set in ONE step (a Lua
    script with EVAL, or WATCH/MULTI/EXEC)."""
    workers = [f"worker-{n}" for n in range(10, 30)]
    crowd = Crowded(redis, len(workers))
    won = await asyncio.wait_for(
        asyncio.gather(*(exercise.claim(crowd, "s1", "worker-1", w) for w in workers)), 10
    )
    winners = [worker for worker, took in zip(workers, won, strict=True) if took]
    assert len(winners) == 1, f"{len(winners)} workers won the same session"
    assert await redis.hget(KEY, "owner") == winners[0]


async def test_a_dead_owners_session_is_taken_over(exercise: Any, redis: Any) -> None:
    """take_over: the owner is dead (alive() says False): claim it, push back the key's expiry to
    ttl seconds, and return the saved state, decoded from JSON."""
    state = await exercise.take_over(redis, "s1", "worker-3", only_worker_1_died, ttl=300)
    assert state == STATE
    assert await redis.hget(KEY, "owner") == "worker-3"
    assert 290 <= await redis.ttl(KEY) <= 300


async def test_a_living_owner_keeps_its_session(exercise: Any, redis: Any) -> None:
    """take_over: alive(owner) says True: None (the request is forwarded to it instead), and
    nothing changes: no claim, no expiry."""
    asked: list[str] = []

    async def alive(worker: str) -> bool:
        asked.append(worker)
        return True

    assert await exercise.take_over(redis, "s1", "worker-3", alive) is None
    assert asked == ["worker-1"]
    assert await redis.hget(KEY, "owner") == "worker-1" and await redis.ttl(KEY) == -1


async def test_an_unknown_or_own_session(exercise: Any, redis: Any) -> None:
    """take_over: no such session: None. A session this worker already owns: its state, without
    asking alive() about itself."""

    async def never(worker: str) -> bool:
        raise AssertionError(f"alive({worker!r}) asked")

    assert await exercise.take_over(redis, "gone", "worker-3", never) is None
    assert await exercise.take_over(redis, "s1", "worker-1", never) == STATE


async def test_two_workers_racing_get_one_session(exercise: Any, redis: Any) -> None:
    """take_over from two workers at once: one gets the state, the other None (it lost the claim),
    and the owner is the one that got it."""
    crowd = Crowded(redis, 2)  # both read worker-1 as the owner before either claims
    got = await asyncio.wait_for(
        asyncio.gather(
            exercise.take_over(crowd, "s1", "worker-3", only_worker_1_died),
            exercise.take_over(crowd, "s1", "worker-4", only_worker_1_died),
        ),
        10,
    )
    assert sorted(got, key=lambda state: state is None) == [STATE, None]
    winner = "worker-3" if got[0] is not None else "worker-4"
    assert await redis.hget(KEY, "owner") == winner


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
