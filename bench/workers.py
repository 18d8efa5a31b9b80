"""Beyond one process (lesson 11): one worker in memory beside 1, 2 and 4 workers sharing a Redis.

    python -m bench.workers                   # 10 s per figure, 16 connections
    python -m bench.workers --seconds 3       # quicker
    python -m bench.workers --workers 2 --kind redis   # one figure, one line of JSON
                                                       # (bench/bench.py's table 4)

The server is the benchmark's one-tool server (bench/servers.py). Every worker listens on the same
port (``SO_REUSEPORT``) and the kernel spreads wrk's keep-alive connections over them. wrk's
connections share one MCP session, opened on one worker: with N workers, about (N - 1) / N of the
requests reach a worker that does not run the session, which forwards each through Redis and
follows its answer back. So this is the cost of sharing with **no affinity at all**; a load
balancer that pinned each session to its worker would forward nothing. The private
``redis-server`` runs on this machine too, on a free loopback port. Figures are printed side by
side, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from bench.load import WRK_MISSING, open_session, run_wrk
from bench.serving import free_port, spawn, stop

#: What is measured: a name, the number of workers, and how: "memory" (lesson 08), "redis"
#: (sharing one, lesson 11) or "modern" (2026-07-28: every request stands alone, nothing shared,
#: lesson 12).
SETUPS = [
    ("1 worker, memory (lesson 08)", 1, "memory"),
    ("1 worker, 2026-07-28", 1, "modern"),
    ("1 worker, Redis", 1, "redis"),
    ("2 workers, Redis", 2, "redis"),
    ("4 workers, Redis", 4, "redis"),
    ("2 workers, 2026-07-28, no Redis", 2, "modern"),
    ("4 workers, 2026-07-28, no Redis", 4, "modern"),
]
#: A 2026-07-28 request: its envelope in the body, and the headers that repeat it.
MODERN_META = (
    ',"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
    '"io.modelcontextprotocol/clientCapabilities":{}}'
)
MODERN_HEADERS = {
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": "tools/call",
    "Mcp-Name": "echo",
}


async def start_workers(
    count: int, port: int, redis: str | None
) -> list[asyncio.subprocess.Process]:
    """``count`` server processes on ``port``, once each says it is ready."""
    extra = ["--redis", redis] if redis else ["--reuse-port"] if count > 1 else []
    workers = []
    for _ in range(count):
        args = ["minimcp", "http", "--port", str(port), *extra]
        workers.append(await spawn(args, "a worker"))
    return workers


async def measure(
    count: int, redis: str | None, connections: int, seconds: float, modern: bool = False
) -> dict[str, Any]:
    """One figure; ``modern``: 2026-07-28 requests, with no session at all (lesson 12)."""
    port = free_port()
    workers = await start_workers(count, port, redis)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        headers, meta = (MODERN_HEADERS, MODERN_META) if modern else (await open_session(url), "")
        # The warm-up.
        await asyncio.to_thread(run_wrk, url, headers, connections, 1, 1_000, meta)
        return await asyncio.to_thread(
            run_wrk, url, headers, connections, round(seconds), 10_000_000, meta
        )
    finally:
        for worker in workers:
            await stop(worker)


@asynccontextmanager
async def private_redis() -> AsyncIterator[str]:
    """A ``redis-server`` of our own on a free loopback port (no disk), for the length of the
    block."""
    port = free_port()
    # On the loopback interface only, and with nothing saved to disk.
    command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1"]
    command += ["--save", "", "--appendonly", "no"]
    redis = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    try:
        await asyncio.sleep(0.5)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        redis.terminate()
        redis.wait(10)


async def measure_one(count: int, kind: str, connections: int, seconds: float) -> dict[str, Any]:
    """One figure: ``count`` workers, sharing a private Redis if ``kind`` is "redis"."""
    if kind != "redis":
        return await measure(count, None, connections, seconds, modern=kind == "modern")
    async with private_redis() as url:
        return await measure(count, url, connections, seconds)


async def run(connections: int, seconds: float) -> None:
    print(
        f"tools/call echo, one session, {connections} connections (wrk), {seconds:g} s each, "
        f"{os.cpu_count()} cores"
    )
    print(f"{'setup':<30} {'requests/s':>11} {'p50 ms':>8} {'p99 ms':>8} {'wrong':>6}")
    async with private_redis() as redis_url:
        for name, count, kind in SETUPS:
            redis = redis_url if kind == "redis" else None
            figures = await measure(count, redis, connections, seconds, modern=kind == "modern")
            latency = f"{figures['p50_ms']:>8.2f} {figures['p99_ms']:>8.2f}"
            print(
                f"{name:<30} {figures['rps']:>11,.0f} {latency} {figures['wrong']:>6}", flush=True
            )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument(
        "--workers",
        type=int,
        help="measure this one setup only, and print it as one line of "
        "JSON (what bench/bench.py runs)",
    )
    parser.add_argument(
        "--kind",
        choices=["memory", "redis", "modern"],
        default="memory",
        help="with --workers: in memory, sharing a Redis, or 2026-07-28 (no session)",
    )
    args = parser.parse_args()
    for needed, how in (
        ("wrk", WRK_MISSING),
        ("redis-server", "redis-server is needed: apt-get install redis-server"),
    ):
        if shutil.which(needed) is None:
            raise SystemExit(how)
    if args.workers is None:
        asyncio.run(run(args.connections, args.seconds))
    else:
        figures = asyncio.run(measure_one(args.workers, args.kind, args.connections, args.seconds))
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
