"""The host's keyword router: which resources to paste before a user's message (lesson 05).

Resources are the host's choice, not the model's. The notes' client decides with an "if": a message
that mentions courses gets the catalogue pasted before it. A :class:`Route` is one such rule.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Route:
    """If a user message contains any of ``keywords`` (case-insensitive), paste resource ``uri``.

    ``server`` names the server to read it from; None means whichever server lists that URI.
    """

    keywords: tuple[str, ...]
    uri: str
    server: str | None = None


#: The notes' example: a question about courses (or "cursos") gets the course catalogue.
DEFAULT_ROUTES = (
    Route(("course", "curso"), "courses://all"),
    Route(("user", "usuario"), "users://all"),
)
