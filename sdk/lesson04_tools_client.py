"""Lesson 04's client side, with the official Python SDK (``mcp==2.3.0``): list tools, call them.

It starts the course server (``python -m minimcp serve``) as a child process, lists its tools,
calls ``read_events`` twice (a good date, then one in the wrong format: a result with ``isError``,
not a protocol error), and ``find_similar_courses``, whose result also carries structured content.

    python sdk/lesson04_tools_client.py                    # the course server
    python sdk/lesson04_tools_client.py COMMAND [ARGS...]  # another server

``tests/test_sdk_lesson04.py`` runs it. This file is not part of ``minimcp``, which never imports
``mcp``.
"""

from __future__ import annotations

import sys

import anyio
from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult, TextContent

COURSE_SERVER = [sys.executable, "-m", "minimcp", "serve"]


def text_of(result: CallToolResult) -> str:
    """The text blocks of a tool's result, one after the other."""
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


async def use_tools(command: list[str]) -> None:
    """Start the server ``command``, list its tools, call two of them, print what came back."""
    server = StdioServerParameters(command=command[0], args=command[1:])
    # --8<-- [start:box]
    async with Client(server, mode="legacy") as client:  # mode="legacy": lesson 03's initialize
        for tool in (await client.list_tools()).tools:
            print(f"{tool.name}: {tool.description}")
        result = await client.call_tool("read_events", {"date": "2025-03-21"})
        print(text_of(result))
        result = await client.call_tool("read_events", {"date": "21/03/2025"})
        print("isError:", result.is_error, "-", text_of(result))
        result = await client.call_tool("find_similar_courses", {"ids": ["c4ch"], "limit": 2})
        print(result.structured_content)
    # --8<-- [end:box]


def main() -> None:
    """``python sdk/lesson04_tools_client.py [COMMAND...]``."""
    anyio.run(use_tools, sys.argv[1:] or COURSE_SERVER)


if __name__ == "__main__":
    main()
