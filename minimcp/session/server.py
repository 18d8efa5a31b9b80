"""The server's half of a session: the handshake, then every request handed to the app (lesson 03).

A :class:`ServerSession` owns one :class:`~minimcp.rpc.connection.Connection` and never knows which
cable it runs on. It keeps the :class:`~minimcp.session.lifecycle.Lifecycle` (the rules, with no
I/O), answers ``initialize`` and ``ping`` itself, and passes everything else to its app, which is
the :class:`minimcp.server.Server` of lessons 04–06 (anything with the :class:`ServerApp` methods).

A handler gets a :class:`RequestContext`: the request, its session, and the means to speak *while
answering*. What it sends through the context (a progress notice, a log line, a question back to the
client) is marked as related to the request it answers, so that a cable with several streams
(Streamable HTTP) puts it on that request's own stream.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from minimcp.rpc import Transport
from minimcp.rpc.abilities import RequestStreams
from minimcp.rpc.connection import Connection
from minimcp.rpc.jsonrpc import (
    ErrorResponse,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
    RpcError,
    method_not_found,
)
from minimcp.session.lifecycle import Lifecycle

#: A session-level handler of one notification method, consulted before the app.
NotificationHandler = Callable[[Notification], Awaitable[None]]
#: What runs after each request and after ``notifications/initialized`` (lesson 11 saves the state).
AfterEach = Callable[[], Awaitable[None]]
#: Where what a request says while it is answered goes, when no session carries it (lesson 12).
Say = Callable[[Message], Awaitable[None]]
#: How a server answers a request that arrives alone, with no session around it (lesson 12's
#: 2026-07-28 over HTTP): from the request to its answer, saying things meanwhile through ``Say``.
AnswerAlone = Callable[[Request, Say], Awaitable[Response | ErrorResponse]]


class ForTheClient(Exception):
    """Raised inside a handler for the *client* to act on, not for the model to read: a feature that
    turns a handler's failures into results (lesson 04's tools) lets it through, and the request is
    answered with it. Lesson 12's questions to the client and its protocol errors are such."""


# --8<-- [start:peer]
class Peer(Protocol):
    """The client a request came from, as a handler reaches it through its context.

    Here, in lesson 03, that is always the :class:`ServerSession` the request arrived in. Lesson 12
    answers a 2026-07-28 request that arrives alone, with no session around it: its peer is that
    one request (:class:`minimcp.session.alone.OneRequestPeer`), which can say things while it is
    answered and knows what the request's envelope says, and nothing more.
    """

    app: ServerApp
    client_capabilities: dict[str, Any]
    log_level: str | None  # the least severe log line the client wants (None: the default)
    subscriptions: set[str]  # the resource URIs the client wants to hear about (lesson 05)
    notification_handlers: dict[str, NotificationHandler]  # session-level ones (lesson 09)
    request_streams: RequestStreams | None  # the cable's streams per request (lesson 08)

    async def notify(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        related_request_id: RequestId | None = None,
    ) -> None: ...

    async def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        timeout: float | None = None,
        related_request_id: RequestId | None = None,
    ) -> Any: ...


# --8<-- [end:peer]


