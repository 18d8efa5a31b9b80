"""A server under a neutral load: neither stack's client, so the figure is the server's alone.

    python -m bench.load minimcp http --connections 8            # wrk, JSON answers
    python -m bench.load sdk     http --connections 8 --sse      # wrk, SSE answers
    python -m bench.load floor   http --connections 64           # the bare ASGI app
    python -m bench.load minimcp ws   --connections 8            # a bare websockets client
    python -m bench.load floor   ws   --connections 8            # the bare websockets echo

It starts the server in a child process (bench/servers.py), opens one MCP session on it with plain
HTTP (:func:`http_handshake`, also used for the memory figure), and loads it for ``--seconds``
(after a warm-up of its own) with the same ``tools/call echo`` every time, each with a request id
never used before in the session. It prints one line of JSON: requests per second, latency p50 /
p99 in milliseconds, and how many answers were wrong (a status other than 200, or no "hello").

* **HTTP** is loaded by `wrk <https://github.com/wg/wrk>`_ (``apt-get install wrk``): one thread,
  N keep-alive connections, each sending its next request as soon as its answer is in. wrk is
  written in C, so it is never the slower side. Every connection shares the one session, as a
  client's requests do.
* **WebSocket** has no wrk. N sockets, each its own session (on a WebSocket the socket *is* the
  session), driven by the ``websockets`` library's client in this process, with nothing of either
  stack. Being Python, this load generator has a ceiling of its own: the floor, measured with the
  same generator against a bare echo server, shows where it is.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import subprocess
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from bench.serving import start_server, stop

WRK_MISSING = (
    "wrk is not installed, so the servers' table is skipped: install it with "
    "`sudo apt-get install wrk` (Debian, Ubuntu) or `brew install wrk` (macOS), then run again"
)


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


def echo_call(request_id: int) -> str:
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "hello"}},
        },
        separators=(",", ":"),
    )


# -- HTTP: wrk -------------------------------------------------------------------------------------

#: The script wrk runs (its Lua API: https://github.com/wg/wrk/blob/master/SCRIPTING). One thread,
#: so one counter: every request id is new. `response` checks each answer; `done` prints the
#: figures as JSON.
WRK_SCRIPT = """
wrk.method = "POST"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["Content-Type"] = "application/json"
{session_headers}
next_id = {first_id}
wrong = 0
request = function()
  next_id = next_id + 1
  return wrk.format(nil, nil, nil, '{{"jsonrpc":"2.0","id":' .. next_id
    .. ',"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hello"}}{meta}}}}}')
end
response = function(status, headers, body)
  if status ~= 200 or not string.find(body, '"text":"hello"', 1, true) then wrong = wrong + 1 end
end
threads = {{}}
setup = function(thread) table.insert(threads, thread) end
done = function(summary, latency, requests)
  local wrong_answers = 0
  for _, thread in ipairs(threads) do wrong_answers = wrong_answers + thread:get("wrong") end
  local errors = summary.errors
  io.write(string.format(
    '{{"requests":%d,"seconds":%f,"p50_ms":%f,"p99_ms":%f,'
      .. '"wrong":%d,"socket_errors":%d}}\\n',
    summary.requests, summary.duration / 1e6,
    latency:percentile(50) / 1e3, latency:percentile(99) / 1e3,
    wrong_answers, errors.connect + errors.read + errors.write + errors.timeout))
