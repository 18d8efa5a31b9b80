"""Real models behind the host (minimcp.host.providers), against a fake provider on loopback.

Each test runs lesson 04's host with an Anthropic or OpenAI model whose base URL is
:mod:`fake_providers`' server, which speaks each API's documented wire format and answers what the
test scripted. The tests check what minimcp *sends* (tool definitions with names the APIs accept
and the servers' schemas, tool results with the ids of their calls, images, errors, the system
prompt, the token bound) and what it does with the replies (several tool calls in one reply, a
final answer). Sampling (lesson 09) is ``test_provider_sampling.py``'s, failures
``test_provider_failures.py``'s.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from fake_providers import (
    FAKE_KEY,
    PNG,
    FakeProvider,
    Seen,
    claude_at,
    claude_text,
    claude_tools,
    fake_provider,
    gpt_at,
    gpt_text,
    gpt_tools,
    host_with,
)

from minimcp.host import ChatMessage
from minimcp.host.providers import ToolNames

IMAGE = base64.b64encode(PNG).decode()


@pytest.fixture
async def fake() -> AsyncIterator[FakeProvider]:
    async with fake_provider() as provider:
        yield provider


@dataclass
class Conversation:
    """One question through the host: the answer, what the host had, what the provider got."""

    answer: str
    system: str
    schemas: dict[str, Any]  # each tool's input schema, by the host's name for it
    messages: list[ChatMessage]
    seen: list[Seen]


async def conversation(model: Any, fake: FakeProvider, *replies: Any) -> Conversation:
    fake.script(*replies)
    async with await host_with(model) as host:
        answer = await host.ask("What is on today?")
        system = await host.system_prompt()
        schemas = {tool["name"]: tool["inputSchema"] for tool in await host.discover_tools()}
    return Conversation(answer, system, schemas, host.messages, fake.seen)


# -- tool names ------------------------------------------------------------------------------------
def test_tool_names_are_ones_the_apis_accept_and_lead_back_to_the_tool() -> None:
    long = "server/" + "x" * 100
    tools = [{"name": n} for n in ("course/read_events", "files/read.file", "x/a.b", "x/a_b", long)]
    names = ToolNames(tools)
    assert names.api_name("course/read_events") == "course__read_events"
    assert names.api_name("files/read.file") == "files__read_file"
    api_names = [names.api_name(tool["name"]) for tool in tools]
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name) for name in api_names), api_names
    assert len(set(api_names)) == len(tools)  # x/a.b and x/a_b would both be x__a_b: hashed
    assert [names.host_name(name) for name in api_names] == [tool["name"] for tool in tools]
    assert names.host_name("made_up") == "made_up"  # the host answers it "Unknown tool"


# -- Anthropic: the Messages API -----------------------------------------------------------------
#: Claude asks for two tools at once, then two more (one fails), then answers.
CLAUDE_REPLIES = (
    claude_tools(
        ("toolu_1", "calendar__read_events", {"date": "2026-07-28"}),
        ("toolu_2", "calendar__chart", {}),
        text="Let me look.",
    ),
    claude_tools(("toolu_3", "calendar__broken", {}), ("toolu_4", "calendar__stats", {})),
    claude_text("A daily meeting at 9, and a busy week."),
)


async def test_claude_is_sent_the_system_prompt_the_tools_and_the_question(
    fake: FakeProvider,
) -> None:
    talk = await conversation(claude_at(fake), fake, *CLAUDE_REPLIES)
    assert talk.answer == "A daily meeting at 9, and a busy week."
    first = talk.seen[0]
    assert first.path == "/v1/messages" and "anthropic-version" in first.headers
    assert first.headers["authorization"] == f"Bearer {FAKE_KEY}"  # the key goes there alone
    assert first.body["model"] == "claude-test-1" and first.body["max_tokens"] == 4096
    assert first.body["system"] == talk.system
    assert {tool["name"]: tool["input_schema"] for tool in first.body["tools"]} == {
        name.replace("/", "__"): schema for name, schema in talk.schemas.items()
    }
    question = {"role": "user", "content": [{"type": "text", "text": "What is on today?"}]}
    assert first.body["messages"] == [question]


async def test_claude_gets_the_result_of_each_of_its_parallel_calls(fake: FakeProvider) -> None:
    talk = await conversation(claude_at(fake), fake, *CLAUDE_REPLIES)
    calls, results = talk.seen[1].body["messages"][1:]
    assert calls["role"] == "assistant" and calls["content"] == [
        {
            "type": "tool_use",
            "id": "toolu_1",
            "name": "calendar__read_events",
            "input": {"date": "2026-07-28"},
        },
        {"type": "tool_use", "id": "toolu_2", "name": "calendar__chart", "input": {}},
    ]
    events = "Events for 2026-07-28:\n- 09:00 Daily meeting"
    image = {"type": "base64", "media_type": "image/png", "data": IMAGE}
    assert results["role"] == "user" and results["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "content": [{"type": "text", "text": events}],
        },
        {
            "type": "tool_result",
            "tool_use_id": "toolu_2",
            "content": [{"type": "text", "text": "This week:"}, {"type": "image", "source": image}],
        },
    ]
    ids = [message.tool_call.id for message in talk.messages if message.tool_call]
    assert ids == ["toolu_1", "toolu_2", "toolu_3", "toolu_4"]


async def test_claude_is_told_of_a_failure_and_given_structured_content(
    fake: FakeProvider,
) -> None:
    talk = await conversation(claude_at(fake), fake, *CLAUDE_REPLIES)
    broken, stats = talk.seen[2].body["messages"][-1]["content"]
    assert broken == {
        "type": "tool_result",
        "tool_use_id": "toolu_3",
        "content": [{"type": "text", "text": "the disk is full"}],
        "is_error": True,
    }
    assert stats["tool_use_id"] == "toolu_4"
    assert json.loads(stats["content"][0]["text"]) == {"events": 4}


async def test_the_loop_still_ends_after_max_turns(fake: FakeProvider) -> None:
    fake.script(*[claude_tools((f"toolu_{n}", "calendar__stats", {})) for n in range(3)])
    async with await host_with(claude_at(fake), max_turns=2) as host:
        assert await host.ask("Again and again") == "(stopped: no answer after 2 turns)"
    assert len(fake.seen) == 2


# -- OpenAI: Chat Completions ----------------------------------------------------------------------
#: GPT asks for two tools at once, then one that fails, then answers.
GPT_REPLIES = (
    gpt_tools(
        ("call_a", "calendar__read_events", {"date": "2026-07-28"}),
        ("call_b", "calendar__chart", {}),
    ),
    gpt_tools(("call_c", "calendar__broken", {})),
    gpt_text("A daily meeting at 9."),
)


async def test_gpt_is_sent_the_system_prompt_the_tools_and_the_question(
    fake: FakeProvider,
) -> None:
    talk = await conversation(gpt_at(fake), fake, *GPT_REPLIES)
    assert talk.answer == "A daily meeting at 9."
    first = talk.seen[0]
    assert first.path == "/v1/chat/completions"
    assert first.headers["authorization"] == f"Bearer {FAKE_KEY}"
    assert first.body["messages"] == [
        {"role": "system", "content": talk.system},
        {"role": "user", "content": "What is on today?"},
    ]
    assert "max_tokens" not in first.body  # no bound unless one is given
    read_events = next(t for t in first.body["tools"] if "read_events" in t["function"]["name"])
    assert read_events == {
        "type": "function",
        "function": {
            "name": "calendar__read_events",
            "description": "Read the events of a day.",
            "parameters": talk.schemas["calendar/read_events"],
        },
    }


async def test_gpt_gets_the_result_of_each_of_its_parallel_calls(fake: FakeProvider) -> None:
    talk = await conversation(gpt_at(fake), fake, *GPT_REPLIES)
    calls, events, chart, images = talk.seen[1].body["messages"][2:]
    assert calls == {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "call_a",
                "type": "function",
                "function": {
                    "name": "calendar__read_events",
                    "arguments": '{"date": "2026-07-28"}',
                },
            },
            {
                "id": "call_b",
                "type": "function",
                "function": {"name": "calendar__chart", "arguments": "{}"},
            },
        ],
    }
    assert events == {
        "role": "tool",
        "tool_call_id": "call_a",
        "content": "Events for 2026-07-28:\n- 09:00 Daily meeting",
    }
    assert chart == {
        "role": "tool",
        "tool_call_id": "call_b",
        "content": "This week:\n[image image/png]",
    }
    assert images == {  # a tool message holds text only: the image follows
        "role": "user",
        "content": [
            {"type": "text", "text": "The images the tools returned:"},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{IMAGE}"}},
        ],
    }


async def test_gpt_is_told_of_a_failure(fake: FakeProvider) -> None:
    talk = await conversation(gpt_at(fake), fake, *GPT_REPLIES)
    assert talk.seen[2].body["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "call_c",
        "content": "Error: the disk is full",
    }
