"""How fast is each cable? minimcp beside the official SDK (mcp==2.3.0), server and client apart.

    python bench/bench.py                  # the full run (about a quarter of an hour), four tables
    python bench/bench.py --quick          # shorter runs, one round: a rough picture in minutes
    python bench/bench.py --json out.json  # also save every figure (the appendix notebook reads it)
    python bench/bench.py --tables servers,workers --baseline 63af6e4
                                           # minimcp today beside minimcp at an earlier commit

A figure that times one stack's client against its own server mixes the two: a slow client hides
a fast server. So there are three kinds of figure, each in its own table, all for the same
one-tool server (``echo``, bench/servers.py) built with each stack:

1. **Servers**, under a neutral load that is neither stack's client (bench/load.py): wrk over
   HTTP, with answers as JSON and as SSE streams, and a bare websockets client over WebSocket, at
   1, 8 and 64 connections. Beside them, the **floor**: a bare ASGI app on the same uvicorn and
   httptools that answers one fixed JSON-RPC response, and a bare websockets echo. A stack's
   figure over its floor says how much of the machine's limit it uses.
2. **Clients**, each stack's against the same server (minimcp's), over stdio and HTTP, at 1, 8
   and 64 requests in flight (bench/run_one.py).
3. **Pairs**, each stack's client with its own server, end to end, as a user of one stack sees
   it; with the stdio floors: a bare child echoing lines with blocking I/O, and the same with
   asyncio pipes.
4. **Workers** (lesson 11): minimcp's server as one process in memory, then as 1, 2 and 4 worker
   processes sharing a Redis, under wrk, with one session whose requests reach every worker
   (bench/workers.py; needs ``redis-server``).

Which measurements make each row: bench/plan.py. With ``--baseline REF``, the servers' and
workers' tables gain a column: the same measurement of minimcp as it was at commit REF, run
interleaved with today's, so that a change is measured before and after on the same machine at
once. The tree at REF (unpacked with ``git archive``) provides only the server measured, its own
bench/servers.py with its own minimcp; the load, the client and the figures are today's, so the
two columns are measured alike even where the benchmark itself changed since. (A tree from before
lesson 11 has no workers to start: measure it with ``--tables servers``.)

Every figure is measured in a fresh process. The machine is noisy, so the runs of one row are
interleaved (floor, minimcp, SDK, floor, minimcp …) and each figure is the median of the rounds.
Figures are never asserted anywhere: this is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __name__ == "__main__":
    # `python bench/bench.py`: Python put bench/ first on sys.path; the repository root instead
    # makes `bench` the package the lines below import from (not this file, bench/bench.py).
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.plan import TABLES, Job, Planned, plan, with_baseline
from bench.report import print_tables
from bench.rows import Row

ROOT = Path(__file__).resolve().parent.parent


def measure(job: Job) -> dict[str, float]:
    """Run one measurement in a process of its own; the figures it printed as JSON."""
    module, args, tree = job
    command = [sys.executable, "-m", module, *args]
    # This tree measures; ``tree`` (a baseline's) only provides the server measured.
    server_tree = {"BENCH_SERVER_TREE": str(tree)} if tree else {}
    done = subprocess.run(
        command,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PYTHONPATH": str(ROOT), **server_tree},
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command[2:])} failed:\n{done.stderr[-2000:]}")
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    # Fast wrong answers would pass for speed: such a figure means nothing.
    if figures.get("wrong"):
        raise RuntimeError(
            f"{' '.join(command[2:])}: {figures['wrong']:.0f} answers were wrong "
            f"(a status other than 200, or no echo): the server under test is broken"
        )
    return figures


def unpack(commit: str, folder: Path) -> Path:
    """The repository's tree at ``commit``, unpacked into ``folder`` (``git archive``: no
    checkout)."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", commit], cwd=ROOT, capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


def run(planned: Planned, rounds: int) -> None:
    """Measure every row ``rounds`` times; a round runs each stack of the row once."""
    for row, jobs in planned:
        # A B A B …: each stack sees the same noise.
        for round_number in range(rounds):
            for stack, job in jobs.items():
                where = f"{row.table}: {row.cable} ×{row.in_flight} {stack}"
                progress = f"\r{where} (round {round_number + 1}/{rounds})" + " " * 20
                print(progress, end="", file=sys.stderr, flush=True)
                row.runs.setdefault(stack, []).append(measure(job))
    print("\r" + " " * 80 + "\r", end="", file=sys.stderr)


def save(path: Path, rows: list[Row], rounds: int, seconds: float) -> None:
    """Write every figure as JSON: what :func:`load` (and the appendix notebook) reads back."""
    facts = {
        "python": platform.python_version(),
        "cores": os.cpu_count(),
        "rounds": rounds,
        "seconds": round(seconds),
    }
    saved = {**facts, "rows": [saved_row(row) for row in rows]}
    path.write_text(json.dumps(saved, indent=1) + "\n")


def saved_row(row: Row) -> dict[str, Any]:
    """One row as JSON: what it measured, each stack's medians, and every run."""
    keys = ("rps", "p50_ms", "p99_ms")
    medians = {stack: {key: row.median(stack, key) for key in keys} for stack in row.runs}
    return {
        "table": row.table,
        "cable": row.cable,
        "in_flight": row.in_flight,
        "median": medians,
        "runs": row.runs,
    }


def load(path: Path) -> tuple[list[Row], dict[str, Any]]:
    """The rows that ``--json`` saved, ready for :func:`bench.report.print_tables`, and the run's
    facts."""
    saved = json.loads(path.read_text())
    rows = [Row(row["table"], row["cable"], row["in_flight"], row["runs"]) for row in saved["rows"]]
    return rows, {key: value for key, value in saved.items() if key != "rows"}


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="shorter runs, one round")
    parser.add_argument("--rounds", type=int, help="rounds per row (default 3, or 1 with --quick)")
    parser.add_argument(
        "--sessions", type=int, default=1000, help="idle sessions for the memory figure"
    )
    parser.add_argument("--json", type=Path, help="also save every figure to this file")
    parser.add_argument(
        "--tables",
        default=",".join(TABLES),
        help=f"which tables, comma-separated (default: all of {','.join(TABLES)})",
    )
    parser.add_argument(
        "--baseline",
        metavar="REF",
        help="also measure minimcp at this commit, beside today's (servers and workers)",
    )
    args = parser.parse_args()
    args.rounds = args.rounds or (1 if args.quick else 3)
    args.tables = tuple(name.strip() for name in args.tables.split(","))
    if unknown := set(args.tables) - set(TABLES):
        parser.error(
            f"unknown table(s): {', '.join(sorted(unknown))}; choose among {', '.join(TABLES)}"
        )
    return args


def main() -> int:
    args = parse_args()
    began = time.monotonic()
    planned = plan(args.quick, args.sessions, args.tables)
    with tempfile.TemporaryDirectory(prefix="minimcp-baseline-") as folder:
        if args.baseline:
            with_baseline(planned, unpack(args.baseline, Path(folder)))
        run(planned, args.rounds)
    rows = [row for row, _ in planned]
    elapsed = time.monotonic() - began
    baseline = f"; baseline: minimcp at {args.baseline}" if args.baseline else ""
    print(
        f"minimcp and the official SDK (mcp 2.3.0); Python {platform.python_version()}, "
        f"{os.cpu_count()} cores, {args.rounds} round(s), medians; {elapsed:.0f} s{baseline}\n"
    )
    print_tables(rows)
    if args.json:
        save(args.json, rows, args.rounds, elapsed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
