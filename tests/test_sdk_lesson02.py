"""Lesson 02's box: the echo server written with the official SDK's stdio transport.

``minimcp``'s client side of lesson 02 (``spawn()`` and lesson 01's ``Connection``) starts
``sdk/lesson02_stdio_server.py`` as a child process and talks to it through its pipes: the same
exchanges as with ``python -m minimcp echo``, and the same shutdown (stdin closed, the child exits
with 0 by itself).
"""

from __future__ import annotations

import asyncio
import json

import pytest
from sdk_support import ROOT, sdk_command

mcp = pytest.importorskip("mcp", reason="the SDK boxes' tests need the official SDK (mcp==2.3.0)")

from minimcp.rpc import Connection, RpcError  # noqa: E402
from minimcp.rpc.jsonrpc import METHOD_NOT_FOUND  # noqa: E402
from minimcp.transports.process import spawn  # noqa: E402

TIMEOUT = 30.0
SERVER = sdk_command("lesson02_stdio_server.py")


async def test_minimcp_spawns_the_sdk_echo_server_and_echoes_over_its_pipes() -> None:
    transport = await asyncio.wait_for(spawn(SERVER, cwd=str(ROOT)), TIMEOUT)
    connection = Connection(transport)
    connection.start()
    try:
        params = {"text": "hola ✓", "newline": "a\nb"}  # a newline inside travels escaped
        assert await connection.request("echo", params, timeout=TIMEOUT) == params
        results = await asyncio.gather(
            *(connection.request("echo", {"n": n}, timeout=TIMEOUT) for n in range(20))
        )
        assert results == [{"n": n} for n in range(20)]
        with pytest.raises(RpcError) as caught:
            await connection.request("ping", timeout=TIMEOUT)
        assert caught.value.code == METHOD_NOT_FOUND
    finally:
        await connection.close()  # closes the child's stdin: its signal to exit
    assert transport.process.returncode == 0  # it exited by itself: no SIGTERM was needed


async def test_a_bad_line_gets_a_parse_error_and_the_sdk_server_goes_on() -> None:
    transport = await asyncio.wait_for(spawn(SERVER, cwd=str(ROOT)), TIMEOUT)
    try:
        await transport.send_text("this is not json")
        text = await asyncio.wait_for(transport.receive_text(), TIMEOUT)
        assert text is not None
        assert json.loads(text) == {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32700, "message": "Parse error"},
        }
        await transport.send_text('{"jsonrpc":"2.0","id":7,"method":"echo","params":{"a":1}}')
        text = await asyncio.wait_for(transport.receive_text(), TIMEOUT)
        assert text == '{"jsonrpc":"2.0","id":7,"result":{"a":1}}'  # one line, compact JSON
    finally:
        await transport.close()
    assert transport.process.returncode == 0
