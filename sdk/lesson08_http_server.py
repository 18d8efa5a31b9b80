"""Lesson 08 with the official SDK (mcp==2.3.0): a server over Streamable HTTP.

What lesson 08 built by hand, one call here: ``run("streamable-http")`` serves one endpoint,
``/mcp``, with sessions (``Mcp-Session-Id``), a JSON answer or an SSE stream per request, the
announcement channel, ``DELETE``; given an event store, it replays a cut stream. Its tool reports
progress and, half-way, closes its connection on purpose (part 2, section 7): the client comes
back with ``Last-Event-ID``.

Run it: ``python sdk/lesson08_http_server.py [PORT]`` (default 8000); then, for example,
``python sdk/lesson08_http_client.py http://127.0.0.1:8000/mcp``. Only ``sdk/`` and the tests
import ``mcp``: minimcp never does.
"""

from __future__ import annotations

import itertools
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.streamable_http import EventCallback, EventMessage, EventStore
from mcp_types import JSONRPCMessage


class MemoryEventStore(EventStore):
    """Every event of every stream, in memory, with ids ``<stream>/<n>``: the SDK defines the
    interface, and leaves the store to you (lesson 08 part 2's ``EventStore``, in a few lines)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, JSONRPCMessage | None]] = []  # id, stream, message
        self.numbers = itertools.count()

    async def store_event(self, stream_id: str, message: JSONRPCMessage | None) -> str:
        event_id = f"{stream_id}/{next(self.numbers)}"
        self.events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(
        self, last_event_id: str, send_callback: EventCallback
    ) -> str | None:
        ids = [event_id for event_id, _, _ in self.events]
        if last_event_id not in ids:
            return None
        position = ids.index(last_event_id)
        stream_id = self.events[position][1]
        for event_id, stream, message in self.events[position + 1 :]:
            if stream == stream_id and message is not None:  # None: a priming event, no data
                await send_callback(EventMessage(message, event_id))
        return stream_id


# --8<-- [start:box]
server = MCPServer("lesson-08")


@server.tool()
async def run_analysis(steps: int, ctx: Context) -> str:
    """Analyse the catalogue in ``steps`` steps, reporting each one."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"Step {step} of {steps}")
        if step == 1:
            await ctx.close_sse_stream()  # "come back later": the client resumes the stream
    return f"Analysed in {steps} steps"


def main() -> None:
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
    server.run("streamable-http", port=port, event_store=MemoryEventStore(), retry_interval=100)


# --8<-- [end:box]

if __name__ == "__main__":
    main()
