"""Lesson 09, the client's side, with the official Python SDK (``mcp==2.3.0``): answering the
server's questions.

It starts the course's assistant server (``python -m minimcp serve --example assistant``), whose
tools ask back, and calls two of them: ``xml_to_json`` asks the client's model
(``sampling/createMessage``), ``link_github`` asks its user (``elicitation/create``). Each question
reaches a callback; giving ``Client`` a callback is what declares the capability in
``initialize``, as ``ClientAnswers`` does in lesson 09. A real host would ask a person and its
model; these callbacks answer as a person who approves and types "octocat" would.

    python sdk/lesson09_answers_client.py                          # the assistant server
    python sdk/lesson09_answers_client.py python -m minimcp serve --example assistant

``tests/test_sdk_lesson09.py`` runs it. This file is not part of ``minimcp``, which never imports
``mcp``.
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


# --8<-- [start:box]
async def sampling(
    context: ClientRequestContext, params: types.CreateMessageRequestParams
) -> types.CreateMessageResult:
    print("sampling:", params.system_prompt)  # the host's model would answer here
    answer = types.TextContent(type="text", text='{"a": "1"}')
    return types.CreateMessageResult(
        role="assistant", content=answer, model="by-hand", stop_reason="endTurn"
    )


async def elicitation(
    context: ClientRequestContext, params: types.ElicitRequestParams
) -> types.ElicitResult:
    print("elicitation:", params.message)  # the host would show a form to its user here
    return types.ElicitResult(action="accept", content={"github_user": "octocat"})


async def ask_back(command: list[str]) -> None:
    server = StdioServerParameters(command=command[0], args=command[1:])
    async with Client(
        server, mode="legacy", sampling_callback=sampling, elicitation_callback=elicitation
    ) as client:
        result = await client.call_tool("xml_to_json", {"xml": "<a>1</a>"})
        print("xml_to_json:", text_of(result))
        result = await client.call_tool("link_github", {})
        print("link_github:", text_of(result))


# --8<-- [end:box]


def main() -> None:
    """``python sdk/lesson09_answers_client.py [COMMAND...]``."""
    anyio.run(ask_back, sys.argv[1:] or ASSISTANT)


if __name__ == "__main__":
    main()
