"""Lesson 08's endpoint on several workers sharing one Redis, with no sticky sessions (lesson 11).

Any request may reach any worker. A worker serves what it can and hands on the rest:

* ``initialize`` opens a session **here**; its state goes to the session directory (Redis) before
  the client hears the answer, with this worker as its owner;
* a request for a session this worker runs: exactly lesson 08;
* a request for a session another *live* worker runs: **forwarded** through Redis to that worker
  (:class:`~minimcp.transports.cluster.relay.Relay`); the answer's events come back through the
  stream's Redis entries, which this worker follows and writes to its client
  (:class:`~minimcp.transports.cluster.streams.SharedStream`);
* a request for a session whose worker **died**: this worker takes the session over (once, even when
  several try), rebuilds it from its saved state, ends with an error each request that was running
  there, and serves it from now on;
* ``GET`` and ``DELETE`` the same way: any worker follows any stream, and resumes it with
  ``Last-Event-ID``.

Forged or foreign session ids and stream ids get lesson 08's answers (404, 400) on every worker, and
Redis going away is a 503 that says the shared store is unavailable, with ``Retry-After``.
"""

from __future__ import annotations

import asyncio
import enum
import functools
import secrets
import time
from collections.abc import Callable
from typing import Any

from minimcp.rpc.jsonrpc import INTERNAL_ERROR, Message, Request, to_dict
from minimcp.transports.cluster.directory import SessionDirectory, SessionRecord
from minimcp.transports.cluster.redis_store import RedisEventStore, StoreUnavailable
from minimcp.transports.cluster.relay import Relay
from minimcp.transports.cluster.sessions import SharedSessionManager
from minimcp.transports.cluster.streams import Refused, SharedStream
from minimcp.transports.event_store import StoredEvent
from minimcp.transports.http.app import StreamableHTTP
from minimcp.transports.http.asgi import (
    SESSION_HEADER,
    HttpRequest,
    Receive,
    Refusal,
    Send,
    send_refusal,
    send_response,
)
from minimcp.transports.http.routing import First, answer_as
from minimcp.transports.http.seams import McpServer, OpenSession
from minimcp.transports.http.sessions import SessionManager
from minimcp.transports.http.streams import CloseConnection, Listener, Stream, pump


class RemoteSession:
    """A session another worker runs, seen from here: what lesson 08's GET and DELETE need of it
    (:class:`~minimcp.transports.http.app.OpenSession`). Its streams are followed only when read."""

    def __init__(self, endpoint: SharedStreamableHTTP, record: SessionRecord) -> None:
        self.endpoint = endpoint
        self.id = record.id
        self.owner = record.owner
        self.record = record
        self.busy = 0
        self.last_active = time.monotonic()

    @functools.cached_property
    def announcements(self) -> Stream:
        return self.endpoint.follower(self, self.record.announcements)

    def stream(self, stream_id: str) -> Stream | None:
        return self.endpoint.follower(self, stream_id) if stream_id in self.record.streams else None

    async def end(self) -> None:
        if await self.endpoint.tell(self, {"kind": "delete"}):
            return
        # Its worker died: ours now, or another's
        taken_over = self.endpoint.manager.sessions.get(self.id)
        if taken_over is None:
            raise Refusal(
                503,
                "Service unavailable: the session is moving to another worker; try again",
                INTERNAL_ERROR,
                headers={"retry-after": "1"},
            )
        await taken_over.end()


class Where(enum.Enum):
    """Where a session runs, as seen by one worker."""

    HERE = "here"  # this worker runs it: perhaps taken over just now
    ELSEWHERE = "elsewhere"  # another live worker runs it: forward to it, follow its streams
    NOWHERE = "nowhere"  # unknown, ended or expired: lesson 08's 404


