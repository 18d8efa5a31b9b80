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
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from bench.load import http_handshake
from bench.serving import ROOT, start_server, stop

Call = Callable[[], Awaitable[Any]]


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


#: What the floors send: one line of JSON-RPC, as a client would, which the child echoes back.
ECHO_LINE = (
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

#: The child of the blocking floor: lines in, the same lines out, with plain blocking I/O.
BLOCKING_ECHO = """
import sys
for line in sys.stdin.buffer:
    sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()
"""


def floor(requests: int) -> dict[str, float]:
    """The fastest stdio can be in Python here: a bare child echoing lines over its pipes, no MCP
    at all."""
    child = subprocess.Popen(
        [sys.executable, "-u", "-c", BLOCKING_ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert child.stdin is not None and child.stdout is not None
    latencies = []
    for number in range(requests + requests // 20):
        began = time.perf_counter()
        child.stdin.write(ECHO_LINE)
        child.stdin.flush()
        child.stdout.readline()
        # The first ones warm up.
        if number >= requests // 20:
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


#: The child of the asyncio floor: the same echo, reading and writing with asyncio pipes.
ASYNC_ECHO = """
import asyncio
import sys
async def main():
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, sys.stdout.buffer
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    while line := await reader.readline():
        writer.write(line)
        await writer.drain()
asyncio.run(main())
"""


async def asyncio_floor(requests: int) -> dict[str, float]:
    """The same echo with asyncio pipes on both sides: what any asyncio stdio transport pays, no
    MCP."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        ASYNC_ECHO,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    stdin, stdout = child.stdin, child.stdout
    assert stdin is not None and stdout is not None

    async def call() -> None:
        stdin.write(ECHO_LINE)
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


async def memory_per_session(stack: str, sessions: int) -> dict[str, float]:
    """Open ``sessions`` idle sessions on an HTTP server; its memory growth divided by their
    number."""
    import httpx2

    process, url = await start_server(stack, "http", sse=False)
    try:
        async with httpx2.AsyncClient(timeout=60) as http:
            # Warm up: the first sessions pay for imports and caches.
            for _ in range(20):
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
