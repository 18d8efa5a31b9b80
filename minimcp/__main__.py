"""``python -m minimcp serve``: serve the course's example server.

    python -m minimcp serve                                  # over stdio (lesson 02)
    python -m minimcp serve --transport ws --port 8765       # over WebSocket (lesson 07)
    python -m minimcp serve --transport http --port 8000     # over Streamable HTTP (lesson 08)

Network transports bind to 127.0.0.1 unless told otherwise, and serve at ``/mcp``.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import sys

from .server import Server
from .stdio import stdio_server_transport

EXAMPLES = {"course": "minimcp.examples.course", "conformance": "minimcp.examples.conformance"}


def load_example(name: str) -> Server:
    module = importlib.import_module(EXAMPLES[name])
    return module.build_server()


async def serve_stdio(server: Server) -> None:
    await server.serve(await stdio_server_transport())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m minimcp", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve an example server")
    serve.add_argument("--example", choices=sorted(EXAMPLES), default="course")
    serve.add_argument("--transport", choices=["stdio", "ws", "http"], default="stdio")
    serve.add_argument("--host", default="127.0.0.1", help="network transports only (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="network transports only")
    serve.add_argument("--log-level", default="WARNING", help="logging level, written to stderr")
    args = parser.parse_args(argv)

    # Logs go to stderr: on stdio, stdout belongs to the protocol alone.
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(),
                        format="%(levelname)s %(name)s: %(message)s")
    server = load_example(args.example)
    try:
        if args.transport == "stdio":
            asyncio.run(serve_stdio(server))
        elif args.transport == "ws":  # lesson 07
            from .websocket import serve_websocket
            asyncio.run(serve_websocket(server, host=args.host, port=args.port))
        else:  # lesson 08
            from .http import serve_http
            asyncio.run(serve_http(server, host=args.host, port=args.port))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
