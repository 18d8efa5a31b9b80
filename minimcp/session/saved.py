"""A session's state as plain data, so that another process can take the session over (lesson 11).

Everything a server remembers about one client between two requests fits in a small dict: where the
handshake stands, the version it agreed, what the client said about itself, the log level it chose
and the resources it subscribed to. A cable that several processes share (Streamable HTTP behind a
load balancer, lesson 11) keeps that dict where every process can read it; when the process running
a session dies, another one builds a new :class:`~minimcp.session.server.ServerSession` from it and
the client carries on, none the wiser.

What is *not* saved is what lives only while a request runs (a question to the client awaiting its
answer, a progress callback): a request running on a process that died is lost, and its caller is
told so.
"""

from __future__ import annotations

from typing import Any

from minimcp.rpc.abilities import StateKeeper
from minimcp.rpc.jsonrpc import INTERNAL_ERROR, RpcError
from minimcp.session.server import ServerSession, StartsSessions

#: The keys of a saved session (:func:`saved_state`).
STATE_KEYS = (
    "lifecycle",
    "protocolVersion",
    "clientInfo",
    "clientCapabilities",
    "logLevel",
    "subscriptions",
)


# --8<-- [start:saved]
def saved_state(session: ServerSession) -> dict[str, Any]:
    """What another process needs to go on with ``session``: plain JSON data (lesson 11)."""
    return {
        "lifecycle": session.lifecycle.state,
        "protocolVersion": session.protocol_version,
        "clientInfo": session.client_info,
        "clientCapabilities": session.client_capabilities,
        "logLevel": session.log_level,
        "subscriptions": sorted(session.subscriptions),
    }


def restore(session: ServerSession, state: dict[str, Any]) -> None:
    """Make ``session`` the session ``state`` describes (the inverse of :func:`saved_state`)."""
    missing = [key for key in STATE_KEYS if key not in state]
    if missing:
        raise ValueError(f"a saved session lacks {', '.join(missing)}")
    session.lifecycle.state, session.protocol_version = state["lifecycle"], state["protocolVersion"]
    session.client_info = state["clientInfo"]
    session.client_capabilities = state["clientCapabilities"]
    session.log_level, session.subscriptions = state["logLevel"], set(state["subscriptions"])


def keep_in(session: ServerSession, keeper: StateKeeper) -> None:
    """Start ``session`` from the state ``keeper`` kept, and hand it every change after each
    request and after ``initialized`` (lesson 03's ``after_each`` seam), before the client hears
    the answer."""
    restored = keeper.restored_state()
    if restored is not None:
        restore(session, restored)
    kept = saved_state(session)

    async def keep() -> None:
        nonlocal kept
        state = saved_state(session)
        if state == kept:
            return
        try:
            await keeper.keep_state(state)
        except ConnectionError as error:
            # The shared store is away: say so, and try again next time
            raise RpcError(
                INTERNAL_ERROR, f"The session's state could not be saved: {error}"
            ) from error
        kept = state

    session.after_each.append(keep)


# --8<-- [end:saved]


def keep_sessions(server: StartsSessions) -> None:
    """Keep the state of each session of ``server`` whose cable keeps it (lesson 11's HTTP)."""

    def setup(session: ServerSession) -> None:
        keeper = session.connection.transport.abilities.state_keeper  # declared by the cable
        if keeper is not None:
            keep_in(session, keeper)

    server.at_session_start(setup)
