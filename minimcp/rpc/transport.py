"""What a cable is, seen from the connection: a :class:`Transport` (lesson 01).

A transport moves whole messages as text and knows nothing of JSON-RPC or MCP; every cable of the
course (memory, stdio, WebSocket, Streamable HTTP) is one. Beside it: what a cable raises when the
other side has gone, and what serves one peer over one transport (:class:`Servable`).
"""

from __future__ import annotations

import logging
from typing import Protocol

from minimcp.rpc.abilities import Abilities
from minimcp.rpc.jsonrpc import RequestId

log = logging.getLogger("minimcp.connection")


# --8<-- [start:transport]
class Transport(Protocol):
    """Moves whole messages, as text, between two peers. Knows nothing of JSON-RPC or MCP.

    ``receive`` returns one message's text, or None when the other side has gone for good. It may
    raise :class:`~minimcp.rpc.jsonrpc.RpcError` for one bad frame (too large, not UTF-8) and still be
    usable afterwards: the connection answers the error and reads on.

    ``related_request_id`` names the incoming request a message belongs to (its answer, or a notice
    sent while answering it), or is None. A cable with one stream (stdio, WebSocket) ignores it.

    ``abilities`` says what else the cable can do (:mod:`minimcp.rpc.abilities`); most say
    :data:`~minimcp.rpc.abilities.PLAIN`: nothing.
    """

    @property
    def abilities(self) -> Abilities: ...

    async def send(self, message: str, related_request_id: RequestId | None = None) -> None: ...

    async def receive(self) -> str | None: ...

    async def close(self) -> None: ...


# --8<-- [end:transport]


# --8<-- [start:closed]
class ConnectionClosed(Exception):
    """The other side went away (or we closed) before the answer came."""


#: What sending raises when the other side has simply gone: a closed cable, a broken pipe, a reset.
PEER_GONE = (ConnectionClosed, ConnectionError)


def log_send_failure(what: str, error: Exception) -> None:
    """A message could not be sent. A peer that left is normal (a debug line); anything else is a bug
    in a transport, and gets a warning with its traceback rather than hiding at debug level."""
    if isinstance(error, PEER_GONE):
        log.debug("could not send %s: the other side has gone (%s)", what, error)
    else:
        log.warning("could not send %s", what, exc_info=error)


# --8<-- [end:closed]


class Servable(Protocol):
    """Anything that serves one peer over one transport: a transport that accepts many peers (a
    WebSocket or HTTP listener) calls ``serve`` once per peer. :class:`minimcp.server.Server` is one."""

    async def serve(self, transport: Transport) -> None: ...
