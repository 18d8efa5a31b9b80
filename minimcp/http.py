"""Streamable HTTP: the same server over POST, GET and DELETE, with resumable SSE (lesson 08).

One URL, the **MCP endpoint** (``http://127.0.0.1:8000/mcp``), and three HTTP methods
(spec 2025-11-25, basic/transports, "Streamable HTTP"):

* **POST** carries one JSON-RPC message from the client. A notification or a response is answered
  ``202 Accepted``. A request is answered either with one JSON object (``application/json``) or with
  an SSE stream (``text/event-stream``) that carries the request's progress and ends with its
  response. The server chooses: a request answered quickly gets JSON; one that sends something
  before its answer (progress, a log line, a question back) or that is still running after
  ``stream_after`` seconds gets a stream.
* **GET** opens the *announcement channel*: an SSE stream for what the server says on its own, such
  as ``notifications/tools/list_changed``. With a ``Last-Event-ID`` header it instead *resumes* a
  stream that dropped (a POST's or the GET's own): the server replays what came after that event.
* **DELETE** ends the session.

The ``initialize`` response carries an ``Mcp-Session-Id`` header; every later request carries it
back, and ``MCP-Protocol-Version`` too. Behind each session id sits an ordinary
:class:`~minimcp.session.ServerSession` served by ``Server.serve`` over a :class:`SessionTransport`,
exactly as over stdio and WebSocket: this module turns HTTP requests into messages on that transport,
and routes the messages the session sends onto the right SSE stream. It knows nothing of tools,
resources or prompts.

``python -m minimcp serve --transport http --port 8000`` serves the course's example server with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import socket
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .connection import request_being_answered
from .event_store import EventStore, MemoryEventStore, StoredEvent, UnknownEventId, new_stream_id, parse_event_id
from .framing import DEFAULT_MAX_FRAME
from .jsonrpc import (
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    ErrorResponse,
    Request,
    RequestId,
    Response,
    RpcError,
    encode,
    parse,
)
from .server import Server
from .session import SUPPORTED_PROTOCOL_VERSIONS, RequestContext
from .sse import format_comment, format_event
from .websocket import LOOPBACK_HOSTS, origin_allowed  # the same guard as lesson 07's WebSocket

log = logging.getLogger("minimcp.http")

# ASGI, the interface between an async Python web server (uvicorn) and an application: the
# application is a coroutine called once per HTTP request with `scope` (method, path, headers),
# `receive` (the body, and news of a disconnect) and `send` (the status and headers, then the body,
# in as many pieces as it likes: that is what makes streaming possible).
Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

SESSION_HEADER = "mcp-session-id"
VERSION_HEADER = "mcp-protocol-version"


# -- streams ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CloseConnection:
    """Put in a listener's queue: end this HTTP connection (the stream itself lives on)."""

    retry_ms: int | None = None


Listener = asyncio.Queue  # of StoredEvent | CloseConnection: what one open connection still has to write


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
        self._lock = asyncio.Lock()  # events are stored and delivered in the order they were sent

    async def send(self, message: str, *, final: bool = False) -> None:
        async with self._lock:
            await self._append(message, final)

    async def open(
        self, earlier: Callable[[], Iterable[tuple[str, bool]]] = list,
    ) -> tuple[Listener, StoredEvent]:
        """Attach a new connection and store its priming event, then the messages ``earlier()`` gives
        (what a request said before its stream existed), with no other message slipping in between.

        The priming event must be the first event the connection writes, with an id below those of
        the messages after it, and the messages must keep their order, even when the store's
        ``append`` takes a while (a store over the network): hence the lock.
        """
        async with self._lock:
            listener = self.attach()
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

    def attach(self) -> Listener:
        """A new connection for this stream. The newest wins: a previous one is closed."""
        if self.listener is not None:
            self.listener.put_nowait(CloseConnection())
        self.listener = asyncio.Queue()
        return self.listener

    def detach(self, listener: Listener) -> None:
        if self.listener is listener:
            self.listener = None

    def close_connection(self, retry_ms: int | None = None) -> None:
        """End the connection attached now (if any); the client will resume after ``retry_ms``."""
        if self.listener is not None:
            self.listener.put_nowait(CloseConnection(retry_ms))
            self.listener = None
