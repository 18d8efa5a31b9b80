"""One of the course's servers on any cable, until stopped: what ``python -m minimcp serve`` runs.

The same server object runs over stdio (lesson 02), WebSocket (lesson 07) or Streamable HTTP (lesson
08), with every lesson's piece plugged in (:mod:`minimcp.examples.complete`). Over HTTP it may stand
behind lesson 10's authorization server, and share its sessions with other workers through Redis
(lesson 11: :mod:`minimcp.examples.workers` runs several copies of it on one port). The
authorization server also runs on its own (:func:`serve_authorization`).

:mod:`minimcp.cli` reads the command line; this module does the serving.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import signal
import sys
from typing import Any, Protocol

from minimcp.auth.authorization_server import RunningAuthorizationServer, start_authorization_server
from minimcp.auth.grants import Client
from minimcp.auth.guards import protect
from minimcp.examples.complete import complete
from minimcp.examples.workers import STATE_KEY
from minimcp.server.eras import answer_both_eras
from minimcp.server.prompts import PromptServer
from minimcp.session.input_required import StateSeal
from minimcp.session.schemas import load_jsonschema
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


def load_example(name: str) -> PromptServer:
    module = importlib.import_module(EXAMPLES[name])
    server: PromptServer = module.build_server()  # lesson 06's server, or one built on it
    return server


async def serve(
    server: PromptServer, transport: str, host: str, port: int, options: argparse.Namespace
) -> None:
    """Serve ``server`` over one transport until interrupted: one object, whatever the cable."""
    prepare(server, options)
    if transport == "stdio":
        await serve_stdio(server)
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
        # Lesson 10: the course authorization server beside it, and a guard
        if options.auth is not None:
            authorization = await start_authorization_server(
                port=options.auth,
                page=options.auth_consent == "page",
                header_timeout=options.header_timeout,
                max_connections=auth_share(options.max_connections),
            )
            print(f"authorization server: {authorization.issuer}", file=sys.stderr, flush=True)
        running = await start_endpoint(server, host, port, options, authorization)
    print(f"MCP endpoint: {running.url}", file=sys.stderr, flush=True)
    try:
        await serve_until_stopped(running)
    finally:
        if authorization is not None:
            await authorization.close()


def auth_share(max_connections: int) -> int:
    """The connections the authorization server of ``serve --auth`` may hold: a tenth of the
    process's budget (``--max-connections``); the MCP endpoint keeps the rest."""
    return max(1, max_connections // 10)


def prepare(server: PromptServer, options: argparse.Namespace) -> None:
    """Plug every lesson's piece in, with the limits and the eras the command line chose."""
    server.max_in_flight = options.max_in_flight
    server.tools.timeout = options.tool_timeout
    complete(server)  # every lesson's piece plugged in (the examples built with them already are)
    if options.legacy_only:  # the initialize era alone, as lessons 03–11 serve it
        server.modern_versions = ()
    elif options.example == "course":  # lesson 13: its long analysis may run as a task
        from minimcp.examples.course_tasks import add_course_tasks

        add_course_tasks(server)
    # Workers of one server seal and open each other's request states (lesson 12)
    if STATE_KEY in os.environ:
        answer_both_eras(server).seal = StateSeal(bytes.fromhex(os.environ[STATE_KEY]))


async def serve_stdio(server: PromptServer) -> None:
    """Serve on this process's stdin and stdout until the other side closes them."""
    if sys.stdin.isatty():  # a person at a terminal, not a host with pipes: say what this is
        print(
            f"{server.name} speaks MCP on stdin/stdout: one JSON-RPC message per line. "
            "Ctrl+D (end of input) or Ctrl+C stops it.",
            file=sys.stderr,
            flush=True,
        )
    await server.serve(await stdio_server_transport())


async def start_endpoint(
    server: PromptServer,
    host: str,
    port: int,
    options: argparse.Namespace,
    authorization: RunningAuthorizationServer | None,
) -> Listening:
    """Lesson 08's Streamable HTTP endpoint, with what lessons 10 to 12 add to it."""
    from minimcp.transports.cluster.endpoint import on_redis
    from minimcp.transports.event_store import MemoryEventStore
    from minimcp.transports.http.server import start_http
    from minimcp.transports.http.stateless import Revision2026

    guard = (
        protect(authorization.issuer, authorization.grants.public_keys(), scopes=["mcp"])
        if authorization is not None
        else None
    )
    # Both servers of one process share one budget of connections, kept below its files
    connections = options.max_connections
    if authorization is not None:
        connections -= auth_share(options.max_connections)
    # One process keeps its events in memory (lesson 08); workers sharing a Redis, there (11).
    if options.redis:
        keep_tasks_on_redis(server, options.redis)
    stored: dict[str, Any] = (
        {
            "endpoint": on_redis(options.redis, max_event_bytes=options.max_event_bytes),
            "reuse_port": options.reuse_port,
        }
        if options.redis
        else {"event_store": MemoryEventStore(max_bytes=options.max_event_bytes)}
    )
    return await start_http(
        server,
        host,
        port,
        header_timeout=options.header_timeout,
        max_connections=connections,
        max_sessions=options.max_sessions,
        max_sessions_per_owner=options.max_sessions_per_client,
        session_timeout=options.session_timeout,
        handshake_timeout=options.handshake_timeout,
        around=guard,
        stand_alone=Revision2026(server),  # both eras on one endpoint (lesson 12)
        **stored,
    )


def keep_tasks_on_redis(server: PromptServer, url: str) -> None:
    """Lesson 13: a server with tasks keeps them in the workers' Redis, where any worker finds,
    answers and cancels any of them, and sees when the worker running one has died."""
    from minimcp.server.task_redis import RedisTaskStore
    from minimcp.server.tasks import tasks_of

    tasks = tasks_of(server)
    if tasks is not None:
        store = RedisTaskStore(url)
        tasks.keep_in(store, store.worker)


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
