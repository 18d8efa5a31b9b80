"""Lesson 12, the server's side, with the official Python SDK (``mcp==2.3.0``): a tool that asks
the user, in both eras.

``link_github`` needs the user's GitHub name. Its parameter is filled by a *resolver*,
``Resolve(ask_github_user)``, which returns the question, ``Elicit(...)``; the SDK asks it the way
the client's era wants. In 2025-11-25 it sends ``elicitation/create`` and waits (lesson 09). In
2026-07-28, with no connection back, it answers the call ``input_required`` with the question and a
``requestState`` it seals (AES-GCM, a key of this process), and runs the tool when the client calls
again with ``inputResponses`` (lesson 12, section 4). The server speaks both eras on stdio, and
answers ``server/discover``::

    python sdk/lesson12_both_eras_server.py

``tests/test_sdk_lesson12.py`` starts it with ``minimcp``'s client in ``Mode.AUTO`` and in the
2025-11-25 era. This file is not part of ``minimcp``, which never imports ``mcp``.
"""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Elicit, MCPServer, Resolve
from pydantic import BaseModel, Field

server = MCPServer("lesson-12", instructions="A tool that asks the user, in either era.")


class GitHubUser(BaseModel):
    """The form: one field, which the SDK turns into a flat JSON schema."""

    github_user: str = Field(title="GitHub user", min_length=1, max_length=39)


# --8<-- [start:box]
async def ask_github_user() -> Elicit[GitHubUser]:
    return Elicit("What is your GitHub user?", GitHubUser)


@server.tool()
async def link_github(user: Annotated[GitHubUser, Resolve(ask_github_user)]) -> str:
    """Ask the user for their GitHub user name and link it."""
    return f"Linked to GitHub user {user.github_user}."


# --8<-- [end:box]


def main() -> None:
    """``python sdk/lesson12_both_eras_server.py``: serve over stdio until stdin ends."""
    server.run()


if __name__ == "__main__":
    main()