class SharedStreamableHTTP(StreamableHTTP):
    """The Streamable HTTP endpoint of one worker among several that share ``redis_url``."""

    manager: SharedSessionManager
    event_store: RedisEventStore

    def __init__(
        self,
        server: McpServer,
        redis_url: str = "redis://127.0.0.1:6379/0",
        *,
        worker: str | None = None,
        max_event_bytes: int = 64 * 1024 * 1024,
        **options: Any,
    ) -> None:
        self.worker = worker or secrets.token_hex(4)
        ttl = options.get("session_timeout", 600.0)
        store = RedisEventStore(redis_url, ttl=ttl, max_bytes=max_event_bytes)
        self.directory = SessionDirectory(store, self.worker, ttl)
        super().__init__(server, event_store=store, **options)
        self.relay = Relay(
            store.redis, self.worker, self.manager.on_forwarded, self.manager.register_again
        )

    def new_manager(self, server: McpServer, event_store: Any, **limits: Any) -> SessionManager:
        return SharedSessionManager(server, event_store, self.directory, **limits)

    async def startup(self) -> None:
        await self.relay.start()

    async def close(self) -> None:
        """Stop this worker. Its sessions are not ended but left: it stops listening first (so
        others see it gone and forward nothing more), then closes its connections; the clients come
        back through other workers, which take the sessions over (lesson 08's DELETE still ends a
        session for good)."""
        if self.relay.stopped:
            return
        await self.stand_alone.close()  # lesson 12's requests in flight: answered
        await self.relay.stop()
        await self.manager.leave()
        await self.event_store.close()

    async def serve_request(self, request: HttpRequest, receive: Receive, send: Send) -> None:
        try:
            await super().serve_request(request, receive, send)
        except StoreUnavailable as error:
            # Redis is away: say so, and nothing of how (the log has the reason); the worker
            # recovers when it returns
            refusal = Refusal(
                503, f"Service unavailable: {error}", INTERNAL_ERROR, headers={"retry-after": "1"}
            )
            await send_refusal(send, refusal)

    # --8<-- [start:locate]
    async def locate(
        self, session_id: str, touch: bool = False
    ) -> tuple[Where, SessionRecord | None]:
        """The one place that decides where a session runs. A session whose worker died is taken
        over on the way (once, even when several workers try): then it is here, or with whoever won.

        ``touch``: ask the owner with a "touch" (a client still reads a stream of it: it must not
        expire) instead of only asking Redis whether the owner listens."""
        for _ in range(3):  # another worker may take a dead owner's session over while we look
            if session_id in self.manager.sessions:
                return Where.HERE, None
            record = await self.directory.find(session_id)
            if record is None and self.relay.just_back():  # its owner may not have saved it again
                raise StoreUnavailable()
            if record is None:
                return Where.NOWHERE, None
            if record.owner == self.worker:
                return Where.HERE, record
            if await self.owner_alive(record, touch):
                return Where.ELSEWHERE, record
            await self.manager.take_over(record)
        return (Where.HERE if session_id in self.manager.sessions else Where.NOWHERE), None

    async def owner_alive(self, record: SessionRecord, touch: bool) -> bool:
        if touch:
            return await self.directory.tell(record.owner, {"session": record.id, "kind": "touch"})
        return await self.directory.alive(record.owner)

    async def elsewhere(self, request: HttpRequest) -> RemoteSession | None:
        """The session the request names, if another live worker runs it; None if it is ours or
        unknown (lesson 08's answers follow: served here, or 404)."""
        session_id = request.headers.get(SESSION_HEADER)
        if session_id is None:
            return None
        where, record = await self.locate(session_id)
        if where is not Where.ELSEWHERE or record is None:
            return None
        self.check_version(request)
        return RemoteSession(self, record)

    async def find_session(self, request: HttpRequest) -> OpenSession:
        return await self.elsewhere(request) or self.session_for(request)

    # --8<-- [end:locate]

    # --8<-- [start:forward]
    async def post(self, request: HttpRequest, receive: Receive, send: Send) -> None:
        message = await self.read_message(request, receive)
        remote = await self.elsewhere(request)
        if remote is None or not await self.forward(remote, message, send, receive):
            await self.post_here(request, message, send, receive)

    async def forward(
        self, remote: RemoteSession, message: Message, send: Send, receive: Receive
    ) -> bool:
        """Hand a POSTed message to the worker running its session; False if that worker died (then
        the session is ours now, and the caller serves the message here). Redis is a byte edge: the
        message crosses it inside the forwarded JSON, encoded once and decoded once."""
        forwarded = {"kind": "message", "message": to_dict(message)}
        if not isinstance(message, Request):  # a notification, or the client's answer to a question
            if not await self.tell(remote, forwarded):
                return False
            await send_response(send, 202)
            return True
        # The answer's stream: registered and followed before the request leaves: nothing is missed.
        stream = self.follower(remote, None)
        await self.directory.add_stream(remote.id, stream.id, message.id)
        listener = await stream.attach()
        priming = StoredEvent(await self.event_store.append(stream.id, ""), "")
        if not await self.tell(remote, {**forwarded, "stream": stream.id}):
            stream.detach(listener)
            return False
        first = await self.first_news(listener, priming)
        if isinstance(first, Refused):
            stream.detach(listener)
            raise Refusal(
                first.status,
                first.message,
                first.code or INTERNAL_ERROR,
                request_id=first.request_id,
            )
        if answer_as(said_first(first, stream.final_event)) == "json":  # lesson 08's rule
            stream.discard(listener)
            await send_response(send, 200, first.data.encode(), "application/json")
            return True
        already = [priming]
        if isinstance(first, StoredEvent):
            already.append(first)
        # The connection is to close (or the stream to end): after the priming
        elif first is not None:
            listener.put_nowait(first)
        await pump(send, receive, stream, listener, already, {}, self.retry_ms, self.keepalive)
        return True

    async def first_news(self, listener: Listener, priming: StoredEvent) -> Any:
        """What the forwarded request's stream said first, after its priming event (None: nothing
        yet)."""
        try:
            async with asyncio.timeout(self.stream_after):
                while True:
                    item = await listener.get()
                    if not (isinstance(item, StoredEvent) and item.id == priming.id):
                        return item
        except TimeoutError:
            return None

    async def tell(self, remote: RemoteSession, message: dict[str, Any]) -> bool:
        """Forward to the session's worker; if it died, take the session over and say False."""
        if await self.directory.tell(remote.owner, {"session": remote.id, **message}):
            return True
        await self.locate(remote.id)  # takes it over, if its worker is still dead
        return False

    # --8<-- [end:forward]

    def follower(self, remote: RemoteSession, stream_id: str | None) -> SharedStream:
        """A stream of another worker's session, followed from here."""

        async def watch() -> bool:  # every second of silence: is the session still there, anywhere?
            where, _ = await self.locate(remote.id, touch=True)  # a dead worker's: taken over now
            return where is not Where.NOWHERE  # ended or expired: close the connection

        manager = self.manager
        return SharedStream(
            self.event_store, stream_id, watch, manager.background, following=manager.following
        )


def said_first(
    first: StoredEvent | CloseConnection | None, final_event: str | None
) -> First | None:
    """What a forwarded request's stream said first, in lesson 08's words (None: nothing yet)."""
    if first is None:
        return None
    if isinstance(first, CloseConnection):
        return "close"
    return "answer" if first.id == final_event else "message"


def on_redis(
    redis_url: str, worker: str | None = None, max_event_bytes: int = 64 * 1024 * 1024
) -> Callable[..., SharedStreamableHTTP]:
    """What ``start_http(server, endpoint=...)`` builds: a worker among several on ``redis_url``,
    its events within ``max_event_bytes`` (for all the workers together)."""
    return functools.partial(
        SharedStreamableHTTP, redis_url=redis_url, worker=worker, max_event_bytes=max_event_bytes
    )
