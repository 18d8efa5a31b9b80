"""Fault injection: a proxy cuts SSE connections at random points, many times over; every message
still arrives exactly once, in order.

The proxy sits between minimcp's HTTP client and server on 127.0.0.1. Each response that is an SSE
stream is, with some probability, cut a random number of bytes after its first event (the priming
event, or the first replayed one), in the middle of an event as often as not. The client must
resume each time with ``Last-Event-ID``; the server must replay exactly what was missed.

The random generator is seeded, so a failure can be replayed; the figures (cuts, messages) are
printed with ``pytest -s``.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

import httpx2
import pytest
from http_support import running

from minimcp.client import http_client
from minimcp.examples.course import MAX_STEPS, build_server

TIMEOUT = 60.0
ROUNDS = 5  # long tasks per test


class CuttingProxy:
    """A TCP proxy that cuts server-to-client SSE streams at random points."""

    def __init__(
        self, upstream_port: int, seed: int, probability: float = 0.9, max_offset: int = 1500
    ) -> None:
        self.upstream_port = upstream_port
        self.random = random.Random(seed)
        self.probability = probability  # chance that an SSE response gets cut
        self.max_offset = max_offset  # how far after the first event the cut may fall, in bytes
        self.cuts = 0
        self.connections = 0
        self._server: asyncio.base_events.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/mcp"

    async def close(self) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _handle(
        self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self.connections += 1
        upstream_reader, upstream_writer = await asyncio.open_connection(
            "127.0.0.1", self.upstream_port
        )
        upward = asyncio.ensure_future(self._copy(client_reader, upstream_writer))
        try:
            await self._downward(upstream_reader, client_writer)
        except asyncio.CancelledError:  # the proxy is closing: end quietly
            pass
        finally:
            upward.cancel()
            for writer in (client_writer, upstream_writer):
                writer.close()
            self._tasks.discard(task)

    @staticmethod
    async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while chunk := await reader.read(65536):
                writer.write(chunk)
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass

    async def _downward(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen = b""  # the response so far, until we know where to cut
        cut_at: int | None = None  # total bytes to forward before cutting, once decided
        decided = False
        forwarded = 0
        try:
            while chunk := await reader.read(4096):
                if not decided:
                    seen += chunk
                    head_end = seen.find(b"\r\n\r\n")
                    first_event_end = seen.find(b"\n\n", head_end + 4) if head_end >= 0 else -1
                    if head_end >= 0 and b"text/event-stream" not in seen[:head_end].lower():
                        decided = True  # not a stream: never cut
                    elif first_event_end >= 0:
                        decided = True
                        if self.random.random() < self.probability:
                            cut_at = first_event_end + 2 + self.random.randint(0, self.max_offset)
                if cut_at is not None and forwarded + len(chunk) >= cut_at:
                    writer.write(chunk[: cut_at - forwarded])
                    await writer.drain()
                    self.cuts += 1
                    return  # the cable breaks here
                writer.write(chunk)
                await writer.drain()
                forwarded += len(chunk)
        except ConnectionError:
            pass


def one_request_per_connection() -> httpx2.AsyncClient:
    """No keep-alive: every HTTP request gets its own connection, so a cut hits one stream only."""
    return httpx2.AsyncClient(
        timeout=httpx2.Timeout(30.0, read=None), limits=httpx2.Limits(max_keepalive_connections=0)
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_a_long_task_survives_many_cuts(seed: int) -> None:
    async with running(build_server(step_delay=0.002), retry_ms=5) as http:
        proxy = CuttingProxy(http.port, seed)
        url = await proxy.start()
        try:
            async with http_client(
                url, http=one_request_per_connection(), max_retries=10
            ) as client:
                for round_number in range(ROUNDS):
                    progress: list[Any] = []
                    result = await client.call_tool(
                        "run_analysis",
                        {"steps": MAX_STEPS},
                        timeout=TIMEOUT,
                        progress=lambda done, *_, seen=progress: seen.append(done),
                    )
                    assert progress == list(range(1, MAX_STEPS + 1)), f"round {round_number}"
                    assert f"in {MAX_STEPS} steps" in result["content"][0]["text"]
        finally:
            await proxy.close()
        print(
            f"\nseed {seed}: {proxy.cuts} cuts over {proxy.connections} connections, "
            f"{ROUNDS * (MAX_STEPS + 1)} messages, each received once, in order"
        )
        assert proxy.cuts >= 10  # the test did what it says


def collect_messages(
    count: int,
) -> tuple[list[Any], asyncio.Event, Callable[[str, dict[str, Any]], None]]:
    """The data of every ``notifications/message`` a client hears, an event set once ``count`` came,
    and the ``on_notification`` callback that gathers them."""
    received: list[Any] = []
    done = asyncio.Event()

    def on_notification(method: str, params: dict[str, Any]) -> None:
        if method == "notifications/message":
            received.append(params["data"])
            if len(received) >= count:
                done.set()

    return received, done, on_notification


@pytest.mark.parametrize("seed", [4, 5])
async def test_a_burst_of_announcements_survives_many_cuts(seed: int) -> None:
    server = build_server()
    count = 500
    async with running(server, retry_ms=5) as http:
        proxy = CuttingProxy(http.port, seed, probability=1.0)  # every connection of the GET stream
        url = await proxy.start()
        received, done, on_notification = collect_messages(count)

        try:
            async with http_client(
                url,
                http=one_request_per_connection(),
                max_retries=10,
                on_notification=on_notification,
            ) as client:
                session = http.app.sessions[client.session.transport.session_id]
                for _ in range(200):  # wait (bounded) for the GET stream
                    if session.announcements.listener is not None:
                        break
                    await asyncio.sleep(0.01)
                for n in range(count):
                    await server.broadcast("notifications/message", {"level": "info", "data": n})
                    if n % 5 == 0:
                        # let the stream flow, and the cuts fall mid-burst
                        await asyncio.sleep(0.003)
                await asyncio.wait_for(done.wait(), TIMEOUT)
                await asyncio.sleep(0.1)  # anything doubled would show up now
        finally:
            await proxy.close()
        assert received == list(range(count))
        print(
            f"\nseed {seed}: {proxy.cuts} cuts over {proxy.connections} connections, "
            f"{count} announcements, each received once, in order"
        )
        assert proxy.cuts >= 10  # the test did what it says
