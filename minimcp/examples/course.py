"""The course's example server: the notes' running examples, served over any transport.

Lesson 03 gives it its identity and the handshake; lessons 04–06 add the calendar tool, the
courses resources and templates, and the prompts.
"""

from __future__ import annotations

from ..server import Server

INSTRUCTIONS = (
    "The course server of MCP from Scratch. It knows a small catalogue of courses and a calendar."
)


def build_server() -> Server:
    """A fresh example server (each call builds a new one, so tests never share state)."""
    return Server("course-server", "0.1.0", title="MCP from Scratch: course server",
                  instructions=INSTRUCTIONS)
