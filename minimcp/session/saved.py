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
