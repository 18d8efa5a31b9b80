"""Lesson 02's echo server, written with the official Python SDK (``mcp==2.3.0``).

It does what ``python -m minimcp echo`` does: it answers the method ``echo`` with its own params,
any other request with ``-32601``, and a line that is not a JSON-RPC message with ``-32700``; it
exits when its stdin ends. No MCP here either, only the cable: the SDK's ``stdio_server()`` reads
stdin and writes stdout, and hands this code whole messages, already cut into lines and parsed.

A client starts it as a child process::

    python sdk/lesson02_stdio_server.py

``tests/test_sdk_lesson02.py`` does, and drives it with ``minimcp``'s ``spawn()``. This file is
not part of ``minimcp``, which never imports ``mcp``.
"""

from __future__ import annotations

import anyio
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import (
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCRequest,
    JSONRPCResponse,
    RequestId,
)


def error(request_id: RequestId | None, code: int, message: str) -> SessionMessage:
    """A JSON-RPC error response, ready for the write stream."""
    failure = ErrorData(code=code, message=message)
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id, error=failure))


def answer(item: SessionMessage | Exception) -> SessionMessage | None:
    """The echo server's one rule, for one thing the read stream gave: its answer, or None."""
    if isinstance(item, Exception):  # a line that was not a JSON-RPC message: no id to answer to
        return error(None, PARSE_ERROR, "Parse error")
    request = item.message
    if not isinstance(request, JSONRPCRequest):  # a notification, or a response: nothing to say
        return None
    if request.method != "echo":
        return error(request.id, METHOD_NOT_FOUND, f"Method not found: {request.method}")
    echoed = JSONRPCResponse(jsonrpc="2.0", id=request.id, result=request.params or {})
    return SessionMessage(echoed)


async def serve() -> None:
    """Answer what arrives on stdin, on stdout, until stdin ends."""
    # --8<-- [start:box]
    async with stdio_server() as (read_stream, write_stream):
        async for item in read_stream:  # one parsed message (or one bad line's error) at a time
            reply = answer(item)
            if reply is not None:
                await write_stream.send(reply)  # the SDK writes it as one line, then flushes
        await write_stream.aclose()  # stdin ended: nothing more to write, so the server can exit
    # --8<-- [end:box]


def main() -> None:
    """``python sdk/lesson02_stdio_server.py``."""
    anyio.run(serve)


if __name__ == "__main__":
    main()
