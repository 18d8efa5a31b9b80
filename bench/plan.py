"""What the benchmark measures: every row of its tables, and the jobs that make one round of each.

A job is one measurement, made in a fresh process: a module of bench/ run with ``python -m``
(``bench.load``, ``bench.run_one`` or ``bench.workers``), its arguments, and the tree it runs in.
Each prints one line of JSON, which ``bench/bench.py`` reads.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from bench.rows import Row

LEVELS = (1, 8, 64)  # connections, or requests in flight
TABLES = ("servers", "clients", "pairs", "workers", "memory")

# One measurement: which module, its arguments, and the tree it runs in (None: this one). Each
# prints one line of JSON.
Job = tuple[str, list[str], Path | None]
# The rows to measure, each with its jobs by stack ("floor", "minimcp", "sdk", "baseline").
Planned = list[tuple[Row, dict[str, Job]]]

#: The cables of the servers' table, and of the pairs': (name, transport, answers as SSE streams).
SERVER_CABLES = (("http json", "http", False), ("http sse", "http", True), ("ws", "ws", False))
PAIR_CABLES = (
    ("stdio", "stdio", False),
    ("ws", "ws", False),
    ("http json", "http", False),
    ("http sse", "http", True),
)


def jobs(module: str, stacks: tuple[str, ...], args: list[str]) -> dict[str, Job]:
    """The same measurement, by ``module``, of each stack (its first argument), in this tree."""
    return {stack: (module, [stack, *args], None) for stack in stacks}


def server_rows(seconds: int) -> Planned:
    """Table 1: each server under a neutral load (bench/load.py), beside its floor."""
    rows: Planned = []
    for cable, transport, sse in SERVER_CABLES:
        # The SDK 2.x has no WebSocket transport.
        stacks = ("floor", "minimcp") if transport == "ws" else ("floor", "minimcp", "sdk")
        for level in LEVELS:
            args = [transport, "--connections", str(level), "--seconds", str(seconds)]
            args += ["--sse"] if sse else []
            rows.append((Row("server", cable, level), jobs("bench.load", stacks, args)))
    return rows


def client_rows(requests: int) -> Planned:
    """Table 2: each stack's client against the same server, minimcp's (bench/run_one.py)."""
    rows: Planned = []
    for cable, transport in (("stdio", "stdio"), ("http json", "http")):
        for level in LEVELS:
            count = requests * (4 if transport == "stdio" else 1) * (2 if level > 1 else 1)
            args = [transport, "--server", "minimcp", "--requests", str(count)]
            args += ["--concurrency", str(level)]
            row = Row("client", cable, level)
            rows.append((row, jobs("bench.run_one", ("minimcp", "sdk"), args)))
    return rows


def pair_rows(requests: int) -> Planned:
    """Table 3: the two stdio floors, then each stack's client with its own server."""
    blocking = ["stdio", "--requests", str(requests * 20)]
    asynchronous = ["stdio", "--requests", str(requests * 5)]
    rows: Planned = [
        (Row("floor", "stdio floor (blocking)", 1), jobs("bench.run_one", ("floor",), blocking)),
        (
            Row("floor", "stdio floor (asyncio)", 1),
            jobs("bench.run_one", ("asyncio-floor",), asynchronous),
        ),
    ]
    for cable, transport, sse in PAIR_CABLES:
        stacks = ("minimcp",) if transport == "ws" else ("minimcp", "sdk")
        for level in LEVELS:
            count = requests * (4 if transport != "http" else 1) * (2 if level > 1 else 1)
            args = [transport, "--requests", str(count), "--concurrency", str(level)]
            args += ["--sse"] if sse else []
            rows.append((Row("pair", cable, level), jobs("bench.run_one", stacks, args)))
    return rows


def memory_rows(sessions: int) -> Planned:
    """The memory figure: the bytes each idle HTTP session costs a server (bench/run_one.py)."""
    args = ["http", "--sessions", str(sessions)]
    row = Row("memory", "http idle session", sessions)
    return [(row, jobs("bench.run_one", ("minimcp", "sdk"), args))]


def workers_rows(seconds: int) -> Planned:
    """Table 4, lessons 11 and 12: one worker in memory, 1, 2 and 4 workers sharing a Redis, then
    2 and 4 serving 2026-07-28 requests with nothing shared (bench/workers.py)."""
    from bench.workers import SETUPS

    rows: Planned = []
    for _, count, kind in SETUPS:
        args = ["--workers", str(count), "--seconds", str(seconds), "--kind", kind]
        rows.append((Row("workers", kind, count), {"minimcp": ("bench.workers", args, None)}))
    return rows


def plan(quick: bool, sessions: int, tables: tuple[str, ...] = TABLES) -> Planned:
    """Every row of ``tables``, and for each the measurements that make one round of it."""
    seconds, requests = (1, 150) if quick else (3, 500)
    rows: Planned = []
    if shutil.which("wrk"):
        rows += server_rows(seconds) if "servers" in tables else []
        if shutil.which("redis-server") and "workers" in tables:
            rows += workers_rows(seconds)
    else:
        from bench.load import WRK_MISSING

        print(WRK_MISSING, file=sys.stderr)
    rows += client_rows(requests) if "clients" in tables else []
    rows += pair_rows(requests) if "pairs" in tables else []
    return rows + (memory_rows(sessions // (4 if quick else 1)) if "memory" in tables else [])


def with_baseline(planned: Planned, tree: Path) -> None:
    """Beside minimcp in each server and workers row, the same measurement run in ``tree``."""
    for row, jobs in planned:
        if row.table in ("server", "workers") and "minimcp" in jobs:
            module, args, _ = jobs["minimcp"]
            jobs["baseline"] = (module, args, tree)
