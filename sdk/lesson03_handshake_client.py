"""Lesson 03's handshake, from the client's side, with the official Python SDK (``mcp==2.3.0``).

It starts lesson 03's example server (``python -m minimcp.examples.handshake``) as a child process,
opens a session, and prints what the handshake agreed on, then pings. ``ClientSession.initialize()``
sends ``initialize`` with the SDK's latest version, checks that it can speak the version the server
answered (or raises), keeps the server's capabilities, and sends ``notifications/initialized``:
lesson 03's ``ClientSession``, in one call.

    python sdk/lesson03_handshake_client.py                          # lesson 03's server
    python sdk/lesson03_handshake_client.py python -m minimcp serve  # the course server

``tests/test_sdk_lesson03.py`` runs it, and writes down what it sent on the wire. This file is not
part of ``minimcp``, which never imports ``mcp``.
"""

from __future__ import annotations

import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

#: Lesson 03's example server: the handshake, ping, and nothing else.
HANDSHAKE_SERVER = [sys.executable, "-m", "minimcp.examples.handshake"]


async def handshake(command: list[str]) -> None:
    """Start the server ``command``, do the handshake, print what was agreed, ping, and stop."""
    server = StdioServerParameters(command=command[0], args=command[1:])
    # --8<-- [start:box]
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        result = await session.initialize()  # initialize, the version check, initialized
        print("protocol version:", result.protocol_version)
        print("server:", result.server_info.name, result.server_info.version)
        print("capabilities:", result.capabilities.model_dump(by_alias=True, exclude_none=True))
        print("instructions:", result.instructions)
        await session.send_ping()  # the session is ready: an empty result comes back
    # --8<-- [end:box]
    print("ping: answered")


def main() -> None:
    """``python sdk/lesson03_handshake_client.py [COMMAND...]``."""
    anyio.run(handshake, sys.argv[1:] or HANDSHAKE_SERVER)


if __name__ == "__main__":
    main()
