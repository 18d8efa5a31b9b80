"""The server's core (lesson 03): a table of methods, the capabilities it announces, its sessions.

:class:`ServerCore` is what every feature registry (tools, resources, prompts, logging, completion)
plugs into: ``method(name)`` installs a handler, ``declare(capability)`` announces a capability in
the handshake, ``announce(method)`` tells every connected client that something changed. It owns no
cable: ``await core.serve(transport)`` runs one session over any transport, and a transport that
carries many clients (WebSocket, Streamable HTTP) simply calls ``serve`` once per client.

:class:`minimcp.server.Server` adds the friendly registration (``@server.tool()`` …) on top.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from minimcp.rpc.aio import TaskKeeper
from minimcp.rpc.jsonrpc import ErrorResponse, Notification, Request, Response, method_not_found
from minimcp.rpc.limits import DEFAULT_MAX_IN_FLIGHT, at_most
from minimcp.rpc.transport import Transport, log_send_failure
from minimcp.session.context import RequestContext, Say
from minimcp.session.lifecycle import SUPPORTED_PROTOCOL_VERSIONS
from minimcp.session.server import ServerSession

log = logging.getLogger("minimcp.server")

Handler = Callable[[RequestContext], Awaitable[Any]]
NotificationHandler = Callable[[ServerSession, Notification], Awaitable[None]]
SessionSetup = Callable[[ServerSession], None]


class Audience:
    """Who hears the server's announcements without a session of their own: nobody, here.

    Lesson 12's clients that listen without a session (``subscriptions/listen``,
    :class:`minimcp.server.subscriptions.Subscriptions`) are such an audience: it replaces this one.
    """

    @property
    def listening(self) -> bool:
        """Whether anyone listens at all (then :meth:`ServerCore.announce` has someone to tell)."""
        return False

    async def deliver(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Tell those listeners that want it (here: nobody)."""


#: The seam for requests that arrive alone, with no session around them: from the request (and
#: who sent it, if the transport authenticated them: None if not) to its answer, saying things
#: meanwhile through ``Say``. Lesson 12 plugs its 2026-07-28 answer in here.
AnswerAlone = Callable[[Request, Say, str | None], Awaitable[Response | ErrorResponse]]


async def no_session_no_answer(
    request: Request, say: Say, principal: str | None
) -> Response | ErrorResponse:
    """The default :attr:`ServerCore.answer_alone`: every request needs a session (-32601)."""
    error = method_not_found(request.method)
    return ErrorResponse(request.id, error.code, error.message)


