"""Two cables that need no operating system: an in-memory pair and a traffic tap (lesson 01).

Tests and notebooks run a client and a server in one process over :func:`memory_pair`, and wrap
either end in a :class:`TracingTransport` to print what really crosses it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from minimcp.rpc.abilities import Abilities
from minimcp.rpc.jsonrpc import Message, RequestId, encode
from minimcp.rpc.transport import ConnectionClosed, TextCable, Transport


# --8<-- [start:memory]
class MemoryTransport(TextCable):
    """The simplest cable: two queues in one process. Tests and notebooks use it.

    The queues hold text, what a wire would carry: each message is encoded once on its way in and
    parsed once on its way out, as on every other cable.
    """

    def __init__(self, inbox: asyncio.Queue[str | None], outbox: asyncio.Queue[str | None]) -> None:
        self._inbox = inbox
        self._outbox = outbox
        self._closed = False

    async def send_text(self, text: str) -> None:
        if self._closed:
            raise ConnectionClosed("this end of the cable is closed")
        await self._outbox.put(text)

    async def receive_text(self) -> str | None:
        if self._closed:
            return None
        return await self._inbox.get()

    async def close(self) -> None:
        if not self._closed:
            self._closed = True
            await self._outbox.put(None)  # the other side reads "end of stream"
            await self._inbox.put(None)  # and so does our own reader


def memory_pair() -> tuple[MemoryTransport, MemoryTransport]:
    """Two connected transports: what one sends, the other receives."""
    a_to_b: asyncio.Queue[str | None] = asyncio.Queue()
    b_to_a: asyncio.Queue[str | None] = asyncio.Queue()
    return MemoryTransport(b_to_a, a_to_b), MemoryTransport(a_to_b, b_to_a)


# --8<-- [end:memory]


# --8<-- [start:tracing]
class TracingTransport:
    """Wraps a transport and records every message that crosses it, as text, in order.

    The notebooks use it to show real traffic: ``trace`` is called with ``("->", text)`` for what
    this side sends and ``("<-", text)`` for what it receives. The text is the message encoded once
    more, for the record only: a debugging tap may spend what a cable must not.
    """

    def __init__(self, inner: Transport, trace: Callable[[str, str], None]) -> None:
        self.inner = inner
        self.trace = trace

    async def send(self, message: Message, related_request_id: RequestId | None = None) -> None:
        self.trace("->", encode(message))
        await self.inner.send(message, related_request_id)

    async def receive(self) -> Message | None:
        message = await self.inner.receive()
        if message is not None:
            self.trace("<-", encode(message))
        return message

    async def close(self) -> None:
        await self.inner.close()

    @property
    def abilities(self) -> Abilities:
        """The tapped cable's: recording its traffic takes nothing away from what it can do."""
        return self.inner.abilities


# --8<-- [end:tracing]
