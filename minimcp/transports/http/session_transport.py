"""The cable under one HTTP session: a Transport like any other, for its ServerSession (lesson 08).

The ServerSession behind an ``Mcp-Session-Id`` runs over a :class:`SessionTransport`, as it would
over stdio or a WebSocket. What it receives, the session's POSTs brought; what it sends goes to the
HTTP session (:class:`~minimcp.transports.http.sessions.HttpSession`), which puts each message on
the right stream. The cable also declares what it can do with the stream of each request.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

from minimcp.rpc.abilities import Abilities, Take
from minimcp.rpc.jsonrpc import Message, RequestId
from minimcp.transports.http.streams import Stream


class CarriedSession(Protocol):
    """What the cable needs of the HTTP session it carries (an
    :class:`~minimcp.transports.http.sessions.HttpSession`): its id and GET stream, which lesson 11
    saves with the state, and the three ways a message or a request reaches its stream."""

    id: str
    announcements: Stream

    async def route(self, message: Message, related_request_id: RequestId | None) -> None: ...

    def close_request_connection(self, request_id: RequestId, retry_ms: int | None) -> bool: ...

    def end_request(self, request_id: RequestId) -> None: ...


# --8<-- [start:session_transport]
class SessionTransport:
    """The cable between one HTTP session and its ServerSession: a Transport like any other.

    What clients POSTed, parsed once when the POST was read, is handed in (:meth:`deliver`):
    straight to the connection once it reads (``hands_in``), else queued for ``receive``. ``send``
    hands the session's messages, with the id of the request each belongs to, to the HTTP
    session's ``route``, which encodes each once and puts it on the right stream.
    """

    def __init__(self, session: CarriedSession) -> None:
        self.http_session = session
        self.inbox: asyncio.Queue[Message | None] = asyncio.Queue()
        self.take: Take | None = None  # the connection's way in, once it reads

    @property
    def abilities(self) -> Abilities:
        """Besides messages, a stream per request (it can close one, and end a cancelled one), and
        messages handed in by each POST."""
        return Abilities(request_streams=self, hands_in=self)

    def hand_to(self, take: Take) -> None:
        self.take = take

    async def deliver(self, message: Message) -> None:
        """A POSTed message, in the POST's own task: to the connection directly, unless messages
        are still queued for it (then behind them, so that none overtakes another)."""
        if self.take is not None and self.inbox.empty():
            await self.take(message)
        else:
            self.inbox.put_nowait(message)

    async def send(self, message: Message, related_request_id: RequestId | None = None) -> None:
        await self.http_session.route(message, related_request_id)

    async def receive(self) -> Message | None:
        return await self.inbox.get()

    async def close(self) -> None:
        self.inbox.put_nowait(None)

    def close_request_stream(self, request_id: RequestId, retry_ms: int | None = None) -> bool:
        """What a handler's ``context.close_sse_stream()`` asks: see
        :meth:`~minimcp.transports.http.sessions.HttpSession.close_request_connection`."""
        return self.http_session.close_request_connection(request_id, retry_ms)

    def request_cancelled(self, request_id: RequestId) -> None:
        """The session cancelled this request (lesson 09): see
        :meth:`~minimcp.transports.http.sessions.HttpSession.end_request`."""
        self.http_session.end_request(request_id)


# --8<-- [end:session_transport]
