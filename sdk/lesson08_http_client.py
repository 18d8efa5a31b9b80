"""Lesson 08 with the official SDK (mcp==2.3.0): a client over Streamable HTTP.

What lesson 08 part 2's ``HttpClientTransport`` does by hand happens inside ``Client(url)``: the
``Accept`` header, the session id and the protocol version on every request, reading a JSON answer
or an SSE stream, coming back with ``Last-Event-ID`` when a stream is cut, ``DELETE`` at the end.

Run it against the course server (``python -m minimcp serve --transport http``) or against
``sdk/lesson08_http_server.py``: ``python sdk/lesson08_http_client.py [URL]`` (default
``http://127.0.0.1:8000/mcp``). Only ``sdk/`` and the tests import ``mcp``: minimcp never does.
"""

from __future__ import annotations

import asyncio
import sys

from mcp import Client, types


def text_of(result: types.CallToolResult) -> str:
    """The text blocks of a tool's result, joined."""
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


# --8<-- [start:box]
async def on_progress(progress: float, total: float | None, message: str | None) -> None:
    print("progress:", message)


async def run_analysis(url: str) -> None:
    # mode="legacy": the 2025-11-25 handshake, so a session (lesson 12 drops both)
    async with Client(url, mode="legacy") as client:
        print("protocol", client.protocol_version)
        result = await client.call_tool("run_analysis", {"steps": 3}, progress_callback=on_progress)
        print(text_of(result))


# --8<-- [end:box]


def main() -> None:
    asyncio.run(run_analysis(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000/mcp"))


if __name__ == "__main__":
    main()
