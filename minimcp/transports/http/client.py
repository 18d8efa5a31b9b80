"""The client's side of Streamable HTTP (lesson 08), on httpx2.

:class:`HttpClientTransport` is a Transport like the stdio and WebSocket ones: ``send`` one message,
``receive`` the next. Underneath, every message the client sends is its own POST, and what comes
back arrives three ways:

* a JSON body, for a request answered quickly;
* an SSE stream on the POST, for a request that takes longer (its progress, then its answer);
* the GET stream, the *announcement channel*, for what the server says on its own.

The transport keeps what the spec asks a client to keep (basic/transports): the ``Mcp-Session-Id``
from the ``initialize`` response, sent back on every request with ``MCP-Protocol-Version``; the last
event id of every stream, so that a dropped stream is **resumed** with ``Last-Event-ID``
(:mod:`~minimcp.transports.http.following` reads the streams); on ``404`` for its session id, a
**new session** (the handshake again, then the message that failed); and on ``close()``, a
``DELETE`` that ends the session.

Each message is encoded once, for its POST's body, and each message from the server is parsed once,
as it arrives (a JSON body, or an SSE event's data): the connection above, the handshake and the
hook below all get it parsed.

A later lesson may add headers of its own: :class:`~minimcp.transports.http.seams.RequestHeaders`
is its seam, a hook given as ``request_headers=`` that chooses the headers of a request it speaks
for, and hears every message from the server. Lesson 12 plugs in the 2026-07-28 headers that way
(:mod:`minimcp.transports.http.modern_client`); this module knows nothing of them.

:func:`minimcp.client.http_client` gives an initialized :class:`~minimcp.client.Client` over it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import httpx2

from minimcp.rpc.abilities import PLAIN
from minimcp.rpc.aio import TaskKeeper
from minimcp.rpc.jsonrpc import (
    INTERNAL_ERROR,
    ErrorResponse,
    Message,
    Notification,
    Request,
    RequestId,
    RpcError,
    encode,
)
from minimcp.transports.http.following import StreamFollower
from minimcp.transports.http.handshake import Handshake, SessionExpired, content_type
from minimcp.transports.http.seams import RequestHeaders

log = logging.getLogger("minimcp.http_client")


# --8<-- [start:transport]
class HttpClientTransport:
    """A Transport over Streamable HTTP: POST to send, JSON or SSE to receive, GET to listen."""

    abilities = PLAIN  # the client's end: nothing the client's session would use

    def __init__(
        self,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        max_retries: int = 5,
        timeout: float = 30.0,
        http: httpx2.AsyncClient | None = None,
        listen: bool = True,
        on_http: Callable[[str], None] | None = None,
        auth: httpx2.Auth | None = None,
        request_headers: RequestHeaders | None = None,
    ) -> None:
        self.url = url
        self.session_id: str | None = None
        self.handshake = Handshake()  # initialize, initialized, and the version they agreed on
        self.request_headers = request_headers  # a later lesson's say in the headers (lesson 12)
        self.listen = listen  # open the GET announcement channel after the handshake
        self.on_http = on_http  # called with a line describing each HTTP exchange (for tracing)
        # Each request in flight needs a connection of its own (HTTP/1.1); keeping them all alive
        # (the default keeps 20) spares a new TCP connection per request when many are in flight.
        # httpx2, not httpx 0.28: httpx's pool checks every pooled connection (a poll() each) and
        # scans them all for every waiting request, at each request's start and end, so 64 in flight
        # cost more than the requests themselves; httpx2 (the same API, by httpx's authors, and what
        # the official SDK's client uses) does not. ``auth``: httpx's hook for credentials (lesson
        # 10's OAuth): it signs every request and, on a 401, gets a token and sends the request
        # again; this transport never sees the difference.
        self._http = http or httpx2.AsyncClient(
            timeout=httpx2.Timeout(timeout, read=None),
            headers=headers,
            auth=auth,
            limits=httpx2.Limits(max_connections=None, max_keepalive_connections=256),
        )
        self._own_http = http is None
        self._inbox: asyncio.Queue[Message | None] = asyncio.Queue()
        self._tasks = TaskKeeper()  # the GET channel, and each answer being read
        # Request id → the task reading its stream
        self._reading: dict[RequestId, asyncio.Task[None]] = {}
        self._closed = False
        # What reads the answers and the streams, and resumes them after a drop
        self.follower = StreamFollower(self._get, self._deliver, self._give_up, max_retries)

    # --8<-- [end:transport]

    # -- sending -----------------------------------------------------------------------------------
    # --8<-- [start:send]
    async def send(self, message: Message, related_request_id: RequestId | None = None) -> None:
        body = encode(message).encode("utf-8")  # once, even if a new session means a second POST
        self.handshake.sent(message)
        try:
            response = await self._post(body, message)
        except SessionExpired:
            await self._new_session()  # the spec: on 404, start a new session, then try again
            response = await self._post(body, message)
        if (
            isinstance(message, Notification)
            and message.method == "notifications/initialized"
            and self.listen
        ):
            # The channel is open before the first request: no announcement is missed.
            await self._listen()
        if isinstance(message, Notification) and message.method == "notifications/cancelled":
            self.stop_reading((message.params or {}).get("requestId"))
        if response is None or not isinstance(message, Request):  # only a request's answer has one
            return
        request = message
        if content_type(response) == "text/event-stream":  # a stream is read in the background
            reading = self._tasks.spawn(self.follower.read_answer(request, response))
            self._reading[request.id] = reading
            reading.add_done_callback(lambda _task: self._reading.pop(request.id, None))
        else:  # one JSON object (or an error), already on its way: read it now
            await self.follower.read_answer(request, response)

    async def _post(self, body: bytes, kind: Message) -> httpx2.Response | None:
        """POST one message, ``body`` its encoded text. A request's response comes back open (JSON
        or SSE still to read)."""
        headers = {
            "accept": "application/json, text/event-stream",
            "content-type": "application/json",
        }
        own = self._their_headers(kind)
        headers = headers | own if own is not None else self._headers(headers)
        request = self._http.build_request("POST", self.url, content=body, headers=headers)
        response = await self._http.send(request, stream=True)
        self._trace(f"POST {_describe(kind)} -> {response.status_code} {content_type(response)}")
        if response.status_code == 404 and self.session_id is not None:
            await response.aclose()
            raise SessionExpired()
        if (
            isinstance(kind, Request)
            and kind.method == "initialize"
            and response.status_code == 200
        ):
            self.session_id = response.headers.get("mcp-session-id")
        if response.status_code == 202 or not isinstance(kind, Request):
            body = await response.aread()
            await response.aclose()
            if response.status_code >= 400:
                raise RpcError(
                    INTERNAL_ERROR, f"HTTP {response.status_code}: {body.decode(errors='replace')}"
                )
            return None
        return response

    # --8<-- [end:send]

    def _their_headers(self, kind: Message) -> dict[str, str] | None:
        """The headers the ``request_headers`` hook chooses for this message, if it speaks."""
        if self.request_headers is None or not isinstance(kind, Request):
            return None
        return self.request_headers.headers_for(kind)

    def _headers(self, extra: dict[str, str]) -> dict[str, str]:
        headers = dict(extra)
        if self.session_id is not None:
            headers["mcp-session-id"] = self.session_id
        if self.handshake.protocol_version is not None:
            headers["mcp-protocol-version"] = self.handshake.protocol_version
        return headers

    # -- receiving ---------------------------------------------------------------------------------
    async def receive(self) -> Message | None:
        return await self._inbox.get()

    @property
    def last_event_ids(self) -> dict[str, str]:
        """The last event id seen on each stream being read ("get …", or "request <id>")."""
        return self.follower.last_event_ids

    def _deliver(self, message: Message) -> None:
        """Hand a message from the server, parsed once as it arrived, to the connection (and learn
        the version from initialize's answer; a ``request_headers`` hook hears it too)."""
        self.handshake.received(message)
        if self.request_headers is not None:
            self.request_headers.received(message)
        self._inbox.put_nowait(message)

    async def _get(self, last_event_id: str | None) -> httpx2.Response:
        headers = self._headers({"accept": "text/event-stream"})
        if last_event_id is not None:
            headers["last-event-id"] = last_event_id
        request = self._http.build_request("GET", self.url, headers=headers)
        response = await self._http.send(request, stream=True)
        resumed = f" (Last-Event-ID {last_event_id})" if last_event_id else ""
        self._trace(f"GET{resumed} -> {response.status_code} {content_type(response)}")
        if response.status_code == 404:
            await response.aclose()
            raise SessionExpired()
        return response

    # --8<-- [start:listen]
    async def _listen(self) -> None:
        """Open the announcement channel: a GET stream, followed in the background (and resumed
        after every drop) for the session's life. A server without one (405) is fine."""
        key = f"get {self.session_id}"  # a new session's channel is a new stream
        try:
            response = await self._get(None)
        except (SessionExpired, httpx2.HTTPError) as error:
            log.debug("no announcement channel: %s", error)
            return
        if response.status_code != 200:  # 405: this server has no GET stream, and that is allowed
            await response.aclose()
            return
        self._tasks.spawn(self.follower.follow(key, response, until_answer=False))

    # --8<-- [end:listen]

    def stop_reading(self, request_id: Any) -> None:
        """We cancelled this request (lesson 09): its answer will never come, so stop reading its
        stream and let its connection go, rather than hold it open until the session ends. (In
        2026-07-28, lesson 12, closing the stream is the cancellation itself.)"""
        reading = (
            self._reading.pop(request_id, None) if isinstance(request_id, (str, int)) else None
        )
        if reading is not None:
            reading.cancel()  # read_answer's finally closes the response

    def _give_up(self, request: Request, why: str) -> None:
        self._inbox.put_nowait(ErrorResponse(request.id, INTERNAL_ERROR, f"No answer: {why}"))

    # -- sessions ----------------------------------------------------------------------------------
    async def _new_session(self) -> None:
        """The old session is gone: the handshake again, quietly, with the first one's params."""
        initialize, initialized = self.handshake.initialize, self.handshake.initialized
        if initialize is None:
            raise SessionExpired("the session expired before it was initialized")
        log.info("session %s expired: starting a new one", self.session_id)
        self.session_id = None
        self.handshake.sent(initialize)  # forgets the old version
        response = await self._post(encode(initialize).encode("utf-8"), initialize)
        assert response is not None
        try:
            if response.status_code != 200:
                status = response.status_code
                raise RpcError(INTERNAL_ERROR, f"a new session could not be started: HTTP {status}")
            await self.handshake.read_answer(response)
        finally:
            await response.aclose()
        if initialized is not None:
            await self._post(encode(initialized).encode("utf-8"), initialized)
            if self.listen:
                await self._listen()

    # -- lifetime ----------------------------------------------------------------------------------
    def _trace(self, line: str) -> None:
        if self.on_http is not None:
            self.on_http(line)

    # --8<-- [start:close]
    async def close(self) -> None:
        """Stop listening, end the session with DELETE (a server may refuse with 405), let go."""
        if self._closed:
            return
        self._closed = True
        self.follower.closed = True
        self._tasks.cancel_all()
        await self._tasks.wait()
        if self.session_id is not None:
            try:
                response = await self._http.delete(self.url, headers=self._headers({}))
                self._trace(f"DELETE -> {response.status_code}")
            except httpx2.HTTPError as error:
                log.debug("DELETE failed: %s", error)
        if self._own_http:
            await self._http.aclose()
        self._inbox.put_nowait(None)

    # --8<-- [end:close]


def _describe(kind: Message) -> str:
    if isinstance(kind, Request):
        return f"{kind.method} #{kind.id}"
    if isinstance(kind, Notification):
        return kind.method
    return f"answer #{kind.id}"
