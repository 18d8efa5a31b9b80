"""The SSE streams of one Streamable HTTP session, and the writing of one connection (lesson 08).

A *stream* (the answer to one POST, or the GET announcement channel) outlives the HTTP connections
that carry it: every message is stored in the event store first, then written to whichever
connection is attached now. :func:`pump` writes one connection: its priming event or its replay,
then live events, until the stream's last event, a close, or the client's disconnect.

Streams and the event store keep text: they are the SSE edge, where each message was encoded once
(:class:`Said`). Before a POST has chosen JSON or SSE, its :class:`Exchange` keeps the message too.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from minimcp.rpc.jsonrpc import Message, encode
from minimcp.rpc.transport import log_send_failure
from minimcp.transports.event_store import EventStore, StoredEvent, new_stream_id
from minimcp.transports.http.asgi import Receive, Send
from minimcp.transports.http.routing import First, is_final
from minimcp.transports.sse import format_comment, format_event


@dataclass(frozen=True)
class CloseConnection:
    """Put in a listener's queue: end this HTTP connection (the stream itself lives on)."""

    retry_ms: int | None = None


@dataclass(frozen=True)
class Cancelled:
    """Put in an exchange's queue: the request was cancelled, its stream ends with no answer."""


@dataclass(frozen=True)
class Said:
    """One message the session sent, as it is and as the text that travels: encoded once, here."""

    message: Message
    text: str
    final: bool  # whether it is the answer: the last word about its request

    @classmethod
    def of(cls, message: Message) -> Said:
        """Encode ``message`` (TypeError or ValueError if its result is not JSON: nothing kept)."""
        return cls(message, encode(message), is_final(message))


T = TypeVar("T")

#: What one open connection still has to write: events, or the order to close.
Listener = asyncio.Queue[StoredEvent | CloseConnection]


# --8<-- [start:stream]
class Stream:
    """One SSE stream of a session: the answer to one POST, or the GET announcement channel.

    A stream outlives its HTTP connections. Every message is first stored in the event store (which
    gives it its id), then handed to the connection attached right now, if there is one. When a
    connection drops, nothing is lost: the client comes back with ``Last-Event-ID`` and a new
    connection is attached, which first replays what the store has after that id.
    """

    def __init__(self, store: EventStore, stream_id: str | None = None) -> None:
        self.id = stream_id or new_stream_id()
        self.store = store
        self.listener: Listener | None = None  # the connection attached now, if any
        self.final_event: str | None = None  # a POST stream ends after its response's event
        self.ended = False  # or without one, when its request was cancelled: see end()
        self._lock = asyncio.Lock()  # events are stored and delivered in the order they were sent

    async def send(self, message: str, *, final: bool = False) -> None:
        async with self._lock:
            await self._append(message, final)

    async def open(
        self,
        earlier: Callable[[], Iterable[tuple[str, bool]]] = list,
    ) -> tuple[Listener, StoredEvent]:
        """Attach a new connection and store its priming event, then the messages ``earlier()``
        gives (what a request said before its stream existed), with no other message slipping in
        between.

        The priming event must be the first event the connection writes, with an id below those of
        the messages after it, and the messages must keep their order, even when the store's
        ``append`` takes a while (a store over the network): hence the lock.
        """
        async with self._lock:
            listener = await self.attach()
            priming = StoredEvent(await self.store.append(self.id, ""), "")
            for message, final in earlier():
                await self._append(message, final)
        return listener, priming

    async def _append(self, message: str, final: bool) -> None:
        event = StoredEvent(await self.store.append(self.id, message), message)
        if final:
            self.final_event = event.id
        if self.listener is not None:
            self.listener.put_nowait(event)

    async def attach(self) -> Listener:
        """A new connection for this stream. The newest wins: a previous one is closed."""
        if self.listener is not None:
            self.listener.put_nowait(CloseConnection())
        self.listener = asyncio.Queue()
        return self.listener

    async def events_after(self, event_id: str) -> list[StoredEvent]:
        """What a connection resuming after ``event_id`` replays (UnknownEventId: not exactly
        possible)."""
        return (await self.store.events_after(event_id))[1]

    def detach(self, listener: Listener) -> None:
        if self.listener is listener:
            self.listener = None

    def close_connection(self, retry_ms: int | None = None) -> None:
        """End the connection attached now (if any); the client will resume after ``retry_ms``."""
        if self.listener is not None:
            self.listener.put_nowait(CloseConnection(retry_ms))
            self.listener = None

    def end(self) -> None:
        """Nothing more will come (the request was cancelled): end the connection attached now; a
        later resumption replays what there is, then ends too."""
        self.ended = True
        self.close_connection()

    @property
    def finished(self) -> bool:
        return self.final_event is not None or self.ended


# --8<-- [end:stream]


