"""The course's example server: the notes' running examples, served over any transport.

``python -m minimcp serve`` serves it, with the later lessons plugged in; ``python -m
minimcp.examples.course`` serves it as lesson 06 leaves it, on stdin and stdout. Everything it
knows comes from ``course_data.json``, next to this file: a small catalogue of courses, its users,
and a calendar.

* lesson 03: its identity and the handshake;
* lesson 04, tools (:mod:`minimcp.examples.course_tools`, the server as of lesson 04):
  ``read_events(date)``, the notes' calendar tool; ``find_similar_courses(ids)``, which answers
  structured content; ``run_analysis(steps)``, a slow "data analysis script" that reports its
  progress (lesson 08 streams it over HTTP);
* lesson 05, resources: ``courses://all`` and ``users://all``, and the template ``courses://{id}``;
* lesson 06, prompts: ``course-similar-by-name(names)``, which turns course names into IDs and
  writes the instruction for the model; ``general-summary``; ``course-overview(id)``, which embeds
  the course's resource in the prompt.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Annotated, Any

from minimcp.examples.course_tools import (
    INSTRUCTIONS,
    MAX_STEPS,
    add_tools,
    courses_by_id,
    load_data,
)
from minimcp.examples.over_stdio import serve_over_stdio
from minimcp.rpc.jsonrpc import INVALID_PARAMS, RpcError
from minimcp.server.content import embedded_resource
from minimcp.server.prompts import PromptServer, user

# The names tests and notebooks import from here
__all__ = ["MAX_STEPS", "build_server", "load_data"]


def plain(text: str) -> str:
    """Lower case without accents, so that "Caché" finds "Cache Strategies"."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def build_server(
    *,
    step_delay: float = 0.05,
    data: dict[str, Any] | None = None,
    kind: type[PromptServer] = PromptServer,
) -> PromptServer:
    """A fresh example server (each call builds a new one, so tests never share state).

    It is a server of lessons 03-06 and nothing more, so it runs on "minimcp as of lesson 06";
    ``complete(build_server())`` (:mod:`minimcp.examples.complete`) plugs the later lessons in, as
    ``python -m minimcp serve`` does.

    ``step_delay`` is how long each step of ``run_analysis`` takes; tests make it tiny. ``kind`` is
    the class to build: a later lesson's server, built on lesson 06's, brings its own features
    (``build_server(kind=Server)`` gives lesson 09's, with logging and completion).
    """
    data = data if data is not None else load_data()
    courses = courses_by_id(data)
    server = kind(
        "course-server", "0.1.0", title="MCP from Scratch: course server", instructions=INSTRUCTIONS
    )
    add_tools(server, data, step_delay)  # lesson 04: tools (minimcp/examples/course_tools.py)
    add_resources(server, courses, data["users"])  # lesson 05: resources and templates
    add_similar_prompt(server, courses)  # lesson 06: prompts
    add_other_prompts(server, courses)
    return server


def add_resources(
    server: PromptServer, courses: dict[str, dict[str, Any]], users: list[dict[str, Any]]
) -> None:
    """The notes' resources: ``courses://all``, ``users://all``, the template ``courses://{id}``."""

    # --8<-- [start:resources]
    @server.resource(
        "courses://all",
        name="courses",
        title="All Courses",
        description="Complete list of courses available in the catalog",
        mime_type="application/json",
    )
    def all_courses() -> list[dict[str, str]]:
        return [{"id": course["id"], "name": course["name"]} for course in courses.values()]

    @server.resource(
        "users://all",
        name="users",
        title="All Users",
        description="Complete list of users in the platform",
        mime_type="application/json",
    )
    def all_users() -> list[dict[str, Any]]:
        return users

    @server.template(
        "courses://{id}",
        name="course-details",
        title="Course Detail",
        description="Get detailed information for a course by id",
        mime_type="application/json",
    )
    def course_details(id: str) -> dict[str, Any] | None:
        return courses.get(id)  # None: no such course, and the client gets -32002

    # --8<-- [end:resources]


def add_similar_prompt(server: PromptServer, courses: dict[str, dict[str, Any]]) -> None:
    """The notes' prompt ``course-similar-by-name``: names, which the user knows, to IDs."""

    # --8<-- [start:prompts]
    @server.prompt(
        name="course-similar-by-name",
        title="Find similar courses by name",
        description="Given one or more course names, build a prompt that asks the LLM to "
        "search similar courses using tools and IDs.",
    )
    def similar_by_name(
        names: Annotated[str, "Comma-separated list of course names to use as reference"],
    ) -> str:
        # The user knows names; the tool needs IDs. The server, which knows both, translates.
        wanted = [name.strip() for name in names.split(",") if name.strip()]
        ids: list[str] = []
        missing = []
        for name in wanted:
            matches = [c["id"] for c in courses.values() if plain(name) in plain(c["name"])]
            ids += [course_id for course_id in matches if course_id not in ids]
            if not matches:
                missing.append(name)
        if not ids:
            raise RpcError(
                INVALID_PARAMS,
                f"No course matches {', '.join(map(repr, wanted)) or 'no name'}: "
                "the catalogue is the resource courses://all",
            )
        text = (
            f"Find similar courses using the tool find_similar_courses with these course IDs: "
            f"{', '.join(ids)} (the courses named {', '.join(courses[i]['name'] for i in ids)}). "
            "Finally, answer the user with a short description of the most relevant "
            "similar courses."
        )
        if missing:
            text += f" No course matched {', '.join(map(repr, missing))}; say so."
        return text


def add_other_prompts(server: PromptServer, courses: dict[str, dict[str, Any]]) -> None:
    """Two more prompts: one without arguments, one that embeds a resource."""

    @server.prompt(
        name="general-summary",
        title="General summary",
        description="A reusable instruction to summarize content",
    )
    def general_summary() -> str:
        return (
            "Summarize the following content in a concise way, highlighting key concepts and "
            "main sections."
        )

    @server.prompt(
        name="course-overview",
        title="Course overview",
        description="Put one course's details in the conversation and ask for an overview",
    )
    def course_overview(id: Annotated[str, "The course ID, e.g. AI101"]) -> list[dict[str, Any]]:
        course = courses.get(id)
        if course is None:
            raise RpcError(
                INVALID_PARAMS,
                f"Unknown course ID {id!r}: the catalogue is the resource courses://all",
            )
        return [
            user(
                embedded_resource(
                    f"courses://{id}",
                    text=json.dumps(course, ensure_ascii=False),
                    mime_type="application/json",
                )
            ),
            user(
                "Give a short overview of this course: who it is for, what it covers, and how long "
                "it takes."
            ),
        ]

    # --8<-- [end:prompts]


def main() -> None:
    """``python -m minimcp.examples.course``."""
    serve_over_stdio(build_server)


if __name__ == "__main__":
    main()
