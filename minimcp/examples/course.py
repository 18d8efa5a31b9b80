"""The course's example server: the notes' running examples, served over any transport.

``python -m minimcp serve`` serves it. Everything it knows comes from ``course_data.json``, next to
this file: a small catalogue of courses, its users, and a calendar.

* lesson 03: its identity and the handshake;
* lesson 04, tools: ``read_events(date)``, the notes' calendar tool; ``find_similar_courses(ids)``,
  which answers structured content; ``run_analysis(steps)``, a slow "data analysis script" that
  reports its progress (lesson 08 streams it over HTTP);
* lesson 05, resources: ``courses://all`` and ``users://all``, and the template ``courses://{id}``;
* lesson 06, prompts: ``course-similar-by-name(names)``, which turns course names into IDs and
  writes the instruction for the model; ``general-summary``; ``course-overview(id)``, which embeds
  the course's resource in the prompt.
"""

from __future__ import annotations

import asyncio
import json
import re
import unicodedata
from collections import Counter
from datetime import datetime
from importlib import resources as package_files
from typing import Annotated, Any

from minimcp.rpc.jsonrpc import INVALID_PARAMS, RpcError
from minimcp.server.content import embedded_resource
from minimcp.server.prompts import PromptServer, user
from minimcp.server.tools import ToolError, report_progress
from minimcp.session.server import RequestContext

INSTRUCTIONS = (
    "The course server of MCP from Scratch. It knows a small catalogue of courses and a calendar."
)

#: The notes' own inputSchema for read_events (§6.1.3), given as it is rather than derived.
READ_EVENTS_SCHEMA = {
    "type": "object",
    "properties": {
        "date": {"type": "string", "description": "Date to read events.\nFormat: YYYY-MM-DD"},
    },
    "required": ["date"],
}

SIMILAR_COURSES_SCHEMA = {
    "type": "object",
    "properties": {
        "similar": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "name": {"type": "string"},
                    "level": {"type": "string"},
                    "shared_tags": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["id", "name", "level", "shared_tags"],
            },
        },
    },
    "required": ["similar"],
}

MAX_STEPS = 100


