"""Lesson 06's client side, with the official Python SDK (``mcp==2.3.0``): list and get prompts.

It starts the course server (``python -m minimcp serve``) as a child process, lists its prompts
with their arguments, and gets ``course-similar-by-name`` for two course names: the messages the
server wrote, which a host would paste into the conversation. Which prompt to get is the user's
choice (a slash command in a host); here, the script's.

    python sdk/lesson06_prompts_client.py                    # the course server
    python sdk/lesson06_prompts_client.py COMMAND [ARGS...]  # another server

``tests/test_sdk_lesson06.py`` runs it. This file is not part of ``minimcp``, which never imports
``mcp``.
"""

from __future__ import annotations

import sys

import anyio
from mcp import Client, StdioServerParameters
from mcp_types import PromptMessage, TextContent

COURSE_SERVER = [sys.executable, "-m", "minimcp", "serve"]


def shown(message: PromptMessage) -> str:
    """One prompt message as a line: its role, and its text (or the kind of block it holds)."""
    content = message.content
    return f"{message.role}: {content.text if isinstance(content, TextContent) else content.type}"


async def get_prompts(command: list[str]) -> None:
    """Start the server ``command``, list its prompts, get one with an argument."""
    server = StdioServerParameters(command=command[0], args=command[1:])
    # --8<-- [start:box]
    async with Client(server, mode="legacy") as client:
        for prompt in (await client.list_prompts()).prompts:
            print(prompt.name, [argument.name for argument in prompt.arguments or []])
        arguments = {"names": "SQL Views, Caché"}  # what the user typed: names, not IDs
        result = await client.get_prompt("course-similar-by-name", arguments)
        for message in result.messages:  # what the host pastes into the conversation
            print(shown(message))
    # --8<-- [end:box]


def main() -> None:
    """``python sdk/lesson06_prompts_client.py [COMMAND...]``."""
    anyio.run(get_prompts, sys.argv[1:] or COURSE_SERVER)


if __name__ == "__main__":
    main()
