"""Lesson 03's box: the handshake done by the official SDK's ``ClientSession.initialize()``.

``sdk/lesson03_handshake_client.py`` runs against lesson 03's example server
(``python -m minimcp.examples.handshake``) and against the course server, behind a wiretap that
writes down every line the SDK sent: ``initialize``, then ``notifications/initialized``, then the
ping, exactly the three messages of lesson 03's trace.
"""

from __future__ import annotations

import json
import sys

import pytest
from sdk_support import ROOT, run_sdk_script

pytest.importorskip("mcp", reason="the SDK boxes' tests need the official SDK (mcp==2.3.0)")

WIRETAP = str(ROOT / "tests" / "stdio_wiretap.py")


async def test_the_sdk_client_does_the_handshake_with_lessons_03_server(tmp_path) -> None:
    wire = tmp_path / "client-to-server.jsonl"
    server = [sys.executable, "-m", "minimcp.examples.handshake"]
    printed = await run_sdk_script(
        "lesson03_handshake_client.py", sys.executable, WIRETAP, str(wire), *server
    )
    assert printed.splitlines() == [
        "protocol version: 2025-11-25",
        "server: handshake-server 0.1.0",
        "capabilities: {}",
        "instructions: Lesson 03's server: it knows the handshake and ping, nothing more.",
        "ping: answered",
    ]
    sent = [json.loads(line) for line in wire.read_text().splitlines()]
    assert [message.get("method") for message in sent] == [
        "initialize",
        "notifications/initialized",
        "ping",
    ]
    initialize = sent[0]["params"]
    assert initialize["protocolVersion"] == "2025-11-25"  # the SDK's latest handshake version
    assert initialize["clientInfo"]["name"]  # who the client is: the SDK fills it in
    assert "id" not in sent[1]  # a notification: nobody answers it


async def test_the_sdk_client_sees_the_course_servers_capabilities() -> None:
    printed = await run_sdk_script(
        "lesson03_handshake_client.py", sys.executable, "-m", "minimcp", "serve"
    )
    lines = printed.splitlines()
    assert lines[:2] == ["protocol version: 2025-11-25", "server: course-server 0.1.0"]
    assert lines[2] == (
        "capabilities: {'prompts': {'listChanged': True}, "
        "'resources': {'subscribe': True, 'listChanged': True}, 'tools': {'listChanged': True}}"
    )
    assert lines[-1] == "ping: answered"