# --8<-- [end:stream]


class Exchange:
    """What the session says about one POSTed request, until the POST decides JSON or SSE.

    Before the decision, messages wait in ``pending`` (``None`` there: the session ended), and
    ``arrived`` tells the POST that the first one came; after it, they go straight to ``stream``.
    """

    def __init__(self) -> None:
        self.pending: list[tuple[str, bool] | CloseConnection | None] = []
        self.arrived: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.stream: Stream | None = None

    def put(self, item: tuple[str, bool] | CloseConnection | None) -> None:
        self.pending.append(item)
        if not self.arrived.done():
            self.arrived.set_result(None)


# -- one session --------------------------------------------------------------------------------
# --8<-- [start:session_transport]
class SessionTransport:
    """The cable between one HTTP session and its ServerSession: a Transport like any other.

    ``receive`` returns what clients POSTed; ``send`` hands the session's messages to
    :meth:`HttpSession.route`, which puts each on the right stream.
    """

    def __init__(self, session: HttpSession) -> None:
        self.http_session = session
        self.inbox: asyncio.Queue[str | None] = asyncio.Queue()

    async def send(self, message: str) -> None:
        await self.http_session.route(message, request_being_answered(self))

    async def receive(self) -> str | None:
        return await self.inbox.get()

    async def close(self) -> None:
        self.inbox.put_nowait(None)
# --8<-- [end:session_transport]


class HttpSession:
    """One MCP session over HTTP: a ServerSession, its streams, and the requests in flight."""

    def __init__(self, app: StreamableHTTP) -> None:
        self.app = app
        # 32 random bytes as hex: unguessable, and only visible ASCII, as the spec requires.
        self.id = secrets.token_hex(16)
        self.transport = SessionTransport(self)
        self.exchanges: dict[RequestId, Exchange] = {}  # POSTed requests not yet answered
        self.streams: dict[str, Stream] = {}  # every stream of this session, by id, for resumption
        self.announcements = self.new_stream()  # the GET stream: one per session, for its whole life
        self.last_active = time.monotonic()
        self.busy = 0  # HTTP requests of this session being served right now (open streams included)
        self.ended = False
        self.task = asyncio.ensure_future(app.server.serve(self.transport))
        self.task.add_done_callback(lambda _task: app.forget(self))

    @property
    def server_session(self) -> Any:
        """The ServerSession behind this HTTP session (for its negotiated version, its state)."""
        for session in self.app.server.sessions:
            if session.connection.transport is self.transport:
                return session
        return None

    def new_stream(self) -> Stream:
        stream = Stream(self.app.event_store)
        self.streams[stream.id] = stream
        self._forget_old_streams()
        return stream

    def _forget_old_streams(self) -> None:
        """Keep at most ``max_streams`` finished POST streams: a long session must not grow forever."""
        finished = [s for s in self.streams.values() if s.final_event is not None and s.listener is None]
        for stream in finished[: max(0, len(finished) - self.app.max_streams)]:
            del self.streams[stream.id]

    # --8<-- [start:route]
    async def route(self, message: str, answering: Request | None) -> None:
        """Put one message from the server on exactly one stream.

        * a response goes where its request came from: that POST's answer;
        * a request or notification sent *while answering* a request (progress, a log line, a
          question back to the client) goes to that request's stream too;
        * anything else (``list_changed``, a ping from the server) goes to the announcement channel.
        """
        kind = parse(message)
        final = isinstance(kind, (Response, ErrorResponse))
        request_id = kind.id if final else (answering.id if answering is not None else None)
        exchange = self.exchanges.get(request_id) if request_id is not None else None
        if exchange is None:
            if final:  # its POST is gone (the session is ending): nobody can receive it
                log.debug("dropping an answer with no request waiting: %s", message[:100])
                return
            await self.announcements.send(message)
            return
        if final:
            del self.exchanges[request_id]
        if exchange.stream is not None:
            await exchange.stream.send(message, final=final)
        else:
            exchange.put((message, final))
    # --8<-- [end:route]

    def deliver(self, message: str) -> None:
        """Hand a POSTed message to the ServerSession."""
        self.transport.inbox.put_nowait(message)

    def close_request_connection(self, request_id: RequestId, retry_ms: int | None) -> bool:
        exchange = self.exchanges.get(request_id)
        if exchange is None:
            return False
        if exchange.stream is not None:
            exchange.stream.close_connection(retry_ms)
        else:  # not streaming yet: the POST will open the stream, then close the connection
            exchange.put(CloseConnection(retry_ms))
        return True

    # --8<-- [start:end_session]
    async def end(self) -> None:
        """End the session: stop its ServerSession, close its streams, forget its events."""
        if self.ended:
            return
        self.ended = True
        self.app.forget(self)
        self.task.cancel()  # the client is gone for good: requests still running are cancelled
        await asyncio.gather(self.task, return_exceptions=True)
        for exchange in self.exchanges.values():
            exchange.put(None)  # a POST still deciding: the session is gone
        self.exchanges.clear()
        for stream in list(self.streams.values()):
            stream.close_connection()
            await self.app.event_store.forget(stream.id)
    # --8<-- [end:end_session]


