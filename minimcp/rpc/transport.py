"""What a cable is, seen from the connection: a :class:`Transport` (lesson 01).

A transport moves whole messages between two peers; every cable of the course (memory, stdio,
WebSocket, Streamable HTTP) is one. It turns messages into text (or bytes) and back at its own edge,
once each way, so between the connection and the cable messages travel parsed: nothing is read
twice, and "is this the answer?" is a type check, never a parse. A cable whose edge is text only
writes two methods and inherits the rest (:class:`TextCable`). Beside it: what a cable raises when
the other side has gone, and what serves one peer over one transport (:class:`Servable`).
"""

from __future__ import annotations

import logging
from typing import Protocol

from minimcp.rpc.abilities import PLAIN, Abilities
from minimcp.rpc.jsonrpc import Message, RequestId, encode, parse

log = logging.getLogger("minimcp.connection")


# --8<-- [start:transport]
class Transport(Protocol):
    """Moves whole messages between two peers. Knows nothing of MCP.

    ``send`` encodes a message at the cable's edge; encoding a result that is not JSON raises
    ``TypeError`` or ``ValueError`` there, before anything is sent. ``receive`` returns the next
    message, parsed, or None when the other side has gone for good. It may raise
    :class:`~minimcp.rpc.jsonrpc.RpcError` for one bad frame (too large, not UTF-8, not JSON, not
    JSON-RPC) and still be usable afterwards: the connection answers the error and reads on.

    ``related_request_id`` names the incoming request a message belongs to (its answer, or a notice
    sent while answering it), or is None. A cable with one stream (stdio, WebSocket) ignores it.

    ``abilities`` says what else the cable can do (:mod:`minimcp.rpc.abilities`); most say
    :data:`~minimcp.rpc.abilities.PLAIN`: nothing.
    """

    @property
    def abilities(self) -> Abilities: ...

    async def send(self, message: Message, related_request_id: RequestId | None = None) -> None: ...

    async def receive(self) -> Message | None: ...

    async def close(self) -> None: ...


# --8<-- [end:transport]


# --8<-- [start:text_cable]
class TextCable:
    """A transport whose edge is text, a message a piece: memory, stdio's lines, WebSocket frames.

    A subclass writes the edge, ``send_text`` and ``receive_text`` (None: the other side has gone),
    and ``close``. This class does the rest, in one place: ``send`` encodes a message once, before
    the text goes anywhere; ``receive`` parses each text once. The text methods stay public: a test
    that plays a raw peer writes exact text with them, and reads exact text back.
    """

    abilities = PLAIN  # it carries messages, and that is all

    async def send(self, message: Message, related_request_id: RequestId | None = None) -> None:
        await self.send_text(encode(message))  # one stream: the related request changes nothing

    async def receive(self) -> Message | None:
        text = await self.receive_text()
        return None if text is None else parse(text)  # RpcError: a bad text, answered by the caller

    async def send_text(self, text: str) -> None:
        raise NotImplementedError

    async def receive_text(self) -> str | None:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError


# --8<-- [end:text_cable]


# --8<-- [start:closed]
class ConnectionClosed(Exception):
    """The other side went away (or we closed) before the answer came."""


#: What sending raises when the other side has simply gone: a closed cable, a broken pipe, a reset.
PEER_GONE = (ConnectionClosed, ConnectionError)


def log_send_failure(what: str, error: Exception) -> None:
    """A message could not be sent. A peer that left is normal (a debug line); anything else is a
    bug in a transport, and gets a warning with its traceback rather than hiding at debug level."""
    if isinstance(error, PEER_GONE):
        log.debug("could not send %s: the other side has gone (%s)", what, error)
    else:
        log.warning("could not send %s", what, exc_info=error)


# --8<-- [end:closed]


class Servable(Protocol):
    """Anything that serves one peer over one transport: a transport that accepts many peers (a
    WebSocket or HTTP listener) calls ``serve`` once per peer, as :class:`minimcp.server.Server`
    does."""

    async def serve(self, transport: Transport) -> None: ...
