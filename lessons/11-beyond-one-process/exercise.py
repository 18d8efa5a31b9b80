# ----------------------------------------------------------------------------------------
# Lesson 11-beyond-one-process: your exercise.
#
# 1. Read the docstrings below: each part says exactly what to build.
# 2. Replace each `raise NotImplementedError(...)`, under its TODO, with your code.
# 3. Check your work, as often as you like:  python tools/check.py 11
#
# Stuck for good? A worked answer is in solutions/11-beyond-one-process/exercise.py.
# This file is yours: a new version of the course may replace it, so keep a copy of your work.
# ----------------------------------------------------------------------------------------
"""Lesson 11 exercise: two pieces of a server that runs on several workers, written by hand.

1. **An event store on Redis Streams.** Lesson 08's event store keeps a stream's events in one
   process's memory; on several workers it must live where every worker reads it. Write its three
   methods on one Redis Stream per SSE stream: ``append`` (XADD, with a bounded length and an
   expiry), ``events_after`` (XRANGE after the client's last event, exactly or not at all) and
   ``forget`` (DEL). The tests run your store on :class:`FakeRedis` below and on a real
   ``redis-server``.
2. **A session-to-worker router.** The other answer to "which worker runs this session?": pin each
   session to a worker by hashing its ``Mcp-Session-Id``, as a load balancer with affinity does.
   Write it with rendezvous hashing, so that a worker coming or going moves only the sessions it
   must.

Check your work with ``python tools/check.py 11``. Only the standard library is needed (and, for the
real-Redis tests, ``redis-server`` on your PATH: they are skipped without it).
"""

from __future__ import annotations

import hashlib
from typing import Any

# =================================================================================================
# Part 1 · An event store on Redis Streams
# =================================================================================================
#
# One Redis Stream per SSE stream, under the key "mcp:events:<stream id>"; each entry has one field,
# "data", the event's data. Ask Redis to number the entries 0-1, 0-2, 0-3... with the id "0-*"
# (Redis 7: "the next sequence number", atomically, whichever worker appends). Entry 0-k is the
# event "<stream id>-<k - 1>", so event ids look as in lesson 08: "<stream id>-0",
# "<stream id>-1"...
#
#   * append(stream_id, data) -> the new event's id
#       XADD key MAXLEN max_events (exactly: approximate=False) 0-* data <data>; then EXPIRE key ttl
#   * events_after(event_id) -> [(event id, data), ...]: every event after event_id, in order
#       - event_id is "<stream id>-<n>" (split at the last "-"; n a whole number >= 0);
#         anything else ........................... UnknownEventId("malformed event id")
#       - the stream holds no event n (the key is gone, or n is past its last entry)
#                                                    UnknownEventId("unknown event id")
#       - the event right after n was trimmed (MAXLEN): a replay would skip events
#                                                    UnknownEventId("event id too old")
#       - otherwise the events after n (none, if n is the last), and the expiry pushed back (EXPIRE)
#   * forget(stream_id): DEL key
#
# The Redis client is redis.asyncio.Redis (decode_responses=True), or FakeRedis: the same five
# commands.
#   await redis.xadd(key, {"data": data}, id="0-*", maxlen=n, approximate=False) -> "0-k"
#   await redis.xrange(key, "(0-3", "+")   -> [("0-4", {"data": ...}), ...]   "(" excludes the bound
#   await redis.xrevrange(key, "+", "-", count=1) -> [the last entry], or [] without the key
#   await redis.expire(key, seconds);  await redis.delete(key)

PREFIX = "mcp:events:"


class UnknownEventId(ValueError):
    """The event id names no event this store can replay after; the message says why."""


class RedisStreamStore:
    """Lesson 08's event store, on Redis Streams: what one worker appends, every worker replays."""

    def __init__(self, redis: Any, *, max_events: int = 1000, ttl: int = 600) -> None:
        self.redis = redis
        self.max_events = max_events
        self.ttl = ttl

    async def append(self, stream_id: str, data: str) -> str:
        """Store one event at the end of ``stream_id``; its event id."""
        # TODO: XADD with id "0-*", exact MAXLEN; EXPIRE; then entry 0-k is event k - 1
        raise NotImplementedError("append")

    async def events_after(self, event_id: str) -> list[tuple[str, str]]:
        """Every event after ``event_id`` in its stream, exactly: ``(event id, data)`` pairs."""
        # TODO: parse; the last entry says if n exists; XRANGE from (0-(n+1); check no gap
        raise NotImplementedError("events_after")

    async def forget(self, stream_id: str) -> None:
        """Drop the whole stream (its session ended)."""
        # TODO: one DEL
        raise NotImplementedError("forget")


