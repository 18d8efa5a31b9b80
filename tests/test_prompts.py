"""Prompts (lesson 06): prompts/list, prompts/get, argument checks, roles, content, pages,
list_changed."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest
from support import TIMEOUT, Notes, connected

from minimcp.client import Client
from minimcp.rpc import RpcError
from minimcp.server import (
    PromptArgument,
    PromptServer,
    assistant,
    embedded_resource,
    image_content,
    user,
)


async def get(client: Client, name: str, arguments: Any = None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    return await client.request("prompts/get", params, TIMEOUT)


async def assert_invalid(
    client: Client, name: Any, arguments: Any, message: str | None = None
) -> None:
    """prompts/get fails with -32602 (and the given message), and the server answers on
    afterwards."""
    with pytest.raises(RpcError) as caught:
        await client.request("prompts/get", {"name": name, "arguments": arguments}, TIMEOUT)
    assert caught.value.code == -32602
    if message is not None:
        assert caught.value.message == message
    await client.ping(TIMEOUT)
    assert (await client.request("prompts/list", {}, TIMEOUT))["prompts"]


def writer() -> PromptServer:
    server = PromptServer("writer")

    @server.prompt(title="Request Code Review")
    def code_review(code: Annotated[str, "The code to review"], language: str = "Python") -> str:
        """Asks the LLM to analyze code quality and suggest improvements."""
        return f"Please review this {language} code:\n{code}"

    @server.prompt(name="general-summary", description="Summarize content")
    async def general_summary() -> str:
        return "Summarize the following content in a concise way."

    @server.prompt(name="explain-file")
    def explain_file(path: str) -> list[dict[str, Any]]:
        """Embeds a file and asks about it; the model's answer is started for it."""
        return [
            user(
                embedded_resource(
                    f"file:///project/{path}", text="print('hi')", mime_type="text/x-python"
                )
            ),
            user("What does this file do?"),
            assistant("This file"),
        ]

    @server.prompt(name="describe-picture")
    def describe_picture() -> dict[str, Any]:
        """A bare content block is one user message."""
        return image_content(b"\x89PNG", "image/png")

    return server


async def test_list_shows_arguments_with_required_flags() -> None:
    async with connected(writer()) as client:
        assert client.server_capabilities["prompts"] == {"listChanged": True}
        prompts = (await client.request("prompts/list", {}, TIMEOUT))["prompts"]
    assert prompts[:2] == [
        {
            "name": "code_review",
            "title": "Request Code Review",
            "description": "Asks the LLM to analyze code quality and suggest improvements.",
            "arguments": [
                {"name": "code", "description": "The code to review", "required": True},
                {"name": "language", "required": False},
            ],
        },
        # no arguments: no "arguments"
        {"name": "general-summary", "description": "Summarize content"},
    ]
    assert [p["name"] for p in prompts] == [
        "code_review",
        "general-summary",
        "explain-file",
        "describe-picture",
    ]


async def test_get_fills_in_the_arguments() -> None:
    async with connected(writer()) as client:
        assert await get(client, "code_review", {"code": "x = 1"}) == {
            "description": "Asks the LLM to analyze code quality and suggest improvements.",
            "messages": [
                {
                    "role": "user",
                    "content": {"type": "text", "text": "Please review this Python code:\nx = 1"},
                }
            ],
        }
        result = await get(client, "code_review", {"code": "x := 1", "language": "Go"})
        assert result["messages"][0]["content"]["text"] == "Please review this Go code:\nx := 1"


async def test_get_without_arguments() -> None:
    async with connected(writer()) as client:
        text = "Summarize the following content in a concise way."
        expected = {
            "description": "Summarize content",
            "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
        }
        assert await get(client, "general-summary") == expected
        assert await get(client, "general-summary", {}) == expected


async def test_messages_carry_roles_and_embedded_resources() -> None:
    async with connected(writer()) as client:
        messages = (await get(client, "explain-file", {"path": "main.py"}))["messages"]
        assert messages == [
            {
                "role": "user",
                "content": {
                    "type": "resource",
                    "resource": {
                        "uri": "file:///project/main.py",
                        "mimeType": "text/x-python",
                        "text": "print('hi')",
                    },
                },
            },
            {"role": "user", "content": {"type": "text", "text": "What does this file do?"}},
            {"role": "assistant", "content": {"type": "text", "text": "This file"}},
        ]
        picture = (await get(client, "describe-picture"))["messages"]
        assert picture == [
            {
                "role": "user",
                "content": {"type": "image", "data": "iVBORw==", "mimeType": "image/png"},
            }
        ]