# --8<-- [start:server]
class ServerCore:
    """An MCP server: its identity, its capabilities, and a handler for each method it serves."""

    #: The protocol revisions this server speaks, newest first (the handshake picks one).
    protocol_versions: tuple[str, ...] = SUPPORTED_PROTOCOL_VERSIONS
    #: The revisions without a handshake it also serves, request by request: none here (lesson 12's
    #: :func:`minimcp.server.eras.answer_both_eras` adds them, and the front that serves them).
    modern_versions: tuple[str, ...] = ()

    def __init__(
        self,
        name: str,
        version: str = "0.1.0",
        *,
        title: str | None = None,
        instructions: str | None = None,
        page_size: int | None = None,
    ) -> None:
        self.name = name
        self.version = version
        self.title = title
        self._instructions = instructions
        self._handlers: dict[str, Handler] = {}
        self._notification_handlers: dict[str, NotificationHandler] = {}
        self._capabilities: dict[str, Any] = {}
        self.sessions: set[ServerSession] = set()  # every client connected right now
        #: Items per tools/list (resources/list…) page; None: lesson 04's default.
        self.page_size = page_size
        self._background = TaskKeeper()  # notifications on their way out
        self.max_in_flight = DEFAULT_MAX_IN_FLIGHT  # requests of one client answered at once
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop serving, once a client came
        self._at_session_start: list[SessionSetup] = []  # what later lessons plug into each session
        self._at_session_end: list[SessionSetup] = []  # what features forget then
        #: Who else hears what :meth:`broadcast` says (lesson 12: clients listening sessionless).
        self.subscriptions: Audience = Audience()
        #: How a request that arrives alone, with no session, is answered: it is not, here (lesson
        #: 12's :func:`minimcp.server.eras.answer_both_eras` plugs in its 2026-07-28 answer).
        self.answer_alone: AnswerAlone = no_session_no_answer

    def method(self, name: str) -> Callable[[Handler], Handler]:
        """Register the handler of a request method: ``@server.method("tools/list")``."""

        def register(handler: Handler) -> Handler:
            self._handlers[name] = handler
            return handler

        return register

    def on_notification(self, name: str) -> Callable[[NotificationHandler], NotificationHandler]:
        """Register the handler of a notification method the client may send."""

        def register(handler: NotificationHandler) -> NotificationHandler:
            self._notification_handlers[name] = handler
            return handler

        return register

    def declare(self, capability: str, options: dict[str, Any] | None = None) -> None:
        """Announce a capability in the handshake: ``declare("tools", {"listChanged": True})``."""
        self._capabilities.setdefault(capability, {}).update(options or {})

    async def serve(self, transport: Transport) -> None:
        """Serve one client over ``transport`` until it goes away."""
        self._loop = asyncio.get_running_loop()  # where announcements from other threads are sent
        session = ServerSession(transport, self)
        session.connection.admission = at_most(self.max_in_flight)  # the flood limit it is given
        for setup in self._at_session_start:  # what later lessons plug in: cancellation, an era…
            setup(session)
        self.sessions.add(session)
        try:
            await session.run()
        finally:
            self.sessions.discard(session)
            for forget in self._at_session_end:  # nothing may keep a session alive once it is over
                forget(session)

    # --8<-- [end:server]

    def at_session_start(self, setup: SessionSetup) -> None:
        """Call ``setup(session)`` when a session starts, before its first message: a later lesson
        plugs into the session's seams there (lesson 09's cancellation, lesson 12's front…)."""
        self._at_session_start.append(setup)

    def at_session_end(self, forget: SessionSetup) -> None:
        """Call ``forget(session)`` when a session ends: a feature drops what it kept for it."""
        self._at_session_end.append(forget)

    # -- telling every client at once ------------------------------------------------------------
    # --8<-- [start:broadcast]
    async def broadcast(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send a notification to every session that has finished its handshake.

        It belongs to no request (even when a handler broadcasts): on Streamable HTTP it travels on
        each client's announcement channel.
        """
        for session in list(self.sessions):
            if session.state != "ready":  # before `initialized`, the client is not listening yet
                continue
            try:
                await session.notify(method, params)
            except Exception as error:  # a client that just left must not stop the others' notices
                log_send_failure(method, error)
        await self.subscriptions.deliver(method, params)  # and those listening without a session

    def announce(self, method: str, params: dict[str, Any] | None = None) -> None:
        """:meth:`broadcast`, from plain (not async) code such as ``add_tool``: send it soon.

        With no event loop running there is no session either, so there is nobody to tell; but a
        plain tool runs in a worker thread (lesson 04): from there, the notice is handed to the
        server's loop.
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            if self._loop is not None and not self._loop.is_closed():
                self._loop.call_soon_threadsafe(self.announce, method, params)
            return
        ready = any(session.state == "ready" for session in self.sessions)
        if ready or self.subscriptions.listening:
            self._background.spawn(self.broadcast(method, params))

    # --8<-- [end:broadcast]

    # -- what ServerSession asks of us (minimcp.session.server.ServerApp) -------------------------
    def info(self) -> dict[str, Any]:
        info = {"name": self.name, "version": self.version}
        if self.title:
            info["title"] = self.title
        return info

    def capabilities(self) -> dict[str, Any]:
        return {name: dict(options) for name, options in self._capabilities.items()}

    def instructions(self) -> str | None:
        return self._instructions

    def knows(self, method: str) -> bool:
        return method in self._handlers

    async def handle(self, context: RequestContext) -> Any:
        # Where announcements from other threads go; learned here too, for a request that came
        # with no session to start (lesson 12's HTTP answers such a request alone).
        self._loop = asyncio.get_running_loop()
        handler = self._handlers.get(context.request.method)
        if handler is None:
            raise method_not_found(context.request.method)
        return await handler(context)

    async def handle_notification(self, session: ServerSession, notification: Notification) -> None:
        handler = self._notification_handlers.get(notification.method)
        if handler is not None:
            await handler(session, notification)
