"""Each message is decoded once by the side that receives it, and never again (lesson 01).

A cable parses what arrives at its edge, once; everything above it (the connection, the session,
Streamable HTTP's routing, the client's handshake record and header hook) gets the parsed message.
These tests run one ``tools/call``, from connecting to closing, over four cables with both ends in
this process, and count every JSON decode on the way: every call of ``json.loads``, which ``parse``
uses, wherever it is made (the name is patched in ``json``, and in any module that imported it as
``loads``). Both sides run here, so each JSON-RPC message that crossed a cable must have been
decoded exactly once in all: by its receiver, at the receiver's edge.

The cables: stdio's framing over a socket pair (``PipeTransport`` at both ends, as over a child's
pipes), WebSocket, and Streamable HTTP in both eras: 2025-11-25 (a session, a GET stream) and
2026-07-28 (no session, every request standing alone). Lesson 11 adds one more edge: a message
forwarded from worker to worker crosses Redis too, and is decoded once there. The promise is lesson
01's; the test needs every lesson's cables, so the course lists it with lesson 12.
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import pytest
from balancer import start_balancer
from complete_support import complete_server, running_complete

from minimcp.client import Client, http_client, modern_http_client, websocket_client
from minimcp.session.eras import Mode
from minimcp.transports.cluster.endpoint import on_redis
from minimcp.transports.cluster.redis_store import connect
from minimcp.transports.http.server import start_http
from minimcp.transports.http.stateless import Revision2026
from minimcp.transports.stdio import PipeTransport
from minimcp.transports.websocket import start_websocket

TIMEOUT = 10.0
#: The real decoder, for the test's own reading (the fixture counts every other call).
REAL_LOADS = json.loads
CALL = {"name": "read_events", "arguments": {"date": "2025-03-21"}}

#: Opens a client over one cable to the complete course server, both ends in this process.
Connect = Callable[[Any], AbstractAsyncContextManager[Client]]


@asynccontextmanager
async def over_stdio(server: Any) -> AsyncIterator[Client]:
    """stdio's framing at both ends of a socket pair: what ``spawn`` and ``serve`` do over pipes."""
    server_end, client_end = socket.socketpair()
    server_reader, server_writer = await asyncio.open_connection(sock=server_end)
    client_reader, client_writer = await asyncio.open_connection(sock=client_end)
    serving = asyncio.ensure_future(server.serve(PipeTransport(server_reader, server_writer)))
    try:
        async with Client(PipeTransport(client_reader, client_writer)) as client:
            yield client
        await asyncio.wait_for(serving, TIMEOUT)  # the client closed its end: the server is done
    finally:
        serving.cancel()


@asynccontextmanager
async def over_websocket(server: Any) -> AsyncIterator[Client]:
    listening = await start_websocket(server)
    try:
        async with websocket_client(listening.url) as client:
            yield client
    finally:
        await listening.close()


@asynccontextmanager
async def over_http_2025(server: Any) -> AsyncIterator[Client]:
    async with running_complete(server) as http, http_client(http.url) as client:
        yield client


@asynccontextmanager
async def over_http_2026(server: Any) -> AsyncIterator[Client]:
    async with (
        running_complete(server) as http,
        modern_http_client(http.url, Mode.MODERN) as client,
    ):
        yield client


@pytest.fixture
def decodes(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts every JSON decode from now on: each JSON-RPC message under its canonical text (a
    message carried inside a forwarded payload, lesson 11's, counts as decoded too), any other JSON
    (a data file, a session's saved state) under ``"other"``."""
    counts: Counter[str] = Counter()

    def counting_loads(text: Any, *args: Any, **kwargs: Any) -> Any:
        value = REAL_LOADS(text, *args, **kwargs)
        inner = value.get("message") if isinstance(value, dict) else None
        message = inner if isinstance(inner, dict) else value
        is_message = isinstance(message, dict) and "jsonrpc" in message
        counts[json.dumps(message, sort_keys=True) if is_message else "other"] += 1
        return value

    monkeypatch.setattr(json, "loads", counting_loads)
    for module in list(sys.modules.values()):  # a module that did `from json import loads`
        if module is not json and getattr(module, "loads", None) is REAL_LOADS:
            monkeypatch.setattr(module, "loads", counting_loads)
    return counts


#: What one tools/call exchanges, from connecting to closing: each message decoded once.
HANDSHAKE_ERA = {
    "initialize": 1,
    "answer #1": 1,
    "notifications/initialized": 1,
    "tools/call": 1,
    "answer #2": 1,
}
STANDING_ALONE = {"server/discover": 1, "answer #1": 1, "tools/call": 1, "answer #2": 1}


@pytest.mark.parametrize(
    ("connect", "expected"),
    [
        (over_stdio, HANDSHAKE_ERA),
        (over_websocket, HANDSHAKE_ERA),
        (over_http_2025, HANDSHAKE_ERA),
        (over_http_2026, STANDING_ALONE),
    ],
    ids=["stdio", "websocket", "http-2025-11-25", "http-2026-07-28"],
)
async def test_every_message_is_decoded_once_by_its_receiver(
    connect: Connect, expected: dict[str, int], decodes: Counter[str]
) -> None:
    server = complete_server(step_delay=0.01)
    async with connect(server) as client:
        result = await client.call_tool(**CALL, timeout=TIMEOUT)
    assert "09:00 Doctor appointment" in result["content"][0]["text"]
    assert decoded_messages(decodes) == expected


async def test_a_forwarded_message_is_decoded_once_per_edge(
    redis_url: str, decodes: Counter[str]
) -> None:
    """Lesson 11: two workers behind a balancer that sends each HTTP request to the next one. What
    reaches the worker that does not run the session is forwarded to the one that does: it crosses
    two edges, the POST body and Redis, and is decoded once at each. Every other message, once."""
    redis = connect(redis_url)
    await redis.flushdb()
    await redis.aclose()
    running = []
    for _ in range(2):
        server = complete_server(step_delay=0.01)
        endpoint = on_redis(redis_url)
        running.append(
            await start_http(server, endpoint=endpoint, stand_alone=Revision2026(server))
        )
    balancer, url, stop = await start_balancer([worker.url for worker in running])
    try:
        async with http_client(url) as client:  # POST, POST, GET (the channel), POST, DELETE
            result = await client.call_tool(**CALL, timeout=TIMEOUT)
    finally:
        await stop()
        for worker in running:
            await worker.close()
    assert "09:00 Doctor appointment" in result["content"][0]["text"]
    assert balancer.sent_to[0] != balancer.sent_to[3], "the call was not forwarded"

    assert decoded_messages(decodes) == {
        "initialize": 1,
        "answer #1": 1,
        "notifications/initialized": 2,  # reached the other worker: forwarded
        "tools/call": 2,  # the same
        "answer #2": 1,  # back through the stream's Redis entries, as text: never decoded there
    }


def decoded_messages(decodes: Counter[str]) -> dict[str, int]:
    """How often each JSON-RPC message was decoded, by its method (``"answer #2"`` for an
    answer)."""
    described = {}
    for text, count in decodes.items():
        if text != "other":
            message = REAL_LOADS(text)
            described[message.get("method") or f"answer #{message.get('id')}"] = count
    return described
