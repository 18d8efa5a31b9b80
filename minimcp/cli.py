"""The course's one command line: python -m minimcp COMMAND.

    python -m minimcp serve                               # the course server on stdio (lesson 02)
    python -m minimcp serve --transport ws --port 8765    # over WebSocket (lesson 07)
    python -m minimcp serve --transport http --port 8000  # over Streamable HTTP (lesson 08)
    python -m minimcp serve --transport http --auth       # ... protected by OAuth (lesson 10)
    python -m minimcp serve --transport http --workers 3 --redis redis://127.0.0.1:6379/0
                                                          # 3 workers sharing a Redis (lesson 11)
    python -m minimcp serve --example conformance --transport http
                                                          # what the conformance suite tests
    python -m minimcp echo [--framing content-length]     # lesson 02's JSON-RPC echo server
    python -m minimcp demo connection                     # one layer alone (see `demo --help`)
    python -m minimcp conformance-client URL              # the conformance suite's client (09, 10)
    python -m minimcp auth-server --client app=http://127.0.0.1:3000/callback
                                                          # lesson 10's authorization server

Network transports bind to 127.0.0.1 unless told otherwise, and serve at /mcp.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import os
import secrets
import signal
import subprocess
import sys
import time
from typing import Any, Protocol

from minimcp.auth.authorization_server import start_authorization_server
from minimcp.auth.grants import Client
from minimcp.auth.guards import protect
from minimcp.examples import conformance_client
from minimcp.examples.complete import complete
from minimcp.examples.demos import DEMOS
from minimcp.examples.demos import run as run_demo
from minimcp.examples.echo import serve_echo
from minimcp.rpc.limits import DEFAULT_MAX_IN_FLIGHT
from minimcp.server.eras import answer_both_eras
from minimcp.server.prompts import PromptServer
from minimcp.server.tools import DEFAULT_TOOL_TIMEOUT
from minimcp.session.input_required import StateSeal
from minimcp.session.schemas import load_jsonschema
from minimcp.transports.http.server import DEFAULT_MAX_CONNECTIONS
from minimcp.transports.http.slow_clients import DEFAULT_HEADER_TIMEOUT
from minimcp.transports.stdio import stdio_server_transport
from minimcp.transports.websocket import DEFAULT_PORT as WS_PORT

EXAMPLES = {
    "course": "minimcp.examples.course",
    "assistant": "minimcp.examples.assistant",
    "conformance": "minimcp.examples.conformance",
}
DEFAULT_PORTS = {"ws": WS_PORT, "http": 8000}


class Listening(Protocol):
    """A running WebSocket or Streamable HTTP server: where it listens, and how to stop it."""

    url: str

    async def serve_forever(self) -> None: ...

    async def close(self) -> None: ...


#: The environment variable that gives every worker of one server the same request-state key (hex).
STATE_KEY = "MINIMCP_STATE_KEY"


def load_example(name: str) -> PromptServer:
    module = importlib.import_module(EXAMPLES[name])
    server: PromptServer = module.build_server()  # lesson 06's server, or one built on it
    return server


async def serve(
    server: PromptServer, transport: str, host: str, port: int, options: argparse.Namespace
) -> None:
    """Serve ``server`` over one transport until interrupted: one object, whatever the cable."""
    server.max_in_flight = options.max_in_flight
    server.tools.timeout = options.tool_timeout
    complete(server)  # every lesson's piece plugged in (the examples built with them already are)
    if options.legacy_only:  # the initialize era alone, as lessons 03–11 serve it
        server.modern_versions = ()
    # Workers of one server seal and open each other's request states (lesson 12)
    if STATE_KEY in os.environ:
        answer_both_eras(server).seal = StateSeal(bytes.fromhex(os.environ[STATE_KEY]))
    if transport == "stdio":
        if sys.stdin.isatty():  # a person at a terminal, not a host with pipes: say what this is
            print(
                f"{server.name} speaks MCP on stdin/stdout: one JSON-RPC message per line. "
                "Ctrl+D (end of input) or Ctrl+C stops it.",
                file=sys.stderr,
                flush=True,
            )
        await server.serve(await stdio_server_transport())
        return
    # A network server lives long: load the schema validator before the first client rather than
    # during its first tools/call, which would otherwise wait seconds (and a 2026-07-28 error found
    # then would reach the client on an SSE stream, with status 200, instead of as a 400).
    await load_jsonschema()
    authorization = None
    if transport == "ws":  # lesson 07
        from minimcp.transports.websocket import start_websocket

        running: Listening = await start_websocket(server, host, port)
    else:  # lesson 08
        from minimcp.transports.cluster.endpoint import on_redis
        from minimcp.transports.event_store import MemoryEventStore
        from minimcp.transports.http.server import start_http

        # Lesson 10: the course authorization server beside it, and a guard
        if options.auth is not None:
            authorization = await start_authorization_server(
                port=options.auth, page=options.auth_consent == "page"
            )
            print(f"authorization server: {authorization.issuer}", file=sys.stderr, flush=True)
        guard = (
            protect(authorization.issuer, authorization.grants.public_keys(), scopes=["mcp"])
            if authorization is not None
            else None
        )
        from minimcp.transports.http.stateless import Revision2026

        # One process keeps its events in memory (lesson 08); workers sharing a Redis, there (11).
        stored: dict[str, Any] = (
            {"endpoint": on_redis(options.redis), "reuse_port": options.reuse_port}
            if options.redis
            else {"event_store": MemoryEventStore(max_bytes=options.max_event_bytes)}
        )
        running = await start_http(
            server,
            host,
            port,
            header_timeout=options.header_timeout,
            max_connections=options.max_connections,
            max_sessions=options.max_sessions,
            session_timeout=options.session_timeout,
            handshake_timeout=options.handshake_timeout,
            around=guard,
            stand_alone=Revision2026(server),  # both eras on one endpoint (lesson 12)
            **stored,
        )
    print(f"MCP endpoint: {running.url}", file=sys.stderr, flush=True)
    try:
        await serve_until_stopped(running)
    finally:
        if authorization is not None:
            await authorization.close()


async def serve_until_stopped(running: Listening) -> None:
    """Serve until Ctrl+C (or SIGTERM), then close in order: sessions end, streams close.

    Left to itself, Ctrl+C cancels whatever is running at that instant, uvicorn's shutdown included,
    and prints its tracebacks. Catching the signal turns it into an ordinary, orderly close.
    """
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(signum, stop.set)
        except (NotImplementedError, RuntimeError):  # Windows: Ctrl+C stays a KeyboardInterrupt
            pass
    serving = asyncio.ensure_future(running.serve_forever())
    stopping = asyncio.ensure_future(stop.wait())
    await asyncio.wait({serving, stopping}, return_when=asyncio.FIRST_COMPLETED)
    stopping.cancel()
    await running.close()
    if serving.done() and not serving.cancelled():
        serving.result()  # the server stopped by itself: say why, if it failed


async def serve_authorization(port: int, clients: list[str], page: bool) -> None:
    """The course authorization server until interrupted, with the clients given pre-registered."""
    running = await start_authorization_server(port=port, page=page)
    for client in clients:
        client_id, _, redirect_uri = client.partition("=")
        running.grants.clients[client_id] = Client(client_id, [redirect_uri])
    print(f"authorization server at {running.issuer}", file=sys.stderr, flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await running.close()


# --8<-- [start:workers]
def run_workers(count: int, argv: list[str]) -> int:
    """Run ``count`` copies of this ``serve`` command as worker processes on one port, until Ctrl+C.

    Each worker binds the port with ``SO_REUSEPORT``, so the kernel spreads new connections over
    them (on several machines, an ordinary load balancer does the same). A worker that dies is
    replaced; its sessions are taken over by whichever worker next gets one of their requests
    (lesson 11).
    """
    child = [sys.executable, "-m", "minimcp", *without_workers(argv), "--reuse-port"]
    # One key for all: any worker opens any state
    os.environ.setdefault(STATE_KEY, secrets.token_hex(32))
    workers = [subprocess.Popen(child) for _ in range(count)]
    print(
        f"{count} workers: {' '.join(str(worker.pid) for worker in workers)}",
        file=sys.stderr,
        flush=True,
    )
    try:
        while True:
            for place, worker in enumerate(workers):
                if worker.poll() is not None:
                    workers[place] = subprocess.Popen(child)
                    print(
                        f"worker {worker.pid} stopped (exit status {worker.returncode}); "
                        f"worker {workers[place].pid} replaces it",
                        file=sys.stderr,
                        flush=True,
                    )
            time.sleep(0.5)
    except KeyboardInterrupt:
        return 0
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(10)


def without_workers(argv: list[str]) -> list[str]:
    """``argv`` without its ``--workers N`` (or ``--workers=N``): what each worker runs."""
    kept: list[str] = []
    skip = False
    for argument in argv:
        if skip:
            skip = False
        elif argument == "--workers":
            skip = True
        elif not argument.startswith("--workers="):
            kept.append(argument)
    return kept


# --8<-- [end:workers]


def add_limits(serving: argparse.ArgumentParser) -> None:
    """Limits a server keeps against a client that asks too much: each has a name and a default."""
    limits = serving.add_argument_group("limits (why each exists: lessons 01, 04 and 08)")
    limits.add_argument(
        "--max-in-flight",
        type=int,
        default=DEFAULT_MAX_IN_FLIGHT,
        metavar="N",
        help="requests of one client answered at once; more get -32000 (default %(default)s)",
    )
    limits.add_argument(
        "--tool-timeout",
        type=float,
        default=DEFAULT_TOOL_TIMEOUT,
        metavar="SECONDS",
        help="how long a tool may run (default %(default)s)",
    )
    limits.add_argument(
        "--max-sessions",
        type=int,
        default=1000,
        metavar="N",
        help="http: sessions open at once (default %(default)s)",
    )
    limits.add_argument(
        "--session-timeout",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="http: an unused session ends after this (default %(default)s)",
    )
    limits.add_argument(
        "--handshake-timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="http: a session never initialized ends after this (default %(default)s)",
    )
    limits.add_argument(
        "--header-timeout",
        type=float,
        default=DEFAULT_HEADER_TIMEOUT,
        metavar="SECONDS",
        help="http: time to send a request's headers (default %(default)s)",
    )
    limits.add_argument(
        "--max-connections",
        type=int,
        default=DEFAULT_MAX_CONNECTIONS,
        metavar="N",
        help="http: connections at once; more get 503 (default %(default)s)",
    )
    limits.add_argument(
        "--max-event-bytes",
        type=int,
        default=64 * 1024 * 1024,
        metavar="BYTES",
        help="http: the event store's budget for resumption (default %(default)s)",
    )


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="python -m minimcp",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = top.add_subparsers(dest="command", metavar="COMMAND")
    serving = commands.add_parser(
        "serve", help="serve an example server (over stdio unless --transport)"
    )
    serving.add_argument(
        "--example",
        choices=sorted(EXAMPLES),
        default="course",
        help="which server: the course's, or the conformance suite's (default %(default)s)",
    )
    serving.add_argument(
        "--transport",
        choices=["stdio", "ws", "http"],
        default="stdio",
        help="the cable: stdio (lesson 02), ws (07) or http (08) (default %(default)s)",
    )
    serving.add_argument(
        "--host", default="127.0.0.1", help="network transports only (default %(default)s)"
    )
    serving.add_argument(
        "--port", type=int, help="network transports only (default 8765 for ws, 8000 for http)"
    )
    serving.add_argument(
        "--auth",
        type=int,
        nargs="?",
        const=9000,
        metavar="PORT",
        help="http only: require OAuth tokens (scope mcp) from the course authorization server, "
        "started on 127.0.0.1:PORT (default 9000) (lesson 10)",
    )
    serving.add_argument(
        "--auth-consent",
        choices=["page", "auto"],
        default="page",
        help="with --auth: a person consents on a page, or every request is granted (scripts)",
    )
    serving.add_argument(
        "--redis",
        metavar="URL",
        help="http only: share sessions and streams with other workers through this Redis "
        "(lesson 11)",
    )
    serving.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="http with --redis: N worker processes on one port; any may get any request",
    )
    # Hidden: run_workers sets it for each worker
    serving.add_argument("--reuse-port", action="store_true", help=argparse.SUPPRESS)
    serving.add_argument(
        "--legacy-only",
        action="store_true",
        help="serve the initialize era only (2025-11-25 and before), as lessons 03-11's server "
        "did: a 2026-07-28 request, server/discover included, gets -32601 (lesson 12)",
    )
    serving.add_argument(
        "--log-level",
        default="WARNING",
        help="logging level, written to stderr (default %(default)s)",
    )
    add_limits(serving)
    echo = commands.add_parser("echo", help="lesson 02's JSON-RPC echo server, over stdio")
    echo.add_argument(
        "--framing",
        choices=["ndjson", "content-length"],
        default="ndjson",
        help="one message per line, or LSP's Content-Length headers (default %(default)s)",
    )
    demo = commands.add_parser("demo", help="show one layer at work, on its own")
    demo.add_argument("name", choices=list(DEMOS), help="which demonstration")
    authorizing = commands.add_parser(
        "auth-server", help="the course authorization server (lesson 10)"
    )
    authorizing.add_argument(
        "--port", type=int, default=9000, help="on 127.0.0.1 (default %(default)s)"
    )
    authorizing.add_argument(
        "--client",
        action="append",
        default=[],
        metavar="ID=REDIRECT_URI",
        help="pre-register a public client (repeatable)",
    )
    authorizing.add_argument(
        "--consent",
        choices=["page", "auto"],
        default="page",
        help="a person consents on a page, or every request is granted (scripts)",
    )
    conformance = commands.add_parser(
        "conformance-client", help="minimcp's client, driven by the official conformance suite"
    )
    conformance.add_argument("url", help="the test server's URL (the suite appends it)")
    conformance.add_argument(
        "--scenario",
        choices=list(conformance_client.SCENARIOS),
        help="default: the suite's MCP_CONFORMANCE_SCENARIO",
    )
    return top


def main(argv: list[str] | None = None) -> int:
    commands = parser()
    args = commands.parse_args(argv)
    if args.command is None:  # bare `python -m minimcp`: what can it do?
        commands.print_help(sys.stderr)
        return 2
    # Logs go to stderr: on stdio, stdout belongs to the protocol alone.
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(args, "log_level", "WARNING").upper(),
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        if args.command == "serve":
            if args.auth is not None and args.transport != "http":
                commands.error("--auth protects the HTTP transport: add --transport http")
            if (args.redis or args.workers > 1) and (
                args.transport != "http" or args.auth is not None
            ):
                commands.error(
                    "--redis and --workers serve the HTTP transport without --auth: "
                    "add --transport http"
                )
            if args.workers > 1 and not args.redis:
                commands.error(
                    "--workers needs --redis URL: the workers share their sessions there"
                )
            if args.workers > 1:
                return run_workers(args.workers, list(sys.argv[1:] if argv is None else argv))
            port = args.port if args.port is not None else DEFAULT_PORTS.get(args.transport, 0)
            asyncio.run(serve(load_example(args.example), args.transport, args.host, port, args))
        elif args.command == "echo":
            asyncio.run(serve_echo(args.framing))
        elif args.command == "auth-server":
            asyncio.run(serve_authorization(args.port, args.client, args.consent == "page"))
        elif args.command == "conformance-client":
            return conformance_client.run(args.url, args.scenario)
        else:
            run_demo(args.name)
    except KeyboardInterrupt:
        pass
    return 0
