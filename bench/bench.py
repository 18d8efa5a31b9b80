"""How fast is each cable? minimcp beside the official SDK (mcp==2.3.0), transport by transport.

    python bench/bench.py                 # the full run (several minutes), one table at the end
    python bench/bench.py --quick         # fewer requests and rounds: a rough picture in a minute
    python bench/bench.py --json out.json # also save every figure (the appendix notebook reads it)

What it measures, for a one-tool server (``echo``, bench/servers.py) built with each stack:

* sequential ``tools/call`` round trips per second, and latency p50 / p99, over stdio, WebSocket
  (minimcp only: the SDK 2.x has no WebSocket transport) and Streamable HTTP, with answers as JSON
  and as SSE streams;
* the same with 8 and 64 requests in flight;
* two floors for stdio: a bare child echoing each line with blocking I/O (the fastest stdio can be
  in Python here) and the same echo with asyncio pipes on both sides (what any asyncio transport pays);
* memory per idle session on the HTTP server, over 1,000 sessions.

Every figure is measured in a fresh process (bench/run_one.py). The machine is noisy, so the runs of
one row are interleaved (minimcp, SDK, minimcp, SDK …) and each figure is the median of the rounds.
Figures are never asserted anywhere: this is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Row:
    cable: str  # "stdio", "ws", "http json", "http sse"
    in_flight: int
    runs: dict[str, list[dict[str, float]]] = field(default_factory=dict)  # stack -> one result per round

    def median(self, stack: str, key: str) -> float | None:
        values = [run[key] for run in self.runs.get(stack, [])]
        return statistics.median(values) if values else None


def run_one(stack: str, transport: str, *, sse: bool = False, requests: int = 1000, concurrency: int = 1,
            sessions: int = 0) -> dict[str, float]:
    command = [sys.executable, "-m", "bench.run_one", stack, transport, "--requests", str(requests),
               "--concurrency", str(concurrency)]
    if sse:
        command.append("--sse")
    if sessions:
        command += ["--sessions", str(sessions)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command[3:])} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def plan(quick: bool) -> list[tuple[Row, list[tuple[str, dict]]]]:
    """Every row, and for each the runs that make one round of it (interleaved stacks)."""
    scale = 4 if quick else 1
    mini, sdk = 2000 // scale, 600 // scale
    rows: list[tuple[Row, list[tuple[str, dict]]]] = []
    rows.append((Row("stdio floor (blocking)", 1), [("floor", {"transport": "stdio", "requests": 20000 // scale})]))
    rows.append((Row("stdio floor (asyncio)", 1),
                 [("asyncio-floor", {"transport": "stdio", "requests": 5000 // scale})]))
    for in_flight in (1, 8, 64):
        requests = {"minimcp": mini * (2 if in_flight > 1 else 1), "sdk": sdk * (2 if in_flight > 1 else 1)}
        rows.append((Row("stdio", in_flight), [
            (stack, {"transport": "stdio", "requests": requests[stack], "concurrency": in_flight})
            for stack in ("minimcp", "sdk")]))
    for in_flight in (1, 8, 64):
        rows.append((Row("ws", in_flight), [
            ("minimcp", {"transport": "ws", "requests": mini * (2 if in_flight > 1 else 1),
                         "concurrency": in_flight})]))
    for sse in (False, True):
        for in_flight in (1, 8, 64):
            rows.append((Row("http sse" if sse else "http json", in_flight), [
                (stack, {"transport": "http", "sse": sse, "requests": {"minimcp": mini // 2, "sdk": sdk}[stack],
                         "concurrency": in_flight}) for stack in ("minimcp", "sdk")]))
    return rows


def fmt(value: float | None, digits: int = 0) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def ratio(a: float | None, b: float | None) -> str:
    return "—" if a is None or b is None or b == 0 else f"{a / b:.2f}×"


def print_table(rows: list[Row], memory: dict[str, float | None]) -> None:
    floor = next(row for row in rows if row.cable == "stdio floor (blocking)").median("floor", "rps")
    async_floor = next(row for row in rows if row.cable == "stdio floor (asyncio)").median("asyncio-floor", "rps")
    header = (f"{'cable':24} {'in flight':>9} | {'minimcp rps':>11} {'p50 ms':>7} {'p99 ms':>7} | "
              f"{'SDK rps':>9} {'p50 ms':>7} {'p99 ms':>7} | {'mini/SDK':>8} {'mini/floor':>10}")
    print(header)
    print("-" * len(header))
    for row in rows:
        if "floor" in row.cable:
            stack = "floor" if "blocking" in row.cable else "asyncio-floor"
            print(f"{row.cable:24} {row.in_flight:>9} | {fmt(row.median(stack, 'rps')):>11} "
                  f"{fmt(row.median(stack, 'p50_ms'), 3):>7} {fmt(row.median(stack, 'p99_ms'), 3):>7} |")
            continue
        mini_rps, sdk_rps = row.median("minimcp", "rps"), row.median("sdk", "rps")
        to_floor = ratio(mini_rps, floor) if row.cable == "stdio" and row.in_flight == 1 else ""
        print(f"{row.cable:24} {row.in_flight:>9} | {fmt(mini_rps):>11} {fmt(row.median('minimcp', 'p50_ms'), 3):>7} "
              f"{fmt(row.median('minimcp', 'p99_ms'), 3):>7} | {fmt(sdk_rps):>9} "
              f"{fmt(row.median('sdk', 'p50_ms'), 3):>7} {fmt(row.median('sdk', 'p99_ms'), 3):>7} | "
              f"{ratio(mini_rps, sdk_rps):>8} {to_floor:>10}")
    stdio = next(row for row in rows if row.cable == "stdio" and row.in_flight == 1)
    print(f"\nstdio, one in flight: minimcp is {ratio(stdio.median('minimcp', 'rps'), async_floor)} the "
          f"asyncio pipe floor and {ratio(stdio.median('minimcp', 'rps'), floor)} the blocking one.")
    print(f"memory per idle HTTP session (1,000 sessions): minimcp {fmt(memory.get('minimcp'))} bytes, "
          f"SDK {fmt(memory.get('sdk'))} bytes ({ratio(memory.get('minimcp'), memory.get('sdk'))})")


def load(path: Path) -> tuple[list[Row], dict[str, float]]:
    """The rows and memory figures that ``--json`` saved, ready for :func:`print_table`."""
    saved = json.loads(path.read_text())
    rows = [Row(row["cable"], row["in_flight"], row["runs"]) for row in saved["rows"]]
    return rows, saved["memory_bytes_per_session"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer requests and rounds")
    parser.add_argument("--rounds", type=int, help="rounds per row (default 3, or 1 with --quick)")
    parser.add_argument("--sessions", type=int, default=1000, help="idle sessions for the memory figure")
    parser.add_argument("--json", type=Path, help="also save every figure to this file")
    args = parser.parse_args()
    rounds = args.rounds or (1 if args.quick else 3)

    began = time.monotonic()
    planned = plan(args.quick)
    for row, runs in planned:
        for round_number in range(rounds):  # A B A B …: each stack sees the same noise
            for stack, options in runs:
                print(f"\r{row.cable} ×{row.in_flight} {stack} (round {round_number + 1}/{rounds})" + " " * 20,
                      end="", file=sys.stderr, flush=True)
                row.runs.setdefault(stack, []).append(run_one(stack, **options))
    memory_runs: dict[str, list[float]] = {"minimcp": [], "sdk": []}
    for round_number in range(rounds):
        for stack in memory_runs:
            print(f"\rmemory per session {stack} (round {round_number + 1}/{rounds})" + " " * 20,
                  end="", file=sys.stderr, flush=True)
            result = run_one(stack, "http", sessions=args.sessions // (4 if args.quick else 1))
            memory_runs[stack].append(result["bytes_per_session"])
    print("\r" + " " * 70 + "\r", end="", file=sys.stderr)
    memory = {stack: statistics.median(values) for stack, values in memory_runs.items()}

    rows = [row for row, _ in planned]
    print(f"minimcp vs the official SDK (mcp 2.3.0); Python {platform.python_version()}, {os.cpu_count()} cores, "
          f"{rounds} round(s), medians; {time.monotonic() - began:.0f} s\n")
    print_table(rows, memory)
    if args.json:
        args.json.write_text(json.dumps({
            "python": platform.python_version(), "cores": os.cpu_count(), "rounds": rounds,
            "rows": [{"cable": row.cable, "in_flight": row.in_flight,
                      "median": {stack: {key: row.median(stack, key) for key in ("rps", "p50_ms", "p99_ms")}
                                 for stack in row.runs},
                      "runs": row.runs} for row in rows],
            "memory_bytes_per_session": memory, "memory_runs": memory_runs,
        }, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