def sequence(entry_id: str) -> int:
    """The k of a Redis Stream entry id ``0-k``."""
    return int(entry_id.split("-")[1])


class FakeRedis:
    """A stand-in for ``redis.asyncio.Redis`` that knows only the five commands above, in memory.

    Enough to try your store in a notebook or a test without a server; the real Redis is the
    authority (the tests run both). ``ttls`` shows what EXPIRE set, as Redis's TTL would.
    """

    def __init__(self) -> None:
        self.streams: dict[str, list[tuple[str, dict[str, str]]]] = {}
        self.last_ids: dict[str, int] = {}
        self.ttls: dict[str, int] = {}

    async def xadd(
        self,
        name: str,
        fields: dict[str, str],
        id: str = "*",
        maxlen: int | None = None,
        approximate: bool = True,
    ) -> str:
        assert id == "0-*", "this fake numbers entries 0-1, 0-2...: ask for the id '0-*'"
        number = self.last_ids.get(name, 0) + 1
        self.last_ids[name] = number
        entries = self.streams.setdefault(name, [])
        entries.append((f"0-{number}", dict(fields)))
        if maxlen is not None:
            del entries[:-maxlen]
        return f"0-{number}"

    async def xrange(
        self, name: str, min: str = "-", max: str = "+"
    ) -> list[tuple[str, dict[str, str]]]:
        assert max == "+", "this fake reads up to the end only"
        if min == "-":
            return list(self.streams.get(name, []))
        exclusive = min.startswith("(")
        low = sequence(min.lstrip("("))
        return [
            (entry_id, fields)
            for entry_id, fields in self.streams.get(name, [])
            if sequence(entry_id) > low or (not exclusive and sequence(entry_id) == low)
        ]

    async def xrevrange(
        self, name: str, max: str = "+", min: str = "-", count: int | None = None
    ) -> list[tuple[str, dict[str, str]]]:
        assert (max, min) == ("+", "-"), "this fake reads the whole stream backwards only"
        entries = list(reversed(self.streams.get(name, [])))
        return entries[:count] if count is not None else entries

    async def expire(self, name: str, time: int) -> bool:
        if name not in self.streams:
            return False
        self.ttls[name] = time
        return True

    async def delete(self, *names: str) -> int:
        gone = [name for name in names if self.streams.pop(name, None) is not None]
        for name in names:
            self.last_ids.pop(name, None)
            self.ttls.pop(name, None)
        return len(gone)


# =================================================================================================
# Part 2 · A session-to-worker router (rendezvous hashing)
# =================================================================================================
#
# A load balancer with affinity sends every request of a session to the same worker, from the
# Mcp-Session-Id alone. "hash(session) % number of workers" does that, but when a worker is added or
# removed, almost every session moves (and loses its state). Rendezvous hashing moves only what
# it must:
#
#   * score(worker, session_id): the first 8 bytes of SHA-256 of "<worker>/<session id>" (UTF-8), as
#     a big-endian unsigned integer
#   * route(session_id, workers): the worker with the highest score; on a tie, the greatest name.
#     No workers at all: ValueError("no workers")
#   * moves(session_ids, before, after): {session id: (old worker, new worker)} for every session
#     that route() sends to another worker once the workers change from `before` to `after`
#
# So a new worker takes only the sessions it now wins (about 1/N of them); a removed worker's
# sessions spread over the others, and nobody else's move.


def score(worker: str, session_id: str) -> int:
    """How much ``worker`` wants ``session_id``: a number that looks random but never changes."""
    # TODO: sha256 of "worker/session", its first 8 bytes, big-endian
    raise NotImplementedError("score")


def route(session_id: str, workers: list[str]) -> str:
    """The worker that runs ``session_id``: the one with the highest score."""
    # TODO: refuse an empty list; max by (score, name)
    raise NotImplementedError("route")


def moves(
    session_ids: list[str], before: list[str], after: list[str]
) -> dict[str, tuple[str, str]]:
    """The sessions that change worker when the workers change, with their old and new worker."""
    # TODO: route each session both ways; keep those that differ
    raise NotImplementedError("moves")
