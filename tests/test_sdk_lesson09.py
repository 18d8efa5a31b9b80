"""Lesson 09's box: the client talks back, written with the official SDK, checked against minimcp.

1. ``minimcp``'s client (``ClientAnswers``) answers every question of
   ``sdk/lesson09_asking_server.py``: its model translates the XML, its user fills in the form (or
   declines it), and it names its roots.
2. ``sdk/lesson09_answers_client.py`` answers the questions of the course's assistant server
   (``python -m minimcp serve --example assistant``) with its callbacks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sdk_support import ROOT, run_sdk_script, sdk_command

mcp = pytest.importorskip("mcp", reason="the SDK boxes' tests need the official SDK (mcp==2.3.0)")

from minimcp.client import ClientAnswers, stdio_client  # noqa: E402

TIMEOUT = 30.0
SERVER = sdk_command("lesson09_asking_server.py")


def text(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


async def test_minimcp_answers_every_question_of_the_sdk_server(tmp_path: Path) -> None:
    asked: list[dict[str, Any]] = []
    choices = iter(["accept", "decline"])

    def model(request: dict[str, Any]) -> dict[str, Any]:
        asked.append(request)
        content = {"type": "text", "text": '{"a": "1"}'}
        return {"role": "assistant", "content": content, "model": "rules", "stopReason": "endTurn"}

    def user(request: dict[str, Any]) -> dict[str, Any]:
        assert request["message"] == "What is your GitHub user?"
        assert list(request["requestedSchema"]["properties"]) == ["github_user"]
        action = next(choices)
        if action == "decline":
            return {"action": "decline"}
        return {"action": "accept", "content": {"github_user": "octocat"}}

    answers = ClientAnswers(sampling=model, elicitation=user, roots=[tmp_path])
    async with stdio_client(SERVER, cwd=str(ROOT), answers=answers) as client:
        result = await client.call_tool("xml_to_json", {"xml": "<a>1</a>"}, timeout=TIMEOUT)
        assert text(result) == '{"a": "1"}'
        question = {"type": "text", "text": "Translate this XML to JSON:\n<a>1</a>"}
        assert asked[0]["messages"] == [{"role": "user", "content": question}]
        assert asked[0]["maxTokens"] == 2000
        assert asked[0]["systemPrompt"] == (
            "You convert XML documents to JSON. Answer with the JSON only."
        )
        linked = await client.call_tool("link_github", timeout=TIMEOUT)
        assert text(linked) == "Linked to GitHub user octocat."
        declined = await client.call_tool("link_github", timeout=TIMEOUT)
        assert text(declined) == "Nothing linked: the user chose decline."
        roots = await client.call_tool("where_may_i_work", timeout=TIMEOUT)
        assert text(roots) == tmp_path.resolve().as_uri()


async def test_the_sdk_client_answers_the_course_assistant_server() -> None:
    printed = await run_sdk_script("lesson09_answers_client.py")
    assert printed.splitlines() == [
        "sampling: You convert XML documents to JSON. Answer with the JSON only.",
        'xml_to_json: {"a": "1"}',
        "elicitation: What is your GitHub user?",
        "link_github: Linked to GitHub user octocat.",
    ]
