"""What each cable declares it can do besides carrying messages (rpc/abilities.py), and who reads
it.

stdio and WebSocket carry messages and nothing more; lesson 08's session cable has a stream per
request (lesson 11's, which also keeps the session's state for another worker, is checked in
test_cluster_abilities.py). The declarations are typed (mypy checks that the objects named really
have the methods); these tests check what they say.
"""

from __future__ import annotations

import asyncio
from typing import Any

from support import until

from minimcp.rpc.abilities import PLAIN, Abilities
from minimcp.rpc.cables import TracingTransport, memory_pair
from minimcp.rpc.connection import Connection
from minimcp.rpc.jsonrpc import Request, RequestId
from minimcp.server.core import ServerCore
from minimcp.session.server import ServerSession
from minimcp.transports.event_store import MemoryEventStore
from minimcp.transports.http.session_transport import SessionTransport
from minimcp.transports.http.sessions import SessionManager
from minimcp.transports.stdio import PipeTransport
from minimcp.transports.websocket import WebSocketTransport


class IdleServer:
    async def serve(self, transport: Any) -> None:
        await asyncio.Event().wait()


def test_websocket_only_carries_messages_and_a_pipe_says_its_end_is_half_a_close() -> None:
    assert WebSocketTransport.abilities is PLAIN
    assert PLAIN == Abilities(
        request_streams=None, state_keeper=None, hands_in=None, reads_after_end=False
    )
    # The peer that closed its end of a pipe still reads the other: everything is answered.
    assert PipeTransport.abilities == Abilities(reads_after_end=True)


class Streams:
    """A stand-in for lesson 08's streams per request: what the session is handed."""

    def __init__(self) -> None:
        self.closed: list[tuple[RequestId, int | None]] = []

    def close_request_stream(self, request_id: RequestId, retry_ms: int | None = None) -> bool:
        self.closed.append((request_id, retry_ms))
        return True

    def request_cancelled(self, request_id: RequestId) -> None:
        pass


def test_the_session_reads_what_the_cable_declares_and_nothing_else() -> None:
    """The session takes the request streams from the cable's declaration, through a tap too; a
    cable that has the methods but does not declare them gets no streams: nothing is guessed."""
    streams = Streams()
    _, end = memory_pair()

    class Declaring(TracingTransport):
        abilities = Abilities(request_streams=streams)

    declared = Declaring(end, lambda direction, text: None)
    assert ServerSession(declared, ServerCore("s")).request_streams is streams
    tapped = TracingTransport(declared, lambda direction, text: None)
    assert ServerSession(tapped, ServerCore("s")).request_streams is streams

    class Undeclared(TracingTransport):
        close_request_stream = Streams.close_request_stream
        request_cancelled = Streams.request_cancelled

    quiet = Undeclared(end, lambda direction, text: None)
    assert ServerSession(quiet, ServerCore("s")).request_streams is None


async def test_the_http_session_cable_has_a_stream_per_request() -> None:
    manager = SessionManager(IdleServer(), MemoryEventStore())
    session = manager.new_session()
    try:
        cable = session.transport
        assert type(cable) is SessionTransport
        assert cable.abilities == Abilities(request_streams=cable, hands_in=cable)
    finally:
        await manager.close()


async def test_a_cable_that_hands_messages_in_gives_them_to_the_connection_directly() -> None:
    """Lesson 08's cable declares ``hands_in``: once the connection reads, a POSTed request runs in
    the POST's own task, with no queue and no reading loop between (one turn of the event loop
    fewer); messages queued before it reads are taken first, in order."""
    manager = SessionManager(IdleServer(), MemoryEventStore())
    cable = manager.new_session().transport
    seen: list[str] = []

    async def on_request(request: Request) -> dict[str, Any]:
        seen.append(request.method)
        return {}

    try:
        await cable.deliver(Request(1, "queued"))  # before the connection reads: queued
        connection = Connection(cable, on_request)
        reading = connection.start()
        await until(lambda: cable.take is not None and cable.inbox.empty())
        await cable.deliver(Request(2, "direct"))
        assert connection.answering(2) is not None  # taken directly: already being answered
        await until(lambda: len(seen) == 2)
        assert seen == ["queued", "direct"]
        await connection.close()
        await asyncio.gather(reading, return_exceptions=True)
    finally:
        await manager.close()
