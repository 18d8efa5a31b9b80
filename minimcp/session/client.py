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
from minimcp.rpc.jsonrpc import INTERNAL_ERROR, Notification, Request, RpcError, method_not_found
from minimcp.rpc.mcp import MODERN_ERRORS, SERVER_INFO, UNSUPPORTED_PROTOCOL_VERSION
from minimcp.session.cancellation import CANCELLED, on_cancelled, tell_peer_on_abandon
from minimcp.session.envelope import MODERN_PROTOCOL_VERSIONS, Envelope, with_envelope
from minimcp.session.lifecycle import SUPPORTED_PROTOCOL_VERSIONS, HandshakeFailed, UnsupportedVersion

NotificationCallback = Callable[[str, dict[str, Any]], Awaitable[None]]
RequestCallback = Callable[[str, dict[str, Any]], Awaitable[Any]]

#: How many times a 2026-07-28 request may come back ``input_required`` before the client gives up.
MAX_ROUNDS = 10
#: What a dual-era client remembers of each server it probed: "modern" or "legacy" (versioning: "cache
#: the verdict"), by a name the caller gives (a URL's origin, a command line).
VERDICTS: dict[str, str] = {}


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
    #: "legacy" (the initialize handshake), "auto" (probe with server/discover, fall back to initialize),
    #: or a 2026-era version to speak and nothing else (lesson 12).
    mode: str = "legacy"
    server_key: str | None = None  # names the server in VERDICTS, for "auto"
    modern_versions: tuple[str, ...] = MODERN_PROTOCOL_VERSIONS

    def __post_init__(self) -> None:
        self.connection = Connection(self.transport, self._on_request, self._on_notification)
        tell_peer_on_abandon(self.connection)  # a request that times out is cancelled (not initialize)
        self.server_info: dict[str, Any] = {}
        self.server_capabilities: dict[str, Any] = {}
        self.instructions: str | None = None
        self.protocol_version: str | None = None
        self.era: str | None = None  # "legacy" after initialize, "modern" once the server answered discover
        self.log_level: str | None = None  # what a 2026-07-28 request asks for in its envelope

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

    # --8<-- [start:open]
    async def open(self, timeout: float | None = 30.0) -> dict[str, Any]:
        """Start talking, in the era ``mode`` says; for "auto", the server's answer to a probe decides."""
        if self.mode == "legacy" or (self.mode == "auto" and VERDICTS.get(self.server_key or "") == "legacy"):
            return await self._handshake(timeout)
        self.connection.start()
        version = self.modern_versions[0] if self.mode == "auto" else self.mode
        try:
            return await self.discover(version, timeout)
        except RpcError as error:
            supported = error.data.get("supported", []) if isinstance(error.data, dict) else []
            ours = self.modern_versions if self.mode == "auto" else (self.mode,)
            common = [v for v in supported if v in ours]
            if error.code == UNSUPPORTED_PROTOCOL_VERSION and common:  # a modern server: one more try
                return await self.discover(common[0], timeout)
            if error.code == UNSUPPORTED_PROTOCOL_VERSION and self.mode == "auto":
                if not any(v in self.supported_versions for v in supported):
                    raise UnsupportedVersion(str(supported), self.modern_versions + self.supported_versions) from None
                # it named a version of the handshake era we speak: initialize, below
            elif self.mode != "auto" or error.code in MODERN_ERRORS:
                raise
        except TimeoutError:  # no answer at all: an older server that ignores what it does not know
            if self.mode != "auto":
                raise
        return await self._handshake(timeout)  # any other error: an older server (not one code: versioning)

    async def _handshake(self, timeout: float | None) -> dict[str, Any]:
        result = await self.initialize(timeout)
        self.era = "legacy"
        if self.server_key is not None:
            VERDICTS[self.server_key] = "legacy"
        return result

    async def discover(self, version: str, timeout: float | None = 30.0) -> dict[str, Any]:
        """``server/discover`` in ``version``: from now on every request carries its own envelope."""
        result = await self.connection.request("server/discover", with_envelope({}, self.envelope(version)),
                                               timeout)
        if not (isinstance(result, dict) and isinstance(result.get("capabilities"), dict)):
            raise HandshakeFailed(f"the server's discover result is malformed: {result!r}")
        self.era, self.protocol_version = "modern", version
        info = result.get("_meta", {}).get(SERVER_INFO) or result.get("serverInfo")  # older drafts: the body
        self.server_info = info if isinstance(info, dict) else {}
        self.server_capabilities, self.instructions = result["capabilities"], result.get("instructions")
        if self.server_key is not None:
            VERDICTS[self.server_key] = "modern"
        return result
    # --8<-- [end:open]

    def envelope(self, version: str | None = None) -> Envelope:
        return Envelope(version or str(self.protocol_version), self.capabilities, self.client_info, self.log_level)

    # --8<-- [start:request]
    async def request(self, method: str, params: dict[str, Any] | None = None,
                      timeout: float | None = None) -> Any:
        """A request; in 2026-07-28, with its envelope, and asked again as long as the server needs input."""
        if self.era != "modern":
            return await self.connection.request(method, params, timeout)
        base = with_envelope(params, self.envelope())
        sent = base
        for _ in range(MAX_ROUNDS):
            result = await self.connection.request(method, sent, timeout)  # every attempt: a new id
            kind = result.get("resultType", "complete") if isinstance(result, dict) else "complete"
            if kind == "complete":  # (no resultType at all: an older server's result, complete)
                return result
            if kind != "input_required":
                raise RpcError(INTERNAL_ERROR, f"the server answered with an unknown resultType {kind!r}")
            sent = {**base, "inputResponses": await self._answer(result.get("inputRequests") or {})}
            if "requestState" in result:
                sent["requestState"] = result["requestState"]  # exactly as it came: never read, never changed
        raise RpcError(INTERNAL_ERROR, f"{method}: the server still needed input after {MAX_ROUNDS} rounds")

    async def _answer(self, questions: dict[str, Any]) -> dict[str, Any]:
        """The answers to a round of the server's questions, by the callbacks that answer its requests."""
        answers = {}
        for key, question in questions.items():
            answers[key] = await self._on_request(Request(key, question.get("method", ""), question.get("params")))
        return answers
    # --8<-- [end:request]

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
