"""Lesson 11: ``serve --workers N`` stops every worker, quietly and within a bound, on SIGTERM
(what a service manager sends) as on SIGINT (Ctrl+C).

A real supervisor with two real workers on one free loopback port, one private ``redis-server``
(conftest's ``redis_url``). The signal goes to the supervisor alone, as ``kill`` or a service
manager sends it (a terminal's Ctrl+C reaches every process of the group, the easier case).
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx2
import pytest
from http_support import ACCEPT_BOTH, INITIALIZE, TIMEOUT
from support import START_TIMEOUT, free_port
from worker_support import exited, start_serve, stderr_of, until_listening

#: Each test starts real processes and waits until they listen (up to START_TIMEOUT each):
#: pytest's default bound of 120 s for one test is too short on a slow, loaded machine.
pytestmark = pytest.mark.timeout(4 * START_TIMEOUT)

#: Seconds the supervisor may take to stop, on a loaded machine: the workers' grace, then SIGKILL.
STOP_BOUND = 20.0
#: Streams left open when the signal comes, followed on both workers: the stop has work to do.
OPEN_STREAMS = 20


async def start_supervisor(
    redis_url: str, port: int
) -> tuple[subprocess.Popen[bytes], list[int], str]:
    """``serve --workers 2``, once both workers listen: the supervisor, its workers' pids, and what
    it said until then."""
    parent = start_serve(port, "--workers", "2", "--redis", redis_url)
    started = await until_listening(parent, 2)  # each worker says so once it listens
    line = started.splitlines()[0]
    assert line.startswith("2 workers: "), line
    pids = [int(pid) for pid in line.split(":")[1].split()]
    return parent, pids, started


@asynccontextmanager
async def open_streams(url: str, count: int) -> AsyncIterator[None]:
    """``count`` sessions, each with its GET stream open (the kernel spreads them on both
    workers)."""
    async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
        readers = []
        for _ in range(count):
            headers = {"accept": ACCEPT_BOTH, "content-type": "application/json"}
            answer = await http.post(url, json=INITIALIZE, headers=headers)
            headers |= {
                "mcp-session-id": answer.headers["mcp-session-id"],
                "mcp-protocol-version": "2025-11-25",
            }
            initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            assert (await http.post(url, json=initialized, headers=headers)).status_code == 202
            headers["accept"] = "text/event-stream"
            opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            readers.append(asyncio.ensure_future(follow(http, url, headers, opened)))
            await asyncio.wait_for(opened, TIMEOUT)
        try:
            yield
        finally:
            for reader in readers:
                reader.cancel()
            await asyncio.gather(*readers, return_exceptions=True)


async def follow(
    http: httpx2.AsyncClient, url: str, headers: dict[str, str], opened: asyncio.Future[None]
) -> None:
    """Read a GET stream until the server ends it (or the connection breaks)."""
    try:
        async with http.stream("GET", url, headers=headers) as stream:
            assert stream.status_code == 200
            opened.set_result(None)
            async for _ in stream.aiter_bytes():
                pass
    except httpx2.HTTPError:
        pass


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def port_free(port: int) -> bool:
    """Nobody listens on the port: it binds (SO_REUSEADDR, but not the workers' SO_REUSEPORT)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
            probe.listen()
        except OSError:
            return False
    return True


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_a_signal_to_the_supervisor_stops_every_worker_quietly(
    redis_url: str, signum: signal.Signals
) -> None:
    port = free_port()
    parent, pids, started = await start_supervisor(redis_url, port)
    try:
        async with open_streams(f"http://127.0.0.1:{port}/mcp", OPEN_STREAMS):
            sent = time.monotonic()
            parent.send_signal(signum)
            await exited(parent, STOP_BOUND)
            took = time.monotonic() - sent
        log = stderr_of(parent).removeprefix(started)
        print(f"{signum.name}: stopped in {took:.2f} s; after the signal it said:\n{log}")
        assert parent.returncode == 0
        assert [pid for pid in pids if not gone(pid)] == []
        assert port_free(port)
        assert "Traceback" not in log and "never retrieved" not in log
        assert "WARNING" not in log and "ERROR" not in log
    finally:
        for pid in [parent.pid, *pids]:
            if not gone(pid):
                os.kill(pid, signal.SIGKILL)
        if parent.poll() is None:
            parent.wait(TIMEOUT)
