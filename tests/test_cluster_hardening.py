"""Lesson 11 against a hostile or unlucky world: many streams on one worker, Redis restarted empty,
Redis forgotten altogether (issue 24, items 4, 13 and 19).

Real ``redis-server`` processes on free loopback ports; every wait is bounded.
"""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import sys
from typing import Any

import httpx2
import pytest
from http_support import ACCEPT_BOTH, INITIALIZE, SSEReader
from support import free_port
from test_cluster import INITIALIZED, workers

TIMEOUT = 30.0
STREAMS = 160  # lesson 08's single process follows this many GET streams without a pause


async def open_session(http: httpx2.AsyncClient, url: str) -> dict[str, str]:
    headers = {"accept": ACCEPT_BOTH, "content-type": "application/json"}
    answer = await http.post(url, json=INITIALIZE, headers=headers)
    assert answer.status_code == 200, answer.text
    headers |= {
        "mcp-session-id": answer.headers["mcp-session-id"],
        "mcp-protocol-version": "2025-11-25",
    }
    assert (await http.post(url, json=INITIALIZED, headers=headers)).status_code == 202
    return headers


async def test_one_worker_follows_as_many_get_streams_as_one_process(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    limits = httpx2.Limits(max_connections=2 * STREAMS + 10)
    async with (
        workers(redis_url, 1) as (worker,),
        httpx2.AsyncClient(timeout=TIMEOUT, limits=limits) as http,
    ):
        sessions = [await open_session(http, worker.url) for _ in range(STREAMS)]

        async def listen(headers: dict[str, str], opened: asyncio.Event) -> Any:
            async with http.stream("GET", worker.url, headers=headers) as stream:
                if stream.status_code != 200:
                    opened.set()
                    return stream.status_code, (await stream.aread()).decode()
                reader = SSEReader(stream)
                await reader.read(1)  # the priming event: the stream is followed from here
                opened.set()
                events = await reader.read(1)
                return (200, json.loads(events[0].data)) if events else ("closed", None)

        opened = [asyncio.Event() for _ in sessions]
        listening = [
            asyncio.ensure_future(listen(headers, event))
            for headers, event in zip(sessions, opened, strict=True)
        ]
        async with asyncio.timeout(TIMEOUT):
            await asyncio.gather(*(event.wait() for event in opened))
        await worker.app.server.broadcast("notifications/message", {"level": "info", "data": 1})
        heard = await asyncio.wait_for(asyncio.gather(*listening), TIMEOUT)
        refused = [(status, answer) for status, answer in heard if status != 200]
        assert refused == []
        assert all(note["params"]["data"] == 1 for _, note in heard)
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        answer = await http.post(worker.url, json=ping, headers=sessions[0])
        assert answer.json() == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert "Task exception was never retrieved" not in caplog.text
    print(f"\n{STREAMS} GET streams followed by one worker, each heard the broadcast")


def test_serve_with_workers_and_no_redis_says_so_in_one_line_and_exits() -> None:
    nothing_there = f"redis://127.0.0.1:{free_port()}/0"
    done = subprocess.run(
        [sys.executable, "-m", "minimcp", "serve", "--transport", "http", "--port", "0"]
        + ["--workers", "2", "--redis", nothing_there],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"cannot reach Redis at {nothing_there}: ")
    assert "redis-server --port" in line
