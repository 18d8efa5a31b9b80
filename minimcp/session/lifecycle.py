"""The MCP lifecycle as rules and a small state machine, with no I/O (lesson 03).

Before anything else the client sends ``initialize`` with the protocol version it speaks, its
capabilities and who it is; the server answers with the version they will use, its own capabilities
and who it is; the client confirms with ``notifications/initialized``. Only then does normal work
begin (spec 2025-11-25, basic/lifecycle).

Everything here is plain data and decisions: which versions exist, which one two sides agree on, and
which state a server's session is in. No message is sent or read, so every rule can be tested
without an event loop or a cable; :mod:`minimcp.session.server` and :mod:`minimcp.session.client`
do the talking.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from minimcp.rpc.jsonrpc import INVALID_PARAMS, INVALID_REQUEST, RpcError, shorten

# --8<-- [start:versions]
#: The revision these lessons teach, and what we answer a client whose version we do not know.
LATEST_PROTOCOL_VERSION = "2025-11-25"
#: Every revision with the initialize handshake, newest first.
SUPPORTED_PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")


def negotiate_version(
    requested: object, supported: tuple[str, ...] = SUPPORTED_PROTOCOL_VERSIONS
) -> str:
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
        super().__init__(
            f"the server offered protocol version {offered!r}; this client speaks "
            f"{', '.join(supported)}"
        )
        self.offered = offered
        self.supported = supported


# --8<-- [end:unsupported]


@dataclass(frozen=True)
class Agreement:
    """What the handshake settled: the version both sides speak, and who the client is."""

    protocol_version: str
    client_info: dict[str, Any]
    client_capabilities: dict[str, Any]


# --8<-- [start:lifecycle]
#: Requests a session answers in every state: the handshake itself, and ping (basic/utilities/ping).
ALWAYS_ALLOWED = ("initialize", "ping")


class Lifecycle:
    """The server's side of one session's handshake: ``new`` → ``initializing`` → ``ready``.

    * ``new``: waiting for ``initialize``; every other request but ``ping`` is refused;
    * ``initializing``: ``initialize`` was answered; waiting for ``notifications/initialized``;
    * ``ready``: normal work.

    A client may pipeline ``initialized`` right behind ``initialize``, so the notification can
    overtake its own request's answer: then the session is ready as soon as ``initialize`` is done.
    """

    def __init__(self) -> None:
        self.state = "new"
        self._initialized_early = False

    def check_request(self, method: str) -> None:
        """Raise the spec's error if ``method`` may not be asked for in this state."""
        if self.state == "new" and method not in ALWAYS_ALLOWED:
            raise RpcError(
                INVALID_REQUEST,
                f"Received {shorten(method)!r} before initialization: send 'initialize' first",
            )

    def initialize(
        self,
        params: dict[str, Any],
        supported: tuple[str, ...] = SUPPORTED_PROTOCOL_VERSIONS,
    ) -> Agreement:
        """Accept an ``initialize`` request's params, or raise the error it earns.

        A second ``initialize`` is refused; so is one that lacks what the spec requires (the state
        then stays ``new``, and the client may try again).
        """
        if self.state != "new":
            raise RpcError(INVALID_REQUEST, "The session is already initialized")
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise RpcError(INVALID_PARAMS, 'initialize needs "protocolVersion" (a string)')
        info = params.get("clientInfo")
        if not (
            isinstance(info, dict)
            and isinstance(info.get("name"), str)
            and isinstance(info.get("version"), str)
        ):
            raise RpcError(
                INVALID_PARAMS, 'initialize needs "clientInfo" with a "name" and a "version"'
            )
        capabilities = params.get("capabilities")
        if not isinstance(capabilities, dict):
            raise RpcError(INVALID_PARAMS, 'initialize needs "capabilities" (an object)')
        self.state = "ready" if self._initialized_early else "initializing"
        return Agreement(negotiate_version(requested, supported), info, capabilities)

    def initialized(self) -> None:
        """``notifications/initialized`` arrived."""
        if self.state == "initializing":
            self.state = "ready"
        elif self.state == "new":  # it overtook its own initialize, still being answered
            self._initialized_early = True


# --8<-- [end:lifecycle]
