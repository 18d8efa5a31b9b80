"""The MCP lifecycle: initialize, negotiate, operate, ping (lesson 03).

A connection moves JSON-RPC messages; a *session* gives them a beginning. Before anything else the
client sends ``initialize`` with the protocol version it speaks, its capabilities and who it is;
the server answers with the version they will use, its own capabilities and who it is; the client
confirms with ``notifications/initialized``. Only then does normal work begin
(spec 2025-11-25, basic/lifecycle).

:class:`ServerSession` and :class:`ClientSession` are the two halves. Each owns one
:class:`~minimcp.connection.Connection`; neither knows which cable that connection runs on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from .connection import Connection, Transport
from .jsonrpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    Notification,
    Request,
    RpcError,
)

log = logging.getLogger("minimcp.session")

# --8<-- [start:versions]
#: The revision these lessons teach, and what we answer a client whose version we do not know.
LATEST_PROTOCOL_VERSION = "2025-11-25"
#: Every revision with the initialize handshake, newest first.
SUPPORTED_PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")


def negotiate_version(requested: object, supported: tuple[str, ...] = SUPPORTED_PROTOCOL_VERSIONS) -> str:
    """The server's rule: the client's version if we support it, otherwise our latest."""
    if requested in supported:
        return str(requested)
    return supported[0]
# --8<-- [end:versions]


# --8<-- [start:unsupported]
class HandshakeFailed(Exception):
    """The server's answer to ``initialize`` cannot be used: the client disconnects."""


class UnsupportedVersion(HandshakeFailed):
    """The server answered with a protocol version this client cannot speak: disconnect."""

    def __init__(self, offered: str, supported: tuple[str, ...]) -> None:
        super().__init__(f"the server offered protocol version {offered!r}; this client speaks "
                         f"{', '.join(supported)}")
        self.offered = offered
        self.supported = supported
# --8<-- [end:unsupported]


@dataclass
class RequestContext:
    """What a server handler knows about the request it is answering."""

    session: ServerSession
    request: Request

    @property
    def params(self) -> dict[str, Any]:
        return self.request.params or {}

    @property
    def meta(self) -> dict[str, Any]:
        """The request's ``_meta`` (e.g. its ``progressToken``), or an empty dict."""
        meta = self.params.get("_meta")
        return meta if isinstance(meta, dict) else {}


class ServerApp(Protocol):
    """What a session needs from the server it serves (:class:`minimcp.server.Server` is one).

    ``handle`` answers any method past the handshake, raising ``RpcError(METHOD_NOT_FOUND)`` for
    methods it does not know, and ``knows`` says whether it has a method at all.
    """

    def info(self) -> dict[str, Any]: ...

    def capabilities(self) -> dict[str, Any]: ...

    def instructions(self) -> str | None: ...

    def knows(self, method: str) -> bool: ...

    async def handle(self, context: RequestContext) -> Any: ...

    async def handle_notification(self, session: ServerSession, notification: Notification) -> None: ...


# --8<-- [start:server_session]
class ServerSession:
    """The server's half of one client's session: lifecycle state, then dispatch to the app.

    States: ``new`` (waiting for ``initialize``) → ``initializing`` (answered; waiting for
    ``notifications/initialized``) → ``ready``. Requests other than ``initialize`` and ``ping``
    are refused while ``new``.
    """

    def __init__(self, transport: Transport, app: ServerApp) -> None:
        self.app = app
        self.state = "new"
        self.protocol_version: str | None = None
        self.client_info: dict[str, Any] = {}
        self.client_capabilities: dict[str, Any] = {}
        self._initialized_early = False
        self.connection = Connection(transport, self._on_request, self._on_notification)

    async def run(self) -> None:
        """Serve until the client goes away."""
        await self.connection.run()

    async def _on_request(self, request: Request) -> Any:
        method = request.method
        if method == "initialize":
            return self._initialize(request.params or {})
        if method == "ping":  # allowed in every state, in both directions (basic/utilities/ping)
            return {}
        if not self.app.knows(method):
            # Also what a 2026-07-28 client's probe `server/discover` gets, so that it falls back
            # to the initialize handshake: -32601 says "I am an older server", not "I am broken".
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")
        if self.state == "new":
            raise RpcError(INVALID_REQUEST, f"Received {method!r} before initialization: "
                           "send 'initialize' first")
        return await self.app.handle(RequestContext(self, request))
    # --8<-- [end:server_session]

    # --8<-- [start:initialize]
    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        if self.state != "new":
            raise RpcError(INVALID_REQUEST, "The session is already initialized")
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise RpcError(INVALID_PARAMS, 'initialize needs "protocolVersion" (a string)')
        info = params.get("clientInfo")
        if not (isinstance(info, dict) and isinstance(info.get("name"), str)
                and isinstance(info.get("version"), str)):
            raise RpcError(INVALID_PARAMS, 'initialize needs "clientInfo" with a "name" and a "version"')
        capabilities = params.get("capabilities")
        if not isinstance(capabilities, dict):
            raise RpcError(INVALID_PARAMS, 'initialize needs "capabilities" (an object)')
        self.protocol_version = negotiate_version(requested)
        self.client_info, self.client_capabilities = info, capabilities
        # A client may pipeline `initialized` right behind `initialize`; if it already came, we are ready.
        self.state = "ready" if self._initialized_early else "initializing"
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
            if self.state == "initializing":
                self.state = "ready"
            elif self.state == "new":  # it overtook its own initialize, still being answered
                self._initialized_early = True
            return
        await self.app.handle_notification(self, notification)
    # --8<-- [end:initialized]

    # -- the server speaks first ----------------------------------------------------------------
    # --8<-- [start:server_ping]
    async def ping(self, timeout: float | None = 10.0) -> None:
        """Ask the client whether it is still there (an empty result means yes)."""
        await self.connection.request("ping", timeout=timeout)
    # --8<-- [end:server_ping]

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        await self.connection.notify(method, params)

    async def request(self, method: str, params: dict[str, Any] | None = None,
                      timeout: float | None = None) -> Any:
        return await self.connection.request(method, params, timeout)

    #: The least severe log level this session's client wants to hear, chosen with
    #: ``logging/setLevel`` (see :mod:`minimcp.logs`); None until the client chooses.
    log_level: str | None = None


