"""Lesson 11 against a hostile or unlucky world: many streams on one worker, Redis restarted empty,
Redis forgotten altogether (issue 24, items 4, 13 and 19).

Real ``redis-server`` processes on free loopback ports; every wait is bounded.
"""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest
from http_support import ACCEPT_BOTH, INITIALIZE, SSEReader
from support import START_TIMEOUT, free_port
from test_cluster import INITIALIZED, workers
from worker_support import start_redis, start_worker, until_listening

#: Each test starts real processes and waits until they listen (up to START_TIMEOUT each):
#: pytest's default bound of 120 s for one test is too short on a slow, loaded machine.
pytestmark = pytest.mark.timeout(4 * START_TIMEOUT)

TIMEOUT = 30.0
UNAVAILABLE = "Service unavailable: the shared store is unavailable; try again shortly"
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


async def ping(
    http: httpx2.AsyncClient, url: str, headers: dict[str, str], request_id: int = 9
) -> httpx2.Response:
    """A ping's answer, within 10 s: an answer, or a clear refusal, never a hang."""
    request = {"jsonrpc": "2.0", "id": request_id, "method": "ping"}
    return await asyncio.wait_for(http.post(url, json=request, headers=headers), 10)


async def all_refused_clearly(
    http: httpx2.AsyncClient, urls: list[str], session: dict[str, str]
) -> None:
    """While Redis is away, requests on every worker, at once: each answered or clearly refused
    (503, Retry-After, naming nothing of how the service is built), each within 10 s."""
    asked = [ping(http, url, session, n) for n, url in enumerate(urls * 5)]
    plain = {"accept": ACCEPT_BOTH, "content-type": "application/json"}
    asked += [
        asyncio.wait_for(http.post(url, json=INITIALIZE, headers=plain), 10) for url in urls * 5
    ]
    for answer in await asyncio.gather(*asked):
        if answer.status_code != 200:
            assert answer.status_code == 503, answer.text
            assert answer.headers["retry-after"] == "1"
            assert answer.json()["error"]["message"] == UNAVAILABLE


async def until_served_everywhere(
    http: httpx2.AsyncClient, urls: list[str], session: dict[str, str]
) -> float:
    """Seconds until the session answers on every worker, several times in a row (within 30 s)."""
    back = time.monotonic()
    answered = 0
    while answered < 3 * len(urls):
        assert time.monotonic() - back < 30, "the session did not come back"
        answer = await ping(http, urls[answered % len(urls)], session)
        # Never a 404: the session is there, its owner saves it again
        assert answer.status_code in (200, 503), answer.text
        answered = answered + 1 if answer.status_code == 200 else 0
        if not answered:
            await asyncio.sleep(0.2)  # a pace for asking again, not a wait for something
    return time.monotonic() - back


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
async def test_redis_restarted_empty_answers_quickly_and_old_sessions_come_back(
    tmp_path: Path,
) -> None:
    redis_port = free_port()
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    redis = start_redis(redis_port)
    ports = [free_port(), free_port()]
    logs = [tmp_path / f"worker-{n}.log" for n in range(2)]
    workers = [start_worker(redis_url, *place) for place in zip(ports, logs, strict=True)]
    urls = [f"http://127.0.0.1:{port}/mcp" for port in ports]
    try:
        for worker in workers:
            await until_listening(worker)
        async with httpx2.AsyncClient(timeout=15) as http:
            session = await open_session(http, urls[0])
            for url in urls:
                answer = await ping(http, url, session)
                assert answer.status_code == 200, answer.text
            async with http.stream("GET", urls[1], headers=session) as listening:
                assert listening.status_code == 200
                redis.kill()  # gone, and back empty: nothing it knew survives
                redis.wait(10)
                await all_refused_clearly(http, urls, session)
                await asyncio.wait_for(listening.aread(), 10)  # the GET stream closes
            redis = start_redis(redis_port)
            recovered = await until_served_everywhere(http, urls, session)
            # Again, quickly, with nothing asked meanwhile: the workers' pooled connections are now
            # stale, and the first request on them is answered anyway (sent again on a new one).
            redis.kill()
            redis.wait(10)
            redis = start_redis(redis_port)
            answer = await ping(http, urls[0], session)
            assert answer.status_code == 200, answer.text
            fresh = await open_session(http, urls[1])  # and new sessions open
            answer = await ping(http, urls[0], fresh)
            assert answer.status_code == 200, answer.text
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(15)
        redis.kill()
        redis.wait(10)
    said = "".join(log.read_text() for log in logs)
    assert said.count("Traceback") == 0, said[-3000:]
    assert "Task exception was never retrieved" not in said
    assert said.count("unavailable") <= 4, said  # one quiet line per worker and outage
    print(
        f"\nthe old session answered on both workers {recovered:.1f} s after Redis came back; "
        f"the workers logged {len(said.splitlines())} lines, no traceback"
    )
