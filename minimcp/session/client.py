"""The client's half of a session: it starts the handshake and checks the server's answer
(lesson 03).

A :class:`ClientSession` owns one :class:`~minimcp.rpc.connection.Connection`. ``initialize`` sends
the client's version, capabilities and identity, checks the server's answer (a version this client
cannot speak means "disconnect", spec 2025-11-25, basic/lifecycle), and confirms with
``notifications/initialized``. It answers the server's ``ping`` itself and hands every other
request and notification from the server to callbacks: :class:`minimcp.client.Client` gives them.

Two seams let later lessons add to a session without this module knowing them:

* a :class:`Conversation` says how the conversation opens, how each request and notification
  travels, and how the client's answers answer the server's requests in its era. This lesson's,
  :class:`InitializeFirst`, is the handshake, then plain requests and plain answers; lesson 12
  plugs in one that speaks the 2026-07-28 era (:mod:`minimcp.session.eras`);
* ``extensions`` are functions given the built session, to add to it: lesson 09's cancellation
  (:mod:`minimcp.session.client_cancellation`) sets the connection's ``on_abandon`` and adds a
  handler to :attr:`ClientSession.notification_handlers`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from minimcp.rpc import Transport
from minimcp.rpc.connection import Connection
from minimcp.rpc.jsonrpc import Notification, Request, method_not_found
from minimcp.session.lifecycle import (
    SUPPORTED_PROTOCOL_VERSIONS,
    HandshakeFailed,
    UnsupportedVersion,
)

NotificationCallback = Callable[[str, dict[str, Any]], Awaitable[None]]
RequestCallback = Callable[[str, dict[str, Any]], Awaitable[Any]]
#: A later lesson's addition to a session, given the session once it is built.
SessionExtension = Callable[["ClientSession"], None]
#: A notification the session handles itself (its params), instead of passing it on.
NotificationHandler = Callable[[dict[str, Any]], None]
Params = dict[str, Any] | None


class Conversation(Protocol):
    """How a session opens the conversation with its server, and how messages then go."""

    async def open(self, session: ClientSession, timeout: float | None) -> dict[str, Any]:
        """Start talking; returns what the server said about itself (``initialize``'s result)."""

    async def request(
        self, session: ClientSession, method: str, params: Params, timeout: float | None
    ) -> Any:
        """Send one request and return its result."""

    async def notify(self, session: ClientSession, method: str, params: Params) -> None:
        """Send one notification."""

    async def answer_with(self, answers: Any, method: str, params: dict[str, Any]) -> Any:
        """Answer one of the server's requests with the client's ``answers`` (lesson 09's
        ``ClientAnswers``, which lesson 04's ``Client`` is given), as this era asks it to."""


class InitializeFirst:
    """This lesson's conversation: the ``initialize`` handshake, then every message as it is."""

    async def open(self, session: ClientSession, timeout: float | None) -> dict[str, Any]:
        return await session.initialize(timeout)

    async def request(
        self, session: ClientSession, method: str, params: Params, timeout: float | None
    ) -> Any:
        return await session.connection.request(method, params, timeout)

    async def notify(self, session: ClientSession, method: str, params: Params) -> None:
        await session.connection.notify(method, params)

    async def answer_with(self, answers: Any, method: str, params: dict[str, Any]) -> Any:
        # A session the handshake opened: the answers' ordinary ``answer``. (``answers`` is typed
        # Any because it is a later lesson's object: each conversation names what it needs.)
        return await answers.answer(method, params)


# --8<-- [start:client_session]
@dataclass
class ClientSession:
    """The client's half of a session: it starts the handshake and checks the server's answer."""

    transport: Transport
    client_info: dict[str, Any] = field(
        default_factory=lambda: {"name": "minimcp", "version": "0.1.0"}
    )
    capabilities: dict[str, Any] = field(default_factory=dict)
    supported_versions: tuple[str, ...] = SUPPORTED_PROTOCOL_VERSIONS
    on_notification: NotificationCallback | None = None
    on_request: RequestCallback | None = None
    conversation: Conversation = field(default_factory=InitializeFirst)  # lesson 12: another
    extensions: Sequence[SessionExtension] = ()  # later lessons' additions (09: cancellation)

    def __post_init__(self) -> None:
        self.connection = Connection(self.transport, self.answer, self._on_notification)
        self.notification_handlers: dict[str, NotificationHandler] = {}  # method → ours
        self.server_info: dict[str, Any] = {}
        self.server_capabilities: dict[str, Any] = {}
        self.instructions: str | None = None
        self.protocol_version: str | None = None
        for extend in self.extensions:
            extend(self)

    async def initialize(
        self, timeout: float | None = 30.0, protocol_version: str | None = None
    ) -> dict[str, Any]:
        """The handshake: initialize → result → notifications/initialized. Returns the result."""
        self.connection.start()
        requested = protocol_version or self.supported_versions[0]  # SHOULD be our latest
        result = await self.connection.request(
            "initialize",
            {
                "protocolVersion": requested,
                "capabilities": self.capabilities,
                "clientInfo": self.client_info,
            },
            timeout=timeout,
        )
        if not (
            isinstance(result, dict)
            and isinstance(result.get("serverInfo"), dict)
            and isinstance(result.get("capabilities"), dict)
        ):
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

    async def open(self, timeout: float | None = 30.0) -> dict[str, Any]:
        """Start talking, as the session's conversation does (this lesson's: ``initialize``)."""
        return await self.conversation.open(self, timeout)

    async def request(
        self, method: str, params: Params = None, timeout: float | None = None
    ) -> Any:
        return await self.conversation.request(self, method, params, timeout)

    async def notify(self, method: str, params: Params = None) -> None:
        await self.conversation.notify(self, method, params)

    async def close(self) -> None:
        await self.connection.close()

    # --8<-- [start:client_answers]
    async def answer(self, request: Request) -> Any:
        """A request from the server: ``ping`` is ours, anything else goes to ``on_request``."""
        if request.method == "ping":
            return {}
        if self.on_request is not None:
            return await self.on_request(request.method, request.params or {})
        raise method_not_found(request.method)

    # --8<-- [end:client_answers]

    async def _on_notification(self, notification: Notification) -> None:
        handler = self.notification_handlers.get(notification.method)
        if handler is not None:  # one a later lesson taught the session to handle itself
            handler(notification.params or {})
            return
        if self.on_notification is not None:
            await self.on_notification(notification.method, notification.params or {})