def load_data() -> dict[str, Any]:
    """The example's data, read afresh from the JSON file shipped with the package."""
    text = package_files.files("minimcp.examples").joinpath("course_data.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def plain(text: str) -> str:
    """Lower case without accents, so that "Caché" finds "Cache Strategies"."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def build_server(*, step_delay: float = 0.05, data: dict[str, Any] | None = None,
                 kind: type[PromptServer] = PromptServer) -> PromptServer:
    """A fresh example server (each call builds a new one, so tests never share state).

    It is a server of lessons 03-06 and nothing more, so it runs on "minimcp as of lesson 06";
    ``complete(build_server())`` (:mod:`minimcp.examples.complete`) plugs the later lessons in, as
    ``python -m minimcp serve`` does.

    ``step_delay`` is how long each step of ``run_analysis`` takes; tests make it tiny. ``kind`` is
    the class to build: a later lesson's server, built on lesson 06's, brings its own features
    (``build_server(kind=Server)`` gives lesson 09's, with logging and completion).
    """
    data = data if data is not None else load_data()
    courses: dict[str, dict[str, Any]] = {course["id"]: course for course in data["courses"]}
    server = kind("course-server", "0.1.0", title="MCP from Scratch: course server",
                  instructions=INSTRUCTIONS)
    add_calendar(server, data["events"])  # lesson 04: tools
    add_course_tools(server, courses, step_delay)
    add_resources(server, courses, data["users"])  # lesson 05: resources and templates
    add_similar_prompt(server, courses)  # lesson 06: prompts
    add_other_prompts(server, courses)
    return server


def add_calendar(server: PromptServer, events: dict[str, list[dict[str, str]]]) -> None:
    """The notes' calendar tool: ``read_events(date)``."""
    # --8<-- [start:read_events]
    @server.tool(title="Read calendar events", description="Read calendar events for a given day",
                 input_schema=READ_EVENTS_SCHEMA)
    def read_events(date: str) -> str:
        # The schema only says "a string"; the format is checked here, and a wrong one is reported
        # to the model (an isError result) with what it should send instead.
        try:
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date):
                raise ValueError
            datetime.strptime(date, "%Y-%m-%d")
        except ValueError:
            raise ToolError(f"Invalid date {date!r}: use the format YYYY-MM-DD, e.g. 2025-03-21") from None
        day = events.get(date, [])
        if not day:
            return f"No events for {date}."
        return f"Events for {date}:\n" + "\n".join(f"- {e['time']} {e['title']}" for e in day)
    # --8<-- [end:read_events]


def add_course_tools(server: PromptServer, courses: dict[str, dict[str, Any]], step_delay: float) -> None:
    """Two tools over the catalogue: one with an output schema, one long and reporting progress."""
    # --8<-- [start:find_similar_courses]
    @server.tool(title="Find similar courses", output_schema=SIMILAR_COURSES_SCHEMA)
    def find_similar_courses(
        ids: Annotated[list[str], "Course IDs, e.g. [\"v1ws\", \"c4ch\"]"],
        limit: Annotated[int, {"minimum": 1, "maximum": 20}] = 5,
    ) -> dict[str, Any]:
        """Find courses similar to the given ones (by course ID): those sharing the most topics."""
        unknown = [course_id for course_id in ids if course_id not in courses]
        if unknown:
            raise ToolError(f"Unknown course ID(s): {', '.join(unknown)}. The IDs are listed in the "
                            "resource courses://all; the prompt course-similar-by-name finds them by name.")
        wanted = {tag for course_id in ids for tag in courses[course_id]["tags"]}
        scored = []
        for course in courses.values():
            shared = sorted(wanted & set(course["tags"]))
            if course["id"] not in ids and shared:
                scored.append((-len(shared), course["id"], course, shared))
        scored.sort(key=lambda entry: entry[:2])  # most shared topics first, then by ID: deterministic
        return {"similar": [{"id": course["id"], "name": course["name"], "level": course["level"],
                             "shared_tags": shared} for _, _, course, shared in scored[:limit]]}
    # --8<-- [end:find_similar_courses]

    # --8<-- [start:run_analysis]
    @server.tool(title="Run the data analysis script")
    async def run_analysis(
        steps: Annotated[int, "How many steps the analysis takes", {"minimum": 1, "maximum": MAX_STEPS}],
        context: RequestContext,
    ) -> str:
        """Analyse the course catalogue, slowly, reporting progress after every step."""
        for step in range(1, steps + 1):
            await asyncio.sleep(step_delay)  # the "work" of one step
            await report_progress(context, step, total=steps, message=f"Step {step} of {steps}")
        levels = Counter(course["level"] for course in courses.values())
        tags = Counter(tag for course in courses.values() for tag in course["tags"])
        tag, count = min(tags.items(), key=lambda item: (-item[1], item[0]))
        hours = sum(course["hours"] for course in courses.values())
        by_level = ", ".join(f"{levels[level]} {level}" for level in ("Beginner", "Intermediate", "Advanced"))
        return (f"Analysed {len(courses)} courses in {steps} steps: {hours} hours in total; {by_level}; "
                f"most common topic: {tag} ({count} courses).")
    # --8<-- [end:run_analysis]


def add_resources(server: PromptServer, courses: dict[str, dict[str, Any]], users: list[dict[str, Any]]) -> None:
    """The notes' resources: ``courses://all``, ``users://all`` and the template ``courses://{id}``."""
    # --8<-- [start:resources]
    @server.resource("courses://all", name="courses", title="All Courses",
                     description="Complete list of courses available in the catalog",
                     mime_type="application/json")
    def all_courses() -> list[dict[str, str]]:
        return [{"id": course["id"], "name": course["name"]} for course in courses.values()]

    @server.resource("users://all", name="users", title="All Users",
                     description="Complete list of users in the platform", mime_type="application/json")
    def all_users() -> list[dict[str, Any]]:
        return users

    @server.template("courses://{id}", name="course-details", title="Course Detail",
                     description="Get detailed information for a course by id", mime_type="application/json")
    def course_details(id: str) -> dict[str, Any] | None:
        return courses.get(id)  # None: no such course, and the client gets -32002
    # --8<-- [end:resources]


def add_similar_prompt(server: PromptServer, courses: dict[str, dict[str, Any]]) -> None:
    """The notes' prompt ``course-similar-by-name``: names, which the user knows, to IDs."""
    # --8<-- [start:prompts]
    @server.prompt(name="course-similar-by-name", title="Find similar courses by name",
                   description="Given one or more course names, build a prompt that asks the LLM to "
                               "search similar courses using tools and IDs.")
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
            raise RpcError(INVALID_PARAMS, f"No course matches {', '.join(map(repr, wanted)) or 'no name'}: "
                           "the catalogue is the resource courses://all")
        text = (f"Find similar courses using the tool find_similar_courses with these course IDs: "
                f"{', '.join(ids)} (the courses named {', '.join(courses[i]['name'] for i in ids)}). "
                "Finally, answer the user with a short description of the most relevant similar courses.")
        if missing:
            text += f" No course matched {', '.join(map(repr, missing))}; say so."
        return text


def add_other_prompts(server: PromptServer, courses: dict[str, dict[str, Any]]) -> None:
    """Two more prompts: one without arguments, one that embeds a resource."""
    @server.prompt(name="general-summary", title="General summary",
                   description="A reusable instruction to summarize content")
    def general_summary() -> str:
        return ("Summarize the following content in a concise way, highlighting key concepts and "
                "main sections.")

    @server.prompt(name="course-overview", title="Course overview",
                   description="Put one course's details in the conversation and ask for an overview")
    def course_overview(id: Annotated[str, "The course ID, e.g. AI101"]) -> list[dict[str, Any]]:
        course = courses.get(id)
        if course is None:
            raise RpcError(INVALID_PARAMS, f"Unknown course ID {id!r}: the catalogue is the resource "
                           "courses://all")
        return [
            user(embedded_resource(f"courses://{id}", text=json.dumps(course, ensure_ascii=False),
                                   mime_type="application/json")),
            user("Give a short overview of this course: who it is for, what it covers, and how long "
                 "it takes."),
        ]
    # --8<-- [end:prompts]
