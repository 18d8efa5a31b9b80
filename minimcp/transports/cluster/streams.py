"""Lesson 08's streams in Redis: written by any worker, read by any worker's connection (lesson 11).

On one process, a :class:`~minimcp.transports.http.streams.Stream` hands each event to the
connection attached to it through a queue in memory. Across workers, the writer and the connection
may live in two processes, so a :class:`SharedStream` keeps *everything* in the stream's Redis
entries and each connection **follows** the stream there (``XREAD BLOCK``, one read per worker
for all its connections: :mod:`~minimcp.transports.cluster.reader`), whichever worker wrote it:

* an event: written to the connection (and, if it is marked ``final``, the stream is complete);
* ``attach``: a new connection took the stream over. The newest wins, as in lesson 08: every other
  connection following the stream closes, on every worker;
* ``close``: the server ends the connection (``close_sse_stream``); the client resumes after
  ``retry``;
* ``end``: the request was cancelled, no answer will come;
* ``refused`` and ``gone``: a forwarded request the session's worker refused (an id already in use),
  or a session that is no longer there (HTTP 400 and 404 for the worker that forwarded it).

While nothing comes, a connection asks its ``watch`` every second whether to go on: the session may
have ended, or its worker died (then the watch has it taken over, and the new owner ends the
requests that were running with an error, which the connection then reads like any other event).
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from minimcp.rpc.aio import TaskKeeper
from minimcp.rpc.jsonrpc import RequestId
from minimcp.transports.cluster.outage import quietly
from minimcp.transports.cluster.redis_store import (
    Entry,
    RedisEventStore,
    StoreUnavailable,
    event_id_of,
)
from minimcp.transports.event_store import StoredEvent
from minimcp.transports.http.streams import CloseConnection, Listener, Stream

#: Asked while a connection waits: go on (True) or close it (False, the session is gone).
Watch = Callable[[], Awaitable[bool]]


@dataclass(frozen=True)
class Refused(CloseConnection):
    """A ``refused`` or ``gone`` entry: the forwarded request gets this HTTP status, no answer.

    To a connection already streaming it is what its base class says: close the connection (the
    session is gone, or the request was refused); only the forwarder, which reads a stream's first
    news before it writes anything, answers it with the status."""

    status: int = 404
    message: str = ""
    code: int | None = None
    request_id: RequestId | None = None


# --8<-- [start:shared_stream]
class SharedStream(Stream):
    """A :class:`~minimcp.transports.http.streams.Stream` whose events and signals live in Redis."""

    store: RedisEventStore

    def __init__(
        self,
        store: RedisEventStore,
        stream_id: str | None,
        watch: Watch,
        background: TaskKeeper,
        register: Callable[[str], Awaitable[None]] | None = None,
        following: TaskKeeper | None = None,
    ) -> None:
        super().__init__(store, stream_id)
        self.watch = watch
        self.background = background  # control entries written from plain (not async) code
        # Every connection that follows a stream on this worker: a worker that stops ends them first
        self.following = following if following is not None else TaskKeeper()
        # Records the stream in the session directory, before its first event
        self._register = register
        self._following: asyncio.Task[None] | None = None

    async def _append(self, message: str, final: bool) -> None:
        event_id = await self.store.append(self.id, message, final=final)
        if final:
            self.final_event = event_id

    async def attach(self) -> Listener:
        """A new connection: say so in the stream (others close), then follow it from there."""
        if self._register is not None:
            register, self._register = self._register, None
            await register(self.id)
        token = secrets.token_hex(6)
        attached = await self.store.add(self.id, {"control": "attach", "by": token})
        self.listener = listener = Listener()
        self._following = self.following.spawn(self._follow(listener, attached, token))
        return listener

    def detach(self, listener: Listener) -> None:
        """That connection is over: stop following the stream for it."""
        if self.listener is listener and self._following is not None:
            self.listener = None
            self._following.cancel()

    def discard(self, listener: Listener) -> None:
        """Detach, then forget the stream (its answer went as one JSON body: nobody resumes it)."""
        if self.listener is listener and self._following is not None:
            self.detach(listener)
            self.background.spawn(self._forget())

    async def _forget(self) -> None:
        try:
            await self.store.forget(self.id)
        except StoreUnavailable:  # Redis is away: the stream expires with its TTL
            pass

    def close_connection(self, retry_ms: int | None = None) -> None:
        retry = str(retry_ms or "")
        self.background.spawn(quietly(self._control({"control": "close", "retry": retry})))

    def end(self) -> None:
        self.ended = True
        self.background.spawn(quietly(self._control({"control": "end"})))

    async def _control(self, fields: dict[str, str]) -> None:
        async with self._lock:  # after the events already on their way
            await self.store.signal(self.id, fields)

    # --8<-- [end:shared_stream]

    # --8<-- [start:follow]
    async def _follow(self, listener: Listener, after: str, token: str) -> None:
        """Hand the stream's entries, as they come, to a connection's ``listener`` while it is
        attached (through the worker's one shared read)."""
        # The loop also checks that the connection is still attached, and that the worker is not
        # stopping: a cancellation that arrives just as a read times out may be swallowed, and the
        # loop must end anyway.
        following = self.store.follow(self.id, after)
        try:
            while self.listener is listener and not self.store.closing:
                try:
                    entries = await following.next(timeout=1.0)
                    going_on = bool(entries) or await self.watch()
                except StoreUnavailable:  # the client resumes this stream when Redis is back
                    going_on = False
                if not going_on:
                    return
                for entry in entries:
                    item = self.interpret(entry, token)
                    if item is not None:
                        listener.put_nowait(item)
        finally:  # the connection ends (if it is still there: a detached one reads nothing more)
            following.stop()
            listener.put_nowait(CloseConnection())

    def interpret(
        self, entry: Entry, token: str | None = None
    ) -> StoredEvent | CloseConnection | None:
        """What one entry means for a connection (None: nothing to do)."""
        entry_id, fields = entry
        if "data" in fields:
            event = StoredEvent(event_id_of(self.id, entry_id), fields["data"])
            if fields.get("final"):
                self.final_event = event.id
            return event
        control = fields.get("control")
        if control == "attach":
            return None if fields.get("by") == token else CloseConnection()
        if control == "close":
            return CloseConnection(int(fields["retry"]) if fields.get("retry") else None)
        if control == "end":
            self.ended = True
            return CloseConnection()
        if control in ("refused", "gone"):
            code = fields.get("code")
            return Refused(
                status=int(fields.get("status", 404)),
                message=fields.get("message", ""),
                code=int(code) if code else None,
                request_id=json.loads(fields.get("id", "null")),
            )
        return None

    # --8<-- [end:follow]

    async def events_after(self, event_id: str) -> list[StoredEvent]:
        """What a resuming connection replays; it also learns whether the stream is complete."""
        _, entries = await self.store.entries_after(event_id)
        events = []
        for entry in entries:
            item = self.interpret(entry)
            if isinstance(item, StoredEvent):
                events.append(item)
        return events
