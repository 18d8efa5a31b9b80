"""An event store on Redis Streams, which several server processes share (lesson 11).

Lesson 08's :class:`~minimcp.transports.event_store.MemoryEventStore` lives in one process: a client
that resumes a stream on another worker finds nothing there. The same three methods on a **Redis
Stream** per SSE stream (``mcp:events:<stream id>``) make every stored event visible to every
worker:

* ``append`` is ``XADD key 0-* data <message>``: Redis numbers the entries ``0-1``, ``0-2``, … (the
  ``*`` asks it for the next sequence number, atomically, whichever worker appends), and the key
  expires ``ttl`` seconds after its last use. Lesson 08's bounds hold, for all the workers together:
  at most ``max_events`` per stream and ``max_bytes`` in all, the oldest forgotten first (a Lua
  script keeps the accounts: :mod:`minimcp.transports.cluster.budget`). Entry ``0-k`` is the event
  ``<stream id>-<k - 1>``, so ids look exactly as in lesson 08;
* ``events_after`` is ``XRANGE key (0-k +``: everything after the client's last event. Exactly, or
  not at all: if the first entry returned is not the very next one, some were trimmed, and the store
  says so (:class:`~minimcp.transports.event_store.UnknownEventId`, the server's ``400``), as the
  memory store does;
* ``forget`` is ``DEL``.

Beside the events, a stream shared by several workers carries a few *control* entries, never sent to
a client: "a new connection took this stream over", "close the connection", "this stream ends with
no answer" (:mod:`minimcp.transports.cluster.streams` writes and reads them). An event that is a
request's answer is marked ``final``, so that any worker knows where the stream ends. ``follow``
hands over new entries as they come (``XREAD BLOCK``): that is how a connection on one worker
follows a stream another one writes.

Redis going away is a :class:`StoreUnavailable`, never a hang: every wait on Redis has a deadline
(:func:`connect`), and a worker's connections all follow their streams through one shared read
(:mod:`~minimcp.transports.cluster.reader`).
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlsplit

import redis
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError

from minimcp.transports.cluster.budget import ACCOUNTS, APPEND, FORGET_STREAMS
from minimcp.transports.cluster.outage import StoreUnavailable, report
from minimcp.transports.cluster.reader import PREFIX, Entry, Following, SharedReader
from minimcp.transports.event_store import StoredEvent, UnknownEventId, parse_event_id

__all__ = ["PREFIX", "Entry", "RedisEventStore", "StoreUnavailable", "connect", "unreachable"]


def connect(url: str, max_connections: int = 50) -> Any:
    """A Redis client for ``url`` that never hangs and survives a Redis restart.

    * every wait has a deadline: 5 seconds to connect or to answer, and at most 5 seconds for a free
      connection when all ``max_connections`` are busy (a burst waits its turn, briefly);
    * a pooled connection that Redis closed (Redis restarted since its last use) fails on its first
      use: the command is sent once more, on a new connection. Only then: a command that timed out
      may have run, and must not run twice."""
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        decode_responses=True,
        socket_timeout=5,
        socket_connect_timeout=5,
        max_connections=max_connections,
        timeout=5,
        retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
    )
    return aioredis.Redis.from_pool(pool)


def unreachable(url: str, timeout: float = 2.0) -> str | None:
    """Why Redis at ``url`` does not answer a PING within ``timeout`` seconds; None if it does.

    ``serve --workers`` asks once, before it starts anything: workers without their Redis could
    only fail, be replaced, and fail again."""
    try:
        client = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        try:
            client.ping()
        finally:
            client.close()
    except (RedisError, ValueError) as error:  # ValueError: not a redis:// URL
        port = urlsplit(url).port or 6379
        return f"{str(error).rstrip('.')}; start one with `redis-server --port {port}`"
    return None


# --8<-- [start:redis_store]
class RedisEventStore:
    """An :class:`~minimcp.transports.event_store.EventStore` on Redis Streams, shared by all."""

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        max_events: int = 1000,
        ttl: float = 600.0,
        max_bytes: int = 64 * 1024 * 1024,
        client: Any = None,
    ) -> None:
        self.redis = client or connect(url)
        self.closing = False  # its worker stops: what fails from now on is expected, and quiet
        self.max_events = max_events  # per stream, the oldest trimmed first
        self.ttl = int(ttl)  # seconds a stream is kept after it was last used
        self.max_bytes = max_bytes  # in all, for every worker: lesson 08's budget
        self._append = self.redis.register_script(APPEND)
        self._forget = self.redis.register_script(FORGET_STREAMS)
        # The worker's one blocking read, shared by every stream its connections follow
        self.reader = SharedReader(self.redis)

    async def append(self, stream_id: str, data: str, *, final: bool = False) -> str:
        fields = {"data": data, "final": "1"} if final else {"data": data}
        return event_id_of(stream_id, await self.add(stream_id, fields))

    async def events_after(self, event_id: str) -> tuple[str, list[StoredEvent]]:
        stream_id, entries = await self.entries_after(event_id)
        return stream_id, [
            StoredEvent(event_id_of(stream_id, entry_id), fields["data"])
            for entry_id, fields in entries
            if "data" in fields
        ]

    async def forget(self, stream_id: str) -> None:
        await self.forget_all([stream_id])

    # --8<-- [end:redis_store]

    # --8<-- [start:entries]
    async def add(self, stream_id: str, fields: dict[str, str]) -> str:
        """Append one entry (an event or a control entry); its Redis id, ``0-k``."""
        return str(await self._add(stream_id, fields, creates=True))

    async def signal(self, stream_id: str, fields: dict[str, str]) -> None:
        """Append a control entry to a stream that exists: a signal never creates a stream, so one
        written after the stream was deleted (its session ended, on any worker) leaves nothing."""
        await self._add(stream_id, fields, creates=False)

    async def _add(self, stream_id: str, fields: dict[str, str], creates: bool) -> Any:
        """The budget's append script (:mod:`~minimcp.transports.cluster.budget`) for one entry."""
        limits = [self.max_events, self.max_bytes, self.ttl, time.time()]
        pairs = [text for field in fields.items() for text in field]
        args = [PREFIX, stream_id, "1" if creates else "0", *limits, *pairs]
        return await self.guarded(self._append(keys=ACCOUNTS, args=args))

    async def forget_all(self, stream_ids: list[str]) -> None:
        """Delete these streams, and settle their bytes in the budget's accounts."""
        await self.guarded(self._forget(keys=ACCOUNTS, args=[PREFIX, *stream_ids]))

    async def size(self) -> int:
        """The bytes of events kept now, in all streams, by all workers."""
        return int(await self.guarded(self.redis.get(ACCOUNTS[2])) or 0)

    async def entries_after(self, event_id: str) -> tuple[str, list[Entry]]:
        """The entries after the event ``event_id``, exactly (see the module's docstring)."""
        stream_id, number = parse_event_id(event_id)  # UnknownEventId if malformed
        key = PREFIX + stream_id
        last: Any = await self.guarded(self.redis.xrevrange(key, "+", "-", count=1))
        entries: Any = await self.guarded(self.redis.xrange(key, f"(0-{number + 1}", "+"))
        await self.guarded(self.redis.expire(key, self.ttl))
        await self.guarded(self.redis.zadd(ACCOUNTS[1], {stream_id: time.time()}, xx=True))
        if not last or number + 1 > sequence(last[0][0]):
            raise UnknownEventId(f"unknown event id {event_id!r}")
        # The next one was trimmed: no exact replay
        if entries and sequence(entries[0][0]) != number + 2:
            raise UnknownEventId(f"event id {event_id!r} is too old: its successors were forgotten")
        return stream_id, entries

    def follow(self, stream_id: str, after: str) -> Following:
        """Hand the stream's entries after entry ``after`` (``0-0``: all), as they come, to the
        :class:`~minimcp.transports.cluster.reader.Following` returned (one read for all)."""
        return self.reader.follow(stream_id, after)

    async def last_entry(self, stream_id: str) -> Entry | None:
        last: Any = await self.guarded(self.redis.xrevrange(PREFIX + stream_id, "+", "-", count=1))
        return last[0] if last else None

    # --8<-- [end:entries]

    async def guarded(self, command: Any) -> Any:
        """Run one Redis command. Redis away: :class:`StoreUnavailable`, and a quiet log line."""
        try:
            return await command
        except (RedisError, OSError) as error:
            if not self.closing:  # a worker that stops expects this: nothing to report
                report(error)
            raise StoreUnavailable() from error

    async def close(self) -> None:
        self.closing = True
        await self.reader.close()
        await self.redis.aclose()


def sequence(entry_id: str) -> int:
    """The k of a Redis Stream entry id ``0-k``."""
    return int(entry_id.split("-")[1])


def event_id_of(stream_id: str, entry_id: str) -> str:
    """Entry ``0-k`` of a stream is its event ``<stream id>-<k - 1>``: lesson 08's ids, from 0."""
    return f"{stream_id}-{sequence(entry_id) - 1}"
