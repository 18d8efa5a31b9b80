"""The course's one command line: python -m minimcp COMMAND.

    python -m minimcp serve                               # the course server on stdio (lesson 02)
    python -m minimcp serve --transport ws --port 8765    # over WebSocket (lesson 07)
    python -m minimcp serve --transport http --port 8000  # over Streamable HTTP (lesson 08)
    python -m minimcp serve --transport http --auth       # ... protected by OAuth (lesson 10)
    python -m minimcp serve --transport http --workers 3 --redis redis://127.0.0.1:6379/0
                                                          # 3 workers sharing a Redis (lesson 11)
    python -m minimcp serve --example conformance --transport http
                                                          # what the conformance suite tests
    python -m minimcp chat --model anthropic:claude-sonnet-4-5
                                                          # a real model, the course server, you
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
import logging
import sys

from minimcp.examples import conformance_client
from minimcp.examples.chat import add_chat_options, run_chat
from minimcp.examples.demos import DEMOS
from minimcp.examples.demos import run as run_demo
from minimcp.examples.echo import serve_echo
from minimcp.examples.serving import (
    DEFAULT_PORTS,
    EXAMPLES,
    load_example,
    serve,
    serve_authorization,
)
from minimcp.examples.workers import run_workers
from minimcp.rpc.limits import DEFAULT_MAX_IN_FLIGHT
from minimcp.server.tools import DEFAULT_TOOL_TIMEOUT
from minimcp.transports.http.server import DEFAULT_MAX_CONNECTIONS
from minimcp.transports.http.slow_clients import DEFAULT_HEADER_TIMEOUT


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
    add_serve_options(serving)
    add_http_options(serving)
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
    add_chat_options(
        commands.add_parser("chat", help="talk with a model that uses the servers' tools")
    )
    echo = commands.add_parser("echo", help="lesson 02's JSON-RPC echo server, over stdio")
    echo.add_argument(
        "--framing",
        choices=["ndjson", "content-length"],
        default="ndjson",
        help="one message per line, or LSP's Content-Length headers (default %(default)s)",
    )
    demo = commands.add_parser("demo", help="show one layer at work, on its own")
    demo.add_argument("name", choices=list(DEMOS), help="which demonstration")
    add_authorization_server(
        commands.add_parser("auth-server", help="the course authorization server (lesson 10)")
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


def add_serve_options(serving: argparse.ArgumentParser) -> None:
    """``serve``: which server, on which cable, and where it listens."""
    serving.add_argument(
        "--example",
        choices=sorted(EXAMPLES),
        default="course",
        help="which server: course, the course's (lessons 02-08); assistant, the one that asks the "
        "client back (lesson 09); conformance, the conformance suite's (default %(default)s)",
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


def add_http_options(serving: argparse.ArgumentParser) -> None:
    """``serve`` over HTTP: who may come in (lesson 10), and how many workers (lesson 11)."""
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


#: The limits a server keeps against a client that asks too much: the option, its type, its
#: default, its unit, and what it bounds. Why each exists: lessons 01, 04 and 08.
LIMITS: tuple[tuple[str, type, float, str, str], ...] = (
    (
        "--max-in-flight",
        int,
        DEFAULT_MAX_IN_FLIGHT,
        "N",
        "requests of one client answered at once; more get -32000",
    ),
    ("--tool-timeout", float, DEFAULT_TOOL_TIMEOUT, "SECONDS", "how long a tool may run"),
    ("--max-sessions", int, 1000, "N", "http: sessions open at once"),
    (
        "--max-sessions-per-client",
        int,
        100,
        "N",
        "http: sessions one client may hold open: one user with --auth, else one address",
    ),
    ("--session-timeout", float, 600.0, "SECONDS", "http: an unused session ends after this"),
    (
        "--handshake-timeout",
        float,
        30.0,
        "SECONDS",
        "http: a session never initialized ends after this",
    ),
    (
        "--header-timeout",
        float,
        DEFAULT_HEADER_TIMEOUT,
        "SECONDS",
        "http: time to send a request's headers",
    ),
    (
        "--max-connections",
        int,
        DEFAULT_MAX_CONNECTIONS,
        "N",
        "http: connections at once, a tenth of them for --auth's server; more are closed",
    ),
    (
        "--max-event-bytes",
        int,
        64 * 1024 * 1024,
        "BYTES",
        "http: the event store's budget for resumption",
    ),
)


def add_limits(serving: argparse.ArgumentParser) -> None:
    """``serve``'s limits, in a group of their own: each has a name and a default."""
    limits = serving.add_argument_group("limits (why each exists: lessons 01, 04 and 08)")
    for option, kind, default, unit, bounds in LIMITS:
        limits.add_argument(
            option,
            type=kind,
            default=default,
            metavar=unit,
            help=f"{bounds} (default %(default)s)",
        )


def add_authorization_server(authorizing: argparse.ArgumentParser) -> None:
    """``auth-server``: the course authorization server on its own (lesson 10)."""
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
                from minimcp.transports.cluster.redis_store import unreachable

                why = unreachable(args.redis)
                if why is not None:  # one line, no traceback: the fix is to start Redis
                    print(f"cannot reach Redis at {args.redis}: {why}", file=sys.stderr)
                    return 1
                return run_workers(args.workers, list(sys.argv[1:] if argv is None else argv))
            port = args.port if args.port is not None else DEFAULT_PORTS.get(args.transport, 0)
            asyncio.run(serve(load_example(args.example), args.transport, args.host, port, args))
        elif args.command == "chat":
            return run_chat(args)
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
