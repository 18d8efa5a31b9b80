"""Lesson 12: a server that stops answers the 2026-07-28 requests still in flight.

A 2026-07-28 stream has no event ids: it cannot be resumed, so a stream that ended without an answer
would leave its client waiting for nothing. ``python -m minimcp serve`` runs for real on a free
loopback port; a slow tool (the course's ``run_analysis``, 100 steps of 50 ms) streams its progress
when SIGTERM or SIGINT comes.
"""

from __future__ import annotations

import asyncio
import json
import signal
import time

import httpx2
import pytest
from http_support import TIMEOUT
from support import free_port
from worker_support import exited, start_serve, stderr_of, until_listening

from minimcp.rpc.limits import SERVER_BUSY

VERSION = "2026-07-28"
CALL = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "tools/call",
    "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": VERSION,
            "io.modelcontextprotocol/clientCapabilities": {},
            "progressToken": "p",
        },
        "name": "run_analysis",
        "arguments": {"steps": 100},
    },
}
HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": VERSION,
    "mcp-method": "tools/call",
    "mcp-name": "run_analysis",
}


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_a_stream_in_flight_gets_an_answer_when_the_server_stops(
    signum: signal.Signals,
) -> None:
    port = free_port()
    server = start_serve(port)
    try:
        listening = await until_listening(server)
        async with (
            httpx2.AsyncClient(timeout=TIMEOUT) as http,
            http.stream("POST", f"http://127.0.0.1:{port}/mcp", json=CALL, headers=HEADERS) as sse,
        ):
            assert sse.headers["content-type"] == "text/event-stream"
            text = ""
            chunks = sse.aiter_text()
            while "data: " not in text:  # the first progress notification: the tool is running
                text += await asyncio.wait_for(anext(chunks), TIMEOUT)
            sent = time.monotonic()
            server.send_signal(signum)
            async with asyncio.timeout(3 * TIMEOUT):
                async for chunk in chunks:  # until the server ends the stream
                    text += chunk
        took = time.monotonic() - sent
        await exited(server, 3 * TIMEOUT)
        log = stderr_of(server).removeprefix(listening)  # what it said after it listened
        print(f"{signum.name}: the stream ended {took:.2f} s after the signal; the log:\n{log}")
        blocks = text.split("\n\n")
        said = [
            json.loads(block.removeprefix("data: "))
            for block in blocks
            if block.startswith("data: ")
        ]
        assert said[-1] == {
            "jsonrpc": "2.0",
            "id": 7,
            "error": {
                "code": SERVER_BUSY,
                "message": "Service unavailable: the server is shutting down",
            },
        }
        assert all(note["method"] == "notifications/progress" for note in said[:-1])
        assert "Traceback" not in log and "Exception in ASGI application" not in log
        assert server.returncode == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(TIMEOUT)
