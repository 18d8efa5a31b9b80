"""Layer 1, the messages (lesson 01): JSON-RPC 2.0 and a symmetric connection.

:mod:`.jsonrpc` (the messages and their errors, no I/O), :mod:`.transport` (what a cable is, and
the base of every cable whose edge is text), :mod:`.answering` (handlers, and how a request becomes
its answer), :mod:`.connection` (the :class:`Connection` over a cable), :mod:`.cables` (an
in-memory cable and a tracing tap), :mod:`.aio` (two asyncio habits the whole stack shares).
"""

from minimcp.rpc.cables import MemoryTransport, TracingTransport, memory_pair
from minimcp.rpc.connection import Connection
from minimcp.rpc.jsonrpc import (
    ErrorResponse,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
    RpcError,
    encode,
    parse,
)
from minimcp.rpc.transport import ConnectionClosed, Servable, TextCable, Transport

__all__ = [
    "Connection",
    "ConnectionClosed",
    "ErrorResponse",
    "MemoryTransport",
    "Message",
    "Notification",
    "Request",
    "RequestId",
    "Response",
    "RpcError",
    "Servable",
    "TextCable",
    "TracingTransport",
    "Transport",
    "encode",
    "memory_pair",
    "parse",
]
