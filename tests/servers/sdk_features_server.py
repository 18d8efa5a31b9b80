"""An official-SDK server with every server feature: the oracle for minimcp's typed client helpers.

One tool (with progress), one static resource, one resource template and one prompt with an
argument, modelled on the course's running examples. Run as
``python -m tests.servers.sdk_features_server`` from the repository root (the interop tests do it);
minimcp itself never imports ``mcp``.
"""

import json

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer(
    "sdk-features", instructions="The official SDK's server, for the client's interop tests."
)

COURSES = {
    "v1ws": {"id": "v1ws", "name": "Views"},
    "c4ch": {"id": "c4ch", "name": "Cache"},
}


@server.tool(title="Read calendar events")
async def read_events(date: str, ctx: Context) -> str:
    """Read calendar events for a given day (format YYYY-MM-DD)."""
    for step in (1, 2):  # two progress notifications, if the client asked for them
        await ctx.report_progress(step, 2, f"step {step} of 2")
    return f"Events for {date}:\n- 09:00 Daily meeting"


@server.resource("courses://all", name="courses", title="All Courses", mime_type="application/json")
def all_courses() -> str:
    """Complete list of courses available in the catalog."""
    return json.dumps(list(COURSES.values()))


@server.resource(
    "courses://{id}", name="course-details", title="Course Detail", mime_type="application/json"
)
def course_details(id: str) -> str:
    """Get detailed information for a course by id."""
    return json.dumps(COURSES.get(id, {"id": id, "name": "unknown"}))


@server.prompt(name="course-similar-by-name", title="Find similar courses by name")
def course_similar_by_name(names: str) -> str:
    """Given course names, build a prompt that asks to search similar courses."""
    return f"Given the following course names: {names}, look up their IDs and find similar courses."


if __name__ == "__main__":
    server.run("stdio")
