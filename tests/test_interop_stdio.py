"""Interop over stdio with the official Python SDK (mcp==2.3.0), the oracle.

Both directions: the SDK's client drives ``python -m minimcp serve``, and minimcp's client drives
the SDK's MCPServer (tests/servers/sdk_stdio_server.py). Only the tests import ``mcp``; minimcp
never does.
"""

from __future__ import annotations

import asyncio
import json
import sys

import pytest
from stdio_wiretap import wiretapped

mcp = pytest.importorskip("mcp", reason="the interop tests need the official SDK (mcp==2.3.0)")

from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError  # noqa: E402
from mcp_types import EmptyResult, Request  # noqa: E402

from minimcp.client import Client as MiniClient  # noqa: E402
from minimcp.client import modern_stdio_client, stdio_client  # noqa: E402
from minimcp.rpc import RpcError  # noqa: E402
from minimcp.rpc.jsonrpc import METHOD_NOT_FOUND  # noqa: E402
from minimcp.session import UnsupportedVersion  # noqa: E402
from minimcp.session.eras import Mode  # noqa: E402
from minimcp.transports.process import python_command, spawn  # noqa: E402

TIMEOUT = 30.0
SDK_SERVER = python_command("-m", "tests.servers.sdk_stdio_server")


def minimcp_server(repo_root) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "minimcp", "serve"], cwd=str(repo_root)
    )


# -- the SDK's client, minimcp's server ------------------------------------------------------------
async def test_sdk_client_in_legacy_mode_completes_the_handshake_and_pings(repo_root) -> None:
    async def scenario() -> None:
        async with Client(minimcp_server(repo_root), mode="legacy") as client:
            assert client.protocol_version == "2025-11-25"
            assert client.server_info is not None
            assert (client.server_info.name, client.server_info.version) == (
                "course-server",
                "0.1.0",
            )
            assert client.server_info.title == "MCP from Scratch: course server"
            assert client.instructions and "course server" in client.instructions
            assert client.session.initialize_result is not None
            assert client.session.discover_result is None
            # Client.send_ping is deprecated in 2.3.0 (ping is removed in 2026-07-28), but on a
            # handshake-era session it still works.
            with pytest.warns(MCPDeprecationWarning):
                assert isinstance(await client.send_ping(), EmptyResult)
            assert isinstance(await client.session.send_ping(), EmptyResult)

    await asyncio.wait_for(scenario(), TIMEOUT)


async def test_sdk_client_in_auto_mode_speaks_2026_with_no_handshake_on_the_wire(
    repo_root, tmp_path
) -> None:
    """mode="auto" probes with server/discover; minimcp answers it, so the SDK never sends
    initialize."""
    wire = tmp_path / "client-to-server.jsonl"
    command, *arguments = wiretapped(wire)
    server = StdioServerParameters(command=command, cwd=str(repo_root), args=arguments)

    async def scenario() -> None:
        async with Client(server, mode="auto") as client:
            assert client.protocol_version == "2026-07-28"
            assert (
                client.session.initialize_result is None
                and client.session.discover_result is not None
            )
            assert client.server_info is not None and client.server_info.name == "course-server"
            assert client.instructions and "course server" in client.instructions
            result = await client.call_tool("read_events", {"date": "2025-03-21"})
            assert result.content[0].text.startswith("Events for 2025-03-21")  # type: ignore[union-attr]
            with pytest.warns(MCPDeprecationWarning), pytest.raises(MCPError) as caught:
                await client.send_ping()  # removed in 2026-07-28: -32601, and the server goes on
            assert caught.value.code == METHOD_NOT_FOUND

    await asyncio.wait_for(scenario(), TIMEOUT)
    sent = [json.loads(line) for line in wire.read_text().splitlines()]
    methods = [message.get("method") for message in sent]
    assert methods[0] == "server/discover" and "initialize" not in methods, methods
    assert all(
        message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
        for message in sent
        if "id" in message
    )


async def test_sdk_client_sees_minimcp_errors(repo_root) -> None:
    async def scenario() -> None:
        async with Client(minimcp_server(repo_root), mode="legacy") as client:
            with pytest.raises(MCPError) as caught:
                await client.session.send_request(
                    Request(method="no/such/method", params=None), EmptyResult
                )
            assert (caught.value.code, caught.value.message) == (
                METHOD_NOT_FOUND,
                "Method not found: no/such/method",
            )
            assert isinstance(await client.session.send_ping(), EmptyResult)  # still serving

    await asyncio.wait_for(scenario(), TIMEOUT)


# -- minimcp's client, the SDK's server ------------------------------------------------------------
async def test_minimcp_client_in_auto_mode_speaks_2026_to_the_sdk_server(repo_root) -> None:
    async def scenario() -> None:
        async with modern_stdio_client(SDK_SERVER, Mode.AUTO, cwd=str(repo_root)) as client:
            assert (client.protocol_version, client.session.conversation.era) == (
                "2026-07-28",
                "modern",
            )
            assert client.server_info["name"] == "sdk-oracle"
            assert [tool["name"] for tool in await client.list_tools()] == ["add"]
            result = await client.call_tool("add", {"a": 2, "b": 3})
            assert result["resultType"] == "complete" and result["content"][0]["text"] == "5"

    await asyncio.wait_for(scenario(), TIMEOUT)


async def test_minimcp_client_talks_to_the_sdk_server(repo_root) -> None:
    async def scenario() -> None:
        async with stdio_client(SDK_SERVER, cwd=str(repo_root)) as client:
            assert client.protocol_version == "2025-11-25"
            assert client.server_info["name"] == "sdk-oracle"
            assert client.instructions == "The official SDK's server, for interop tests."
            assert "tools" in client.server_capabilities
            await client.ping(timeout=TIMEOUT)
            tools = await client.request("tools/list", timeout=TIMEOUT)
            assert [tool["name"] for tool in tools["tools"]] == ["add"]
            assert tools["tools"][0]["inputSchema"]["properties"].keys() == {"a", "b"}
            result = await client.request(
                "tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}, timeout=TIMEOUT
            )
            assert result["content"][0]["text"] == "5"
            assert result.get("isError", False) is False
            with pytest.raises(RpcError) as caught:
                await client.request("no/such/method", timeout=TIMEOUT)
            assert caught.value.code == METHOD_NOT_FOUND
            await client.ping(timeout=TIMEOUT)

    await asyncio.wait_for(scenario(), TIMEOUT)


@pytest.mark.parametrize("version", ["2024-11-05"])
async def test_the_sdk_server_agrees_to_an_older_version(repo_root, version: str) -> None:
    async def scenario() -> None:
        mini = MiniClient(await spawn(SDK_SERVER, cwd=str(repo_root)))
        result = await mini.session.initialize(timeout=TIMEOUT, protocol_version=version)
        assert result["protocolVersion"] == mini.protocol_version == version
        await mini.ping(timeout=TIMEOUT)
        await mini.close()

    await asyncio.wait_for(scenario(), TIMEOUT)


async def test_minimcp_client_disconnects_from_a_version_it_cannot_speak(repo_root) -> None:
    async def scenario() -> None:
        transport = await spawn(SDK_SERVER, cwd=str(repo_root))
        mini = MiniClient(transport)
        mini.session.supported_versions = ("1999-01-01",)
        with pytest.raises(UnsupportedVersion) as caught:
            await mini.session.initialize(timeout=TIMEOUT)
        assert caught.value.offered == "2025-11-25"  # the SDK answered its latest handshake version
        await mini.close()
        assert transport.process.returncode is not None  # the child was shut down

    await asyncio.wait_for(scenario(), TIMEOUT)
