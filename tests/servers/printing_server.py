"""A stdio server whose code calls ``print()``: the output must land on stderr, never on stdout.

Once :func:`minimcp.stdio.stdio_server_transport` has started, ``sys.stdout`` points at stderr, so a
stray ``print()`` (a debugging line in a handler, a chatty library) cannot corrupt the protocol
stream. It serves ``ping`` and ``debug/print`` on a bare Connection (lesson 02's layer), so it
starts quickly.

Run as ``python -m tests.servers.printing_server``.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from minimcp.rpc import Connection, Request, RpcError
from minimcp.rpc.jsonrpc import METHOD_NOT_FOUND
from minimcp.transports.stdio import stdio_server_transport


async def handle(request: Request) -> Any:
    if request.method == "ping":
        return {}
    if request.method == "debug/print":
        print("a stray print inside a handler", (request.params or {}).get("text", ""))
        sys.stdout.write("and a direct write to sys.stdout\n")
        sys.stdout.flush()
        return {"printed": True}
    raise RpcError(METHOD_NOT_FOUND, f"Method not found: {request.method}")


async def main() -> None:
    transport = await stdio_server_transport()
    print("a stray print at start-up")
    await Connection(transport, handle).run()


if __name__ == "__main__":
    asyncio.run(main())
