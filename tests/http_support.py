"""Helpers for the Streamable HTTP tests: a running server, and a hand-driven raw HTTP peer.

Everything runs on 127.0.0.1 with port 0 (any free port), and every wait has a timeout.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2

from minimcp.examples.course import build_server
from minimcp.server.core import ServerCore
from minimcp.transports.http.server import HttpServer, start_http
from minimcp.transports.sse import Event, SSEParser

TIMEOUT = 10.0
ACCEPT_BOTH = "application/json, text/event-stream"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1.0"},
    },
}


@asynccontextmanager
async def running(server: ServerCore | None = None, **options: Any) -> AsyncIterator[HttpServer]:
    """The course server of lessons 03-06 (or ``server``) over lesson 08's Streamable HTTP, on a
    free loopback port. (``complete_support.running_complete`` serves it as ``python -m minimcp
    serve`` does: with the later lessons plugged in, both eras on one endpoint.)"""
    options.setdefault("retry_ms", 20)
    served = server if server is not None else build_server(step_delay=0.01)
    http = await start_http(served, **options)
    try:
        yield http
    finally:
        await http.close()


class RawHttp:
    """Speaks Streamable HTTP by hand, so tests see the exact statuses, headers and events."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.http = httpx2.AsyncClient(timeout=TIMEOUT)
        self.session_id: str | None = None

    def headers(self, **extra: str) -> dict[str, str]:
        headers = {"accept": ACCEPT_BOTH, "content-type": "application/json"}
        if self.session_id is not None:
            headers["mcp-session-id"] = self.session_id
            headers["mcp-protocol-version"] = "2025-11-25"
        headers.update({name.replace("_", "-"): value for name, value in extra.items()})
        return headers

    async def post(self, body: dict[str, Any] | bytes | str, **headers: str) -> httpx2.Response:
        content = body if isinstance(body, (bytes, str)) else json.dumps(body)
        return await self.http.post(self.url, content=content, headers=self.headers(**headers))

    async def initialize(self) -> dict[str, Any]:
        """The handshake: initialize (keeping the session id), then notifications/initialized."""
        self.session_id = None  # a new session: no id yet
        response = await self.post(INITIALIZE)
        assert response.status_code == 200, response.text
        self.session_id = response.headers["mcp-session-id"]
        assert (
            await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        ).status_code == 202
        return response.json()

    async def call(
        self,
        request_id: int | str,
        method: str,
        params: dict[str, Any] | None = None,
        **headers: str,
    ) -> dict[str, Any]:
        """A request answered with JSON: its answer."""
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            body["params"] = params
        response = await self.post(body, **headers)
        assert response.status_code == 200, response.text
        assert response.headers["content-type"] == "application/json"
        return response.json()

    async def ping(self, request_id: int | str = "ping-after") -> None:
        """The server still serves this session."""
        assert await self.call(request_id, "ping") == {
            "jsonrpc": "2.0",
            "id": request_id,
            "result": {},
        }

    async def close(self) -> None:
        await self.http.aclose()


@asynccontextmanager
async def raw_session(url: str, initialize: bool = True) -> AsyncIterator[RawHttp]:
    raw = RawHttp(url)
    try:
        if initialize:
            await raw.initialize()
        yield raw
    finally:
        await raw.close()


class SSEReader:
    """Reads the SSE events of one streaming response, a few at a time if need be."""

    def __init__(self, response: httpx2.Response) -> None:
        self.chunks = response.aiter_bytes()
        self.parser = SSEParser()
        self.ready: list[Event] = []

    async def read(self, count: int | None = None, timeout: float = TIMEOUT) -> list[Event]:
        """The next ``count`` events, or every event until the stream ends."""

        async def fill() -> None:
            async for chunk in self.chunks:
                self.ready.extend(self.parser.feed(chunk))
                if count is not None and len(self.ready) >= count:
                    return

        if count is None or len(self.ready) < count:
            await asyncio.wait_for(fill(), timeout)
        taken = len(self.ready) if count is None else count
        events, self.ready = self.ready[:taken], self.ready[taken:]
        return events


async def read_events(
    response: httpx2.Response, count: int | None = None, timeout: float = TIMEOUT
) -> list[Event]:
    """Read SSE events from a streaming response: ``count`` of them, or until the stream ends."""
    return await SSEReader(response).read(count, timeout)


def messages(events: list[Event]) -> list[dict[str, Any]]:
    """The JSON-RPC messages among ``events`` (priming events carry none)."""
    return [json.loads(event.data) for event in events if event.data]


def header_tap(seen: list[dict[str, str]]) -> Any:
    """An ``around`` for :func:`running` that writes down each HTTP request's method and headers
    (lower-case names; the method under ``":method"``) into ``seen``: what really travelled."""

    def around(url: str, app: Any) -> Any:
        async def serve(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                headers = {
                    name.decode().lower(): value.decode() for name, value in scope["headers"]
                }
                seen.append({":method": scope["method"], **headers})
            await app(scope, receive, send)

        return serve

    return around
