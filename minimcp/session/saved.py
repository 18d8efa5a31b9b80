"""A session's state as plain data, so that another process can take the session over (lesson 11).

Everything a server remembers about one client between two requests fits in a small dict: where the
handshake stands, the version it agreed, what the client said about itself, the log level it chose and
the resources it subscribed to. A cable that several processes share (Streamable HTTP behind a load
balancer, lesson 11) keeps that dict where every process can read it; when the process running a
session dies, another one builds a new :class:`~minimcp.session.server.ServerSession` from it and the
client carries on, none the wiser.

What is *not* saved is what lives only while a request runs (a question to the client awaiting its
answer, a progress callback): a request running on a process that died is lost, and its caller is told so.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from minimcp.rpc.jsonrpc import INTERNAL_ERROR, RpcError
from minimcp.session.lifecycle import Lifecycle

#: The keys of a saved session (:meth:`ServerSession.saved_state <minimcp.session.server.ServerSession.saved_state>`).
STATE_KEYS = ("lifecycle", "protocolVersion", "clientInfo", "clientCapabilities", "logLevel", "subscriptions")


@runtime_checkable
class KeepsSessionState(Protocol):
    """A transport that keeps its session's state where other processes find it (lesson 11).

    ``restored_state()`` is the state to start from (None: a new session); ``keep_state(state)`` is
    called, before the client hears the answer, whenever a request or notification changed it.
    """

    def restored_state(self) -> dict[str, Any] | None: ...

    async def keep_state(self, state: dict[str, Any]) -> None: ...


class SavedState:
    """The part of :class:`~minimcp.session.server.ServerSession` that turns it into plain data and back."""

    lifecycle: Lifecycle
    protocol_version: str | None
    client_info: dict[str, Any]
    client_capabilities: dict[str, Any]
    log_level: str | None
    subscriptions: set[str]
    _keeper: KeepsSessionState | None  # the transport that keeps the state, if it does
    _kept: dict[str, Any]  # the state it last kept

    # --8<-- [start:saved]
    def saved_state(self) -> dict[str, Any]:
        """What another process needs to go on with this session: plain JSON data (lesson 11)."""
        return {"lifecycle": self.lifecycle.state, "protocolVersion": self.protocol_version,
                "clientInfo": self.client_info, "clientCapabilities": self.client_capabilities,
                "logLevel": self.log_level, "subscriptions": sorted(self.subscriptions)}

    def restore(self, state: dict[str, Any]) -> None:
        """Become the session ``state`` describes (the inverse of :meth:`saved_state`)."""
        missing = [key for key in STATE_KEYS if key not in state]
        if missing:
            raise ValueError(f"a saved session lacks {', '.join(missing)}")
        self.lifecycle.state, self.protocol_version = state["lifecycle"], state["protocolVersion"]
        self.client_info, self.client_capabilities = state["clientInfo"], state["clientCapabilities"]
        self.log_level, self.subscriptions = state["logLevel"], set(state["subscriptions"])

    async def _keep_state(self) -> None:
        """Hand the session's state to a transport that keeps it (lesson 11), if it changed."""
        if self._keeper is None:
            return
        state = self.saved_state()
        if state == self._kept:
            return
        try:
            await self._keeper.keep_state(state)
        except ConnectionError as error:  # the shared store is away: say so, and try again next time
            raise RpcError(INTERNAL_ERROR, f"The session's state could not be saved: {error}") from error
        self._kept = state
    # --8<-- [end:saved]
