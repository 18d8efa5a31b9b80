"""Lesson 12, the client's side, with the official Python SDK (``mcp==2.3.0``): a client that does
not know the server's era.

It starts the course's assistant server (``python -m minimcp serve --example assistant``), which
speaks both eras, and calls ``link_github``, whose tool asks the user. ``Client``'s default mode,
``"auto"``, is lesson 12's ``Mode.AUTO``: it probes with ``server/discover`` and falls back to
``initialize`` if the server does not know it. In 2026-07-28 every request carries the ``_meta``
envelope, and the question comes back inside an ``input_required`` answer: ``call_tool`` hands it
to the elicitation callback and calls again with ``inputResponses`` and the sealed
``requestState``, all inside one call.

    python sdk/lesson12_auto_client.py                          # the assistant server
    python sdk/lesson12_auto_client.py python -m minimcp serve --example assistant --legacy-only

``tests/test_sdk_lesson12.py`` runs it, and writes down what it sent on the wire. This file is not
part of ``minimcp``, which never imports ``mcp``.
"""

from __future__ import annotations

import sys

import anyio
from mcp import Client, StdioServerParameters, types
from mcp.client.session import ClientRequestContext

ASSISTANT = [sys.executable, "-m", "minimcp", "serve", "--example", "assistant"]


def text_of(result: types.CallToolResult) -> str:
    """The text blocks of a tool's result, joined."""
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


async def elicitation(
    context: ClientRequestContext, params: types.ElicitRequestParams
) -> types.ElicitResult:
    """The user, scripted: asked for their GitHub user, they type "octocat"."""
    print("elicitation:", params.message)
    return types.ElicitResult(action="accept", content={"github_user": "octocat"})


async def link(command: list[str]) -> None:
    """Start the server ``command``, find its era, and call ``link_github``."""
    server = StdioServerParameters(command=command[0], args=command[1:])
    # --8<-- [start:box]
    async with Client(server, mode="auto", elicitation_callback=elicitation) as client:
        print("protocol", client.protocol_version)  # 2026-07-28 if server/discover was answered
        result = await client.call_tool("link_github", {})  # input_required, answered, retried
        print("link_github:", text_of(result))
    # --8<-- [end:box]


def main() -> None:
    """``python sdk/lesson12_auto_client.py [COMMAND...]``."""
    anyio.run(link, sys.argv[1:] or ASSISTANT)


if __name__ == "__main__":
    main()
