"""Helpers shared by the feature tests (importable as ``support``: pytest puts tests/ on
sys.path)."""

from __future__ import annotations

import asyncio
import signal
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from minimcp.rpc import memory_pair

if TYPE_CHECKING:  # only named here: a test of lesson 01 or 02 runs without lesson 04's code
    from minimcp.client.client import Client
    from minimcp.server.core import ServerCore

TIMEOUT = 5
#: For a first call into a fresh server process: it may import jsonschema then (seconds on a loaded
#: 2-core machine). A bound that a slow machine does not miss, not a budget.
FIRST_CALL_TIMEOUT = 60
#: Seconds a child process may take to say it is ready (it listens). Generous: a slow machine
#: running other tests took over 10 s to start a worker; only a process that never starts waits
#: this long.
START_TIMEOUT = 120.0
Notes = asyncio.Queue[tuple[str, dict[str, Any]]]


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now (for a server a test starts as a process)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def until(condition: Callable[[], bool], timeout: float = 4.0) -> None:
    """Wait, a bounded while, until ``condition()`` holds (something travels, then a task
    reacts)."""
    for _ in range(int(timeout / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)


@asynccontextmanager
async def connected(
    server: ServerCore, notes: Notes | None = None, **options: Any
) -> AsyncIterator[Client]:
    """A minimcp client, after the handshake, talking to ``server`` over an in-memory cable.

    Every notification the client receives is put on ``notes`` as ``(method, params)``; ``options``
    go to :class:`Client` (``answers=``, ``on_log=``, ...).
    """
    from minimcp.client.client import Client  # lesson 04: imported by the tests that use it

    client_end, server_end = memory_pair()
    serving = asyncio.ensure_future(server.serve(server_end))

    async def on_notification(method: str, params: dict[str, Any]) -> None:
        if notes is not None:
            notes.put_nowait((method, params))

    try:
        async with Client(client_end, on_notification=on_notification, **options) as client:
            yield client
    finally:
        await asyncio.wait_for(serving, TIMEOUT)


def ctrl_c_reaches_it() -> None:
    """``preexec_fn`` for a child a test stops with SIGINT, as a person stops it with Ctrl+C.

    A shell that starts a command in the background (``pytest &``, ``nohup``, a CI runner) makes
    it ignore SIGINT, and its children inherit that: Python then never raises KeyboardInterrupt,
    and the child runs on. A person's terminal never does this, so the child gets Ctrl+C back.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
