"""The two servers the benchmark measures: the same one-tool echo server, built with each stack.

    python -m bench.servers minimcp stdio
    python -m bench.servers minimcp ws   --port 8765
    python -m bench.servers minimcp http --port 8000 [--sse]
    python -m bench.servers sdk     stdio
    python -m bench.servers sdk     http --port 8000 [--sse]

The tool, ``echo(text)``, returns its text: the benchmark measures the cable and the stack, not
the work. ``--sse`` makes the HTTP server answer every request as an SSE stream instead of JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import sys


def minimcp_server():
    from minimcp.server import Server

    server = Server("bench-minimcp")

    @server.tool()
    def echo(text: str) -> str:
        """Return the text."""
        return text

    return server


async def serve_minimcp(transport: str, port: int, sse: bool) -> None:
    server = minimcp_server()
    if transport == "stdio":
        from minimcp.transports.stdio import stdio_server_transport

        await server.serve(await stdio_server_transport())
    elif transport == "ws":
        from minimcp.transports.websocket import start_websocket

        running = await start_websocket(server, port=port)
        print("ready", file=sys.stderr, flush=True)
        await asyncio.Event().wait()
        del running
    else:
        from minimcp.transports.http.server import start_http

        # stream_after=0: no request is ever answered within zero seconds, so every one is a stream.
        running = await start_http(server, port=port, max_sessions=5000,
                                   **({"stream_after": 0.0} if sse else {}))
        print("ready", file=sys.stderr, flush=True)
        await running.serve_forever()


def sdk_server():
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("bench-sdk")

    @server.tool()
    def echo(text: str) -> str:
        """Return the text."""
        return text

    return server


async def serve_sdk_http(port: int, sse: bool) -> None:
    import uvicorn

    app = sdk_server().streamable_http_app(json_response=not sse, max_sessions=5000)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    uvicorn_server = uvicorn.Server(config)
    serving = asyncio.ensure_future(uvicorn_server.serve())
    while not uvicorn_server.started:
        await asyncio.sleep(0.01)
    print("ready", file=sys.stderr, flush=True)
    await serving


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("stack", choices=["minimcp", "sdk"])
    parser.add_argument("transport", choices=["stdio", "ws", "http"])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--sse", action="store_true")
    args = parser.parse_args()
    if args.stack == "minimcp":
        asyncio.run(serve_minimcp(args.transport, args.port, args.sse))
    elif args.transport == "stdio":
        sdk_server().run("stdio")
    else:
        asyncio.run(serve_sdk_http(args.port, args.sse))


if __name__ == "__main__":
    main()
