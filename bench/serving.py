"""A server the benchmark measures, in a child process of its own: started, waited for, stopped.

The servers are bench/servers.py's, started as ``python -m bench.servers STACK TRANSPORT``. Each
says "ready" on its stderr once it listens; what it logs after that is read and thrown away, so
that a full pipe never blocks it (lesson 02's deadlock).
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Whose servers are measured: this tree's, or, with ``--baseline`` (bench/bench.py), an earlier
#: tree's, unpacked elsewhere; the measuring code is always this tree's.
SERVER_TREE = Path(os.environ.get("BENCH_SERVER_TREE", ROOT))

#: The tasks reading the servers' stderr: asyncio keeps only a weak reference to a task.
_draining: set[asyncio.Future[None]] = set()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def start_server(
    stack: str, transport: str, sse: bool
) -> tuple[asyncio.subprocess.Process, str]:
    """A network server of ``stack`` in a child process, and its URL, once it is ready."""
    port = free_port()
    args = [stack, transport, "--port", str(port)] + (["--sse"] if sse else [])
    process = await spawn(args, f"the {stack} {transport} server")
    scheme = "ws" if transport == "ws" else "http"
    return process, f"{scheme}://127.0.0.1:{port}/mcp"


async def spawn(args: list[str], name: str) -> asyncio.subprocess.Process:
    """``python -m bench.servers ARGS`` in a child process, once it says it is ready (``name``
    says which server failed to start, if it does not)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *("-m", "bench.servers", *args),
        cwd=str(SERVER_TREE),
        env={**os.environ, "PYTHONPATH": str(SERVER_TREE)},
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    try:
        while (line := await asyncio.wait_for(process.stderr.readline(), 30)).strip() != b"ready":
            if not line:  # it exited before it was ready
                raise RuntimeError(f"{name} did not start")
    except BaseException:
        await stop(process)
        raise
    drain = asyncio.ensure_future(_discard(process.stderr))
    _draining.add(drain)  # a reference, so the task lives on; dropped when it ends
    drain.add_done_callback(_draining.discard)
    return process


async def _discard(stream: asyncio.StreamReader) -> None:
    while await stream.read(65536):
        pass


async def stop(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        process.terminate()
        try:
            await asyncio.wait_for(process.wait(), 10)
        except TimeoutError:
            process.kill()
