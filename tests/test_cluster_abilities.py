"""What lesson 11's shared session cable declares it can do (rpc/abilities.py).

Like lesson 08's session cable it has a stream per request; it also keeps the session's state, so
that another worker can take the session over (test_abilities.py checks the cables before it).
"""

from __future__ import annotations

from typing import Any

from test_abilities import IdleServer

from minimcp.rpc.abilities import Abilities
from minimcp.transports.cluster.sessions import SharedSessionTransport
from minimcp.transports.event_store import MemoryEventStore
from minimcp.transports.http.sessions import SessionManager


async def test_the_shared_session_cable_also_keeps_state() -> None:
    manager = SessionManager(IdleServer(), MemoryEventStore())
    session = manager.new_session()
    try:
        directory: Any = None  # never used: the declaration alone is read
        cable = SharedSessionTransport(session, directory, state=None)
        assert cable.abilities == Abilities(
            request_streams=cable, hands_in=cable, state_keeper=cable
        )
    finally:
        await manager.close()
