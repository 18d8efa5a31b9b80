"""Streamable HTTP: the same server over POST, GET and DELETE, with resumable SSE (lesson 08).

The methods and what each is for are described in :mod:`minimcp.transports.http`.

The ``initialize`` response carries an ``Mcp-Session-Id`` header; every later request carries it
back, and ``MCP-Protocol-Version`` too. Behind each session id sits an ordinary session served by
``server.serve`` over a :class:`~minimcp.transports.http.session_transport.SessionTransport`, as
over stdio and WebSocket: this module turns HTTP requests into messages on that transport (each body
parsed once, here), and the session module routes the messages the session sends onto the right SSE
stream (each encoded once, there). Neither knows anything of tools, resources or prompts. What goes
back is chosen beside it: a POST's JSON or stream in :mod:`~minimcp.transports.http.answers`, a
GET's stream in :mod:`~minimcp.transports.http.get_streams`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from typing import Any

from minimcp.rpc.jsonrpc import (
    PARSE_ERROR,
    Message,
    Request,
    RpcError,
    method_not_found,
    parse,
)
from minimcp.transports.event_store import EventStore, MemoryEventStore
from minimcp.transports.framing import DEFAULT_MAX_FRAME
from minimcp.transports.guard import host_allowed, hostname_of, origin_allowed
from minimcp.transports.http.answers import answer
from minimcp.transports.http.asgi import (
    LAST_EVENT_ID,
    SESSION_HEADER,
    VERSION_HEADER,
    HttpRequest,
    Receive,
    Refusal,
    Scope,
    Send,
    read_body,
    send_refusal,
    send_response,
)
from minimcp.transports.http.get_streams import stream_for_get
from minimcp.transports.http.seams import McpServer, OpenSession, SessionsOnly, StandAlone
from minimcp.transports.http.sessions import HttpSession, SessionManager
from minimcp.transports.http.streams import pump

log = logging.getLogger("minimcp.http")


# --8<-- [start:app]
class StreamableHTTP:
    """The ASGI application: one MCP endpoint in front of one server."""

    def __init__(
        self,
        server: McpServer,
        *,
        path: str = "/mcp",
        event_store: EventStore | None = None,
        allowed_hosts: Iterable[str] = (),
        allowed_origins: Iterable[str] = (),
        max_body: int = DEFAULT_MAX_FRAME,
        max_sessions: int = 1000,
        max_sessions_per_owner: int | None = None,
        session_timeout: float = 600.0,
        handshake_timeout: float = 30.0,
        stream_after: float = 0.5,
        retry_ms: int = 1000,
        keepalive: float = 15.0,
        max_streams: int = 100,
        stand_alone: StandAlone | None = None,
    ) -> None:
        self.server = server
        # Requests served with no session (lesson 12's 2026-07-28 plugs in here); by default, none.
        self.stand_alone: StandAlone = stand_alone if stand_alone is not None else SessionsOnly()
        self.path = path
        self.event_store = event_store if event_store is not None else MemoryEventStore()
        self.manager = self.new_manager(
            server,
            self.event_store,
            max_sessions=max_sessions,
            max_sessions_per_owner=max_sessions_per_owner,
            session_timeout=session_timeout,
            handshake_timeout=handshake_timeout,
            max_streams=max_streams,
        )
        # Names allowed besides this machine's own
        self.allowed_hosts = {host.lower() for host in allowed_hosts}
        self.allowed_origins = {origin.lower().rstrip("/") for origin in allowed_origins}
        self.max_body = max_body  # bytes in one POST
        self.stream_after = stream_after  # seconds a request may take and still be answered as JSON
        self.retry_ms = retry_ms  # what the priming event tells clients to wait before reconnecting
        self.keepalive = keepalive  # seconds of silence before a stream gets a keep-alive comment

    def new_manager(
        self, server: McpServer, event_store: EventStore, **limits: Any
    ) -> SessionManager:
        """The sessions' keeper: lesson 08's, in this process (lesson 11 shares them in Redis)."""
        return SessionManager(server, event_store, **limits)

    @property
    def sessions(self) -> dict[str, HttpSession]:
        """Every open session, by id."""
        return self.manager.sessions

    async def startup(self) -> None:
        """Before the first request (ASGI lifespan): nothing here; lesson 11's endpoint connects."""

    async def close(self) -> None:
        """The server is going away: answer what is in flight with no session, end every session."""
        await self.stand_alone.close()
        await self.manager.close()  # their open streams close too

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        self.manager.start_reaper()
        request = HttpRequest.from_scope(scope)
        try:
            await self.serve_request(request, receive, send)
        except ConnectionError as error:  # the client went away
            log.debug("%s %s: %s", request.method, request.path, error)

    async def serve_request(self, request: HttpRequest, receive: Receive, send: Send) -> None:
        try:
            self.check_guards(request)
            if request.method == "POST":
                await self.post(request, receive, send)
                return
            self.stand_alone.screen(request)
            if request.method == "GET":
                await self.get(request, receive, send)
            else:  # DELETE (check_guards let nothing else through)
                session = await self.find_session(request)
                await session.end()
                await send_response(send, 200)
        except Refusal as refusal:
            await send_refusal(send, refusal)

    # --8<-- [end:app]

    # --8<-- [start:guards]
    def check_guards(self, request: HttpRequest) -> None:
        """What every request must pass before anything else happens."""
        # DNS rebinding: a web page from evil.example can make the browser resolve evil.example to
        # 127.0.0.1 and talk to us. The browser still sends `Host: evil.example` and its `Origin`.
        host = request.headers.get("host", "")
        if not host_allowed(host, self.allowed_hosts):
            raise Refusal(
                421, f"Misdirected request: host {hostname_of(host)!r} is not served here"
            )
        origin = request.headers.get("origin")
        # Lesson 07's rule for the Origin, here too
        if origin is not None and not origin_allowed(origin, self.allowed_origins):
            raise Refusal(403, f"Forbidden: origin {origin!r} is not allowed")
        if request.path != self.path:
            raise Refusal(404, f"Not found: the MCP endpoint is {self.path}")
        if request.method not in ("POST", "GET", "DELETE"):
            raise Refusal(
                405, f"Method not allowed: {request.method}", headers={"allow": "GET, POST, DELETE"}
            )

    # --8<-- [end:guards]

    # --8<-- [start:session_for]
    def session_for(self, request: HttpRequest) -> HttpSession:
        """The session a request names: 400 without an id, 404 for one unknown (or no more)."""
        session_id = request.headers.get(SESSION_HEADER)
        if session_id is None:
            raise Refusal(400, "Bad Request: missing Mcp-Session-Id header")
        session = self.manager.sessions.get(session_id)
        if session is None:
            raise Refusal(404, "Session not found: it expired or was ended; initialize a new one")
        self.check_version(request)
        session.last_active = time.monotonic()
        return session

    def check_version(self, request: HttpRequest) -> None:
        version = request.headers.get(VERSION_HEADER)
        versions = self.server.protocol_versions
        if version is not None and version not in versions:
            raise Refusal(
                400,
                f"Bad Request: unsupported MCP-Protocol-Version {version!r} "
                f"(supported: {', '.join(versions)})",
            )

    # --8<-- [end:session_for]

    async def find_session(self, request: HttpRequest) -> OpenSession:
        """The session a GET or DELETE names (lesson 11 also finds the ones other workers run)."""
        return self.session_for(request)

    # --8<-- [start:post]
    async def post(self, request: HttpRequest, receive: Receive, send: Send) -> None:
        message = await self.read_message(request, receive)
        await self.post_here(request, message, send, receive)

    async def read_message(self, request: HttpRequest, receive: Receive) -> Message:
        """The one JSON-RPC message a POST carries, parsed here and only here, or the HTTP error its
        headers or body earn."""
        if not (request.accepts("application/json") and request.accepts("text/event-stream")):
            raise Refusal(
                406, "Not Acceptable: Accept must list application/json and text/event-stream"
            )
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type != "application/json":
            raise Refusal(415, "Unsupported Media Type: the body must be application/json")
        body = await read_body(receive, self.max_body)
        try:
            return parse(body.decode("utf-8"))
        except UnicodeDecodeError:
            raise Refusal(400, "Parse error: the body is not UTF-8", PARSE_ERROR) from None
        except RpcError as error:  # not JSON (-32700), or not one JSON-RPC message (-32600)
            raise Refusal(400, error.message, error.code, request_id=error.id) from None

    async def post_here(
        self, request: HttpRequest, message: Message, send: Send, receive: Receive
    ) -> None:
        """Serve a POSTed message in this process."""
        if self.stand_alone.takes(request, message):  # no session at all (lesson 12's 2026-07-28)
            await self.stand_alone.serve(
                request, message, send, receive, self.stream_after, self.keepalive
            )
            return
        if (
            isinstance(message, Request)
            and message.method == "initialize"
            and SESSION_HEADER not in request.headers
        ):
            session = self.manager.new_session(request.owner)
        else:
            try:
                session = self.session_for(request)
            except Refusal as refusal:
                # A request no session could answer (the 2026-07-28 probe `server/discover`) gets
                # "method not found", so that a newer client falls back to the handshake.
                if (
                    refusal.status == 400
                    and isinstance(message, Request)
                    and not self.server.knows(message.method)
                    and message.method != "ping"
                ):
                    unknown = method_not_found(message.method)
                    raise Refusal(
                        400, unknown.message, unknown.code, request_id=message.id
                    ) from None
                raise
        try:
            exchange = await session.admit(message)
        except RpcError as reused:  # its id names a request still being answered
            raise Refusal(400, reused.message, reused.code, request_id=reused.id) from None
        if exchange is None or not isinstance(message, Request):  # a notification, or an answer
            await send_response(send, 202)
            return
        session.busy += 1
        try:
            await answer(session, message, exchange, send, receive, pacing=self)
        finally:
            session.busy -= 1
            session.last_active = time.monotonic()

    # --8<-- [end:post]

    # --8<-- [start:get]
    async def get(self, request: HttpRequest, receive: Receive, send: Send) -> None:
        if not request.accepts("text/event-stream"):
            raise Refusal(406, "Not Acceptable: Accept must list text/event-stream")
        session = await self.find_session(request)
        last_event_id = request.headers.get(LAST_EVENT_ID)
        stream, listener, first = await stream_for_get(session, last_event_id)
        session.busy += 1
        try:
            await pump(send, receive, stream, listener, first, {}, self.retry_ms, self.keepalive)
        finally:
            session.busy -= 1
            session.last_active = time.monotonic()

    # --8<-- [end:get]

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            event = await receive()
            if event["type"] == "lifespan.startup":
                await self.startup()
                await send({"type": "lifespan.startup.complete"})
            elif event["type"] == "lifespan.shutdown":
                await self.close()
                await send({"type": "lifespan.shutdown.complete"})
                return
