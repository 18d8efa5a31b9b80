"""The server: one object that every transport serves (lessons 03–06).

A :class:`Server` is a registry: which methods it answers and what it says about itself in the
handshake. It owns no cable. ``await server.serve(transport)`` runs one session over any transport,
and a transport that carries many clients (WebSocket, Streamable HTTP) simply calls ``serve`` once
per client: the messages stay, only the cable changes.

Lessons 04–06 register tools, resources and prompts on it; here it answers the handshake and ping.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from .connection import Transport
from .jsonrpc import METHOD_NOT_FOUND, Notification, RpcError
from .session import RequestContext, ServerSession

Handler = Callable[[RequestContext], Awaitable[Any]]
NotificationHandler = Callable[[ServerSession, Notification], Awaitable[None]]


# --8<-- [start:server]
class Server:
    """An MCP server: its identity, its capabilities, and a handler for each method it serves."""

    def __init__(self, name: str, version: str = "0.1.0", *, title: str | None = None,
                 instructions: str | None = None) -> None:
        self.name = name
        self.version = version
        self.title = title
        self._instructions = instructions
        self._handlers: dict[str, Handler] = {}
        self._notification_handlers: dict[str, NotificationHandler] = {}
        self._capabilities: dict[str, Any] = {}
        self.sessions: set[ServerSession] = set()  # every client connected right now

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
        """Announce a capability in the handshake, e.g. ``declare("tools", {"listChanged": True})``."""
        self._capabilities.setdefault(capability, {}).update(options or {})

    async def serve(self, transport: Transport) -> None:
        """Serve one client over ``transport`` until it goes away."""
        session = ServerSession(transport, self)
        self.sessions.add(session)
        try:
            await session.run()
        finally:
            self.sessions.discard(session)
    # --8<-- [end:server]

    # -- what ServerSession asks of us (minimcp.session.ServerApp) ------------------------------
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
        handler = self._handlers.get(context.request.method)
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {context.request.method}")
        return await handler(context)

    async def handle_notification(self, session: ServerSession, notification: Notification) -> None:
        handler = self._notification_handlers.get(notification.method)
        if handler is not None:
            await handler(session, notification)