NotificationCallback = Callable[[str, dict[str, Any]], Awaitable[None]]
RequestCallback = Callable[[str, dict[str, Any]], Awaitable[Any]]


# --8<-- [start:client_session]
@dataclass
class ClientSession:
    """The client's half of a session: it starts the handshake and checks the server's answer."""

    transport: Transport
    client_info: dict[str, Any] = field(default_factory=lambda: {"name": "minimcp", "version": "0.1.0"})
    capabilities: dict[str, Any] = field(default_factory=dict)
    supported_versions: tuple[str, ...] = SUPPORTED_PROTOCOL_VERSIONS
    on_notification: NotificationCallback | None = None
    on_request: RequestCallback | None = None

    def __post_init__(self) -> None:
        self.connection = Connection(self.transport, self._on_request, self._on_notification)
        self.server_info: dict[str, Any] = {}
        self.server_capabilities: dict[str, Any] = {}
        self.instructions: str | None = None
        self.protocol_version: str | None = None

    async def initialize(self, timeout: float | None = 30.0,
                         protocol_version: str | None = None) -> dict[str, Any]:
        """The handshake: initialize → result → notifications/initialized. Returns the result."""
        self.connection.start()
        requested = protocol_version or self.supported_versions[0]  # SHOULD be our latest
        result = await self.connection.request("initialize", {
            "protocolVersion": requested,
            "capabilities": self.capabilities,
            "clientInfo": self.client_info,
        }, timeout=timeout)
        if not (isinstance(result, dict) and isinstance(result.get("serverInfo"), dict)
                and isinstance(result.get("capabilities"), dict)):
            await self.connection.close()
            raise HandshakeFailed(f"the server's initialize result is malformed: {result!r}")
        offered = result.get("protocolVersion")
        if offered not in self.supported_versions:
            # The spec: "If the client does not support the version in the server's response,
            # it SHOULD disconnect." We do, and say why.
            await self.connection.close()
            raise UnsupportedVersion(str(offered), self.supported_versions)
        self.protocol_version = offered
        self.server_info = result["serverInfo"]
        self.server_capabilities = result["capabilities"]
        self.instructions = result.get("instructions")
        await self.connection.notify("notifications/initialized")
        return result
    # --8<-- [end:client_session]

    async def ping(self, timeout: float | None = 10.0) -> None:
        await self.connection.request("ping", timeout=timeout)

    async def request(self, method: str, params: dict[str, Any] | None = None,
                      timeout: float | None = None) -> Any:
        return await self.connection.request(method, params, timeout)

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        await self.connection.notify(method, params)

    async def close(self) -> None:
        await self.connection.close()

    # --8<-- [start:client_answers]
    async def _on_request(self, request: Request) -> Any:
        if request.method == "ping":
            return {}
        if self.on_request is not None:
            return await self.on_request(request.method, request.params or {})
        raise RpcError(METHOD_NOT_FOUND, f"Method not found: {request.method}")
    # --8<-- [end:client_answers]

    async def _on_notification(self, notification: Notification) -> None:
        if self.on_notification is not None:
            await self.on_notification(notification.method, notification.params or {})


async def _demo() -> None:
    """The handshake between a bare server app and a client, over an in-memory cable."""
    import json

    from .connection import TracingTransport, memory_pair

    class Bare:
        def info(self) -> dict[str, Any]:
            return {"name": "bare", "version": "0.1.0"}

        def capabilities(self) -> dict[str, Any]:
            return {}

        def instructions(self) -> str | None:
            return None

        def knows(self, method: str) -> bool:
            return False

        async def handle(self, context: RequestContext) -> Any:
            raise RpcError(METHOD_NOT_FOUND, context.request.method)

        async def handle_notification(self, session: ServerSession, notification: Notification) -> None:
            pass

    client_end, server_end = memory_pair()
    server = ServerSession(server_end, Bare())
    serving = asyncio.ensure_future(server.run())
    client = ClientSession(TracingTransport(client_end, lambda d, m: print(d, json.loads(m))))
    await client.initialize()
    await client.ping()
    await client.close()
    await serving


if __name__ == "__main__":
    asyncio.run(_demo())