end
"""


async def open_session(url: str) -> dict[str, str]:
    """Initialize one MCP session over plain HTTP, and call the tool once (the first call of a
    server may import what it needs to check arguments). The headers every later request carries."""
    import httpx2

    async with httpx2.AsyncClient(timeout=60) as http:
        session = await http_handshake(http, url)
        first = await http.post(url, content=echo_call(1), headers={**HEADERS, **session})
        if '"text":"hello"' not in first.text:
            raise RuntimeError(
                f"the echo tool did not answer: {first.status_code} {first.text[:300]}"
            )
    return session


def run_wrk(
    url: str, session: dict[str, str], connections: int, seconds: int, first_id: int, meta: str = ""
) -> dict[str, Any]:
    """One wrk run: its figures, as its script's ``done`` printed them (``meta``: a 2026-07-28
    envelope, as ``,"_meta":{...}``, added to every request's params)."""
    lines = "\n".join(f'wrk.headers["{name}"] = "{value}"' for name, value in session.items())
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "mcp.lua"
        script.write_text(WRK_SCRIPT.format(session_headers=lines, first_id=first_id, meta=meta))
        command = [
            "wrk",
            "-t1",
            f"-c{connections}",
            f"-d{round(seconds)}s",
            "--timeout",
            "10s",
            "-s",
            str(script),
            url,
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60)
    if done.returncode != 0:
        raise RuntimeError(f"wrk failed: {done.stderr or done.stdout}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    figures["rps"] = figures["requests"] / figures["seconds"]
    return figures


async def load_http(stack: str, sse: bool, connections: int, seconds: float) -> dict[str, Any]:
    if shutil.which("wrk") is None:
        raise SystemExit(WRK_MISSING)
    process, url = await start_server(stack, "http", sse)
    try:
        session = {} if stack == "floor" else await open_session(url)
        # The warm-up: imports, caches and the connections themselves are paid for before the clock.
        await asyncio.to_thread(run_wrk, url, session, connections, 1, 1_000)
        return await asyncio.to_thread(
            run_wrk, url, session, connections, round(seconds), 10_000_000
        )
    finally:
        await stop(process)


# -- WebSocket: a bare websockets client ----------------------------------------------------------


async def open_socket(url: str, mcp: bool, stack: AsyncExitStack) -> Any:
    """One socket, its MCP session open (for the floor, none), and one call answered: warm."""
    from websockets.asyncio.client import connect
    from websockets.typing import Subprotocol

    subprotocols = [Subprotocol("mcp")] if mcp else None
    socket = await stack.enter_async_context(
        connect(url, subprotocols=subprotocols, compression=None)
    )
    if mcp:
        await socket.send(json.dumps(INITIALIZE))
        await socket.recv()
        await socket.send(json.dumps(INITIALIZED))
    await socket.send(echo_call(0))
    await socket.recv()
    return socket


async def drive(socket: Any, until: float, warm_until: float, latencies: list[float]) -> int:
    """Send echo calls on one socket, one at a time, until ``until``; record latencies after
    ``warm_until``. Returns how many answers were wrong."""
    wrong, request_id = 0, 0  # every socket is a session of its own: its ids start again
    while (now := time.perf_counter()) < until:
        request_id += 1
        await socket.send(echo_call(request_id))
        if '"text":"hello"' not in str(await socket.recv()):
            wrong += 1
        if now >= warm_until:
            latencies.append(time.perf_counter() - now)
    return wrong


async def load_websocket(stack: str, connections: int, seconds: float) -> dict[str, Any]:
    process, url = await start_server(stack, "ws", sse=False)
    try:
        async with AsyncExitStack() as sockets:
            opened = [await open_socket(url, stack != "floor", sockets) for _ in range(connections)]
            latencies: list[float] = []
            began = time.perf_counter()
            warm_until, until = began + 1.0, began + 1.0 + seconds
            wrong = await asyncio.gather(
                *(drive(socket, until, warm_until, latencies) for socket in opened)
            )
    finally:
        await stop(process)
    latencies.sort()
    return {
        "rps": len(latencies) / seconds,
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))],
        "wrong": sum(wrong),
        "requests": len(latencies),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("stack", choices=["minimcp", "sdk", "floor"])
    parser.add_argument("transport", choices=["http", "ws"])
    parser.add_argument("--sse", action="store_true", help="HTTP: every answer as an SSE stream")
    parser.add_argument("--connections", type=int, default=1)
    parser.add_argument(
        "--seconds", type=float, default=3.0, help="how long to measure, after a warm-up"
    )
    args = parser.parse_args()
    if args.transport == "http":
        result = asyncio.run(load_http(args.stack, args.sse, args.connections, args.seconds))
    else:
        result = asyncio.run(load_websocket(args.stack, args.connections, args.seconds))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
