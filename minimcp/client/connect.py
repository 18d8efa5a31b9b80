"""Where a :class:`~minimcp.client.client.Client` meets a cable: one function per transport.

Each opens its cable, wraps it in a client, performs the handshake, and closes everything when the
``async with`` block ends. The client is the same object whatever the cable::

    async with stdio_client(["python", "-m", "minimcp", "serve"]) as client: ...       # lesson 02
    async with websocket_client("ws://127.0.0.1:8765/mcp") as client: ...               # lesson 07

Lesson 08 adds a third in a module of its own, :mod:`minimcp.client.http_connect`: ``http_client``
opens its cable with :func:`connected`, like the two here.

Options named in :data:`CLIENT_OPTIONS` (``name``, ``on_notification``…) go to the client; every
other option goes to the cable (``cwd`` for a child process, ``origin`` for a WebSocket, ``on_http``
for lesson 08's Streamable HTTP…).
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from minimcp.client.client import Client
from minimcp.rpc import Transport
from minimcp.transports.process import spawn
from minimcp.transports.websocket import connect_websocket

#: The options that belong to the :class:`Client` (its keyword parameters, read from its signature
#: so that a new one is never forgotten here); the rest belong to the cable.
CLIENT_OPTIONS = tuple(
    name
    for name, parameter in inspect.signature(Client).parameters.items()
    if parameter.kind is inspect.Parameter.KEYWORD_ONLY
)


@asynccontextmanager
async def connected(
    open_cable: Callable[..., Awaitable[Transport]], *args: Any, **options: Any
) -> AsyncIterator[Client]:
    """Open ``open_cable(*args, **cable_options)`` and yield an initialized client over it."""
    client_options = {key: options.pop(key) for key in CLIENT_OPTIONS if key in options}
    transport = await open_cable(*args, **options)
    async with Client(transport, **client_options) as client:
        yield client


def stdio_client(command: Sequence[str], **options: Any) -> AbstractAsyncContextManager[Client]:
    """Start ``command`` as a child process and yield an initialized client to it (lesson 02)."""
    return connected(spawn, command, **options)


def websocket_client(url: str, **options: Any) -> AbstractAsyncContextManager[Client]:
    """An initialized client over ``ws://…``; leaving the block closes with 1000 (lesson 07)."""
    return connected(connect_websocket, url, **options)
