"""Lesson 12's box: both eras with the official SDK, checked against minimcp, from the wire.

1. ``minimcp``'s client in ``Mode.AUTO`` starts ``sdk/lesson12_both_eras_server.py``: it speaks
   2026-07-28, and the tool's question comes back inside an ``input_required`` answer, which the
   client answers by calling again; in the 2025-11-25 era the same tool sends
   ``elicitation/create``.
2. ``sdk/lesson12_auto_client.py`` finds the era of the course's assistant server: 2026-07-28 by
   ``server/discover``, with no ``initialize``; 2025-11-25 from a server that serves that era only.

``tests/stdio_wiretap.py`` sits between client and server and writes down what the client sent.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from sdk_support import ROOT, run_sdk_script, sdk_command
from stdio_wiretap import wiretapped

mcp = pytest.importorskip("mcp", reason="the SDK boxes' tests need the official SDK (mcp==2.3.0)")

from minimcp.client import ClientAnswers, modern_stdio_client, stdio_client  # noqa: E402
from minimcp.session.eras import Mode  # noqa: E402

TIMEOUT = 30.0
WIRETAP = str(ROOT / "tests" / "stdio_wiretap.py")
LINKED = "Linked to GitHub user octocat."


def sent(wire: Path) -> list[dict[str, Any]]:
    """Every message the client sent, in order."""
    return [json.loads(line) for line in wire.read_text().splitlines()]


def answers(asked: list[dict[str, Any]]) -> ClientAnswers:
    def user(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept", "content": {"github_user": "octocat"}}

    return ClientAnswers(elicitation=user)


async def test_minimcp_answers_the_sdk_tool_inside_input_required(tmp_path: Path) -> None:
    wire, asked = tmp_path / "wire.jsonl", []
    command = [sys.executable, WIRETAP, str(wire), *sdk_command("lesson12_both_eras_server.py")]
    async with modern_stdio_client(command, Mode.AUTO, answers=answers(asked)) as client:
        assert client.protocol_version == "2026-07-28"
        result = await client.call_tool("link_github", timeout=TIMEOUT)
    assert result["content"][0]["text"] == LINKED
    assert result["resultType"] == "complete"
    assert [message["method"] for message in sent(wire)] == [
        "server/discover",
        "tools/call",
        "tools/call",  # again, with the answer
    ]
    retried = sent(wire)[-1]["params"]
    assert retried["inputResponses"] == {
        key: {"action": "accept", "content": {"github_user": "octocat"}}
        for key in retried["inputResponses"]
    }
    assert isinstance(retried["requestState"], str)  # sealed by the SDK, sent back as it came
    assert asked[0]["message"] == "What is your GitHub user?"


async def test_in_2025_the_same_sdk_tool_sends_a_request(tmp_path: Path) -> None:
    wire, asked = tmp_path / "wire.jsonl", []
    command = [sys.executable, WIRETAP, str(wire), *sdk_command("lesson12_both_eras_server.py")]
    async with stdio_client(command, answers=answers(asked)) as client:
        assert client.protocol_version == "2025-11-25"
        result = await client.call_tool("link_github", timeout=TIMEOUT)
    assert result["content"][0]["text"] == LINKED
    messages = sent(wire)
    assert [message.get("method") for message in messages] == [
        "initialize",
        "notifications/initialized",
        "tools/call",
        None,  # the answer to the server's elicitation/create
    ]
    assert messages[-1]["result"] == {"action": "accept", "content": {"github_user": "octocat"}}


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
async def test_the_sdk_client_finds_the_era_of_the_assistant_server(
    era: str, tmp_path: Path
) -> None:
    wire = tmp_path / "wire.jsonl"
    options = ["--legacy-only"] if era == "2025-11-25" else []
    command = wiretapped(wire, "--example", "assistant", *options)
    printed = await run_sdk_script("lesson12_auto_client.py", *command)
    assert printed.splitlines() == [
        f"protocol {era}",
        "elicitation: What is your GitHub user?",
        f"link_github: {LINKED}",
    ]
    methods = [message.get("method") for message in sent(wire)]
    assert methods[0] == "server/discover"  # the probe, in either era
    if era == "2026-07-28":
        assert "initialize" not in methods
        calls = [
            message["params"] for message in sent(wire) if message.get("method") == "tools/call"
        ]
        assert len(calls) == 2  # the call, then the same call with the answer and the state
        assert "inputResponses" in calls[1] and "requestState" in calls[1]
    else:  # -32601 for the probe, then the handshake
        assert methods[1:3] == ["initialize", "notifications/initialized"]
