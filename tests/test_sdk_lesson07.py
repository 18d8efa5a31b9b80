"""Lesson 07's box: the official SDK's client on a WebSocket, against ``minimcp``'s server.

The 2.x SDK has no WebSocket transport; ``sdk/lesson07_websocket_client.py`` writes one for its
``Client`` (two loops between a socket and two streams of messages), and runs against the course
server served by ``minimcp.transports.websocket`` on a free loopback port: the handshake, a
``tools/list`` and a ``tools/call``, one text frame per message.
"""

from __future__ import annotations

import asyncio

import pytest
from sdk_support import run_sdk_script

pytest.importorskip("mcp", reason="the SDK boxes' tests need the official SDK (mcp==2.3.0)")

from minimcp.examples.course import build_server  # noqa: E402
from minimcp.transports.websocket import start_websocket  # noqa: E402

TIMEOUT = 10.0


async def test_the_sdk_client_talks_to_the_course_server_over_a_websocket() -> None:
    running = await start_websocket(build_server(step_delay=0.001))  # listening once it returns
    try:
        printed = await run_sdk_script("lesson07_websocket_client.py", running.url)
    finally:
        await asyncio.wait_for(running.close(), TIMEOUT)
    assert printed.splitlines() == [
        "protocol version: 2025-11-25",
        "tools: ['read_events', 'find_similar_courses', 'run_analysis']",
        "Events for 2025-03-21:",
        "- 09:00 Doctor appointment",
        "- 12:30 Team meeting",
        "- 18:00 Gym session",
    ]
