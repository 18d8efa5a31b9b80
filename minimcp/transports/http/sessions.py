"""The sessions of a Streamable HTTP endpoint: each one a cable to a ServerSession (lesson 08).

Behind each ``Mcp-Session-Id`` sits an :class:`HttpSession`: a
:class:`~minimcp.transports.http.session_transport.SessionTransport` (a Transport like any other,
over which the server runs an ordinary session), the SSE streams of that session, and the POSTed
requests still waiting for their answers. The :class:`SessionManager` opens
sessions, finds them by id, caps their number, and ends the ones nobody has used for a while.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

from minimcp.rpc import Servable
from minimcp.rpc.aio import TaskKeeper
from minimcp.rpc.jsonrpc import Message, Notification, Request, RequestId, id_reused
from minimcp.transports.event_store import EventStore
from minimcp.transports.http.asgi import SHUTTING_DOWN, Refusal
from minimcp.transports.http.routing import ANNOUNCEMENTS, DROP, stream_for
from minimcp.transports.http.session_transport import SessionTransport
from minimcp.transports.http.streams import Cancelled, CloseConnection, Exchange, Said, Stream

log = logging.getLogger("minimcp.http")


class HttpSession:
    """One MCP session over HTTP: a ServerSession, its streams, and the requests in flight."""

    def __init__(
        self,
        manager: SessionManager,
        session_id: str | None = None,
        announcements: str | None = None,
        state: dict[str, Any] | None = None,
    ) -> None:
        self.manager = manager
        # 16 random bytes (128 bits) as 32 hex digits: unguessable, and only visible ASCII, as the
        # spec requires.
        self.id = session_id or secrets.token_hex(16)
        # With a ``state``: a session taken over (lesson 11)
        self.transport = manager.make_transport(self, state)
        self.exchanges: dict[RequestId, Exchange] = {}  # POSTed requests not yet answered
        self.streams: dict[str, Stream] = {}  # every stream of this session, by id, for resumption
        # The GET stream, for the session's life
        self.announcements = self.new_stream(None, announcements)
        self.last_active = time.monotonic()
        # HTTP requests of this session being served right now (open streams included)
        self.busy = 0
        self.ended = False
        self.opening = True  # until the initialize that opened it is being answered
        # Until the client confirms the handshake (notifications/initialized)
        self.initialized = False
        self.created = time.monotonic()
        self.owner = ""  # who opened it (see HttpRequest.owner), for the cap per owner
        self.task = asyncio.get_running_loop().create_task(manager.server.serve(self.transport))
        self.task.add_done_callback(lambda _task: manager.forget(self))

    def new_stream(
        self, request_id: RequestId | None = None, stream_id: str | None = None
    ) -> Stream:
        """A new stream of this session, the answer to request ``request_id`` (None: GET's)."""
        stream = self.manager.make_stream(self, stream_id, request_id)
        self.streams[stream.id] = stream
        self._forget_old_streams()
        return stream

    def _forget_old_streams(self) -> None:
        """Keep at most ``max_streams`` finished POST streams: a long session must not grow."""
        finished = [s for s in self.streams.values() if s.finished and s.listener is None]
        for stream in finished[: max(0, len(finished) - self.manager.max_streams)]:
            del self.streams[stream.id]
            # Forget its events too
            self.manager.background.spawn(self.manager.event_store.forget(stream.id))

    # --8<-- [start:route]
    async def route(self, message: Message, related_request_id: RequestId | None) -> None:
        """Put one message from the server on exactly one stream (the rule: :func:`stream_for`),
        encoded here, once: streams and the event store keep that text."""
        said = Said.of(message)  # a result that is not JSON fails here, before anything is kept
        where = stream_for(said.final, related_request_id, self.exchanges)
        if where == DROP:  # its POST is gone (the session is ending): nobody can receive it
            log.debug("dropping an answer with no request waiting: %s", said.text[:100])
        elif where == ANNOUNCEMENTS:
            await self.announcements.send(said.text)
        else:
            exchange = self.exchanges.pop(where) if said.final else self.exchanges[where]
            if exchange.stream is not None:
                await exchange.stream.send(said.text, final=said.final)
            else:
                exchange.put(said)

    # --8<-- [end:route]

    # --8<-- [start:admit]
    async def admit(self, message: Message, stream_id: str | None = None) -> Exchange | None:
        """Take in a POSTed message and hand it to the ServerSession: a request gets the
        :class:`Exchange` its answer will arrive through (answered on stream ``stream_id`` if given:
        lesson 11's worker forwarded it, with a stream already followed); anything else, None.

        Raises the JSON-RPC error (-32600) of a request whose id names one still being answered.
        """
        exchange = None
        if isinstance(message, Request):
            if message.id in self.exchanges:
                raise id_reused(message.id)
            exchange = self.exchanges[message.id] = Exchange()
            if stream_id is not None:
                exchange.stream = self.new_stream(message.id, stream_id)
        elif isinstance(message, Notification) and message.method == "notifications/initialized":
            self.initialized = True  # the handshake is complete: no longer half-open
        await self.transport.deliver(message)
        return exchange

    # --8<-- [end:admit]

    def stream(self, stream_id: str) -> Stream | None:
        """The stream ``stream_id`` of this session, to resume; None if it has none of that id."""
        return self.streams.get(stream_id)

    def close_request_connection(self, request_id: RequestId, retry_ms: int | None) -> bool:
        """End the connection under a request's stream; the client resumes it after ``retry_ms``."""
        exchange = self.exchanges.get(request_id)
        if exchange is None:
            return False
        if exchange.stream is not None:
            exchange.stream.close_connection(retry_ms)
        else:  # not streaming yet: the POST will open the stream, then close the connection
            exchange.put(CloseConnection(retry_ms))
        return True

    def end_request(self, request_id: RequestId) -> None:
        """A request was cancelled: no answer will come to end its POST's stream, so end it now."""
        exchange = self.exchanges.pop(request_id, None)
        if exchange is None:  # answered already: its stream has ended on its own
            return
        if exchange.stream is not None:
            exchange.stream.end()
        else:  # the POST has not chosen JSON or SSE yet: a stream, which ends at once
            exchange.put(Cancelled())

    # --8<-- [start:end_session]
    async def end(self) -> None:
        """End the session: stop its ServerSession, close its streams, forget its events."""
        if self.ended:
            return
        self.ended = True
        self.manager.forget(self)
        self.task.cancel()  # the client is gone for good: requests still running are cancelled
        await asyncio.gather(self.task, return_exceptions=True)
        for exchange in self.exchanges.values():
            exchange.put(None)  # a POST still deciding: the session is gone
        self.exchanges.clear()
        for stream in list(self.streams.values()):
            stream.close_connection()
            # Lesson 11: not when a worker leaves, others go on with it
            if self.manager.forgets_on_end:
                await self.manager.event_store.forget(stream.id)

    # --8<-- [end:end_session]


def full(why: str) -> Refusal:
    """503 with Retry-After: a session ends within the timeouts, and a place comes free."""
    return Refusal(503, f"Service unavailable: {why}", headers={"retry-after": "10"})


class SessionManager:
    """Every session of one endpoint: opened on ``initialize``, found by id, ended when idle."""

    def __init__(
        self,
        server: Servable,
        event_store: EventStore,
        *,
        max_sessions: int = 1000,
        max_sessions_per_owner: int | None = None,
        session_timeout: float = 600.0,
        handshake_timeout: float = 30.0,
        max_streams: int = 100,
    ) -> None:
        self.server = server  # what each session serves: server.serve(transport)
        self.event_store = event_store
        self.max_sessions = max_sessions
        # One client (a peer address; lesson 10: a user) must not fill the cap for everyone
        self.max_sessions_per_owner = max_sessions_per_owner
        # Seconds without any request before a session expires
        self.session_timeout = session_timeout
        # Seconds a session may stay half-open (initialize answered, initialized never sent).
        # Opening sessions costs one request each: a flood of them must not hold the cap for
        # session_timeout.
        self.handshake_timeout = handshake_timeout
        # Finished POST streams kept per session, for late resumption
        self.max_streams = max_streams
        self.sessions: dict[str, HttpSession] = {}
        self.forgets_on_end = True  # an ended session's events go with it (see HttpSession.end)
        self.closing = False  # set by close(): from then on, no new session is opened
        self._reaper: asyncio.Task[None] | None = None
        self.background = TaskKeeper()  # expired sessions being ended, old streams being forgotten
        # Called with a session's id when it leaves, however it ends (expired, deleted, or its
        # server stopped): what a later lesson keeps about a session lives as long as it does
        # (lesson 10's guard: who opened it).
        self.on_forget: list[Callable[[str], None]] = []

    # --8<-- [start:new_session]
    def new_session(self, owner: str = "") -> HttpSession:
        """A new session for ``owner``; 503 (Retry-After) if the server or the owner is full."""
        # A session opened now would outlive close(), and its streams hold the shutdown up
        if self.closing:
            raise Refusal(503, SHUTTING_DOWN)
        if len(self.sessions) >= self.max_sessions or self.owner_full(owner):
            self.expire_sessions()
        if len(self.sessions) >= self.max_sessions:
            raise full(f"{self.max_sessions} sessions already open")
        if self.owner_full(owner):
            raise full(f"{self.max_sessions_per_owner} sessions already open for this client")
        session = HttpSession(self)
        session.owner = owner
        self.sessions[session.id] = session
        return session

    def owner_full(self, owner: str) -> bool:
        if self.max_sessions_per_owner is None:
            return False
        owned = sum(1 for session in self.sessions.values() if session.owner == owner)
        return owned >= self.max_sessions_per_owner

    # --8<-- [end:new_session]

    def make_transport(
        self, session: HttpSession, state: dict[str, Any] | None = None
    ) -> SessionTransport:
        """The cable under a session (lesson 11's keeps its state in Redis, restores ``state``)."""
        return SessionTransport(session)

    def make_stream(
        self,
        session: HttpSession,
        stream_id: str | None = None,
        request_id: RequestId | None = None,
    ) -> Stream:
        """A stream of ``session`` (lesson 11's live in Redis, and remember ``request_id``)."""
        return Stream(self.event_store, stream_id)

    def restore(self, session_id: str, announcements: str, state: dict[str, Any]) -> HttpSession:
        """Run here a session another process started (lesson 11: its worker died)."""
        session = HttpSession(self, session_id, announcements, state)
        session.opening = False
        session.initialized = state.get("lifecycle") == "ready"
        self.sessions[session.id] = session
        return session

    def forget(self, session: HttpSession) -> None:
        if self.sessions.get(session.id) is session:
            del self.sessions[session.id]
            for forgotten in self.on_forget:
                forgotten(session.id)

    # --8<-- [start:expiry]
    def expire_sessions(self) -> None:
        """End the sessions unused for ``session_timeout`` seconds, and the half-open ones."""
        now = time.monotonic()
        for session in list(self.sessions.values()):
            half_open = not session.initialized and now - session.created > self.handshake_timeout
            if session.busy == 0 and (
                half_open or now - session.last_active > self.session_timeout
            ):
                log.info("session %s… expired", session.id[:8])
                # Forgotten at once: its place is free now, and its id gets 404 from now on
                self.forget(session)
                self.background.spawn(session.end())

    def start_reaper(self) -> None:
        if self._reaper is None or self._reaper.done():
            self._reaper = asyncio.get_running_loop().create_task(self._reap())

    async def _reap(self) -> None:
        while True:
            await asyncio.sleep(
                max(0.05, min(self.session_timeout / 4, self.handshake_timeout / 4, 30.0))
            )
            self.expire_sessions()

    # --8<-- [end:expiry]

    async def close(self) -> None:
        """End every session (their open streams close too): the server is going away."""
        self.closing = True
        if self._reaper is not None:
            self._reaper.cancel()
        await asyncio.gather(*(session.end() for session in list(self.sessions.values())))
        await self.background.wait()
