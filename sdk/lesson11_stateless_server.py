"""Lesson 11 with the official Python SDK (``mcp==2.3.0``): one server, many workers.

The SDK keeps a session in the memory of the worker that opened it, and shares it with no other
(several workers then need affinity: lesson 11, section 2). Its answer for workers that take any
request is the table's third column, **no session at all**: ``stateless_http=True`` builds a fresh
transport for each ``POST``, assigns no ``Mcp-Session-Id``, and keeps nothing between requests. So
no Redis, and none of what a session gives: no ``GET`` channel, no resumption, no questions to the
client. Start one worker per port, and put any balancer in front::

    python sdk/lesson11_stateless_server.py 8001
    python sdk/lesson11_stateless_server.py 8002
    python sdk/lesson11_stateless_server.py 8003

``tests/test_sdk_lesson11.py`` starts three behind a balancer that sends every request to another
worker, and ``minimcp``'s client uses them as one server. This file is not part of ``minimcp``,
which never imports ``mcp``.
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("lesson-11")


@server.tool()
async def run_analysis(steps: int, ctx: Context) -> str:
    """Analyse the catalogue in ``steps`` steps, reporting each one."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"Step {step} of {steps}")
    return f"Analysed in {steps} steps"


def main() -> None:
    """``python sdk/lesson11_stateless_server.py [PORT]``: one worker (default port 8000)."""
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
    # --8<-- [start:box]
    # No session: every POST stands alone, so any worker may answer it, and nothing is shared
    server.run("streamable-http", port=port, stateless_http=True)
    # --8<-- [end:box]


if __name__ == "__main__":
    main()
