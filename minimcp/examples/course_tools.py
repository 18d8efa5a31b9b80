"""The course's example server as of lesson 04: who it is, its data, and its tools.

Everything it knows comes from ``course_data.json``, next to this file: a small catalogue of
courses, its users, and a calendar. Its tools are ``read_events(date)``, the notes' calendar tool;
``find_similar_courses(ids)``, which answers structured content; and ``run_analysis(steps)``, a slow
"data analysis script" that reports its progress (lesson 08 streams it over HTTP). All three only
read, and say so (``"annotations": {"readOnlyHint": true}``): a host may run them without asking.

``python -m minimcp.examples.course_tools`` serves it on stdin and stdout. It needs lessons 01 to 04
only, so it runs on "minimcp as of lesson 04"; lessons 05 and 06 add resources and prompts to the
same server (:mod:`minimcp.examples.course`, which ``python -m minimcp serve`` serves).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from datetime import datetime
from importlib import resources as package_files
from typing import Annotated, Any

from minimcp.examples.over_stdio import serve_over_stdio
from minimcp.server.server import ToolServer
from minimcp.server.tools import ToolError, report_progress
from minimcp.session.context import RequestContext

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


def build_tool_server(
    *, step_delay: float = 0.05, data: dict[str, Any] | None = None
) -> ToolServer:
    """A fresh course server with its tools and nothing else (each call builds a new one).

    ``step_delay`` is how long each step of ``run_analysis`` takes; tests make it tiny.
    """
    data = data if data is not None else load_data()
    server = ToolServer(
        "course-server", "0.1.0", title="MCP from Scratch: course server", instructions=INSTRUCTIONS
    )
    add_tools(server, data, step_delay)
    return server


def courses_by_id(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The catalogue, each course under its ID."""
    return {course["id"]: course for course in data["courses"]}


def add_tools(server: ToolServer, data: dict[str, Any], step_delay: float) -> None:
    """The course's three tools, on ``server`` (lesson 06's course server has them too)."""
    add_calendar(server, data["events"])
    courses = courses_by_id(data)
    add_similar_courses(server, courses)
    add_analysis(server, courses, step_delay)


def add_calendar(server: ToolServer, events: dict[str, list[dict[str, str]]]) -> None:
    """The notes' calendar tool: ``read_events(date)``."""

    # --8<-- [start:read_events]
    @server.tool(
        title="Read calendar events",
        description="Read calendar events for a given day",
        input_schema=READ_EVENTS_SCHEMA,
        # It only reads the calendar: a host may run it without asking the person first
        annotations={"readOnlyHint": True},
    )
    def read_events(date: str) -> str:
        # The schema only says "a string"; the format is checked here, and a wrong one is reported
        # to the model (an isError result) with what it should send instead.
        try:
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date):
                raise ValueError
            datetime.strptime(date, "%Y-%m-%d")
        except ValueError:
            raise ToolError(
                f"Invalid date {date!r}: use the format YYYY-MM-DD, e.g. 2025-03-21"
            ) from None
        day = events.get(date, [])
        if not day:
            return f"No events for {date}."
        return f"Events for {date}:\n" + "\n".join(f"- {e['time']} {e['title']}" for e in day)

    # --8<-- [end:read_events]


def add_similar_courses(server: ToolServer, courses: dict[str, dict[str, Any]]) -> None:
    """A tool over the catalogue that answers structured content, with an output schema."""

    # --8<-- [start:find_similar_courses]
    @server.tool(
        title="Find similar courses",
        output_schema=SIMILAR_COURSES_SCHEMA,
        annotations={"readOnlyHint": True},  # it only reads the catalogue
    )
    def find_similar_courses(
        ids: Annotated[list[str], 'Course IDs, e.g. ["v1ws", "c4ch"]'],
        limit: Annotated[int, {"minimum": 1, "maximum": 20}] = 5,
    ) -> dict[str, Any]:
        """Find courses similar to the given ones (by course ID): those sharing the most topics."""
        unknown = [course_id for course_id in ids if course_id not in courses]
        if unknown:
            raise ToolError(
                f"Unknown course ID(s): {', '.join(unknown)}. The IDs are listed in the "
                "resource courses://all; the prompt course-similar-by-name finds them by name."
            )
        wanted = {tag for course_id in ids for tag in courses[course_id]["tags"]}
        scored = []
        for course in courses.values():
            shared = sorted(wanted & set(course["tags"]))
            if course["id"] not in ids and shared:
                scored.append((-len(shared), course["id"], course, shared))
        # Most shared topics first, then by ID: deterministic
        scored.sort(key=lambda entry: entry[:2])
        return {
            "similar": [
                {
                    "id": course["id"],
                    "name": course["name"],
                    "level": course["level"],
                    "shared_tags": shared,
                }
                for _, _, course, shared in scored[:limit]
            ]
        }

    # --8<-- [end:find_similar_courses]


def add_analysis(server: ToolServer, courses: dict[str, dict[str, Any]], step_delay: float) -> None:
    """A long tool over the catalogue, that reports its progress (``step_delay`` per step)."""

    # --8<-- [start:run_analysis]
    # It reads the catalogue and counts: slow, but it changes nothing
    @server.tool(title="Run the data analysis script", annotations={"readOnlyHint": True})
    async def run_analysis(
        steps: Annotated[
            int, "How many steps the analysis takes", {"minimum": 1, "maximum": MAX_STEPS}
        ],
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
        by_level = ", ".join(
            f"{levels[level]} {level}" for level in ("Beginner", "Intermediate", "Advanced")
        )
        return (
            f"Analysed {len(courses)} courses in {steps} steps: {hours} hours in total; "
            f"{by_level}; most common topic: {tag} ({count} courses)."
        )

    # --8<-- [end:run_analysis]


def main() -> None:
    """``python -m minimcp.examples.course_tools``."""
    serve_over_stdio(build_tool_server)


if __name__ == "__main__":
    main()
