"""Lesson 05's resources, on a server written with the official Python SDK (``mcp==2.3.0``).

The course's catalogue in small: a fixed resource, ``courses://all``, and a template,
``courses://{id}``, one resource per course. Each is a decorated function; a URI with a variable in
braces makes a template, and the SDK matches a URI a client reads against the templates and calls
the function with the variable's value. A course that does not exist is ``ResourceNotFoundError``.

A client starts it as a child process::

    python sdk/lesson05_resources_server.py

``tests/test_sdk_lesson05.py`` does, with ``minimcp``'s client. This file is not part of
``minimcp``, which never imports ``mcp``.
"""

from __future__ import annotations

import json

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError

COURSES = {
    "AI101": {"id": "AI101", "name": "Intro to AI", "level": "Beginner"},
    "c4ch": {"id": "c4ch", "name": "Cache Strategies", "level": "Intermediate"},
}

# --8<-- [start:box]
server = MCPServer("catalogue-sdk", instructions="A course catalogue, served by the official SDK.")


@server.resource("courses://all", name="courses", mime_type="application/json")
def all_courses() -> str:
    """Every course in the catalogue."""
    return json.dumps(list(COURSES.values()))


@server.resource("courses://{id}", name="course-details", mime_type="application/json")
def course_details(id: str) -> str:
    """One course, by its ID."""
    if id not in COURSES:
        raise ResourceNotFoundError(f"No course with ID {id!r}")
    return json.dumps(COURSES[id])


# --8<-- [end:box]


def main() -> None:
    """``python sdk/lesson05_resources_server.py``: serve on stdin and stdout."""
    server.run("stdio")


if __name__ == "__main__":
    main()
