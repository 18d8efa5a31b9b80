"""Lesson 07's cable under the official Python SDK's client (``mcp==2.3.0``): a WebSocket.

The 2.x SDK has no WebSocket transport (the 1.x SDK had one, whose convention ``minimcp`` follows:
the subprotocol ``mcp``, one JSON-RPC message per text frame). But its ``Client`` takes any
*transport*: an async context manager that gives two streams of whole messages, one to read and one
to write. ``websocket_transport()`` below is one, in two loops over a socket of the ``websockets``
library, and the SDK's session runs on it unchanged: the same idea as lesson 01's ``Transport``.

It connects to the course server over WebSocket, does the handshake, lists the tools and calls one::

    python -m minimcp serve --transport ws --port 8765     # in one terminal
    python sdk/lesson07_websocket_client.py                # in another
    python sdk/lesson07_websocket_client.py ws://HOST:PORT/mcp

``tests/test_sdk_lesson07.py`` runs it against ``minimcp``'s WebSocket server. This file is not part
of ``minimcp``, which never imports ``mcp``.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import Client
from mcp.shared.message import SessionMessage
from mcp_types import TextContent, jsonrpc_message_adapter
from pydantic import ValidationError
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Subprotocol

DEFAULT_URL = "ws://127.0.0.1:8765/mcp"
#: What the session reads: a message, or the error of something that was not one.
Incoming = MemoryObjectSendStream[SessionMessage | Exception]
#: What the SDK's transports give its session: the stream it reads, the stream it writes.
Streams = tuple[
    MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]
]


async def frames_to_messages(websocket: ClientConnection, incoming: Incoming) -> None:
    """Each text frame that arrives is one message: parse it, put it on the read stream."""
    async with incoming:
        async for frame in websocket:  # ends when the socket closes
            try:
                message = jsonrpc_message_adapter.validate_json(frame)
            except ValidationError as error:  # not a JSON-RPC message: the session is told
                await incoming.send(error)
                continue
            await incoming.send(SessionMessage(message))


async def messages_to_frames(
    websocket: ClientConnection, outgoing: MemoryObjectReceiveStream[SessionMessage]
) -> None:
    """Each message the session writes travels alone in one text frame."""
    async with outgoing:
        async for item in outgoing:
            await websocket.send(item.message.model_dump_json(by_alias=True, exclude_unset=True))


# --8<-- [start:box]
@asynccontextmanager
async def websocket_transport(url: str) -> AsyncIterator[Streams]:
    """A WebSocket to ``url`` as the SDK's transport: (read stream, write stream)."""
    async with connect(url, subprotocols=[Subprotocol("mcp")], proxy=None) as websocket:
        to_session, from_socket = anyio.create_memory_object_stream[SessionMessage | Exception]()
        to_socket, from_session = anyio.create_memory_object_stream[SessionMessage]()
        async with anyio.create_task_group() as loops:
            loops.start_soon(frames_to_messages, websocket, to_session)
            loops.start_soon(messages_to_frames, websocket, from_session)
            yield from_socket, to_socket
            loops.cancel_scope.cancel()  # the session is over: stop both loops


async def use_websocket(url: str) -> None:
    """Connect to ``url``, list the tools, call ``read_events``, print what came back."""
    async with Client(websocket_transport(url), mode="legacy") as client:
        print("protocol version:", client.protocol_version)  # lesson 03's handshake, done
        print("tools:", [tool.name for tool in (await client.list_tools()).tools])
        result = await client.call_tool("read_events", {"date": "2025-03-21"})
        print(*(block.text for block in result.content if isinstance(block, TextContent)))


# --8<-- [end:box]


def main() -> None:
    """``python sdk/lesson07_websocket_client.py [URL]``."""
    anyio.run(use_websocket, sys.argv[1] if len(sys.argv) > 1 else DEFAULT_URL)


if __name__ == "__main__":
    main()
