"""Real server processes for the tests: ``python -m minimcp serve`` (one server, a lesson 11 worker,
a supervisor of workers) and ``redis-server``, each waited for until it is ready.

Ready means the process says so: a server prints ``MCP endpoint: URL`` on standard error once it
listens (a supervisor's workers each print it on the supervisor's), and ``redis-server`` accepts a
connection. The wait is bounded by :data:`START_TIMEOUT`, which only a process that never starts
reaches: a fixed budget of a few seconds is what a slow, loaded machine misses (workers there took
over 10 s to start).

A server's standard error goes to a file, never to a pipe: a pipe nobody reads fills up and stops
the server mid-sentence. :func:`stderr_of` reads what it wrote so far.
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from support import START_TIMEOUT, free_port

from minimcp.transports.cluster.redis_store import connect

#: Where each server's standard error goes when the test keeps no log of its own.
LOG_DIRECTORY = tempfile.TemporaryDirectory(prefix="minimcp-servers-")

#: The file each server started here writes its standard error to, by its process id.
LOGS: dict[int, Path] = {}


def start_serve(
    port: int,
    *options: str,
    transport: str = "http",
    log: Path | None = None,
    **popen: Any,
) -> subprocess.Popen[bytes]:
    """``python -m minimcp serve --transport TRANSPORT --port PORT OPTIONS``, its standard error
    written to ``log`` (a file of its own if None).

    Port 0 lets the system pick one: the server names it in the line that says it listens.
    ``popen`` goes to :class:`subprocess.Popen` as it is (``cwd``, ``env``, ``stdout``, ...). It
    returns at once; :func:`until_listening` waits until the server says it listens.
    """
    if log is None:
        log = Path(LOG_DIRECTORY.name) / f"serve-{port}-{time.monotonic_ns()}.log"
    command = [sys.executable, "-m", "minimcp", "serve", "--transport", transport]
    command += ["--port", str(port), *options]
    popen.setdefault("stdin", subprocess.DEVNULL)
    with log.open("wb") as stderr:
        process = subprocess.Popen(command, stderr=stderr, **popen)
    LOGS[process.pid] = log
    return process


def start_worker(redis_url: str, port: int, log: Path | None = None) -> subprocess.Popen[bytes]:
    """A lesson 11 worker on ``port``, sharing the store at ``redis_url``."""
    return start_serve(port, "--redis", redis_url, log=log)


def stderr_of(process: subprocess.Popen[bytes]) -> str:
    """All that a server started by :func:`start_serve` has written on standard error so far."""
    return LOGS[process.pid].read_text(errors="replace")


async def until_said(
    process: subprocess.Popen[bytes], text: str, times: int = 1, timeout: float = START_TIMEOUT
) -> str:
    """Until the server has written ``times`` lines holding ``text``; what it said up to the end of
    the last of them.

    Fails at once if the server ended first, and after ``timeout`` seconds if it never says so,
    showing what it said instead.
    """
    deadline = time.monotonic() + timeout
    while True:
        lines = stderr_of(process).splitlines(keepends=True)
        found = [number for number, line in enumerate(lines) if text in line and line[-1] == "\n"]
        if len(found) >= times:
            return "".join(lines[: found[times - 1] + 1])
        if process.poll() is not None or time.monotonic() > deadline:
            why = "ended" if process.poll() is not None else f"did not say it within {timeout} s"
            raise TimeoutError(f"{text!r}: the server {why}; it said:\n{''.join(lines)[-2000:]}")
        await asyncio.sleep(0.05)  # a pace for looking again, not a wait for something


async def until_listening(process: subprocess.Popen[bytes], times: int = 1) -> str:
    """Until the server says ``MCP endpoint: URL`` (``times`` lines: one per worker of a
    supervisor); what it said up to there, the last line naming the URL."""
    return await until_said(process, "MCP endpoint: ", times)


async def exited(process: subprocess.Popen[bytes], timeout: float) -> int:
    """Until ``process`` has exited, at most ``timeout`` seconds; its exit code."""
    deadline = time.monotonic() + timeout
    while (code := process.poll()) is None:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the process {process.pid} did not exit within {timeout} s")
        await asyncio.sleep(0.05)  # a pace for looking again, not a wait for something
    return code


#: Server processes, each beside the URL of the endpoint it serves.
Workers = list[tuple[subprocess.Popen[bytes], str]]


@asynccontextmanager
async def workers_on_redis(
    redis_url: str, start: Callable[[int], subprocess.Popen[bytes]], count: int = 2
) -> AsyncIterator[Workers]:
    """``count`` servers started by ``start(port)`` on free ports, sharing a Redis emptied first:
    yielded once each listens, stopped after (those a test killed are only waited for)."""
    redis = connect(redis_url)
    await redis.flushdb()
    await redis.aclose()
    ports = [free_port() for _ in range(count)]
    processes = [start(port) for port in ports]
    try:
        for process in processes:
            await until_listening(process)
        yield [
            (process, f"http://127.0.0.1:{port}/mcp")
            for process, port in zip(processes, ports, strict=True)
        ]
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
            process.wait(10)


def start_redis(port: int) -> subprocess.Popen[bytes]:
    """A fresh, empty ``redis-server`` on ``port`` (loopback, no disk), once it accepts
    connections."""
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1"]
        + ["--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            if server.poll() is not None:
                break  # it could not start (the port taken?)
            time.sleep(0.05)  # a pace for asking again
    server.kill()
    server.wait()
    raise TimeoutError(f"redis-server did not start on {port}")