# --8<-- [start:close_sse_stream]
def close_sse_stream(context: RequestContext, retry_ms: int | None = None) -> bool:
    """End the HTTP connection carrying this request's SSE stream, without ending the stream.

    The client reconnects after ``retry_ms`` with ``Last-Event-ID`` and gets the rest, the response
    included (the spec's "polling", SEP-1699). A server does this to avoid holding a connection open
    for a long task. False when the request did not arrive over Streamable HTTP: nothing to close.
    """
    transport = context.session.connection.transport
    if not isinstance(transport, SessionTransport):
        return False
    return transport.http_session.close_request_connection(context.request.id, retry_ms)
# --8<-- [end:close_sse_stream]


# -- HTTP in and out --------------------------------------------------------------------------------
@dataclass
class HttpRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names; a repeated header's values joined with ", "

    @classmethod
    def from_scope(cls, scope: Scope) -> HttpRequest:
        headers: dict[str, str] = {}
        for raw_name, raw_value in scope["headers"]:
            name, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        return cls(scope["method"], scope["path"], headers)

    def accepts(self, media_type: str) -> bool:
        """Does the ``Accept`` header allow ``media_type`` (wildcards included)?"""
        kind = media_type.split("/")[0]
        for item in self.headers.get("accept", "").split(","):
            offered = item.split(";")[0].strip().lower()
            if offered in (media_type, f"{kind}/*", "*/*"):
                return True
        return False


class Refusal(Exception):
    """An HTTP error answer: the status, and a JSON-RPC error (without an id) as its body."""

    def __init__(self, status: int, message: str, code: int = INVALID_REQUEST,
                 headers: dict[str, str] | None = None, request_id: RequestId | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.headers = headers or {}
        self.request_id = request_id


async def send_response(send: Send, status: int, body: bytes = b"", content_type: str | None = None,
                        headers: dict[str, str] | None = None) -> None:
    """A whole, ordinary HTTP response in one go."""
    raw = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in (headers or {}).items()]
    if content_type:
        raw.append((b"content-type", content_type.encode("latin-1")))
    raw.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


async def send_refusal(send: Send, refusal: Refusal) -> None:
    error = ErrorResponse(refusal.request_id, refusal.code, str(refusal))
    await send_response(send, refusal.status, encode(error).encode(), "application/json", refusal.headers)


async def read_body(receive: Receive, limit: int) -> bytes:
    """The request body, or :class:`Refusal` 413 as soon as it grows past ``limit`` bytes."""
    chunks, size = [], 0
    while True:
        event = await receive()
        if event["type"] == "http.disconnect":
            raise ConnectionError("the client went away while sending its request")
        chunk = event.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise Refusal(413, f"Request body larger than {limit} bytes")
        chunks.append(chunk)
        if not event.get("more_body", False):
            return b"".join(chunks)


