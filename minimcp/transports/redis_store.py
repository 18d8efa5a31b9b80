"""An event store on Redis Streams, which several server processes share (lesson 11).

Lesson 08's :class:`~minimcp.transports.event_store.MemoryEventStore` lives in one process: a client that
resumes a stream on another worker finds nothing there. The same three methods on a **Redis Stream** per
SSE stream (``mcp:events:<stream id>``) make every stored event visible to every worker:

* ``append`` is ``XADD key MAXLEN n 0-* data <message>``: Redis numbers the entries ``0-1``, ``0-2``, …
  (the ``*`` asks it for the next sequence number, atomically, whichever worker appends), keeps at most
  ``max_events`` (the oldest trimmed first), and the key expires ``ttl`` seconds after its last use. Entry
  ``0-k`` is the event ``<stream id>-<k - 1>``, so ids look exactly as in lesson 08;
* ``events_after`` is ``XRANGE key (0-k +``: everything after the client's last event. Exactly, or not at
  all: if the first entry returned is not the very next one, some were trimmed, and the store says so
  (:class:`~minimcp.transports.event_store.UnknownEventId`, the server's ``400``), as the memory store does;
* ``forget`` is ``DEL``.

Redis going away is a :class:`StoreUnavailable` with the reason, never a hang (the client has a timeout).
"""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from minimcp.transports.event_store import StoredEvent, UnknownEventId, parse_event_id

PREFIX = "mcp:events:"


class StoreUnavailable(ConnectionError):
    """Redis did not answer: the store cannot keep or replay events right now."""


# --8<-- [start:redis_store]
class RedisEventStore:
    """An :class:`~minimcp.transports.event_store.EventStore` on Redis Streams, shared by every worker."""

    def __init__(self, url: str = "redis://127.0.0.1:6379/0", *, max_events: int = 1000, ttl: float = 600.0,
                 client: Any = None) -> None:
        self.redis = client or aioredis.Redis.from_url(url, decode_responses=True, socket_timeout=5,
                                                       socket_connect_timeout=5)
        self.max_events = max_events  # per stream, the oldest trimmed first
        self.ttl = int(ttl)  # seconds a stream is kept after it was last used

    async def append(self, stream_id: str, data: str) -> str:
        key = PREFIX + stream_id
        try:
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.xadd(key, {"data": data}, id="0-*", maxlen=self.max_events, approximate=False)
                pipe.expire(key, self.ttl)
                results: Any = await pipe.execute()
                entry_id = results[0]
        except RedisError as error:
            raise StoreUnavailable(f"the event store (Redis) is unavailable: {error}") from error
        return f"{stream_id}-{int(entry_id.split('-')[1]) - 1}"

    async def events_after(self, event_id: str) -> tuple[str, list[StoredEvent]]:
        stream_id, number = parse_event_id(event_id)  # UnknownEventId if malformed
        key = PREFIX + stream_id
        try:  # redis' types are loose (bytes or str, as decoded): these are lists of (id, fields)
            last: Any = await self.redis.xrevrange(key, "+", "-", count=1)
            entries: Any = await self.redis.xrange(key, f"(0-{number + 1}", "+")
            await self.redis.expire(key, self.ttl)
        except RedisError as error:
            raise StoreUnavailable(f"the event store (Redis) is unavailable: {error}") from error
        if not last or number + 1 > sequence(last[0][0]):
            raise UnknownEventId(f"unknown event id {event_id!r}")
        if entries and sequence(entries[0][0]) != number + 2:  # the next one was trimmed: no exact replay
            raise UnknownEventId(f"event id {event_id!r} is too old: its successors were forgotten")
        return stream_id, [StoredEvent(f"{stream_id}-{sequence(entry_id) - 1}", fields["data"])
                           for entry_id, fields in entries]

    async def forget(self, stream_id: str) -> None:
        try:
            await self.redis.delete(PREFIX + stream_id)
        except RedisError as error:
            raise StoreUnavailable(f"the event store (Redis) is unavailable: {error}") from error

    async def close(self) -> None:
        await self.redis.aclose()
# --8<-- [end:redis_store]


def sequence(entry_id: str) -> int:
    """The k of a Redis Stream entry id ``0-k``."""
    return int(entry_id.split("-")[1])
