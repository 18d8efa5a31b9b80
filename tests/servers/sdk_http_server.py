"""An official-SDK server over Streamable HTTP, with an event store: the oracle for minimcp's HTTP
client.

A tool that reports progress and, half-way, closes its SSE connection (the client must come back
with ``Last-Event-ID``), a resource, a template and a prompt. Run as
``python -m tests.servers.sdk_http_server PORT`` from the repository root (the interop tests do it);
it prints ``ready`` on stderr once it listens. minimcp itself never imports ``mcp``.
"""

import asyncio
import itertools
import json
import sys

import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.streamable_http import EventCallback, EventMessage, EventStore

server = MCPServer(
    "sdk-http", instructions="The official SDK's server over Streamable HTTP, for interop tests."
)


class MemoryStore(EventStore):
    """The smallest event store the SDK accepts: every event, in memory, ids '<stream>/<n>'."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, object]] = []  # (event id, stream id, message or None)
        self.numbers = itertools.count()

    async def store_event(self, stream_id, message):
        event_id = f"{stream_id}/{next(self.numbers)}"
        self.events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(self, last_event_id, send_callback: EventCallback):
        found = [
            index for index, (event_id, _, _) in enumerate(self.events) if event_id == last_event_id
        ]
        if not found:
            return None
        stream_id = self.events[found[0]][1]
        for event_id, stream, message in self.events[found[0] + 1 :]:
            if stream == stream_id and message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream_id


@server.tool(title="Read calendar events")
async def read_events(date: str, ctx: Context) -> str:
    """Read calendar events for a given day (format YYYY-MM-DD); ends its connection half-way."""
    await ctx.report_progress(1, 3, "step 1 of 3")
    await ctx.close_sse_stream()  # "come back later": the client resumes with Last-Event-ID
    await asyncio.sleep(0.2)
    await ctx.report_progress(2, 3, "step 2 of 3")
    await ctx.report_progress(3, 3, "step 3 of 3")
    return f"Events for {date}:\n- 09:00 Daily meeting"


@server.resource("courses://all", name="courses", title="All Courses", mime_type="application/json")
def all_courses() -> str:
    """Complete list of courses available in the catalog."""
    return json.dumps([{"id": "c4ch", "name": "Cache"}])


@server.resource("courses://{id}", name="course-details", mime_type="application/json")
def course_details(id: str) -> str:
    """Get detailed information for a course by id."""
    return json.dumps({"id": id})


@server.prompt(name="course-similar-by-name")
def course_similar_by_name(names: str) -> str:
    """Given course names, build a prompt that asks to search similar courses."""
    return f"Find courses similar to: {names}."


async def main(port: int) -> None:
    app = server.streamable_http_app(event_store=MemoryStore(), retry_interval=100)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    uvicorn_server = uvicorn.Server(config)
    serving = asyncio.ensure_future(uvicorn_server.serve())
    while not uvicorn_server.started:
        await asyncio.sleep(0.02)
    print("ready", file=sys.stderr, flush=True)
    await serving


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
