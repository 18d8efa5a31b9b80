"""Lesson 08: a request's head is at most 64 KiB; a larger one gets 431, and the server serves on.

uvicorn on httptools sets no bound on a request's head: a header of a megabyte was read whole and
handed to the endpoint. Now a head past ``MAX_HEAD_BYTES`` is answered ``431 Request Header Fields
Too Large`` with a JSON-RPC error, whether it ends (a megabyte, ten) or never does, and the next
client is served. A head within the bound is served as before.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx2
import pytest
from http_support import ACCEPT_BOTH, INITIALIZE, raw_session
from support import TIMEOUT

from minimcp.examples.course import build_server
from minimcp.transports.http.head_size import HEAD_TOO_LARGE, MAX_HEAD_BYTES
from minimcp.transports.http.server import HttpServer, start_http

HEADERS = {"accept": ACCEPT_BOTH, "content-type": "application/json"}


@pytest.fixture
async def http() -> AsyncIterator[HttpServer]:
    served = await start_http(build_server(step_delay=0), header_timeout=30)
    yield served
    await served.close()


@pytest.mark.parametrize("size", [100_000, 1_000_000, 10_000_000])
async def test_a_header_too_large_gets_431_and_the_server_serves_on(
    http: HttpServer, size: int
) -> None:
    async with httpx2.AsyncClient(timeout=TIMEOUT) as client:
        sent = {**HEADERS, "x-pad": "y" * size}
        answer = await client.post(http.url, json=INITIALIZE, headers=sent)
    assert answer.status_code == 431
    assert answer.json()["error"] == {"code": -32600, "message": HEAD_TOO_LARGE}
    async with raw_session(http.url) as raw:
        await raw.ping()


async def test_a_head_that_never_ends_is_refused_once_past_the_bound(http: HttpServer) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", http.port)
    writer.write(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"z" * 2 * MAX_HEAD_BYTES)
    await writer.drain()  # and then nothing more: the head never ends
    answer = await asyncio.wait_for(reader.read(), TIMEOUT)  # well before the 30 s deadline
    writer.close()
    assert answer.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n")
    assert answer.endswith(HEAD_TOO_LARGE.encode() + b'"}}')
    async with raw_session(http.url) as raw:
        await raw.ping()


async def test_a_head_within_the_bound_is_served(http: HttpServer) -> None:
    async with httpx2.AsyncClient(timeout=TIMEOUT) as client:
        sent = {**HEADERS, "x-pad": "y" * (MAX_HEAD_BYTES - 1_000)}
        answer = await client.post(http.url, json=INITIALIZE, headers=sent)
    assert answer.status_code == 200 and answer.json()["result"]["serverInfo"]
