"""Shared helpers for minimcp's own tests.

The most useful one is :class:`RawPeer`: the far end of an in-memory cable, driven by hand. A test
writes exact JSON text into a :class:`~minimcp.connection.Connection` (or a session) and reads back
exactly what it answers, so the tests check the wire, not just the Python API.

Every wait has a timeout: a test that would hang fails instead.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from worker_support import start_redis

from minimcp.rpc import MemoryTransport, memory_pair

#: The repository root: child processes run from here so ``-m tests.servers.…`` imports work.
ROOT = Path(__file__).resolve().parent.parent

#: The longest any single wait in these tests may take, in seconds.
TIMEOUT = 10.0


class RawPeer:
    """One end of a memory cable, spoken by hand: send raw text, read raw text back."""

    def __init__(self, transport: MemoryTransport) -> None:
        self.transport = transport

    async def send(self, message: str | dict[str, Any]) -> None:
        """Send text as is, or a dict as compact JSON."""
        text = message if isinstance(message, str) else json.dumps(message)
        await self.transport.send_text(text)

    async def recv(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The next message the other side sent, decoded; fails if none comes within ``timeout``."""
        text = await asyncio.wait_for(self.transport.receive_text(), timeout)
        assert text is not None, "the other side closed the cable"
        return json.loads(text)

    async def call(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send a request and return the very next message, which must be its answer."""
        await self.send(request)
        answer = await self.recv()
        assert answer.get("id") == request["id"], (
            f"expected the answer to #{request['id']}, got {answer}"
        )
        return answer

    async def ping(self, request_id: str | int = "ping-after") -> None:
        """Prove the other side still answers, and that nothing else was sent before this answer."""
        answer = await self.call({"jsonrpc": "2.0", "id": request_id, "method": "ping"})
        assert answer == {"jsonrpc": "2.0", "id": request_id, "result": {}}

    async def echo(self, request_id: str | int = "echo-after") -> None:
        """Like :meth:`ping`, for connections whose handler answers ``echo`` with its params."""
        params = {"still": "here"}
        answer = await self.call(
            {"jsonrpc": "2.0", "id": request_id, "method": "echo", "params": params}
        )
        assert answer == {"jsonrpc": "2.0", "id": request_id, "result": params}

    def pending(self) -> int:
        """How many messages are waiting to be read (what was sent and not yet received)."""
        return self.transport._inbox.qsize()


def make_raw_pair() -> tuple[RawPeer, MemoryTransport]:
    """A hand-driven peer and the transport to give the code under test."""
    mine, theirs = memory_pair()
    return RawPeer(mine), theirs


# Test modules get these helpers as fixtures, never by importing this file: every folder of tests
# has its own conftest.py, and "import conftest" could find the wrong one.
@pytest.fixture
def raw_pair() -> Callable[[], tuple[RawPeer, MemoryTransport]]:
    """``peer, transport = raw_pair()``: give ``transport`` to the code under test, drive
    ``peer``."""
    return make_raw_pair


@pytest.fixture
def repo_root() -> Path:
    return ROOT


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """A private ``redis-server`` on a free loopback port (no disk), for one test module, then
    stopped."""
    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server (CI installs it: apt-get install redis-server)")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = start_redis(port)  # once it accepts connections, however long that takes
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        server.wait(10)