# --8<-- [start:pump]
async def pump(send: Send, receive: Receive, stream: Stream, listener: Listener, first: list[StoredEvent],
               headers: dict[str, str], retry_ms: int, keepalive: float) -> None:
    """Write one SSE connection: the headers, the ``first`` events (priming or replay), then live ones.

    Ends when the stream's last event is written, when the server closes the connection, or when the
    client goes away. Events are already stored: whatever this connection fails to deliver, the next
    one replays.
    """
    raw_headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]
    raw_headers += [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()]

    async def watch_disconnect() -> None:  # the client hung up: this connection is over
        while (await receive())["type"] != "http.disconnect":
            pass
        listener.put_nowait(CloseConnection())

    watcher = asyncio.ensure_future(watch_disconnect())
    written: set[str] = set()
    try:
        await send({"type": "http.response.start", "status": 200, "headers": raw_headers})
        for event in first:
            await write_event(send, event, retry_ms if not event.data else None)
            written.add(event.id)
        if stream.final_event in written:
            return
        while True:
            try:
                item = await asyncio.wait_for(listener.get(), keepalive)
            except asyncio.TimeoutError:  # nothing to say for a while: a comment keeps proxies patient
                await send({"type": "http.response.body", "body": format_comment("keep-alive"),
                            "more_body": True})
                continue
            if isinstance(item, CloseConnection):
                if item.retry_ms is not None:  # "come back in retry_ms": a retry field, then the end
                    await send({"type": "http.response.body", "body": format_event(retry=item.retry_ms),
                                "more_body": True})
                return
            if item.id in written:  # already sent in the replay
                continue
            await write_event(send, item)
            written.add(item.id)
            if item.id == stream.final_event:  # the response: this stream is complete
                return
    finally:
        watcher.cancel()
        stream.detach(listener)
        try:
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except Exception:  # the connection is already gone
            pass


async def write_event(send: Send, event: StoredEvent, retry_ms: int | None = None) -> None:
    """One stored event on the wire. An empty one is a priming event: its id, empty data, and ``retry``."""
    body = format_event(event.data, id=event.id, retry=retry_ms)
    await send({"type": "http.response.body", "body": body, "more_body": True})
# --8<-- [end:pump]