class Exchange:
    """What the session says about one POSTed request, until the POST decides JSON or SSE.

    Before the decision, messages wait in ``pending`` (``None`` there: the session ended), and
    ``arrived`` tells the POST that the first one came; after it, they go straight to ``stream``.
    """

    def __init__(self) -> None:
        self.pending: list[Said | CloseConnection | Cancelled | None] = []
        self.arrived: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.stream: Stream | None = None

    def put(self, item: Said | CloseConnection | Cancelled | None) -> None:
        self.pending.append(item)
        if not self.arrived.done():
            self.arrived.set_result(None)

    def first(self) -> First | None:
        """What came first (:func:`minimcp.transports.http.routing.answer_as`), or None: nothing
        yet."""
        if not self.pending:
            return None
        item = self.pending[0]
        if item is None:
            return "ended"
        if isinstance(item, CloseConnection):
            return "close"
        if isinstance(item, Cancelled):
            return "cancelled"
        return "answer" if item.final else "message"

    def answer(self) -> Said:
        """The answer, when it came first."""
        item = self.pending[0]
        assert isinstance(item, Said) and item.final, "the answer did not come first"
        return item


# --8<-- [start:pump]
async def pump(
    send: Send,
    receive: Receive,
    stream: Stream,
    listener: Listener,
    first: list[StoredEvent],
    headers: dict[str, str],
    retry_ms: int,
    keepalive: float,
) -> None:
    """Write one SSE connection: the headers, the ``first`` events (priming or replay), then more.

    Ends when the stream's last event is written, when the server closes the connection, or when the
    client goes away. Events are already stored: whatever this connection fails to deliver, the next
    one replays.
    """
    written: set[str] = set()
    try:
        async with sse_response(send, receive, headers) as connection:
            for event in first:
                await write_event(send, event, retry_ms if not event.data else None)
                written.add(event.id)
            if stream.final_event in written or stream.ended:  # replayed a stream already complete
                return
            while True:
                item = await connection.next(listener.get, keepalive)
                if item is None:  # the client hung up: this connection is over
                    return
                if isinstance(item, CloseConnection):
                    if item.retry_ms is not None:  # "come back in retry_ms": a retry field, the end
                        await connection.write(format_event(retry=item.retry_ms))
                    return
                if item.id in written:  # already sent in the replay
                    continue
                await write_event(send, item)
                written.add(item.id)
                if item.id == stream.final_event:  # the response: this stream is complete
                    return
    finally:
        stream.detach(listener)


async def write_event(send: Send, event: StoredEvent, retry_ms: int | None = None) -> None:
    """One stored event on the wire. An empty one is a priming event: its id, empty data,
    ``retry``."""
    body = format_event(event.data, id=event.id, retry=retry_ms)
    await send({"type": "http.response.body", "body": body, "more_body": True})


# --8<-- [end:pump]


# --8<-- [start:sse_response]
class SseConnection:
    """One SSE response being written: events as they come, a comment through each silence, and an
    end as soon as the client hangs up. :func:`pump` writes lesson 08's streams with it; any SSE
    response with the same needs can (lesson 12's one-request streams, for one)."""

    def __init__(self, send: Send, receive: Receive) -> None:
        self.send = send
        # Done once the client hangs up.
        self.gone = asyncio.get_running_loop().create_task(_disconnect(receive))

    async def write(self, body: bytes) -> None:
        await self.send({"type": "http.response.body", "body": body, "more_body": True})

    async def next(self, get: Callable[[], Awaitable[T]], keepalive: float) -> T | None:
        """What ``get()`` gives next; a keep-alive comment each ``keepalive`` seconds of silence (so
        proxies stay patient); None once the client is gone."""
        while True:
            getting = asyncio.ensure_future(get())
            done, _ = await asyncio.wait(
                {getting, self.gone}, timeout=keepalive, return_when=asyncio.FIRST_COMPLETED
            )
            if getting in done:
                return getting.result()
            getting.cancel()
            if self.gone in done:
                return None
            await self.write(format_comment("keep-alive"))


@contextlib.asynccontextmanager
async def sse_response(
    send: Send, receive: Receive, headers: dict[str, str]
) -> AsyncIterator[SseConnection]:
    """Start an SSE response (status 200, ``headers`` besides the SSE ones), and end it however the
    block ends: the client may be gone already, then there is nothing left to end."""
    raw_headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]
    raw_headers += [
        (name.encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()
    ]
    connection = SseConnection(send, receive)
    try:
        await send({"type": "http.response.start", "status": 200, "headers": raw_headers})
        yield connection
    finally:
        connection.gone.cancel()
        try:
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except Exception as error:  # the connection may be gone already: nothing left to end
            log_send_failure("the end of an SSE response", error)


async def _disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


# --8<-- [end:sse_response]
