"""Real processes for lesson 11's tests: ``redis-server`` and workers
(``python -m minimcp serve --transport http --redis URL``), each waited for until it is ready.

Ready means the process says so: a worker prints ``MCP endpoint: URL`` on standard error once it
listens, and ``redis-server`` accepts a connection. The wait is bounded by :data:`START_TIMEOUT`,
which only a process that never starts reaches: a fixed budget of a few seconds is what a slow,
loaded machine misses (workers there took over 10 s to start).
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from support import START_TIMEOUT

#: Where each worker's standard error goes when the test keeps no log of its own.
LOG_DIRECTORY = tempfile.TemporaryDirectory(prefix="minimcp-workers-")

#: The worker last started on each port: its process and the file its standard error goes to.
STARTED: dict[int, tuple[subprocess.Popen[bytes], Path]] = {}


def start_worker(redis_url: str, port: int, log: Path | None = None) -> subprocess.Popen[bytes]:
    """A worker on ``port``, its standard error written to ``log`` (a file of its own if None).

    It returns at once; :func:`until_listening` waits until the worker says it listens.
    """
    if log is None:
        log = Path(LOG_DIRECTORY.name) / f"worker-{port}-{time.monotonic_ns()}.log"
    command = [sys.executable, "-m", "minimcp", "serve", "--transport", "http"]
    command += ["--port", str(port), "--redis", redis_url]
    with log.open("wb") as stderr:
        process = subprocess.Popen(command, stderr=stderr, stdin=subprocess.DEVNULL)
    STARTED[port] = (process, log)
    return process


async def until_listening(port: int, timeout: float = START_TIMEOUT) -> None:
    """Until the worker last started on ``port`` says ``MCP endpoint: http://127.0.0.1:PORT/mcp``.

    Fails at once if the worker ended first, and after ``timeout`` seconds if it never says so,
    showing what it said instead.
    """
    process, log = STARTED[port]
    line = f"MCP endpoint: http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + timeout
    while line not in (said := log.read_text(errors="replace")):
        if process.poll() is not None or time.monotonic() > deadline:
            why = "ended" if process.poll() is not None else f"did not listen within {timeout} s"
            raise TimeoutError(f"the worker on {port} {why}; it said:\n{said[-2000:]}")
        await asyncio.sleep(0.05)  # a pace for looking again, not a wait for something


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