# -- the application --------------------------------------------------------------------------------
# --8<-- [start:app]
class StreamableHTTP:
    """The ASGI application: one MCP endpoint in front of one :class:`~minimcp.server.Server`."""

    def __init__(self, server: Server, *, path: str = "/mcp", event_store: EventStore | None = None,
                 allowed_hosts: Iterable[str] = (), allowed_origins: Iterable[str] = (),
                 max_body: int = DEFAULT_MAX_FRAME, max_sessions: int = 1000,
                 session_timeout: float = 600.0, stream_after: float = 0.5, retry_ms: int = 1000,
                 keepalive: float = 15.0, max_streams: int = 100) -> None:
        self.server = server
        self.path = path
        self.event_store = event_store if event_store is not None else MemoryEventStore()
        self.allowed_hosts = {*LOOPBACK_HOSTS, *(host.lower() for host in allowed_hosts)}
        self.allowed_origins = {origin.lower().rstrip("/") for origin in allowed_origins}
        self.max_body = max_body  # bytes in one POST
        self.max_sessions = max_sessions
        self.session_timeout = session_timeout  # seconds without any request before a session expires
        self.stream_after = stream_after  # seconds a request may take and still be answered as JSON
        self.retry_ms = retry_ms  # what the priming event tells clients to wait before reconnecting
        self.keepalive = keepalive  # seconds of silence before a stream gets a keep-alive comment
        self.max_streams = max_streams  # finished POST streams kept per session, for late resumption
        self.sessions: dict[str, HttpSession] = {}
        self.closing = False  # set by close(): from then on, no new session is opened
        self._reaper: asyncio.Task[None] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        self._start_reaper()
        request = HttpRequest.from_scope(scope)
        try:
            self.check_guards(request)
            if request.method == "POST":
                await self.post(request, receive, send)
            elif request.method == "GET":
                await self.get(request, receive, send)
            else:  # DELETE (check_guards let nothing else through)
                session = self.session_for(request)
                await session.end()
                await send_response(send, 200)
        except Refusal as refusal:
            await send_refusal(send, refusal)
        except ConnectionError as error:
            log.debug("%s %s: %s", request.method, request.path, error)
    # --8<-- [end:app]

    # --8<-- [start:guards]
    def check_guards(self, request: HttpRequest) -> None:
        """What every request must pass before anything else happens."""
        # DNS rebinding: a web page from evil.example can make the browser resolve evil.example to
        # 127.0.0.1 and talk to us. The browser still sends `Host: evil.example` and its `Origin`.
        host = urlsplit("//" + request.headers.get("host", "")).hostname or ""
        if host not in self.allowed_hosts:
            raise Refusal(421, f"Misdirected request: host {host!r} is not served here")
        origin = request.headers.get("origin")
        if origin is not None and not origin_allowed(origin, self.allowed_origins):  # lesson 07's rule
            raise Refusal(403, f"Forbidden: origin {origin!r} is not allowed")
        if request.path != self.path:
            raise Refusal(404, f"Not found: the MCP endpoint is {self.path}")
        if request.method not in ("POST", "GET", "DELETE"):
            raise Refusal(405, f"Method not allowed: {request.method}", headers={"allow": "GET, POST, DELETE"})

    # --8<-- [end:guards]

    # --8<-- [start:session_for]
    def session_for(self, request: HttpRequest) -> HttpSession:
        """The session a request names: 400 without an id, 404 for one we do not (or no longer) know."""
        session_id = request.headers.get(SESSION_HEADER)
        if session_id is None:
            raise Refusal(400, "Bad Request: missing Mcp-Session-Id header")
        session = self.sessions.get(session_id)
        if session is None:
            raise Refusal(404, "Session not found: it expired or was ended; initialize a new one")
        version = request.headers.get(VERSION_HEADER)
        if version is not None and version not in SUPPORTED_PROTOCOL_VERSIONS:
            raise Refusal(400, f"Bad Request: unsupported MCP-Protocol-Version {version!r} "
                          f"(supported: {', '.join(SUPPORTED_PROTOCOL_VERSIONS)})")
        session.last_active = time.monotonic()
        return session
    # --8<-- [end:session_for]

    # --8<-- [start:post]
    async def post(self, request: HttpRequest, receive: Receive, send: Send) -> None:
        if not (request.accepts("application/json") and request.accepts("text/event-stream")):
            raise Refusal(406, "Not Acceptable: Accept must list application/json and text/event-stream")
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type != "application/json":
            raise Refusal(415, "Unsupported Media Type: the body must be application/json")
        body = await read_body(receive, self.max_body)
        try:
            text = body.decode("utf-8")
            message = parse(text)
        except UnicodeDecodeError:
            raise Refusal(400, "Parse error: the body is not UTF-8", PARSE_ERROR) from None
        except RpcError as error:  # not JSON (-32700), or not one JSON-RPC message (-32600)
            raise Refusal(400, error.message, error.code, request_id=error.id) from None

        if isinstance(message, Request) and message.method == "initialize" \
                and SESSION_HEADER not in request.headers:
            session = self.new_session()
        else:
            try:
                session = self.session_for(request)
            except Refusal as refusal:
                # A request no session could answer (the 2026-07-28 probe `server/discover`) gets
                # "method not found", so that a newer client falls back to the handshake.
                if refusal.status == 400 and isinstance(message, Request) \
                        and not self.server.knows(message.method) and message.method != "ping":
                    raise Refusal(400, f"Method not found: {message.method}", METHOD_NOT_FOUND,
                                  request_id=message.id) from None
                raise
        if not isinstance(message, Request):  # a notification, or the client's answer to us
            session.deliver(text)
            await send_response(send, 202)
            return
        if message.id in session.exchanges:
            raise Refusal(400, f"Request id {message.id!r} is already in use", request_id=message.id)
        session.busy += 1
        try:
            await self.answer(session, message, text, send, receive)
        finally:
            session.busy -= 1
            session.last_active = time.monotonic()
    # --8<-- [end:post]

    # --8<-- [start:new_session]
    def new_session(self) -> HttpSession:
        if self.closing:  # a session opened now would outlive close(), and its streams hold the shutdown up
            raise Refusal(503, "Service unavailable: the server is shutting down")
        if len(self.sessions) >= self.max_sessions:
            self.expire_sessions()
        if len(self.sessions) >= self.max_sessions:
            raise Refusal(503, f"Service unavailable: {self.max_sessions} sessions already open",
                          headers={"retry-after": "10"})
        session = HttpSession(self)
        self.sessions[session.id] = session
        return session
    # --8<-- [end:new_session]

    # --8<-- [start:answer]
    async def answer(self, session: HttpSession, request: Request, text: str, send: Send,
                     receive: Receive) -> None:
        """Answer a POSTed request: as one JSON object if it is quick, as an SSE stream if not."""
        exchange = session.exchanges[request.id] = Exchange()
        session.deliver(text)
        initialize = request.method == "initialize"
        try:  # initialize is always quick and never streams: its answer must say if a session exists
            await asyncio.wait_for(exchange.arrived, None if initialize else self.stream_after)
        except asyncio.TimeoutError:
            first = None  # still running, with nothing said yet: stream it
        else:
            first = exchange.pending[0]
            if first is None:  # the session ended meanwhile
                raise Refusal(404, "Session not found: it was ended while the request ran")
            if isinstance(first, tuple) and first[1]:  # the answer itself came first: plain JSON
                headers = {}
                if initialize:
                    if isinstance(parse(first[0]), ErrorResponse):
                        await session.end()  # a failed handshake opens no session
                    else:
                        headers[SESSION_HEADER] = session.id
                await send_response(send, 200, first[0].encode(), "application/json", headers)
                return

        # A stream. Its first event primes the client with an id to resume from; then comes what the
        # request said while we waited, then (route() sends straight to the stream from now on) the rest.
        stream = exchange.stream = session.new_stream()
        closing: list[CloseConnection] = []

        def earlier() -> list[tuple[str, bool]]:
            waiting, exchange.pending = exchange.pending, []
            closing.extend(item for item in waiting if isinstance(item, CloseConnection))
            return [item for item in waiting if isinstance(item, tuple)]

        listener, priming = await stream.open(earlier)
        if closing:
            stream.close_connection(closing[0].retry_ms)
        headers = {SESSION_HEADER: session.id} if initialize else {}
        await pump(send, receive, stream, listener, [priming], headers, self.retry_ms, self.keepalive)
    # --8<-- [end:answer]

    # --8<-- [start:get]
    async def get(self, request: HttpRequest, receive: Receive, send: Send) -> None:
        if not request.accepts("text/event-stream"):
            raise Refusal(406, "Not Acceptable: Accept must list text/event-stream")
        session = self.session_for(request)
        last_event_id = request.headers.get("last-event-id")
        if last_event_id is None:  # the announcement channel, from now on
            stream = session.announcements
            listener, priming = await stream.open()
            first = [priming]
        else:  # resuming a stream: replay what came after that event, then go on
            stream_id = _stream_of(last_event_id)
            stream = session.streams.get(stream_id) if stream_id else None
            if stream is None:
                raise Refusal(400, f"Bad Request: Last-Event-ID {last_event_id!r} names no stream "
                              "of this session")
            listener = stream.attach()
            try:
                _, first = await self.event_store.events_after(last_event_id)
            except UnknownEventId as error:
                stream.detach(listener)
                raise Refusal(400, f"Bad Request: cannot resume: {error}") from None
        session.busy += 1
        try:
            await pump(send, receive, stream, listener, first, {}, self.retry_ms, self.keepalive)
        finally:
            session.busy -= 1
            session.last_active = time.monotonic()
    # --8<-- [end:get]

    # -- the sessions' lifetime ---------------------------------------------------------------------
    def forget(self, session: HttpSession) -> None:
        if self.sessions.get(session.id) is session:
            del self.sessions[session.id]

    # --8<-- [start:expiry]
    def expire_sessions(self) -> None:
        """End the sessions nobody has used for ``session_timeout`` seconds."""
        now = time.monotonic()
        for session in list(self.sessions.values()):
            if session.busy == 0 and now - session.last_active > self.session_timeout:
                log.info("session %s… expired", session.id[:8])
                self.forget(session)  # at once: its place is free now, and its id gets 404 from now on
                asyncio.ensure_future(session.end())

    def _start_reaper(self) -> None:
        if self._reaper is None or self._reaper.done():
            self._reaper = asyncio.ensure_future(self._reap())

    async def _reap(self) -> None:
        while True:
            await asyncio.sleep(max(0.05, min(self.session_timeout / 4, 30.0)))
            self.expire_sessions()
    # --8<-- [end:expiry]

    async def close(self) -> None:
        """End every session (their open streams close too): the server is going away."""
        self.closing = True
        if self._reaper is not None:
            self._reaper.cancel()
        await asyncio.gather(*(session.end() for session in list(self.sessions.values())))

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            event = await receive()
            if event["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif event["type"] == "lifespan.shutdown":
                await self.close()
                await send({"type": "lifespan.shutdown.complete"})
                return


def _stream_of(event_id: str) -> str | None:
    try:
        return parse_event_id(event_id)[0]
    except UnknownEventId:
        return None


# -- running it -------------------------------------------------------------------------------------
# --8<-- [start:serve]
class HttpServer:
    """A running Streamable HTTP server (uvicorn in this event loop): its ``url``, and ``close()``."""

    def __init__(self, app: StreamableHTTP, sock: socket.socket, host: str) -> None:
        import uvicorn

        self.app = app
        self.port = sock.getsockname()[1]
        shown_host = f"[{host}]" if ":" in host else host
        self.url = f"http://{shown_host}:{self.port}{app.path}"
        config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2)
        self._uvicorn = uvicorn.Server(config)
        # The event loop is the caller's, and so is Ctrl+C: uvicorn must not take the signal handlers.
        self._uvicorn.capture_signals = contextlib.nullcontext  # type: ignore[method-assign]
        self._task = asyncio.ensure_future(self._uvicorn.serve(sockets=[sock]))

    async def wait_started(self, timeout: float = 10.0) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not self._uvicorn.started:
            if self._task.done():
                self._task.result()  # it failed to start: raise why
            if loop.time() > deadline:
                raise TimeoutError("the HTTP server did not start")
            await asyncio.sleep(0.01)

    async def close(self) -> None:
        await self.app.close()  # end the sessions first, so no open stream holds the shutdown up
        self._uvicorn.should_exit = True
        await asyncio.wait_for(asyncio.shield(self._task), 10)

    async def serve_forever(self) -> None:
        await self._task


