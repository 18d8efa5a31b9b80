"""``python -m minimcp.examples.NAME``: one of the course's servers on this process's stdio.

The examples that a notebook starts as a child process (lesson 03's handshake server, lesson 04's
tool server, the course server of lessons 05 and 06) each end with the same few lines: build a fresh
server, serve it over stdio until stdin ends, and let Ctrl+C at a terminal stop it quietly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from minimcp.rpc.transport import Servable
from minimcp.transports.stdio import stdio_server_transport


def serve_over_stdio(build: Callable[[], Servable]) -> None:
    """Serve ``build()`` on this process's stdin and stdout until stdin ends."""

    async def serve() -> None:
        await build().serve(await stdio_server_transport())

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:  # Ctrl+C at a terminal: stop quietly
        pass
