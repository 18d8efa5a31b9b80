"""The host answers its servers' questions (minimcp.host.questions), against the assistant server.

Sampling through the host's rule model with a person who approves, refuses or edits; elicitation
from the profile, from the person, or dismissed; URL mode only with consent; and the whole loop in a
host chatting with ``python -m minimcp serve --example assistant`` as a child process.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from support import FIRST_CALL_TIMEOUT, TIMEOUT, connected

from minimcp.client import Client, http_client, stdio_client, websocket_client
from minimcp.examples.assistant import build_server
from minimcp.host import Host, HostQuestions, KeywordRouter
from minimcp.host.rule_model import xml_to_json
from minimcp.transports.http.server import start_http
from minimcp.transports.websocket import start_websocket

ROOT = Path(__file__).resolve().parent.parent
XML = "<course id='AI101'><name>Intro to AI</name><tag>ml</tag><tag>basics</tag></course>"
AS_JSON = {"course": {"@id": "AI101", "name": "Intro to AI", "tag": ["ml", "basics"]}}


async def call(
    questions: HostQuestions, tool: str, arguments: dict[str, Any] | None = None
) -> dict[str, Any]:
    async with connected(build_server(), **questions.client_options("assistant")) as client:
        return await client.call_tool(tool, arguments or {}, timeout=TIMEOUT)


def text(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


def test_the_rule_model_translates_xml() -> None:
    assert json.loads(xml_to_json(XML)) == AS_JSON
    assert json.loads(xml_to_json("<a x='1'>hi</a>")) == {"a": {"@x": "1", "#text": "hi"}}
    assert xml_to_json("<a>") == "That is not well-formed XML: no element found: line 1, column 3"


async def test_sampling_goes_through_the_person_to_the_model() -> None:
    seen: list[tuple[str, str]] = []

    def approve(server: str, request: dict[str, Any]) -> bool:
        seen.append((server, request["systemPrompt"]))
        return True

    result = await call(HostQuestions(approve=approve), "xml_to_json", {"xml": XML})
    assert json.loads(text(result)) == AS_JSON
    assert seen == [("assistant", "You convert XML documents to JSON. Answer with the JSON only.")]


async def test_a_refusal_reaches_the_tool_as_an_error() -> None:
    result = await call(
        HostQuestions(approve=lambda server, request: False), "xml_to_json", {"xml": XML}
    )
    assert result["isError"] is True
    assert text(result) == (
        "Tool xml_to_json failed: RpcError: The user refused assistant's request to use the model"
    )


async def test_the_person_may_edit_the_request_and_max_tokens_cuts_the_answer() -> None:
    def edit(server: str, request: dict[str, Any]) -> dict[str, Any]:
        message = {
            "role": "user",
            "content": {"type": "text", "text": "Translate this XML to JSON: <a>b</a>"},
        }
        return {**request, "messages": [message], "maxTokens": 1}

    result = await call(HostQuestions(approve=edit), "xml_to_json", {"xml": XML})
    # the edited request, cut at one "token" (a word, for the rule model)
    assert text(result) == '{"a":'


async def test_a_form_is_filled_from_the_profile() -> None:
    result = await call(
        HostQuestions(profile={"github_user": "octocat", "unrelated": 1}), "link_github"
    )
    assert text(result) == "Linked to GitHub user octocat."


async def test_the_person_sees_the_prefilled_form_and_completes_it() -> None:
    asked: list[tuple[str, str, dict[str, Any]]] = []

    def ask_user(
        server: str, message: str, schema: dict[str, Any], prefilled: dict[str, Any]
    ) -> dict[str, Any]:
        asked.append((server, message, prefilled))
        return {
            "action": "accept",
            "content": {**prefilled, "date": "2026-12-01", "room": "Madrid"},
        }

    questions = HostQuestions(profile={"minutes": 45}, ask_user=ask_user)
    result = await call(questions, "book_meeting", {"title": "Retro"})
    assert text(result) == "Booked 'Retro' on 2026-12-01 at 10:00 for 45 minutes, room Madrid."
    assert asked == [("assistant", "Book 'Retro'?", {"minutes": 45})]


@pytest.mark.parametrize(
    ("tool", "expected"),
    [
        # nobody to ask, the profile does not know
        ("link_github", "Nothing linked: the user chose cancel."),
        ("book_meeting", "Not booked: 'Retro'."),
    ],
)
async def test_with_nobody_to_ask_an_unfillable_form_is_dismissed(tool: str, expected: str) -> None:
    result = await call(HostQuestions(), tool, {"title": "Retro"} if tool == "book_meeting" else {})
    assert text(result) == expected


@pytest.mark.parametrize("agreed", [True, False])
async def test_url_mode_is_offered_only_with_consent(agreed: bool) -> None:
    asked: list[tuple[str, str, str]] = []
    questions = HostQuestions(consent=lambda *question: asked.append(question) or agreed)
    assert HostQuestions().client_options("x")["answers"].elicitation_modes == ("form",)
    assert questions.client_options("x")["answers"].elicitation_modes == ("form", "url")
    answer = await questions.elicit(
        "calendar",
        {"mode": "url", "message": "Connect", "url": "https://c.test/", "elicitationId": "e1"},
    )
    assert answer == {"action": "accept" if agreed else "decline"}
    assert asked == [("calendar", "https://c.test/", "Connect")]


async def test_a_host_chat_uses_a_tool_that_samples_the_host_model() -> None:
    questions = HostQuestions(profile={"github_user": "octocat"})
    async with Host(router=KeywordRouter(), questions=questions) as host:
        command = [sys.executable, "-m", "minimcp", "serve", "--example", "assistant"]
        client = await host.connect_with("assistant", stdio_client, command, cwd=str(ROOT))
        assert client.session.capabilities == {"sampling": {}, "elicitation": {"form": {}}}
        answer = await host.ask(f"Turn this into JSON: {XML}")
        assert answer == (
            f"Here is what assistant/xml_to_json says:\n{json.dumps(AS_JSON, ensure_ascii=False)}."
        )


@asynccontextmanager
async def over(cable: str, questions: HostQuestions) -> AsyncIterator[Client]:
    """A client of the assistant server over ``cable``, answering with ``questions``."""
    options = questions.client_options("assistant")
    if cable == "stdio":
        command = [sys.executable, "-m", "minimcp", "serve", "--example", "assistant"]
        async with stdio_client(command, cwd=str(ROOT), **options) as client:
            yield client
        return
    start, connect = (
        (start_websocket, websocket_client) if cable == "ws" else (start_http, http_client)
    )
    running = await start(build_server())
    try:
        async with connect(running.url, **options) as client:
            yield client
    finally:
        await running.close()


@pytest.mark.parametrize("cable", ["stdio", "ws", "http"])
async def test_every_cable_carries_the_questions_and_the_answers(cable: str) -> None:
    """The messages stay, only the cable changes: sampling and a form, over each of the three."""
    async with over(cable, HostQuestions(profile={"github_user": "octocat"})) as client:
        assert (
            json.loads(
                text(
                    await client.call_tool("xml_to_json", {"xml": XML}, timeout=FIRST_CALL_TIMEOUT)
                )
            )
            == AS_JSON
        )
        assert (
            text(await client.call_tool("link_github", timeout=TIMEOUT))
            == "Linked to GitHub user octocat."
        )
