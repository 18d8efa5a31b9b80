"""Lesson 11: a worker dies (killed, no goodbye), and its sessions go on on another worker.

Real worker processes (``python -m minimcp serve --transport http --redis URL``) on free loopback
ports, one private ``redis-server``; one worker is killed with SIGKILL in the middle of a long call.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator

import httpx2
import pytest
from http_support import ACCEPT_BOTH, INITIALIZE, TIMEOUT, SSEReader, read_events
from support import START_TIMEOUT, free_port
from worker_support import (
    Workers,
    exited,
    start_redis,
    start_serve,
    start_worker,
    until_listening,
    until_said,
    workers_on_redis,
)

from minimcp.transports.cluster.redis_store import connect
from minimcp.transports.cluster.sessions import WORKER_DIED

#: Each test starts real processes and waits until they listen (up to START_TIMEOUT each):
#: pytest's default bound of 120 s for one test is too short on a slow, loaded machine.
pytestmark = pytest.mark.timeout(4 * START_TIMEOUT)

INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


@pytest.fixture
async def two_workers(redis_url: str) -> AsyncIterator[Workers]:
    async with workers_on_redis(redis_url, lambda port: start_worker(redis_url, port)) as workers:
        yield workers


async def test_a_killed_workers_session_goes_on_elsewhere_and_its_running_call_ends_with_an_error(
    two_workers, redis_url: str
) -> None:
    (doomed, doomed_url), (survivor, survivor_url) = two_workers
    headers = {"accept": ACCEPT_BOTH, "content-type": "application/json"}
    async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
        answer = await http.post(doomed_url, json=INITIALIZE, headers=headers)
        headers |= {
            "mcp-session-id": answer.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-11-25",
        }
        redis = connect(redis_url)
        doomed_owner = await redis.hget(f"mcp:session:{headers['mcp-session-id']}", "owner")
        await redis.aclose()
        await http.post(survivor_url, json=INITIALIZED, headers=headers)
        answer = await http.post(
            survivor_url,
            json={
                "jsonrpc": "2.0",
                "id": 2,
                "method": "resources/subscribe",
                "params": {"uri": "courses://all"},
            },
            headers=headers,
        )
        assert answer.json() == {"jsonrpc": "2.0", "id": 2, "result": {}}
        call = {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {
                "name": "run_analysis",
                "arguments": {"steps": 50},
                "_meta": {"progressToken": "p"},
            },
        }
        async with http.stream("POST", doomed_url, json=call, headers=headers) as stream:
            seen = await read_events(stream, 2)  # the priming event and step 1
            os.kill(doomed.pid, signal.SIGKILL)
            doomed.wait(10)
        resumed = {**headers, "last-event-id": seen[-1].id}
        async with http.stream("GET", survivor_url, headers=resumed) as again:
            rest = await read_events(again)
        said = [json.loads(event.data) for event in rest]
        # Every event stored before the death, once and in order, then the error that ends the call.
        progress = [
            note["params"]["progress"]
            for note in said[:-1]
            if note.get("method") == "notifications/progress"
        ]
        assert progress == list(range(2, 2 + len(progress)))
        assert said[-1] == {
            "jsonrpc": "2.0",
            "id": 3,
            "error": {"code": -32603, "message": WORKER_DIED},
        }
        assert len({event.id for event in rest}) == len(rest)
        # The session lives on: the survivor runs it, its subscription came along, and it answers.
        answer = await http.post(
            survivor_url,
            json={
                "jsonrpc": "2.0",
                "id": 4,
                "method": "tools/call",
                "params": {"name": "run_analysis", "arguments": {"steps": 1}},
            },
            headers=headers,
        )
        assert answer.status_code == 200, answer.text
        redis = connect(redis_url)
        record = await redis.hgetall(f"mcp:session:{headers['mcp-session-id']}")
        await redis.aclose()
        assert json.loads(record["state"])["subscriptions"] == ["courses://all"]
        assert record["owner"] != doomed_owner


async def test_serve_with_workers_spreads_one_port_and_replaces_a_dead_worker(
    redis_url: str,
) -> None:
    port = free_port()
    parent = start_serve(port, "--workers", "2", "--redis", redis_url)
    try:
        line = (await until_listening(parent, 2)).splitlines()[0]  # each worker says it listens
        assert line.startswith("2 workers: ")
        pids = [int(pid) for pid in line.split(":")[1].split()]
        url = f"http://127.0.0.1:{port}/mcp"
        headers = {"accept": ACCEPT_BOTH, "content-type": "application/json", "connection": "close"}
        async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
            answer = await http.post(url, json=INITIALIZE, headers=headers)
            headers |= {
                "mcp-session-id": answer.headers["mcp-session-id"],
                "mcp-protocol-version": "2025-11-25",
            }
            await http.post(url, json=INITIALIZED, headers=headers)
            os.kill(pids[0], signal.SIGKILL)  # one worker dies; the parent starts another
            await until_said(parent, "replaces it", timeout=TIMEOUT)
            await until_listening(parent, 3)  # the new worker listens too
            # new connections, spread by the kernel: every one answered
            for request_id in range(2, 8):
                answer = await http.post(
                    url,
                    json={"jsonrpc": "2.0", "id": request_id, "method": "ping"},
                    headers=headers,
                )
                assert answer.json() == {"jsonrpc": "2.0", "id": request_id, "result": {}}
    finally:
        parent.send_signal(signal.SIGINT)
        await exited(parent, TIMEOUT)


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        (["--transport", "http", "--workers", "2"], "--workers needs --redis URL"),
        (
            ["--transport", "ws", "--redis", "redis://127.0.0.1:1/0"],
            "--redis and --workers serve the HTTP transport",
        ),
    ],
)
def test_serve_refuses_workers_it_cannot_run(arguments: list[str], error: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "minimcp", "serve", *arguments],
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2 and error in done.stderr


async def test_redis_going_away_is_a_503_that_says_so_and_the_workers_recover(tmp_path) -> None:
    port = free_port()
    redis_url = f"redis://127.0.0.1:{port}/0"
    redis = start_redis(port)
    worker_port = free_port()
    worker = start_worker(redis_url, worker_port)
    url = f"http://127.0.0.1:{worker_port}/mcp"
    headers = {"accept": ACCEPT_BOTH, "content-type": "application/json"}
    try:
        await until_listening(worker)
        async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
            assert (await http.post(url, json=INITIALIZE, headers=headers)).status_code == 200
            redis.terminate()
            redis.wait(10)
            answer = await http.post(url, json=INITIALIZE, headers=headers)
            assert answer.status_code == 503
            assert answer.json()["error"]["message"].startswith(
                "Service unavailable: the shared store is unavailable"
            )
            redis = start_redis(port)  # back, empty: the sessions it kept are gone, new ones open
            for _ in range(100):
                answer = await http.post(url, json=INITIALIZE, headers=headers)
                # While Redis comes back, a handshake may still fail with a clear error (503, or
                # 200 with a JSON-RPC error and no session: a pooled connection from before the
                # restart failing on first use). Until a session opens, try again.
                if answer.status_code == 200 and "mcp-session-id" in answer.headers:
                    break
                await asyncio.sleep(0.1)
            assert answer.status_code == 200, answer.text
            session = {**headers, "mcp-session-id": answer.headers["mcp-session-id"]}
            await http.post(url, json=INITIALIZED, headers=session)
            ping = await http.post(
                url, json={"jsonrpc": "2.0", "id": 2, "method": "ping"}, headers=session
            )
            assert ping.json() == {"jsonrpc": "2.0", "id": 2, "result": {}}
    finally:
        worker.terminate()
        worker.wait(10)
        redis.terminate()
        redis.wait(10)


async def test_delete_after_the_owner_died_ends_the_session_on_the_survivor(two_workers) -> None:
    (doomed, doomed_url), (survivor, survivor_url) = two_workers
    headers = {"accept": ACCEPT_BOTH, "content-type": "application/json"}
    async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
        answer = await http.post(doomed_url, json=INITIALIZE, headers=headers)
        headers |= {
            "mcp-session-id": answer.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-11-25",
        }
        await http.post(doomed_url, json=INITIALIZED, headers=headers)
        os.kill(doomed.pid, signal.SIGKILL)
        doomed.wait(10)
        assert (await http.delete(survivor_url, headers=headers)).status_code == 200
        answer = await http.post(
            survivor_url, json={"jsonrpc": "2.0", "id": 2, "method": "ping"}, headers=headers
        )
        assert answer.status_code == 404


async def test_a_worker_that_stops_gracefully_leaves_its_sessions_to_the_others(
    two_workers,
) -> None:
    (leaving, leaving_url), (staying, staying_url) = two_workers
    headers = {"accept": ACCEPT_BOTH, "content-type": "application/json"}
    async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
        answer = await http.post(leaving_url, json=INITIALIZE, headers=headers)
        headers |= {
            "mcp-session-id": answer.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-11-25",
        }
        await http.post(leaving_url, json=INITIALIZED, headers=headers)
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {
                "name": "run_analysis",
                "arguments": {"steps": 50},
                "_meta": {"progressToken": "p"},
            },
        }
        async with http.stream("POST", leaving_url, json=call, headers=headers) as stream:
            reader = SSEReader(stream)
            seen = await reader.read(2)
            # SIGTERM: a restart, a deploy; the worker closes its connections and goes
            leaving.terminate()
            seen += await reader.read()
        assert leaving.wait(10) == 0
        resumed = {**headers, "last-event-id": seen[-1].id}
        async with http.stream("GET", staying_url, headers=resumed) as again:
            rest = await read_events(again)
        assert json.loads(rest[-1].data) == {
            "jsonrpc": "2.0",
            "id": 2,
            "error": {"code": -32603, "message": WORKER_DIED},
        }
        answer = await http.post(
            staying_url, json={"jsonrpc": "2.0", "id": 3, "method": "ping"}, headers=headers
        )
        assert answer.json() == {"jsonrpc": "2.0", "id": 3, "result": {}}  # the session went on
