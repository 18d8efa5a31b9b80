"""Lesson 04's calendar tool, on a server written with the official Python SDK (``mcp==2.3.0``).

``read_events(date)`` is the notes' calendar tool, as in the course server (with a smaller calendar
of its own): a decorated function whose signature becomes the tool's ``inputSchema`` and whose
docstring becomes its description. A date in the wrong format is a ``ToolError``: a result with
``isError``, written for the model. The SDK builds the schema, checks every call's arguments
against it, and answers ``tools/list`` and ``tools/call``.

A client starts it as a child process::

    python sdk/lesson04_tools_server.py

``tests/test_sdk_lesson04.py`` does, with ``minimcp``'s client. This file is not part of
``minimcp``, which never imports ``mcp``.
"""

from __future__ import annotations

import re
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

EVENTS = {
    "2025-03-21": ["09:00 Doctor appointment", "12:30 Team meeting", "18:00 Gym session"],
}

# --8<-- [start:box]
server = MCPServer("calendar-sdk", instructions="A calendar, served by the official SDK.")


@server.tool(title="Read calendar events")
def read_events(
    date: Annotated[str, Field(description="Date to read events.\nFormat: YYYY-MM-DD")],
) -> str:
    """Read calendar events for a given day."""
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date):
        raise ToolError(f"Invalid date {date!r}: use the format YYYY-MM-DD, e.g. 2025-03-21")
    day = EVENTS.get(date, [])
    return f"Events for {date}:\n" + "\n".join(f"- {event}" for event in day)


# --8<-- [end:box]


def main() -> None:
    """``python sdk/lesson04_tools_server.py``: serve on stdin and stdout."""
    server.run("stdio")


if __name__ == "__main__":
    main()