# --8<-- [start:context]
@dataclass
class RequestContext:
    """What a server handler knows of the request it is answering, and how it speaks meanwhile."""

    session: Peer  # the ServerSession it arrived in (lesson 12: or the request alone)
    request: Request

    @property
    def params(self) -> dict[str, Any]:
        return self.request.params or {}

    @property
    def modern(self) -> bool:
        """Whether this request stands alone rather than within an initialized session: never, here
        (lesson 12's own context, :class:`minimcp.session.modern.ModernContext`, says yes)."""
        return False

    @property
    def client_capabilities(self) -> dict[str, Any]:
        """What the client can do, as it said once in ``initialize``."""
        return self.session.client_capabilities

    @property
    def log_level(self) -> str | None:
        """The least severe log line the client wants (None: the server's default)."""
        return self.session.log_level

    def missing_capability(self, name: str) -> RpcError | None:
        """The protocol error for needing the client capability ``name``, undeclared: none within a
        session, where the server simply may not ask (lesson 09 tells the model why); lesson 12's
        context, whose request must declare what it needs, answers ``-32021``."""
        return None

    @property
    def meta(self) -> dict[str, Any]:
        """The request's ``_meta`` (e.g. its ``progressToken``), or an empty dict."""
        meta = self.params.get("_meta")
        return meta if isinstance(meta, dict) else {}

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """A notification that belongs to this request (progress, a log line)."""
        await self.session.notify(method, params, related_request_id=self.request.id)

    async def send_request(
        self, method: str, params: dict[str, Any] | None = None, timeout: float | None = None
    ) -> Any:
        """A question back to the client, asked while answering this request (sampling…)."""
        return await self.session.request(method, params, timeout, self.request.id)

    async def ping(self, timeout: float | None = 10.0) -> None:
        await self.send_request("ping", timeout=timeout)

    # --8<-- [end:context]

    # --8<-- [start:ask]
    async def ask(
        self, questions: dict[str, dict[str, Any]], timeout: float | None = None
    ) -> dict[str, Any]:
        """Ask the client several things at once; their answers, by key.

        ``questions`` maps a key of your choice to ``{"method": "elicitation/create", "params":
        {...}}`` (or ``sampling/createMessage``, ``roots/list``). In a session they are sent as
        requests, together. (Lesson 12's context answers them from the request itself instead.)
        """
        asking = [
            self.send_request(question["method"], question.get("params"), timeout)
            for question in questions.values()
        ]
        sent = await asyncio.gather(*asking)  # together: the client may answer in any order
        return dict(zip(questions, sent, strict=True))

    # --8<-- [end:ask]

    # --8<-- [start:close_sse_stream]
    def close_sse_stream(self, retry_ms: int | None = None) -> bool:
        """End the HTTP connection carrying this request's SSE stream, without ending the stream.

        The client reconnects after ``retry_ms`` with ``Last-Event-ID`` and gets the rest, the
        response included (the spec's "polling", SEP-1699). A server does this to avoid holding a
        connection open for a long task. False when the request did not arrive over a cable with
        such streams (the cable declares its :class:`~minimcp.rpc.abilities.RequestStreams`, if it
        has them).
        """
        streams = self.session.request_streams
        return streams is not None and streams.close_request_stream(self.request.id, retry_ms)

    # --8<-- [end:close_sse_stream]


class Front(Protocol):
    """A way of serving requests that comes before the handshake's rules (lesson 12's 2026-07-28
    era: requests that carry their own envelope). ``takes`` says whether a request is the front's;
    ``serve`` answers it."""

    def takes(self, request: Request) -> bool: ...

    async def serve(self, request: Request) -> Any: ...


class StartsSessions(Protocol):
    """Where a later lesson plugs into every session a server starts
    (:meth:`minimcp.server.core.ServerCore.at_session_start` is one)."""

    def at_session_start(self, setup: Callable[[ServerSession], None]) -> None: ...


class ServerApp(Protocol):
    """What a session needs from the server it serves (:class:`minimcp.server.Server` is one).

    ``handle`` answers any method past the handshake, raising ``RpcError(METHOD_NOT_FOUND)`` for
    methods it does not know, and ``knows`` says whether it has a method at all.
    """

    protocol_versions: tuple[str, ...]

    def info(self) -> dict[str, Any]: ...

    def capabilities(self) -> dict[str, Any]: ...

    def instructions(self) -> str | None: ...

    def knows(self, method: str) -> bool: ...

    async def handle(self, context: RequestContext) -> Any: ...

    async def handle_notification(
        self, session: ServerSession, notification: Notification
    ) -> None: ...


