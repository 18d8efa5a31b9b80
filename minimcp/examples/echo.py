"""Lesson 02's echo server: JSON-RPC over stdin and stdout, with no MCP at all.

``python -m minimcp echo`` answers the method ``echo`` with its own params and any other method with
``-32601``, one message per line; ``python -m minimcp echo --framing content-length`` speaks LSP's
Content-Length framing instead. The notebook of lesson 02 starts it as a child process.
"""

from __future__ import annotations

import sys
from typing import Any

from minimcp.rpc.connection import Connection
from minimcp.rpc.jsonrpc import Request, method_not_found
from minimcp.transports.stdio import stdio_server_transport


async def echo(request: Request) -> Any:
    """The echo server's only handler."""
    if request.method == "echo":
        return request.params or {}
    raise method_not_found(request.method)


async def serve_echo(framing: str = "ndjson") -> None:
    """Answer requests on this process's stdin and stdout until stdin ends."""
    transport = await stdio_server_transport(framing)
    print("echo server ready: one JSON-RPC message per line", file=sys.stderr)
    await Connection(transport, on_request=echo).run()
