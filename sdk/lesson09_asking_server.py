"""Lesson 09, the server's side, with the official Python SDK (``mcp==2.3.0``): tools that ask
the client back.

Three tools, each needing something only the client has, as the course's assistant server
(``python -m minimcp serve --example assistant``) does: ``xml_to_json`` borrows the client's model
(``sampling/createMessage``), ``link_github`` asks its user with a form (``elicitation/create``),
``where_may_i_work`` asks for its roots (``roots/list``). Over stdio:

    python sdk/lesson09_asking_server.py

``tests/test_sdk_lesson09.py`` starts it with ``minimcp``'s ``stdio_client`` and answers every
question with ``ClientAnswers``. This file is not part of ``minimcp``, which never imports ``mcp``.
"""

from __future__ import annotations

from mcp import types
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

server = MCPServer("lesson-09", instructions="Tools that ask the client's model and its user.")


class GitHubUser(BaseModel):
    """The form ``link_github`` shows: one field, which the SDK turns into a flat JSON schema."""

    github_user: str = Field(title="GitHub user", min_length=1, max_length=39)


# --8<-- [start:box]
@server.tool()
async def xml_to_json(xml: str, ctx: Context) -> str:
    """Convert an XML document to JSON, with the client's model."""
    question = types.TextContent(type="text", text=f"Translate this XML to JSON:\n{xml}")
    answer = await ctx.session.create_message(
        [types.SamplingMessage(role="user", content=question)],
        max_tokens=2000,
        system_prompt="You convert XML documents to JSON. Answer with the JSON only.",
    )
    return answer.content.text if isinstance(answer.content, types.TextContent) else ""


@server.tool()
async def link_github(ctx: Context) -> str:
    """Ask the user for their GitHub user name and link it."""
    answer = await ctx.elicit("What is your GitHub user?", GitHubUser)
    if answer.action != "accept":  # decline or cancel
        return f"Nothing linked: the user chose {answer.action}."
    return f"Linked to GitHub user {answer.data.github_user}."


@server.tool()
async def where_may_i_work(ctx: Context) -> str:
    """The folders the client lets this server see."""
    roots = await ctx.session.list_roots()
    return "\n".join(str(root.uri) for root in roots.roots)


# --8<-- [end:box]


def main() -> None:
    """``python sdk/lesson09_asking_server.py``: serve over stdio until stdin ends."""
    server.run()


if __name__ == "__main__":
    main()
