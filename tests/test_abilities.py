"""What each cable declares it can do besides carrying messages (transports/abilities.py).

stdio and WebSocket carry messages and nothing more; lesson 08's session cable has a stream per
request (lesson 11's, which also keeps the session's state for another worker, is checked in
test_cluster_abilities.py). The declarations are typed (mypy checks that the objects named really
have the methods); these tests check what they say.
"""

from __future__ import annotations

import asyncio
from typing import Any

from minimcp.transports.abilities import PLAIN, Abilities
from minimcp.transports.event_store import MemoryEventStore
from minimcp.transports.http.sessions import SessionManager, SessionTransport
from minimcp.transports.stdio import PipeTransport
from minimcp.transports.websocket import WebSocketTransport


class IdleServer:
    async def serve(self, transport: Any) -> None:
        await asyncio.Event().wait()


def test_stdio_and_websocket_only_carry_messages() -> None:
    assert PipeTransport.abilities is PLAIN
    assert WebSocketTransport.abilities is PLAIN
    assert PLAIN == Abilities(request_streams=None, state_keeper=None)


async def test_the_http_session_cable_has_a_stream_per_request() -> None:
    manager = SessionManager(IdleServer(), MemoryEventStore())
    session = manager.new_session()
    try:
        cable = session.transport
        assert type(cable) is SessionTransport
        assert cable.abilities == Abilities(request_streams=cable)
    finally:
        await manager.close()

