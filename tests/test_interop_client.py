"""minimcp's client against the official SDK's MCPServer, over stdio, as a child process.

The server (tests/servers/sdk_features_server.py) has a tool that reports progress, a resource, a
resource template and a prompt with an argument. One server process serves every test here, which
keeps the module fast; the tests only read, so they cannot disturb each other.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from minimcp.client import Client, stdio_client
from minimcp.host import Host, KeywordRouter, RuleModel
from minimcp.rpc import RpcError

ROOT = Path(__file__).resolve().parent.parent
COMMAND = [sys.executable, "-m", "tests.servers.sdk_features_server"]

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client() -> AsyncIterator[Client]:
    async with stdio_client(COMMAND, cwd=str(ROOT)) as client:
        yield client


async def test_the_handshake_announces_every_feature(client: Client) -> None:
    assert client.server_info["name"] == "sdk-features"
    assert {"tools", "resources", "prompts"} <= set(client.server_capabilities)


async def test_list_and_call_a_tool_with_progress(client: Client) -> None:
    tools = await client.list_tools(timeout=10)
    assert [t["name"] for t in tools] == ["read_events"]
    assert tools[0]["inputSchema"]["required"] == ["date"]

    progress: list[tuple[Any, ...]] = []
    result = await client.call_tool(
        "read_events",
        {"date": "2025-03-21"},
        progress=lambda *args: progress.append(args),
        timeout=10,
    )
    assert result["isError"] is False
    assert result["content"] == [
        {"type": "text", "text": "Events for 2025-03-21:\n- 09:00 Daily meeting"}
    ]
    # our progressToken, understood
    assert progress == [(1, 2, "step 1 of 2"), (2, 2, "step 2 of 2")]


async def test_list_and_read_a_resource(client: Client) -> None:
    resources = await client.list_resources(timeout=10)
    assert [(r["uri"], r["mimeType"]) for r in resources] == [("courses://all", "application/json")]
    result = await client.read_resource("courses://all", timeout=10)
    (content,) = result["contents"]
    assert content["uri"] == "courses://all"
    assert json.loads(content["text"]) == [
        {"id": "v1ws", "name": "Views"},
        {"id": "c4ch", "name": "Cache"},
    ]


async def test_list_a_template_and_read_through_it(client: Client) -> None:
    templates = await client.list_resource_templates(timeout=10)
    assert [(t["uriTemplate"], t["name"]) for t in templates] == [
        ("courses://{id}", "course-details")
    ]
    uri = templates[0]["uriTemplate"].replace("{id}", "c4ch")  # the client fills in the template
    (content,) = (await client.read_resource(uri, timeout=10))["contents"]
    assert content["uri"] == "courses://c4ch"
    assert json.loads(content["text"]) == {"id": "c4ch", "name": "Cache"}


async def test_list_and_get_a_prompt_with_arguments(client: Client) -> None:
    prompts = await client.list_prompts(timeout=10)
    assert [(p["name"], p["arguments"]) for p in prompts] == [
        ("course-similar-by-name", [{"name": "names", "required": True}])
    ]
    result = await client.get_prompt(
        "course-similar-by-name", {"names": "caché, vistas"}, timeout=10
    )
    expected = (
        "Given the following course names: caché, vistas, "
        "look up their IDs and find similar courses."
    )
    assert result["messages"] == [{"role": "user", "content": {"type": "text", "text": expected}}]


async def test_errors_come_back_as_rpc_errors(client: Client) -> None:
    with pytest.raises(RpcError):
        await client.read_resource("courses-nowhere://x", timeout=10)
    with pytest.raises(RpcError):
        await client.get_prompt("no-such-prompt", timeout=10)
    # An unknown tool is a tool *result* with isError for this server, not a protocol error.
    result = await client.call_tool("no_such_tool", {}, timeout=10)
    assert result["isError"] is True


async def test_the_host_drives_the_sdk_server() -> None:
    async with Host(RuleModel(), router=KeywordRouter()) as host:
        await host.connect_with("sdk", stdio_client, COMMAND, cwd=str(ROOT))
        answer = await host.ask("Which courses are on 2025-03-21?")
    # The router pasted courses://all, then the model called the prefixed tool with the date.
    assert [m.resource for m in host.messages if m.resource] == ["courses://all"]
    assert host.messages[2].tool_call is not None
    assert (host.messages[2].tool_call.name, host.messages[2].tool_call.arguments) == (
        "sdk/read_events",
        {"date": "2025-03-21"},
    )
    assert answer.endswith("Events for 2025-03-21:\n- 09:00 Daily meeting")
