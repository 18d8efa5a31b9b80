"""Lesson 06's boxes: a prompt with an argument on the official SDK's server, got by its client.

Both directions: ``minimcp``'s client lists and gets the prompt of
``sdk/lesson06_prompts_server.py`` (names in, IDs out, and -32602 when no name finds a course), and
``sdk/lesson06_prompts_client.py`` runs against the course server, ``python -m minimcp serve``.
"""

from __future__ import annotations

import pytest
from sdk_support import run_sdk_script, sdk_server

pytest.importorskip("mcp", reason="the SDK boxes' tests need the official SDK (mcp==2.3.0)")

from minimcp.rpc import RpcError  # noqa: E402
from minimcp.rpc.jsonrpc import INVALID_PARAMS  # noqa: E402

TIMEOUT = 30.0
SERVER = "lesson06_prompts_server.py"


async def test_minimcp_lists_and_gets_the_sdk_servers_prompt() -> None:
    async with sdk_server(SERVER) as client:
        assert "prompts" in client.server_capabilities
        (prompt,) = await client.list_prompts(timeout=TIMEOUT)
        assert (prompt["name"], prompt["title"]) == (
            "course-similar-by-name",
            "Find similar courses by name",
        )
        # The function's parameter, made into the prompt's argument by the SDK
        assert prompt["arguments"] == [{"name": "names", "required": True}]

        names = {"names": "SQL Views, Cache Strategies"}
        result = await client.get_prompt("course-similar-by-name", names, timeout=TIMEOUT)
        assert result["messages"] == [
            {
                "role": "user",
                "content": {
                    "type": "text",
                    "text": "Find similar courses with the tool find_similar_courses, IDs: "
                    "v1ws, c4ch.",
                },
            }
        ]


async def test_bad_arguments_are_refused_and_the_session_goes_on() -> None:
    async with sdk_server(SERVER) as client:
        with pytest.raises(RpcError) as caught:
            await client.get_prompt(
                "course-similar-by-name", {"names": "Knitting"}, timeout=TIMEOUT
            )
        assert (caught.value.code, caught.value.message) == (
            INVALID_PARAMS,
            "No course matched 'Knitting'",
        )
        # A required argument missing: refused by the SDK before the function runs
        with pytest.raises(RpcError) as caught:
            await client.get_prompt("course-similar-by-name", {}, timeout=TIMEOUT)
        assert caught.value.message == "Missing required arguments: {'names'}"
        result = await client.get_prompt(
            "course-similar-by-name", {"names": "intro to AI"}, timeout=TIMEOUT
        )
        assert result["messages"][0]["content"]["text"].endswith("IDs: AI101.")


async def test_the_sdk_client_lists_and_gets_the_course_servers_prompts() -> None:
    printed = await run_sdk_script("lesson06_prompts_client.py")
    assert printed.splitlines() == [
        "course-similar-by-name ['names']",
        "general-summary []",
        "course-overview ['id']",
        "user: Find similar courses using the tool find_similar_courses with these course IDs: "
        "v1ws, c4ch (the courses named SQL Views, Cache Strategies). Finally, answer the user with "
        "a short description of the most relevant similar courses.",
    ]
