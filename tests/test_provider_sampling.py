"""Lesson 09's sampling answered by a real model (minimcp.host.providers), against a fake provider.

A server's ``sampling/createMessage`` reaches the host's model once the person approved it
(:class:`~minimcp.host.questions.HostQuestions`). A provider model takes the request whole: its
system prompt, messages, ``maxTokens`` and stop sequences go to the API, and the answer comes back
with the name the API gave its model and why it stopped, in MCP's words.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from fake_providers import (
    FAKE_KEY,
    FakeProvider,
    claude_at,
    claude_text,
    fake_provider,
    gpt_at,
    gpt_text,
)
from support import TIMEOUT, connected

from minimcp.examples.assistant import build_server as assistant_server
from minimcp.host import HostQuestions
from minimcp.host.providers import OpenAIModel


@pytest.fixture
async def fake() -> AsyncIterator[FakeProvider]:
    async with fake_provider() as provider:
        yield provider


async def test_claude_answers_a_sampling_request_with_its_name_and_stop_reason(
    fake: FakeProvider,
) -> None:
    fake.script(claude_text('{"a": "b"}', stop="max_tokens", model="claude-test-1-20260701"))
    result = await claude_at(fake).create_message(
        {
            "messages": [{"role": "user", "content": {"type": "text", "text": "<a>b</a>"}}],
            "systemPrompt": "You convert XML to JSON.",
            "maxTokens": 50,
            "temperature": 0.2,
            "stopSequences": ["\n\n"],
        }
    )
    assert result == {
        "role": "assistant",
        "content": {"type": "text", "text": '{"a": "b"}'},
        "model": "claude-test-1-20260701",
        "stopReason": "maxTokens",
    }
    assert fake.bodies == [
        {
            "model": "claude-test-1",
            "max_tokens": 50,
            "messages": [{"role": "user", "content": [{"type": "text", "text": "<a>b</a>"}]}],
            "system": "You convert XML to JSON.",
            "stop_sequences": ["\n\n"],
        }
    ]


async def test_a_servers_sampling_request_reaches_the_model_once_approved(
    fake: FakeProvider,
) -> None:
    """Lesson 09's assistant server asks the host's model to translate XML: the host's person
    approves, and the provider model answers, with the server's system prompt and maxTokens."""
    fake.script(claude_text('{"a": "b"}'))
    approved: list[str] = []
    questions = HostQuestions(
        claude_at(fake), approve=lambda server, request: approved.append(server) is None
    )
    options = questions.client_options("assistant")
    async with connected(assistant_server(), **options) as client:
        result = await client.call_tool("xml_to_json", {"xml": "<a>b</a>"}, timeout=TIMEOUT)
    assert result["content"][0]["text"] == '{"a": "b"}' and approved == ["assistant"]
    [body] = fake.bodies
    assert body["system"] == "You convert XML documents to JSON. Answer with the JSON only."
    assert body["max_tokens"] == 2000
    assert body["messages"][0]["content"][0]["text"] == "Translate this XML to JSON:\n<a>b</a>"


async def test_gpt_answers_a_sampling_request_with_its_bound(fake: FakeProvider) -> None:
    fake.script(gpt_text("short", finish="length", model="llama3.2:3b"))
    hi = {"role": "user", "content": {"type": "text", "text": "Hi"}}
    result = await gpt_at(fake).create_message(
        {"messages": [hi], "maxTokens": 5, "temperature": 0.3, "stopSequences": ["END"]}
    )
    assert result["model"] == "llama3.2:3b" and result["stopReason"] == "maxTokens"
    assert fake.bodies == [
        {
            "model": "gpt-test-1",
            "messages": [{"role": "user", "content": "Hi"}],
            "max_tokens": 5,  # what the servers that copy the API know
            "temperature": 0.3,
            "stop": ["END"],
        }
    ]
    # OpenAI itself counts an answer's bound in max_completion_tokens
    assert OpenAIModel("gpt-test-1", api_key=FAKE_KEY).tokens_field == "max_completion_tokens"
