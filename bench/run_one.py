"""One benchmark measurement, in a process of its own, printed as one line of JSON.

    python -m bench.run_one minimcp stdio --requests 2000 --concurrency 1
    python -m bench.run_one sdk http --sse --requests 1000 --concurrency 8
    python -m bench.run_one floor stdio --requests 5000
    python -m bench.run_one minimcp http --sessions 1000      # memory per idle session instead

A fresh process for every measurement keeps the runs from disturbing each other (imports, garbage,
warm caches). ``bench/bench.py`` runs many of these, interleaved, and takes the medians.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
Call = Callable[[], Awaitable[Any]]

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
    args = [sys.executable, "-m", "bench.servers", stack, transport, "--port", str(port)]
    if sse:
        args.append("--sse")
    process = await asyncio.create_subprocess_exec(
        *args, cwd=str(ROOT), stderr=asyncio.subprocess.PIPE
    )
    assert process.stderr is not None
    try:
        while (line := await asyncio.wait_for(process.stderr.readline(), 30)).strip() != b"ready":
            if not line:  # it exited before it was ready
                raise RuntimeError(f"the {stack} {transport} server did not start")
    except BaseException:
        await stop(process)
        raise
    # Keep reading what it logs: a full stderr pipe would block the server (lesson 02's deadlock).
    drain = asyncio.ensure_future(_discard(process.stderr))
    _draining.add(drain)  # a reference, so the task lives on; dropped when it ends
    drain.add_done_callback(_draining.discard)
    scheme = "ws" if transport == "ws" else "http"
    return process, f"{scheme}://127.0.0.1:{port}/mcp"


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


async def connect(
    stack: str, transport: str, sse: bool, stack_exit: AsyncExitStack, server: str | None = None
) -> Call:
    """A connected client of ``stack`` over ``transport``, to a server of ``server`` (by default the
    same stack); returns the call to measure."""
    arguments = {"text": "hello"}
    server = server or stack
    if stack == "minimcp":
        from minimcp.client import stdio_client

        if transport == "stdio":
            command = [sys.executable, "-m", "bench.servers", server, "stdio"]
            client = await stack_exit.enter_async_context(stdio_client(command, cwd=str(ROOT)))
        else:
            process, url = await start_server(server, transport, sse)
            stack_exit.push_async_callback(stop, process)
            if transport == "ws":
                from minimcp.client import websocket_client

                client = await stack_exit.enter_async_context(websocket_client(url))
            else:
                from minimcp.client import http_client

                client = await stack_exit.enter_async_context(http_client(url, listen=False))
        return lambda: client.call_tool("echo", arguments, timeout=60)

    from mcp import Client, StdioServerParameters

    if transport == "stdio":
        target: Any = StdioServerParameters(
            command=sys.executable, args=["-m", "bench.servers", server, "stdio"], cwd=str(ROOT)
        )
    else:
        process, target = await start_server(server, transport, sse)
        stack_exit.push_async_callback(stop, process)
    client = await stack_exit.enter_async_context(Client(target))
    return lambda: client.call_tool("echo", arguments)


async def measure(call: Call, requests: int, concurrency: int) -> dict[str, float]:
    """``requests`` calls, ``concurrency`` in flight at a time: throughput and latency percentiles.

    A warm-up at the same concurrency first: imports, caches, and one connection per request in
    flight are paid for before the clock starts.
    """

    async def run(count: int) -> list[float]:
        latencies: list[float] = []
        remaining = count

        async def worker() -> None:
            nonlocal remaining
            while remaining > 0:
                remaining -= 1
                began = time.perf_counter()
                await call()
                latencies.append(time.perf_counter() - began)

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return latencies

    await run(max(4 * concurrency, requests // 20))
    began = time.perf_counter()
    latencies = sorted(await run(requests))
    elapsed = time.perf_counter() - began
    return {
        "rps": requests / elapsed,
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))],
    }


def floor(requests: int) -> dict[str, float]:
    """The fastest stdio can be in Python here: a bare child echoing lines over its pipes, no MCP at all."""
    child = subprocess.Popen(
        [
            sys.executable,
            "-u",
            "-c",
            "import sys\nfor line in sys.stdin.buffer:\n"
            "    sys.stdout.buffer.write(line)\n    sys.stdout.buffer.flush()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert child.stdin is not None and child.stdout is not None
    line = (
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "hello"}},
            }
        )
        + "\n"
    ).encode()
    latencies = []
    for number in range(requests + requests // 20):
        began = time.perf_counter()
        child.stdin.write(line)
        child.stdin.flush()
        child.stdout.readline()
        if number >= requests // 20:  # the first ones warm up
            latencies.append(time.perf_counter() - began)
    child.stdin.close()
    child.wait()
    latencies.sort()
    total = sum(latencies)
    return {
        "rps": len(latencies) / total,
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * latencies[int(0.99 * len(latencies))],
    }


ASYNC_ECHO = """
import asyncio, sys
async def main():
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, sys.stdout.buffer)
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    while line := await reader.readline():
        writer.write(line)
        await writer.drain()