async def start_http(server: Server, host: str = "127.0.0.1", port: int = 0, **options: Any) -> HttpServer:
    """Serve ``server`` over Streamable HTTP at ``http://host:port/mcp`` (port 0: any free port)."""
    # IPPROTO_TCP, said explicitly: asyncio turns Nagle's algorithm off (TCP_NODELAY) only on sockets
    # that say so. Without it every small answer waits ~40 ms for the client's delayed ACK.
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM,
                         socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    if host not in LOOPBACK_HOSTS and host not in ("0.0.0.0", "::"):
        options.setdefault("allowed_hosts", [host])
    running = HttpServer(StreamableHTTP(server, **options), sock, host)
    await running.wait_started()
    return running


async def serve_http(server: Server, host: str = "127.0.0.1", port: int = 8000, **options: Any) -> None:
    """``python -m minimcp serve --transport http``: serve until interrupted."""
    import sys

    running = await start_http(server, host, port, **options)
    print(f"MCP endpoint: {running.url}", file=sys.stderr)
    try:
        await running.serve_forever()
    finally:
        await running.close()
# --8<-- [end:serve]


def main(argv: list[str] | None = None) -> int:
    """What this lesson built, on its own: the course's example server over Streamable HTTP."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python -m minimcp.http",
                                     description="Serve the course's example server over Streamable HTTP.")
    parser.add_argument("--host", default="127.0.0.1", help="default 127.0.0.1: this machine only")
    parser.add_argument("--port", type=int, default=8000, help="default 8000")
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    from .examples.course import build_server

    try:
        asyncio.run(serve_http(build_server(), args.host, args.port))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
