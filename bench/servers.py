"""The two servers the benchmark measures: the same one-tool echo server, built with each stack.

    python -m bench.servers minimcp stdio
    python -m bench.servers minimcp ws   --port 8765
    python -m bench.servers minimcp http --port 8000 [--sse]
    python -m bench.servers sdk     stdio
    python -m bench.servers sdk     http --port 8000 [--sse]
    python -m bench.servers floor   http --port 8000 [--sse]
    python -m bench.servers floor   ws   --port 8765

The tool, ``echo(text)``, returns its text: the benchmark measures the cable and the stack, not
the work. It is a coroutine function in both stacks: both run a plain function in a worker thread
(so that a slow one cannot hold every client up), and the hop to that thread would be measured
instead of the stack. ``--sse`` makes the HTTP server answer every request as an SSE stream
instead of JSON.

The **floors** speak no MCP at all: the fastest a server can answer here, on the same libraries.
Over HTTP, a bare ASGI app on the same uvicorn and httptools that answers every ``POST`` with one
fixed JSON-RPC response (or, with ``--sse``, the same response as a short SSE stream); over
WebSocket, a bare ``websockets`` server that sends every message back. A stack's figure divided by
its floor says how much of the machine's limit the stack leaves unused.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported when a server starts: each process needs only its own stack
    import uvicorn
    from mcp.server.mcpserver import MCPServer
    from websockets.asyncio.server import ServerConnection

    from minimcp.server.complete import Server

#: An ASGI application, as uvicorn calls it: ``app(scope, receive, send)``, each message a dict.
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Message, Receive, Send], Awaitable[None]]


def minimcp_server() -> Server:
    """The echo server, complete: every later lesson plugged in, as ``python -m minimcp serve``
    serves it (cancellation, state kept for other workers, 2026-07-28 beside 2025-11-25)."""
    from minimcp.examples.complete import complete
    from minimcp.server.complete import Server

    server = complete(Server("bench-minimcp"))

    @server.tool()
    async def echo(text: str) -> str:
        """Return the text."""
        return text

    return server


async def serve_minimcp(
    transport: str, port: int, sse: bool, redis: str | None = None, reuse_port: bool = False
) -> None:
    server = minimcp_server()
    from minimcp.session.schemas import load_jsonschema

    # As `python -m minimcp serve` does: the slow import of jsonschema (which tools/call needs) is
    # paid before the server says it is ready, not by the first requests measured.
    await load_jsonschema()
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
        await serve_minimcp_http(server, port, sse, redis, reuse_port)


async def serve_minimcp_http(
    server: Server, port: int, sse: bool, redis: str | None, reuse_port: bool
) -> None:
    """minimcp over Streamable HTTP: alone, or one worker of several (bench/workers.py)."""
    from minimcp.transports.cluster.endpoint import on_redis
    from minimcp.transports.http.app import StreamableHTTP
    from minimcp.transports.http.server import Endpoint, start_http
    from minimcp.transports.http.stateless import Revision2026

    # stream_after=0: no request is ever answered within zero seconds, so every one is a stream.
    streams: dict[str, Any] = {"stream_after": 0.0} if sse else {}
    # With ``redis``: one worker of several on the same port, sharing that Redis. With
    # ``reuse_port`` alone: one of several sharing nothing (2026-07-28 needs nothing shared).
    endpoint: Endpoint = on_redis(redis) if redis else StreamableHTTP
    running = await start_http(
        server,
        port=port,
        endpoint=endpoint,
        reuse_port=reuse_port or redis is not None,
        max_sessions=5000,
        stand_alone=Revision2026(server),
        **streams,
    )
    print("ready", file=sys.stderr, flush=True)
    await running.serve_forever()


def sdk_server() -> MCPServer:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("bench-sdk")

    @server.tool()
    async def echo(text: str) -> str:
        """Return the text."""
        return text

    return server


async def serve_sdk_http(port: int, sse: bool) -> None:
    import uvicorn

    app = sdk_server().streamable_http_app(json_response=not sse, max_sessions=5000)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    await run_uvicorn(uvicorn.Server(config))


#: The floor's answer: the echo tool's result, as minimcp would send it for request 1.
FIXED_ANSWER = b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}]}}'


def floor_app(sse: bool) -> App:
    """A bare ASGI app: read the body, send the fixed answer (as JSON, or as an SSE stream)."""
    if sse:
        body = b"id: floor-0\nretry: 1000\ndata:\n\nid: floor-1\ndata: " + FIXED_ANSWER + b"\n\n"
        content_type = b"text/event-stream"
    else:
        body, content_type = FIXED_ANSWER, b"application/json"
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]

    async def app(scope: Message, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return  # lifespan: nothing to start
        more = True
        while more:  # the request's body, all of it, as a real endpoint reads it
            more = (await receive()).get("more_body", False)
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return app


async def serve_floor(transport: str, port: int, sse: bool) -> None:
    if transport == "ws":
        from websockets.asyncio.server import serve

        async def echo(websocket: ServerConnection) -> None:
            async for message in websocket:
                await websocket.send(message)

        async with serve(echo, "127.0.0.1", port, compression=None):
            print("ready", file=sys.stderr, flush=True)
            await asyncio.Event().wait()
    import uvicorn

    config = uvicorn.Config(
        floor_app(sse),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        http="httptools",
        lifespan="off",
    )
    await run_uvicorn(uvicorn.Server(config))


async def run_uvicorn(uvicorn_server: uvicorn.Server) -> None:
    """Serve until stopped, saying "ready" once uvicorn listens."""
    serving = asyncio.ensure_future(uvicorn_server.serve())
    while not uvicorn_server.started:
        await asyncio.sleep(0.01)
    print("ready", file=sys.stderr, flush=True)
    await serving


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("stack", choices=["minimcp", "sdk", "floor"])
    parser.add_argument("transport", choices=["stdio", "ws", "http"])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--sse", action="store_true")
    parser.add_argument(
        "--redis", help="minimcp over http: a worker sharing this Redis with others"
    )
    parser.add_argument(
        "--reuse-port", action="store_true", help="minimcp over http: one worker of several"
    )
    args = parser.parse_args()
    if args.stack == "minimcp":
        asyncio.run(serve_minimcp(args.transport, args.port, args.sse, args.redis, args.reuse_port))
    elif args.stack == "floor":
        asyncio.run(serve_floor(args.transport, args.port, args.sse))
    elif args.transport == "stdio":
        sdk_server().run("stdio")
    else:
        asyncio.run(serve_sdk_http(args.port, args.sse))


if __name__ == "__main__":
    main()
