"""The benchmark's tables, printed side by side from the rows bench/bench.py measured (or saved).

Each table answers one question, and says which side it measures:

* **servers**: how many requests per second each server answers under the same neutral load, and
  what fraction that is of the floor (the same libraries answering without MCP);
* **clients**: how fast each client drives the same server;
* **pairs**: each stack end to end, its client with its own server;
* **workers**: minimcp's server on several processes sharing a Redis (lesson 11).
"""

from __future__ import annotations

from bench.rows import Row


def fmt(value: float | None, digits: int = 0) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def ratio(a: float | None, b: float | None) -> str:
    return "—" if a is None or b is None or b == 0 else f"{a / b:.2f}×"


def figures(row: Row, stack: str) -> str:
    """A stack's requests per second, p50 and p99 (ms), aligned under :func:`columns`."""
    return (
        f"{fmt(row.median(stack)):>9} {fmt(row.median(stack, 'p50_ms'), 2):>7} "
        f"{fmt(row.median(stack, 'p99_ms'), 2):>7}"
    )


def label(row: Row) -> str:
    """The first two columns of a row: its cable, and how many connections or requests in
    flight."""
    return f"{row.cable:10} {row.in_flight:>11}"


def columns(name: str) -> str:
    """The heading of one stack's three figures: its name over its requests per second."""
    return f"{name + ' rps':>9} {'p50 ms':>7} {'p99 ms':>7}"


def print_header(title: str, level: str, columns: str) -> None:
    print(f"\n{title}")
    header = f"{'cable':10} {level:>11} | {columns}"
    print(header)
    print("-" * len(header))


def print_baseline(rows: list[Row], table: str) -> None:
    """With ``--baseline``: minimcp today beside minimcp at the earlier commit, row by row."""
    measured = [row for row in rows if row.table == table and "baseline" in row.runs]
    if not measured:
        return
    print_header(
        f"   {table}: minimcp today beside minimcp at the baseline commit (interleaved)",
        "in flight",
        f"{columns('today')} | {columns('before')} | {'today/before':>12}",
    )
    for row in measured:
        change = ratio(row.median("minimcp"), row.median("baseline"))
        print(
            f"{label(row)} | {figures(row, 'minimcp')} | {figures(row, 'baseline')} | {change:>12}"
        )


def print_servers(rows: list[Row]) -> None:
    servers = [row for row in rows if row.table == "server"]
    if not servers:
        print("\n1. SERVERS: not measured (wrk is missing, or the table was not asked for)")
        return
    print_header(
        "1. SERVERS under a neutral load (HTTP: wrk; WebSocket: a bare websockets client)",
        "connections",
        f"{'floor rps':>9} | {columns('minimcp')} | {columns('SDK')} | "
        f"{'mini/SDK':>8} {'mini/floor':>10} {'SDK/floor':>9}",
    )
    for row in servers:
        floor, mini, sdk = row.median("floor"), row.median("minimcp"), row.median("sdk")
        ratios = f"{ratio(mini, sdk):>8} {ratio(mini, floor):>10} {ratio(sdk, floor):>9}"
        print(
            f"{label(row)} | {fmt(floor):>9} | {figures(row, 'minimcp')} | "
            f"{figures(row, 'sdk')} | {ratios}"
        )
    print_baseline(rows, "server")


def print_clients(rows: list[Row]) -> None:
    print_header(
        "2. CLIENTS, each against the same server (minimcp's)",
        "in flight",
        f"{columns('minimcp')} | {columns('SDK')} | {'mini/SDK':>8}",
    )
    for row in (row for row in rows if row.table == "client"):
        print(
            f"{label(row)} | {figures(row, 'minimcp')} | "
            f"{figures(row, 'sdk')} | {ratio(row.median('minimcp'), row.median('sdk')):>8}"
        )


def print_pairs(rows: list[Row]) -> None:
    blocking = floor_figure(rows, "stdio floor (blocking)", "floor")
    asyncio_floor = floor_figure(rows, "stdio floor (asyncio)", "asyncio-floor")
    print_header(
        "3. PAIRS, each stack's client with its own server, end to end",
        "in flight",
        f"{columns('minimcp')} | {columns('SDK')} | {'mini/SDK':>8} {'mini/floor':>10}",
    )
    for row in (row for row in rows if row.table == "pair"):
        # Only one stdio client with one request in flight compares with the floor's one line.
        alone = row.cable == "stdio" and row.in_flight == 1
        to_floor = ratio(row.median("minimcp"), asyncio_floor) if alone else ""
        print(
            f"{label(row)} | {figures(row, 'minimcp')} | {figures(row, 'sdk')} | "
            f"{ratio(row.median('minimcp'), row.median('sdk')):>8} {to_floor:>10}"
        )
    print(
        f"stdio floors, one in flight: blocking {fmt(blocking)} rps, "
        f"asyncio {fmt(asyncio_floor)} rps (mini/floor above is against the asyncio one)"
    )


def floor_figure(rows: list[Row], cable: str, stack: str) -> float | None:
    """The requests per second of the floor named ``cable``, if it was measured."""
    found = [row for row in rows if row.table == "floor" and row.cable == cable]
    return found[-1].median(stack) if found else None


def print_memory(rows: list[Row]) -> None:
    for row in (row for row in rows if row.table == "memory"):
        mini = row.median("minimcp", "bytes_per_session")
        sdk = row.median("sdk", "bytes_per_session")
        print(
            f"\nmemory per idle HTTP session ({row.in_flight:,} sessions): "
            f"minimcp {fmt(mini)} bytes, SDK {fmt(sdk)} bytes ({ratio(mini, sdk)})"
        )


def print_workers(rows: list[Row]) -> None:
    workers = [row for row in rows if row.table == "workers"]
    if not workers:
        print(
            "\n4. WORKERS: not measured "
            "(wrk or redis-server is missing, or the table was not asked for)"
        )
        return
    modern = any(row.cable == "modern" for row in workers)
    title = (
        "4. WORKERS (lesson 11): one session over wrk's connections; "
        "with N workers, (N-1)/N of the requests are forwarded"
    )
    if modern:
        title += "; modern (lesson 12): 2026-07-28 requests, no session at all"
    print_header(title, "workers", f"{columns('minimcp')} | {'wrong':>5}")
    for row in workers:
        wrong = max((run.get("wrong", 0) for run in row.runs.get("minimcp", [])), default=0)
        print(f"{label(row)} | {figures(row, 'minimcp')} | {wrong:>5.0f}")
    print_baseline(rows, "workers")


def print_tables(rows: list[Row]) -> None:
    """Every table that has rows (``--tables`` may have left some out)."""
    tables = {row.table for row in rows}
    print_servers(rows)
    if "client" in tables:
        print_clients(rows)
    if "pair" in tables:
        print_pairs(rows)
    print_workers(rows)
    print_memory(rows)
