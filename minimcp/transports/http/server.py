"""Running the Streamable HTTP endpoint on uvicorn, in this event loop (lesson 08).

``start_http(server)`` binds a socket on 127.0.0.1 (a free port unless told), serves the
:class:`~minimcp.transports.http.app.StreamableHTTP` application on it with uvicorn, and returns a
:class:`HttpServer` with its ``url`` and a ``close()``. ``python -m minimcp serve --transport http``
is the same, until Ctrl+C.

Which endpoint it serves is a parameter, ``endpoint``: lesson 08's by default; lesson 11 passes its
endpoint shared by several workers (``endpoint=on_redis(url)``), and that is all it changes here.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Awaitable, Callable
from typing import Any

from minimcp.transports.guard import LOOPBACK_HOSTS
from minimcp.transports.http.app import StreamableHTTP
from minimcp.transports.http.seams import McpServer
from minimcp.transports.http.slow_clients import DEFAULT_HEADER_TIMEOUT, slow_client_limits

#: ``around(url, app)``: the ASGI application to serve in place of the endpoint ``app`` at ``url``.
Around = Callable[[str, StreamableHTTP], Callable[..., Awaitable[None]]]

#: ``endpoint(server, **options)``: the endpoint to serve (lesson 08's, or one like lesson 11's).
Endpoint = Callable[..., StreamableHTTP]

#: Open connections at once; more get 503 (well below the 1,024 files a process may usually open).
DEFAULT_MAX_CONNECTIONS = 900


# --8<-- [start:serve]
class HttpServer:
    """A running Streamable HTTP server (uvicorn in this event loop): its ``url``, ``close()``."""

    def __init__(
        self,
        app: StreamableHTTP,
        sock: socket.socket,
        host: str,
        *,
        header_timeout: float = DEFAULT_HEADER_TIMEOUT,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        around: Around | None = None,
    ) -> None:

        self.app = app
        self.port = sock.getsockname()[1]
        shown_host = f"[{host}]" if ":" in host else host
        self.url = f"http://{shown_host}:{self.port}{app.path}"
        # What uvicorn serves: the endpoint itself, or a guard around it that needs to know its URL
        # (lesson 10's ProtectedEndpoint: the URL is the resource its tokens must name).
        served = around(self.url, app) if around is not None else app
        # Two limits uvicorn keeps for us: a connection beyond `max_connections` gets 503 at once
        # (kept below the usual 1,024 open files, so the process never runs out), and a request
        # whose head takes longer than `header_timeout` is dropped (a slow client holding a
        # connection hostage).
        self._uvicorn, self._task = launch(
            served,
            sock,
            lifespan="on",
            timeout_graceful_shutdown=2,
            **slow_client_limits(header_timeout, max_connections),
        )

    async def wait_started(self, timeout: float = 10.0) -> None:
        await started(self._uvicorn, self._task, timeout)

    async def close(self) -> None:
        await self.app.close()  # end the sessions first, so no open stream holds the shutdown up
        self._uvicorn.should_exit = True
        await asyncio.wait_for(asyncio.shield(self._task), 10)

    async def serve_forever(self) -> None:
        await self._task


async def start_http(
    server: McpServer,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    header_timeout: float = DEFAULT_HEADER_TIMEOUT,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    around: Around | None = None,
    endpoint: Endpoint = StreamableHTTP,
    reuse_port: bool = False,
    **options: Any,
) -> HttpServer:
    """Serve ``server`` over Streamable HTTP at ``http://host:port/mcp`` (port 0: any free port).

    ``options`` go to the endpoint (``max_sessions``…, see
    :class:`~minimcp.transports.http.app.StreamableHTTP`); ``endpoint(server, **options)`` builds it
    (lesson 11's workers sharing a Redis pass theirs). ``around(url, app)``, if given, returns the
    application actually served (a guard around the endpoint). ``reuse_port``: several processes
    listen on the same port, and the kernel spreads connections over them.
    """
    sock = bind(host, port, reuse_port)
    # A name of its own (127.0.0.2, say): serve that name too
    if host not in LOOPBACK_HOSTS and host not in ("0.0.0.0", "::"):
        options.setdefault("allowed_hosts", [host])
    running = HttpServer(
        endpoint(server, **options),
        sock,
        host,
        header_timeout=header_timeout,
        max_connections=max_connections,
        around=around,
    )
    await running.wait_started()
    return running


# --8<-- [end:serve]


def bind(host: str, port: int, reuse_port: bool = False) -> socket.socket:
    """A listening-to-be TCP socket on ``host:port`` (port 0: any free port)."""
    # IPPROTO_TCP, said explicitly: asyncio turns Nagle's algorithm off (TCP_NODELAY) only on
    # sockets that say so. Without it every small answer waits ~40 ms for the client's delayed ACK.
    sock = socket.socket(
        socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP
    )
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:  # lesson 11's workers: one port, several processes
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    return sock


def launch(app: Any, sock: socket.socket, **config: Any) -> tuple[Any, asyncio.Task[None]]:
    """uvicorn serving ``app`` on ``sock`` in this event loop: the uvicorn server, and its task."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", **config))
    # The event loop is the caller's, and so is Ctrl+C: uvicorn must not take the signal handlers.
    server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]
    return server, asyncio.get_running_loop().create_task(server.serve(sockets=[sock]))


async def started(server: Any, task: asyncio.Task[None], timeout: float = 10.0) -> None:
    """Until uvicorn listens; its error if it failed to start; TimeoutError after ``timeout`` s."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not server.started:
        if task.done():
            task.result()  # it failed to start: raise why
        if loop.time() > deadline:
            raise TimeoutError("the HTTP server did not start")
        await asyncio.sleep(0.01)
