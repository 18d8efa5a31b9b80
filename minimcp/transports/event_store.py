"""The event store: what makes a dropped SSE stream resumable (lesson 08).

Every message the Streamable HTTP server sends on an SSE stream is first *stored* here, and gets its
event id from here. When a connection drops, the client comes back with ``GET`` and the header
``Last-Event-ID: <the last id it saw>``; the server asks the store for everything after that id, on
that same stream, and sends it again (spec 2025-11-25, basic/transports, "Resumability and
Redelivery").

An event id names its stream and its place in it: ``<stream id>-<sequence number>``, e.g.
``9c1e4f2a7b3d-5``. Stream ids are random, so ids never repeat across the streams of a session
(nor across sessions), as the spec requires.

:class:`EventStore` is the interface the server depends on: three methods. :class:`MemoryEventStore`
keeps events in this process's memory, **bounded** (at most ``max_events`` per stream, oldest
forgotten first, and at most ``max_streams`` streams) and with **expiry** (a stream unused for
``ttl`` seconds is forgotten). A server that runs as several processes would plug in a store they
share (Redis, a database) behind the same three methods.

Run ``python -m minimcp demo event-store`` to watch a replay, and an expired cursor.
"""

from __future__ import annotations

import itertools
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from minimcp.rpc.jsonrpc import shorten


class UnknownEventId(LookupError):
    """``Last-Event-ID`` names no event this store still has: unknown, forgotten, or malformed.

    The server cannot replay exactly what was missed, so it says so (HTTP 400) rather than
    replaying too little or too much.
    """


@dataclass(frozen=True)
class StoredEvent:
    id: str
    data: str  # one JSON-RPC message, or "" for a priming event


# --8<-- [start:interface]
class EventStore(Protocol):
    """Where the server keeps what it sent, so that a client can ask for it again."""

    async def append(self, stream_id: str, data: str) -> str:
        """Store the next event of ``stream_id``; return its new, unique event id."""
        ...

    async def events_after(self, event_id: str) -> tuple[str, list[StoredEvent]]:
        """The stream that ``event_id`` belongs to, and its events after that one, in order.

        Raises :class:`UnknownEventId` when that cannot be answered exactly.
        """
        ...

    async def forget(self, stream_id: str) -> None:
        """Drop a stream's events (its session ended)."""
        ...


# --8<-- [end:interface]


def new_stream_id() -> str:
    """A fresh, random stream id: 12 hex digits, never containing the separator ``-``."""
    return secrets.token_hex(6)


@dataclass
class _Stream:
    events: deque[StoredEvent]
    next_number: int = 0
    last_used: float = field(default=0.0)
    size: int = 0  # bytes of data kept in ``events``


# --8<-- [start:memory]
class MemoryEventStore:
    """An :class:`EventStore` in this process's memory, bounded and with expiry."""

    def __init__(
        self,
        max_events: int = 1000,
        max_streams: int = 10_000,
        ttl: float = 600.0,
        max_bytes: int = 64 * 1024 * 1024,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_events = max_events  # per stream: the oldest are forgotten first
        self.max_streams = max_streams  # in all: the least recently used stream is forgotten first
        self.ttl = ttl  # seconds a stream is kept after it was last used
        # In all, in bytes: a count alone is no bound, since a client chooses what its events carry
        # (a 1 MB progressToken is copied into every progress notice).
        self.max_bytes = max_bytes
        self.size = 0  # bytes kept now, in all streams
        self._clock = clock
        self._streams: OrderedDict[str, _Stream] = OrderedDict()  # least recently used first

    async def append(self, stream_id: str, data: str) -> str:
        now = self._clock()
        self._expire(now)
        stream = self._streams.get(stream_id)
        if stream is None:
            stream = self._streams[stream_id] = _Stream(deque(maxlen=self.max_events))
            while len(self._streams) > self.max_streams:
                self._drop(next(iter(self._streams)))
        event = StoredEvent(f"{stream_id}-{stream.next_number}", data)
        stream.next_number += 1
        if len(stream.events) == self.max_events:  # the deque is about to drop its oldest event
            self._shrink(stream, len(stream.events[0].data.encode()))
        stream.events.append(event)
        self._grow(stream, len(data.encode()))
        stream.last_used = now
        self._streams.move_to_end(stream_id)
        self._keep_within_budget(stream_id)
        return event.id

    async def events_after(self, event_id: str) -> tuple[str, list[StoredEvent]]:
        stream_id, number = parse_event_id(event_id)
        self._expire(self._clock())
        stream = self._streams.get(stream_id)
        if stream is None or number >= stream.next_number:
            raise UnknownEventId(f"unknown event id {event_id!r}")
        first = stream.events[0] if stream.events else None
        # The events kept are numbered first.number … next_number - 1. Replaying after `number`
        # needs every event from number + 1 on: if the oldest of those was already forgotten, we
        # cannot replay exactly.
        first_number = parse_event_id(first.id)[1] if first else stream.next_number
        if number + 1 < first_number:
            raise UnknownEventId(f"event id {event_id!r} is too old: its successors were forgotten")
        stream.last_used = self._clock()
        self._streams.move_to_end(stream_id)
        # The deque holds consecutive numbers, so the events after `number` start at this index.
        return stream_id, list(itertools.islice(stream.events, number + 1 - first_number, None))

    async def forget(self, stream_id: str) -> None:
        self._drop(stream_id)

    def _expire(self, now: float) -> None:
        """Forget the streams unused for longer than ``ttl`` (they are at the front)."""
        while self._streams:
            stream_id, stream = next(iter(self._streams.items()))
            if now - stream.last_used <= self.ttl:
                break
            self._drop(stream_id)

    def _keep_within_budget(self, current: str) -> None:
        """Over ``max_bytes``: drop the least recently used streams, then this one's oldest events.

        The newest event always stays, even alone over the budget: a client resumes from it.
        """
        while self.size > self.max_bytes and len(self._streams) > 1:
            oldest = next(iter(self._streams))
            self._drop(oldest if oldest != current else list(self._streams)[1])
        stream = self._streams[current]
        while self.size > self.max_bytes and len(stream.events) > 1:
            self._shrink(stream, len(stream.events.popleft().data.encode()))

    def _grow(self, stream: _Stream, size: int) -> None:
        stream.size += size
        self.size += size

    def _shrink(self, stream: _Stream, size: int) -> None:
        stream.size -= size
        self.size -= size

    def _drop(self, stream_id: str) -> None:
        stream = self._streams.pop(stream_id, None)
        if stream is not None:
            self.size -= stream.size

    def __len__(self) -> int:
        """How many events are kept, in all streams."""
        return sum(len(stream.events) for stream in self._streams.values())


# --8<-- [end:memory]


def parse_event_id(event_id: str) -> tuple[str, int]:
    """``"9c1e4f2a7b3d-5"`` → ``("9c1e4f2a7b3d", 5)``; :class:`UnknownEventId` if malformed."""
    stream_id, _, number = event_id.rpartition("-")
    # 18 digits are more events than any stream will ever hold; a longer number is an attack on
    # int() (Python refuses to convert more than 4,300 digits) or a mistake: refused all the same.
    if not stream_id or not (number.isascii() and number.isdigit()) or len(number) > 18:
        raise UnknownEventId(f"malformed event id {shorten(event_id, 60)!r}")
    return stream_id, int(number)
