"""Lesson 02's echo server: JSON-RPC over stdin and stdout, with no MCP at all.

``python -m minimcp.examples.echo`` answers the method ``echo`` with its own params and any other
method with ``-32601``, one message per line; ``--framing content-length`` speaks LSP's
Content-Length framing instead. The notebook of lesson 02 starts it as a child process. (It needs
nothing but lessons 01 and 02, so it runs on "minimcp as of lesson 02"; the course's one command
line offers it too, as ``python -m minimcp echo``.)
"""

from __future__ import annotations

import argparse
import asyncio
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


def main(argv: list[str] | None = None) -> None:
    """``python -m minimcp.examples.echo [--framing ndjson|content-length]``."""
    parser = argparse.ArgumentParser(
        prog="python -m minimcp.examples.echo",
        description="lesson 02's JSON-RPC echo server, over stdio",
    )
    parser.add_argument(
        "--framing",
        choices=["ndjson", "content-length"],
        default="ndjson",
        help="one message per line, or LSP's Content-Length headers (default %(default)s)",
    )
    args = parser.parse_args(argv)
    try:
        asyncio.run(serve_echo(args.framing))
    except KeyboardInterrupt:  # Ctrl+C at a terminal: stop quietly
        pass


if __name__ == "__main__":
    main()
