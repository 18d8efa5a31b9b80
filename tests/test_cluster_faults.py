"""Lesson 11, fault injection: lesson 08's cutting proxy in front of a round-robin load balancer, in
front of three workers sharing one Redis; then the same with workers killed in the middle of long
calls.

Every request goes to another worker than the last, every SSE stream may be cut, and each resumption
lands on yet another worker. Every stored message must arrive exactly once and in order; a call that
was running on a worker that died ends with a clear error, never a hang. The figures are printed
with ``pytest -s``.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
from typing import Any

import pytest
from balancer import start_balancer
from complete_support import complete_server
from support import START_TIMEOUT, free_port
from test_cluster import workers
from test_http_faults import CuttingProxy, collect_messages, one_request_per_connection
from worker_support import start_worker, until_listening

from minimcp.client import http_client
from minimcp.examples.course import MAX_STEPS
from minimcp.rpc.jsonrpc import RpcError
from minimcp.transports.cluster.redis_store import connect
from minimcp.transports.cluster.sessions import WORKER_DIED

TIMEOUT = 60.0


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_long_calls_survive_many_cuts_across_workers(redis_url: str, seed: int) -> None:
    async with workers(
        redis_url, 3, build=lambda: complete_server(step_delay=0.002), retry_ms=5
    ) as running:
        balancer, url, stop = await start_balancer([worker.url for worker in running])
        proxy = CuttingProxy(int(url.split(":")[2].split("/")[0]), seed)
        cut_url = await proxy.start()
        messages = 0
        try:
            async with http_client(
                cut_url, http=one_request_per_connection(), max_retries=10
            ) as client:
                for round_number in range(12):
                    progress: list[Any] = []
                    result = await client.call_tool(
                        "run_analysis",
                        {"steps": MAX_STEPS},
                        timeout=TIMEOUT,
                        progress=lambda done, *_, seen=progress: seen.append(done),
                    )
                    assert progress == list(range(1, MAX_STEPS + 1)), f"round {round_number}"
                    assert f"in {MAX_STEPS} steps" in result["content"][0]["text"]
                    messages += len(progress) + 1
        finally:
            await proxy.close()
            await stop()
        print(
            f"\nseed {seed}: {proxy.cuts} cuts over {proxy.connections} connections, "
            f"{len(balancer.sent_to)} requests spread over 3 workers, {messages} messages, "
            "each received once, in order"
        )
        assert proxy.cuts >= 30 and len(set(balancer.sent_to)) == 3


@pytest.mark.parametrize("seed", [4, 5])
async def test_a_burst_of_announcements_survives_many_cuts_across_workers(
    redis_url: str, seed: int
) -> None:
    count = 500
    async with workers(redis_url, 3, retry_ms=5) as running:
        balancer, url, stop = await start_balancer([worker.url for worker in running])
        proxy = CuttingProxy(int(url.split(":")[2].split("/")[0]), seed, probability=1.0)
        cut_url = await proxy.start()
        received, done, on_notification = collect_messages(count)

        try:
            async with http_client(
                cut_url,
                http=one_request_per_connection(),
                max_retries=10,
                on_notification=on_notification,
            ) as client:
                session_id = client.session.transport.session_id
                (owner,) = [worker for worker in running if session_id in worker.app.sessions]
                await asyncio.sleep(0.2)  # the GET stream opens (through whichever worker)
                for n in range(count):
                    await owner.app.server.broadcast(
                        "notifications/message", {"level": "info", "data": n}
                    )
                    if n % 5 == 0:
                        # let the stream flow, and the cuts fall mid-burst
                        await asyncio.sleep(0.003)
                await asyncio.wait_for(done.wait(), TIMEOUT)
                await asyncio.sleep(0.1)  # anything doubled would show up now
        finally:
            await proxy.close()
            await stop()
        assert received == list(range(count))
        print(
            f"\nseed {seed}: {proxy.cuts} cuts over {proxy.connections} connections "
            f"through 3 workers, {count} announcements, each received once, in order"
        )
        assert proxy.cuts >= 10


# Six workers started one after another, each waited for until it listens: over two minutes on a
# slow, loaded machine, so the bound is far above pytest's default of 120 s for one test.
@pytest.mark.timeout(8 * START_TIMEOUT)
async def test_calls_survive_workers_killed_mid_call(redis_url: str) -> None:
    redis = connect(redis_url)
    await redis.flushdb()
    await redis.aclose()
    ports = [free_port() for _ in range(3)]
    processes = {port: start_worker(redis_url, port) for port in ports}
    chooser = random.Random(7)
    deaths = finished = failed = messages = 0
    try:
        for port in ports:
            await until_listening(processes[port])
        balancer, url, stop = await start_balancer(
            [f"http://127.0.0.1:{port}/mcp" for port in ports]
        )
        try:
            async with http_client(
                url, http=one_request_per_connection(), max_retries=20
            ) as client:
                for _ in range(6):
                    progress: list[Any] = []
                    call = asyncio.ensure_future(
                        client.call_tool(
                            "run_analysis",
                            {"steps": 40},
                            timeout=TIMEOUT,
                            progress=lambda done, *_, seen=progress: seen.append(done),
                        )
                    )
                    await asyncio.sleep(chooser.uniform(0.3, 1.5))
                    # killed: SIGKILL, no goodbye; a new worker takes its port
                    victim = chooser.choice(ports)
                    os.kill(processes[victim].pid, signal.SIGKILL)
                    processes[victim].wait(10)
                    processes[victim] = start_worker(redis_url, victim)
                    deaths += 1
                    try:
                        result = await asyncio.wait_for(call, TIMEOUT)
                        assert "in 40 steps" in result["content"][0]["text"]
                        assert progress == list(range(1, 41))
                        finished += 1
                    except RpcError as error:  # it was running on the worker that died
                        assert (error.code, error.message) == (-32603, WORKER_DIED)
                        # what came, came once, in order
                        assert progress == list(range(1, len(progress) + 1))
                        failed += 1
                    messages += len(progress) + 1
                    await until_listening(processes[victim])
                    await client.ping(timeout=TIMEOUT)  # the session goes on
        finally:
            await stop()
    finally:
        for process in processes.values():
            process.terminate()
            process.wait(10)
    print(
        f"\n{deaths} workers killed during 6 calls: {finished} finished, "
        f"{failed} ended with the error; {messages} messages, each received once, in order"
    )
    assert deaths == 6
