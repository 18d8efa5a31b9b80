"""The course's one command line, ``python -m minimcp``.

    python -m minimcp serve                                  # the course server over stdio (lesson 02)
    python -m minimcp serve --transport ws --port 8765       # over WebSocket (lesson 07)
    python -m minimcp serve --transport http --port 8000     # over Streamable HTTP (lesson 08)
    python -m minimcp serve --example conformance --transport http   # what the conformance suite tests
    python -m minimcp echo [--framing content-length]        # lesson 02's JSON-RPC echo server
    python -m minimcp demo connection                        # one layer on its own (see `demo --help`)

Network transports bind to 127.0.0.1 unless told otherwise, and serve at ``/mcp``.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import sys
from typing import Protocol

from minimcp.examples.demos import DEMOS
from minimcp.examples.demos import run as run_demo
from minimcp.examples.echo import serve_echo
from minimcp.server.server import Server
from minimcp.transports.stdio import stdio_server_transport
from minimcp.transports.websocket import DEFAULT_PORT as WS_PORT

EXAMPLES = {"course": "minimcp.examples.course", "conformance": "minimcp.examples.conformance"}
DEFAULT_PORTS = {"ws": WS_PORT, "http": 8000}


class Listening(Protocol):
    """A running network server (WebSocket or Streamable HTTP): where it listens, and how to stop it."""

    url: str

    async def serve_forever(self) -> None: ...

    async def close(self) -> None: ...


def load_example(name: str) -> Server:
    module = importlib.import_module(EXAMPLES[name])
    server: Server = module.build_server()
    return server


async def serve(server: Server, transport: str, host: str, port: int) -> None:
    """Serve ``server`` over one transport until interrupted: the same object, whatever the cable."""
    if transport == "stdio":
        await server.serve(await stdio_server_transport())
        return
    if transport == "ws":  # lesson 07
        from minimcp.transports.websocket import start_websocket
        running: Listening = await start_websocket(server, host, port)
    else:  # lesson 08
        from minimcp.transports.http.server import start_http
        running = await start_http(server, host, port)
    print(f"MCP endpoint: {running.url}", file=sys.stderr, flush=True)
    try:
        await running.serve_forever()
    finally:
        await running.close()


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m minimcp", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = top.add_subparsers(dest="command", required=True)
    serving = commands.add_parser("serve", help="serve an example server")
    serving.add_argument("--example", choices=sorted(EXAMPLES), default="course")
    serving.add_argument("--transport", choices=["stdio", "ws", "http"], default="stdio")
    serving.add_argument("--host", default="127.0.0.1", help="network transports only (default 127.0.0.1)")
    serving.add_argument("--port", type=int, help="network transports only (default 8765 for ws, 8000 for http)")
    serving.add_argument("--log-level", default="WARNING", help="logging level, written to stderr")
    echo = commands.add_parser("echo", help="lesson 02's JSON-RPC echo server, over stdio")
    echo.add_argument("--framing", choices=["ndjson", "content-length"], default="ndjson")
    demo = commands.add_parser("demo", help="show one layer at work, on its own")
    demo.add_argument("name", choices=list(DEMOS))
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    # Logs go to stderr: on stdio, stdout belongs to the protocol alone.
    logging.basicConfig(stream=sys.stderr, level=getattr(args, "log_level", "WARNING").upper(),
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        if args.command == "serve":
            port = args.port if args.port is not None else DEFAULT_PORTS.get(args.transport, 0)
            asyncio.run(serve(load_example(args.example), args.transport, args.host, port))
        elif args.command == "echo":
            asyncio.run(serve_echo(args.framing))
        else:
            run_demo(args.name)
    except KeyboardInterrupt:
        pass
    return 0