asyncio.run(main())
"""


async def asyncio_floor(requests: int) -> dict[str, float]:
    """The same echo with asyncio pipes on both sides: what any asyncio stdio transport pays, no MCP."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        ASYNC_ECHO,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    stdin, stdout = child.stdin, child.stdout
    assert stdin is not None and stdout is not None
    line = (
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "hello"}},
            }
        )
        + "\n"
    ).encode()

    async def call() -> None:
        stdin.write(line)
        await stdin.drain()
        await stdout.readline()

    result = await measure(call, requests, 1)
    stdin.close()
    await child.wait()
    return result


def rss_bytes(pid: int) -> int:
    """The resident memory of process ``pid`` (Linux: /proc/PID/status, VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


#: A plain-HTTP MCP handshake, for the load generator and the memory figure (no stack's client).
PROTOCOL_VERSION = "2025-11-25"
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": "bench-0",
    "method": "initialize",
    "params": {
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


async def http_handshake(http: Any, url: str) -> dict[str, str]:
    """Open one MCP session with plain POSTs (``http``: an httpx2 client); return the headers every
    later request of the session carries."""
    answer = await http.post(url, json=INITIALIZE, headers=HEADERS)
    answer.raise_for_status()
    session = {
        "mcp-session-id": answer.headers["mcp-session-id"],
        "mcp-protocol-version": PROTOCOL_VERSION,
    }
    (await http.post(url, json=INITIALIZED, headers={**HEADERS, **session})).raise_for_status()
    return session


async def memory_per_session(stack: str, sessions: int) -> dict[str, float]:
    """Open ``sessions`` idle sessions on an HTTP server; its memory growth divided by their number."""
    import httpx2

    process, url = await start_server(stack, "http", sse=False)
    try:
        async with httpx2.AsyncClient(timeout=60) as http:
            for _ in range(20):  # warm up: the first sessions pay for imports and caches
                await http_handshake(http, url)
            await asyncio.sleep(0.5)
            before = rss_bytes(process.pid)
            for _ in range(sessions):
                await http_handshake(http, url)
            await asyncio.sleep(0.5)
            after = rss_bytes(process.pid)
    finally:
        await stop(process)
    return {"bytes_per_session": (after - before) / sessions, "rss_after_mb": after / 2**20}


async def run(args: argparse.Namespace) -> dict[str, float]:
    if args.sessions:
        return await memory_per_session(args.stack, args.sessions)
    async with AsyncExitStack() as stack_exit:
        call = await connect(args.stack, args.transport, args.sse, stack_exit, args.server)
        return await measure(call, args.requests, args.concurrency)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("stack", choices=["minimcp", "sdk", "floor", "asyncio-floor"])
    parser.add_argument("transport", choices=["stdio", "ws", "http"])
    parser.add_argument("--sse", action="store_true", help="HTTP: every answer as an SSE stream")
    parser.add_argument(
        "--server", choices=["minimcp", "sdk"], help="the server's stack (default: the client's)"
    )
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument(
        "--sessions", type=int, default=0, help="measure memory per idle HTTP session"
    )
    args = parser.parse_args()
    if args.stack == "floor":
        result = floor(args.requests)
    elif args.stack == "asyncio-floor":
        result = asyncio.run(asyncio_floor(args.requests))
    else:
        result = asyncio.run(run(args))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
