"""Lesson 06's prompt with an argument, on a server written with the official SDK (``mcp==2.3.0``).

``course-similar-by-name`` is the notes' example, as in the course server (with a smaller catalogue
of its own): the user gives course names, the server finds their IDs and writes the instruction the
model will read, which names the tool and the IDs it needs. The function's parameters become the
prompt's ``arguments`` (``names``, required), its docstring the description, and the string it
returns one ``user`` message. Names that find no course at all are the client's mistake: an
``MCPError`` with -32602 Invalid params travels as it is (any other exception would reach the client
as a vague error).

A client starts it as a child process::

    python sdk/lesson06_prompts_server.py

``tests/test_sdk_lesson06.py`` does, with ``minimcp``'s client. This file is not part of
``minimcp``, which never imports ``mcp``.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

#: Course IDs by name, lower-case: the server's own knowledge, which the model does not have.
COURSE_IDS = {"sql views": "v1ws", "cache strategies": "c4ch", "intro to ai": "AI101"}

# --8<-- [start:box]
server = MCPServer("prompts-sdk", instructions="Prompts over a course catalogue.")


@server.prompt(name="course-similar-by-name", title="Find similar courses by name")
def course_similar_by_name(names: str) -> str:
    """Given course names, ask the model to find similar courses, by their IDs."""
    wanted = [name.strip().lower() for name in names.split(",")]
    ids = [COURSE_IDS[name] for name in wanted if name in COURSE_IDS]
    if not ids:
        raise MCPError(INVALID_PARAMS, f"No course matched {names!r}")  # -32602
    return f"Find similar courses with the tool find_similar_courses, IDs: {', '.join(ids)}."


# --8<-- [end:box]


def main() -> None:
    """``python sdk/lesson06_prompts_server.py``: serve on stdin and stdout."""
    server.run("stdio")


if __name__ == "__main__":
    main()
