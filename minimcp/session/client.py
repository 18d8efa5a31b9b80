"""The client's half of a session: it starts the handshake and checks the server's answer (lesson 03).

A :class:`ClientSession` owns one :class:`~minimcp.rpc.connection.Connection`. ``initialize`` sends
the client's version, capabilities and identity, checks the server's answer (a version this client
cannot speak means "disconnect", spec 2025-11-25, basic/lifecycle), and confirms with
``notifications/initialized``. It answers the server's ``ping`` itself and hands every other request
and notification from the server to callbacks: :class:`minimcp.client.Client` gives them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from minimcp.rpc import Transport
from minimcp.rpc.connection import Connection
from minimcp.rpc.jsonrpc import Notification, Request, method_not_found
from minimcp.session.cancellation import CANCELLED, on_cancelled, tell_peer_on_abandon
from minimcp.session.lifecycle import SUPPORTED_PROTOCOL_VERSIONS, HandshakeFailed, UnsupportedVersion

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
        tell_peer_on_abandon(self.connection)  # a request that times out is cancelled (not initialize)
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
        raise method_not_found(request.method)
    # --8<-- [end:client_answers]

    async def _on_notification(self, notification: Notification) -> None:
        if notification.method == CANCELLED:  # the server stopped waiting for a question it asked us
            on_cancelled(self.connection, notification.params or {})
            return
        if self.on_notification is not None:
            await self.on_notification(notification.method, notification.params or {})