# --8<-- [start:server_session]
class ServerSession:
    """The server's half of one client's session: lifecycle state, then dispatch to the app.

    Later lessons plug in through three seams, each set up when the session starts
    (:meth:`minimcp.server.core.ServerCore.at_session_start`): ``notification_handlers``
    (lesson 04's progress, lesson 09's cancellation), ``front`` (lesson 12's era of requests
    without a handshake) and ``after_each`` (lesson 11 saves the session's state there).
    """

    def __init__(self, transport: Transport, app: ServerApp) -> None:
        self.app = app
        self.lifecycle = Lifecycle()
        self.protocol_version: str | None = None
        self.client_info: dict[str, Any] = {}
        self.client_capabilities: dict[str, Any] = {}
        #: The least severe log level this session's client wants to hear, chosen with
        #: ``logging/setLevel`` (see :mod:`minimcp.server.logs`); None until the client chooses.
        self.log_level: str | None = None
        # The resource URIs this client wants to hear about (lesson 05).
        self.subscriptions: set[str] = set()
        self.connection = Connection(transport, self._on_request, self._on_notification)
        # What the cable can do with requests' streams: declared by it (lesson 08's HTTP), or None.
        self.request_streams = transport.abilities.request_streams
        self.initialize_id: RequestId | None = None  # the id of the client's initialize request
        self.notification_handlers: dict[str, NotificationHandler] = {}
        self.front: Front | None = None
        self.after_each: list[AfterEach] = []

    @property
    def state(self) -> str:
        """``new``, ``initializing`` or ``ready``: :class:`~minimcp.session.lifecycle.Lifecycle`."""
        return self.lifecycle.state

    async def run(self) -> None:
        """Serve until the client goes away."""
        await self.connection.run()

    async def _on_request(self, request: Request) -> Any:
        try:
            return await self._dispatch(request)
        finally:  # e.g. saved before the client hears the answer (lesson 11)
            await self._after_each()

    async def _dispatch(self, request: Request) -> Any:
        method = request.method
        if self.front is not None and self.front.takes(request):  # before the handshake's rules
            return await self.front.serve(request)
        if method == "initialize":
            self.initialize_id = request.id
            return self._initialize(request.params or {})
        if method == "ping":  # allowed in every state, in both directions (basic/utilities/ping)
            return {}
        if not self.app.knows(method):
            raise method_not_found(method)
        self.lifecycle.check_request(method)
        return await self.app.handle(RequestContext(self, request))

    # --8<-- [end:server_session]

    async def _after_each(self) -> None:
        for hook in self.after_each:
            await hook()

    # --8<-- [start:initialize]
    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        agreed = self.lifecycle.initialize(params, self.app.protocol_versions)
        self.protocol_version = agreed.protocol_version
        self.client_info, self.client_capabilities = agreed.client_info, agreed.client_capabilities
        result: dict[str, Any] = {
            "protocolVersion": self.protocol_version,
            "capabilities": self.app.capabilities(),
            "serverInfo": self.app.info(),
        }
        if instructions := self.app.instructions():
            result["instructions"] = instructions
        return result

    # --8<-- [end:initialize]

    # --8<-- [start:initialized]
    async def _on_notification(self, notification: Notification) -> None:
        if notification.method == "notifications/initialized":
            self.lifecycle.initialized()
            await self._after_each()
            return
        handler = self.notification_handlers.get(notification.method)
        if handler is not None:  # one the session itself handles (progress, cancellation)
            await handler(notification)
            return
        await self.app.handle_notification(self, notification)

    # --8<-- [end:initialized]

    # -- the server speaks first ----------------------------------------------------------------
    # --8<-- [start:server_ping]
    async def ping(self, timeout: float | None = 10.0) -> None:
        """Ask the client whether it is still there (an empty result means yes)."""
        await self.connection.request("ping", timeout=timeout)

    # --8<-- [end:server_ping]

    async def notify(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        related_request_id: RequestId | None = None,
    ) -> None:
        """A notification of the server's own (``list_changed``), or, with ``related_request_id``,
        one that belongs to a request being answered."""
        await self.connection.notify(method, params, related_request_id)

    async def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        timeout: float | None = None,
        related_request_id: RequestId | None = None,
    ) -> Any:
        """A request of the server's own, or, with ``related_request_id``, one asked while
        answering that request (sampling, elicitation)."""
        return await self.connection.request(method, params, timeout, related_request_id)