async def test_an_unknown_prompt_is_invalid_params() -> None:
    async with connected(writer()) as client:
        await assert_invalid(client, "no-such-prompt", {}, "Unknown prompt: no-such-prompt")
        await assert_invalid(client, 42, {})


async def test_a_missing_required_argument_is_invalid_params() -> None:
    async with connected(writer()) as client:
        await assert_invalid(
            client, "code_review", {}, "Missing required argument(s) for prompt code_review: code"
        )
        await assert_invalid(
            client,
            "code_review",
            {"language": "Go"},
            "Missing required argument(s) for prompt code_review: code",
        )
        with pytest.raises(RpcError) as caught:  # no "arguments" at all
            await client.request("prompts/get", {"name": "code_review"}, TIMEOUT)
        assert caught.value.code == -32602
        await client.ping(TIMEOUT)


@pytest.mark.parametrize(
    "arguments", [{"code": 42}, ["x = 1"], "code=x", {"code": "x", "colour": "red"}]
)
async def test_bad_arguments_are_invalid_params(arguments: Any) -> None:
    async with connected(writer()) as client:
        await assert_invalid(client, "code_review", arguments)


async def test_a_failing_prompt_is_an_internal_error_and_the_server_lives_on() -> None:
    server = writer()

    @server.prompt()
    def broken() -> str:
        """Always fails."""
        raise RuntimeError("template missing")

    async with connected(server) as client:
        with pytest.raises(RpcError) as caught:
            await get(client, "broken")
        assert caught.value.code == -32603
        await client.ping(TIMEOUT)
        assert (await get(client, "general-summary"))["messages"]


async def test_explicit_arguments() -> None:
    server = PromptServer("explicit")
    server.add_prompt(
        lambda **arguments: f"Hello {arguments.get('who', 'world')}",
        "hello",
        arguments=[PromptArgument("who", "Who to greet", required=False)],
    )
    async with connected(server) as client:
        assert (await client.request("prompts/list", {}, TIMEOUT))["prompts"][0]["arguments"] == [
            {"name": "who", "description": "Who to greet", "required": False}
        ]
        assert (await get(client, "hello"))["messages"][0]["content"]["text"] == "Hello world"
        assert (await get(client, "hello", {"who": "Ana"}))["messages"][0]["content"][
            "text"
        ] == "Hello Ana"


async def test_prompts_list_is_paginated() -> None:
    server = PromptServer("many", page_size=3)
    for i in range(7):
        server.add_prompt(lambda: "x", f"prompt-{i}")
    async with connected(server) as client:
        names: list[str] = []
        params: dict[str, Any] = {}
        for _ in range(10):
            page = await client.request("prompts/list", params, TIMEOUT)
            assert len(page["prompts"]) <= 3
            names += [prompt["name"] for prompt in page["prompts"]]
            if "nextCursor" not in page:
                break
            params = {"cursor": page["nextCursor"]}
        assert names == [f"prompt-{i}" for i in range(7)]
        with pytest.raises(RpcError) as caught:
            # not one of ours
            await client.request("prompts/list", {"cursor": "eyJwYWdlIjogM30="}, TIMEOUT)
        assert caught.value.code == -32602
        await client.ping(TIMEOUT)


async def test_adding_a_prompt_tells_live_sessions() -> None:
    server = writer()
    notes: Notes = asyncio.Queue()
    async with connected(server, notes) as client:
        await client.ping(TIMEOUT)
        server.add_prompt(lambda: "new", "late")
        assert await asyncio.wait_for(notes.get(), TIMEOUT) == (
            "notifications/prompts/list_changed",
            {},
        )
        server.remove_prompt("late")
        assert await asyncio.wait_for(notes.get(), TIMEOUT) == (
            "notifications/prompts/list_changed",
            {},
        )
        await assert_invalid(client, "late", {}, "Unknown prompt: late")
