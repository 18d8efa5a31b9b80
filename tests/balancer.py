"""A test load balancer for lesson 11: every HTTP request to the next worker in turn, not every
connection.

Real load balancers spread *connections*; a client that keeps one connection open would then meet
one worker only. This one forwards each request on its own (a round robin per request), so that
consecutive requests of one session land on different workers: the hardest case for a deployment
with no affinity. It streams answers through as they come (SSE included), and drops the upstream
request when its client goes.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2

from minimcp.transports.http.server import bind, launch, started


class RoundRobin:
    """An ASGI application that forwards each request to ``upstreams[i % n]``, i counting
    requests."""

    def __init__(self, upstreams: list[str]) -> None:
        self.upstreams = upstreams
        self.turn = 0
        self.sent_to: list[str] = []  # which worker got each request, in order
        self.http = httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=None))

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        upstream = self.upstreams[self.turn % len(self.upstreams)]
        self.turn += 1
        self.sent_to.append(upstream)
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = [(name, value) for name, value in scope["headers"] if name.lower() != b"host"]
        request = self.http.build_request(scope["method"], upstream, headers=headers, content=body)
        try:
            response = await self.http.send(request, stream=True)
        except httpx2.TransportError:
            await send({"type": "http.response.start", "status": 502, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": response.status_code,
                    "headers": [
                        (name.encode(), value.encode())
                        for name, value in response.headers.items()
                        if name.lower() not in ("content-length", "transfer-encoding")
                    ],
                }
            )
            relay = asyncio.ensure_future(self._relay(response, send))
            gone = asyncio.ensure_future(self._until_disconnect(receive))
            await asyncio.wait({relay, gone}, return_when=asyncio.FIRST_COMPLETED)
            for task in (relay, gone):
                task.cancel()
            await asyncio.gather(relay, gone, return_exceptions=True)
        finally:
            await response.aclose()
        try:
            await send({"type": "http.response.body", "body": b""})
        except Exception:
            pass

    async def _relay(self, response: httpx2.Response, send: Any) -> None:
        try:
            async for chunk in response.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
        except httpx2.TransportError:  # the worker died mid-stream: the client sees the cut
            pass

    async def _until_disconnect(self, receive: Any) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass


async def start_balancer(upstreams: list[str]) -> tuple[RoundRobin, str, Any]:
    """Serve a :class:`RoundRobin` on a free loopback port: the app, its URL, and how to stop it."""
    balancer = RoundRobin(upstreams)
    sock = bind("127.0.0.1", 0)
    server, task = launch(balancer, sock, lifespan="off")
    await started(server, task)

    async def stop() -> None:
        server.should_exit = True
        await asyncio.wait_for(task, 10)
        await balancer.http.aclose()

    return balancer, f"http://127.0.0.1:{sock.getsockname()[1]}/mcp", stop
