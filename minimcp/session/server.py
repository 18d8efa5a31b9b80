"""The server's half of a session: the handshake, then every request handed to the app (lesson 03).

A :class:`ServerSession` owns one :class:`~minimcp.rpc.connection.Connection` and never knows which
cable it runs on. It keeps the :class:`~minimcp.session.lifecycle.Lifecycle` (the rules, with no
I/O), answers ``initialize`` and ``ping`` itself, and passes everything else to its app, which is
the :class:`minimcp.server.Server` of lessons 04–06 (anything with the :class:`ServerApp` methods).

A handler gets a :class:`~minimcp.session.context.RequestContext`: the request, its session, and the
means to speak *while answering* (:mod:`minimcp.session.context`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from minimcp.rpc import Transport
from minimcp.rpc.connection import Connection
from minimcp.rpc.jsonrpc import (
    Notification,
    Request,
    RequestId,
    method_not_found,
)
from minimcp.session.context import NotificationHandler, RequestContext
from minimcp.session.lifecycle import Lifecycle

#: What runs after each request and after ``notifications/initialized`` (lesson 11 saves the state).
AfterEach = Callable[[], Awaitable[None]]


class ForTheClient(Exception):
    """Raised inside a handler for the *client* to act on, not for the model to read: a feature that
    turns a handler's failures into results (lesson 04's tools) lets it through, and the request is
    answered with it. Lesson 12's questions to the client and its protocol errors are such."""


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
