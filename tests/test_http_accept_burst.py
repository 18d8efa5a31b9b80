"""A burst of connections queued while the server was busy (lesson 08's cap on connections).

The kernel completes a TCP handshake on its own and queues the connection until the server accepts
it. A server busy for a moment (a long garbage collection, a loaded machine) finds a queue of
connections when it wakes, and asyncio accepts as many at one wake as the listening socket's
backlog. With uvicorn's 2,048, a queue of 1,100 was accepted whole, before any could be refused over
the cap: past the process's 1,024 files ``accept()`` failed, and asyncio logged each failure, a
thousand tracebacks. The server's backlog is 100: the wake accepts at most that, the cap refuses the
excess before the next ones, and the rest wait in the kernel.

The test stops the server (SIGSTOP) to make it "busy", queues the connections, and lets it go on.
"""

from __future__ import annotations

import asyncio
import os
import signal

import httpx2
import pytest
from http_support import INITIALIZE, TIMEOUT
from support import free_port, until
from test_auth_hardening import ACCEPT
from test_auth_hardening_third import IDLE, first_answer, hold, serving_with_auth
from worker_support import stderr_of

from minimcp.transports.http.slow_clients import ACCEPT_BACKLOG


def waiting_to_be_accepted(port: int) -> int:
    """How many connections the kernel holds for the listening socket on 127.0.0.1:``port``
    (``/proc/net/tcp``: a listening socket's receive queue is its queue of connections)."""
    local = f"0100007F:{port:04X}"  # 127.0.0.1, as the kernel writes it
    with open("/proc/net/tcp") as table:
        for line in table.readlines()[1:]:
            fields = line.split()
            if fields[1] == local and fields[3] == "0A":  # 0A: LISTEN
                return int(fields[4].split(":")[1], 16)
    return 0


@pytest.mark.parametrize("route", ["mcp", "auth"])
async def test_a_queued_burst_is_accepted_within_the_file_limit(route: str) -> None:
    """1,100 connections queued while the server (1,024 files) is stopped: when it goes on, no
    ``accept()`` fails for want of files, and both endpoints answer afterwards."""
    mcp_port, auth_port = free_port(), free_port()
    port = mcp_port if route == "mcp" else auth_port
    async with serving_with_auth(mcp_port, auth_port) as process:
        os.kill(process.pid, signal.SIGSTOP)
        try:
            opening = asyncio.create_task(hold(port, IDLE))
            # All queued (the backlog of old), or the queue full (the kernel makes the rest wait)
            await until(
                lambda: opening.done() or waiting_to_be_accepted(port) >= ACCEPT_BACKLOG,
                timeout=30,
            )
        finally:
            os.kill(process.pid, signal.SIGCONT)
        held = await asyncio.wait_for(opening, 60)
        for writer in held:
            writer.close()
        async with httpx2.AsyncClient(timeout=TIMEOUT) as client:
            mcp = await client.post(
                f"http://127.0.0.1:{mcp_port}/mcp", json=INITIALIZE, headers=ACCEPT
            )
        assert mcp.status_code == 401  # served: no token yet
        jwks, _ = await first_answer(f"http://127.0.0.1:{auth_port}/jwks.json", 8)
        assert jwks.status_code == 200
        log = stderr_of(process)
        assert "Too many open files" not in log, log[-2000:]
