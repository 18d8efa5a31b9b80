"""The client side of the official conformance suite: ``python -m minimcp conformance-client URL``.

The suite (``@modelcontextprotocol/conformance``, ``conformance client --command ...``) starts a
test server for one scenario (for ``auth/*`` scenarios, an authorization server too), then runs the
command with the server's URL appended and the scenario's name in the environment variable
``MCP_CONFORMANCE_SCENARIO`` (some scenarios add a JSON object in ``MCP_CONFORMANCE_CONTEXT``). The
client does what the scenario asks, over Streamable HTTP, and the servers check what they saw.
``python tools/conformance.py --client`` runs it for every client scenario of revision 2025-11-25
and the authorization suites.

Each scenario is a short coroutine: minimcp's ordinary client, doing an ordinary thing. It is
the complete client, every lesson plugged in: lesson 09's cancellation, lesson 12's two eras and
headers. Nothing here
is special-cased for the suite except *which* tool to call, and the Client ID Metadata Document URL
its authorization servers expect.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from minimcp.auth.client import OAuth
from minimcp.client.answers import ClientAnswers
from minimcp.client.client import Client
from minimcp.client.modern import modern_http_client
from minimcp.session.envelope import MODERN_PROTOCOL_VERSIONS
from minimcp.session.eras import Mode

#: How long the whole scenario may take, at most (the suite's own limit is 30 s).
TIMEOUT = 20.0

Scenario = Callable[[str], Awaitable[None]]


def mode() -> Mode:
    """The era the suite tests: 2026-07-28 (lesson 12) is probed for with Mode.AUTO, older ones
    handshake."""
    version = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "")
    return Mode.AUTO if version in MODERN_PROTOCOL_VERSIONS else Mode.LEGACY


def connect(url: str, **options: Any) -> Any:
    """minimcp's complete HTTP client (every lesson's pieces), in the era the suite asks for."""
    return modern_http_client(url, mode(), **options)


def accept_empty(request: dict[str, Any]) -> dict[str, Any]:
    """The user accepts a form without filling anything in."""
    return {"action": "accept", "content": {}}


async def initialize(url: str) -> None:
    """The handshake, then one request: the server checks what ``initialize`` carried."""
    async with connect(url, name="minimcp-conformance-client") as client:
        await client.list_tools(timeout=TIMEOUT)


# --8<-- [start:scenarios]
async def tools_call(url: str) -> None:
    """List the tools and call ``add_numbers`` with two numbers."""
    async with connect(url) as client:
        await call_listed(client, "add_numbers", {"a": 2, "b": 3})


async def elicitation_defaults(url: str) -> None:
    """Accept the server's form empty: the client must add the defaults itself (SEP-1034)."""
    async with connect(url, answers=ClientAnswers(elicitation=accept_empty)) as client:
        await call_listed(client, "test_client_elicitation_defaults", {})


async def sse_retry(url: str) -> None:
    """Call a tool whose stream the server closes early: the client waits ``retry``, and resumes."""
    async with connect(url) as client:
        await call_listed(client, "test_reconnection", {})


async def schema_preservation(url: str) -> None:
    """Send a tool's ``inputSchema`` back exactly as it came: nothing dropped, nothing rewritten."""
    async with connect(url) as client:
        tools = {tool["name"]: tool for tool in await client.list_tools(timeout=TIMEOUT)}
        schema = tools["json_schema_2020_12_tool"]["inputSchema"]
        await call_listed(client, "json_schema_echo", {"schema": schema})


# --8<-- [end:scenarios]


#: The Client ID Metadata Document URL the suite's authorization servers expect a client to use.
SUITE_CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"


async def authorization(url: str) -> None:
    """Every ``auth/*`` scenario (lesson 10): get in through OAuth, list the tools and call one.

    What differs between them (where the metadata is, which scopes, how the client is identified,
    how it authenticates) is the flow's to discover. Pre-registered credentials, if any, come in
    MCP_CONFORMANCE_CONTEXT.
    """
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    oauth = OAuth(
        url,
        client_id=context.get("client_id"),
        client_secret=context.get("client_secret"),
        client_issuer=context.get("issuer"),
        client_metadata_url=SUITE_CLIENT_METADATA_URL,
    )
    try:
        async with connect(url, auth=oauth) as client:
            await call_listed(client, "test-tool", {})
    finally:
        await oauth.aclose()


async def every_listed(url: str) -> None:
    """Use everything the server lists: each tool (with no arguments), resource and prompt. The 2026
    header scenarios check what each request carried; a tool the client left out is never called."""
    async with connect(url) as client:
        for tool in await client.list_tools(timeout=TIMEOUT):
            await client.call_tool(tool["name"], {}, timeout=TIMEOUT)
        if "resources" in client.server_capabilities:
            for resource in await client.list_resources(timeout=TIMEOUT):
                await client.read_resource(resource["uri"], timeout=TIMEOUT)
        if "prompts" in client.server_capabilities:
            for prompt in await client.list_prompts(timeout=TIMEOUT):
                await client.get_prompt(prompt["name"], {}, timeout=TIMEOUT)


async def given_calls(url: str) -> None:
    """Call the tools MCP_CONFORMANCE_CONTEXT names, with its arguments (custom headers)."""
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    async with connect(url) as client:
        await client.list_tools(timeout=TIMEOUT)  # which arguments travel as headers, too
        for call in context.get("toolCalls", []):
            await client.call_tool(call["name"], call.get("arguments", {}), timeout=TIMEOUT)


async def answer_questions(url: str) -> None:
    """Call every tool; accept the server's forms and send its state back (SEP-2322)."""
    async with connect(url, answers=ClientAnswers(elicitation=accept_empty)) as client:
        for tool in await client.list_tools(timeout=TIMEOUT):
            await client.call_tool(tool["name"], {}, timeout=TIMEOUT)


async def call_listed(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Call a tool the server listed (a client calls what it discovered); fail loudly on failure."""
    listed = [tool["name"] for tool in await client.list_tools(timeout=TIMEOUT)]
    if name not in listed:
        raise RuntimeError(f"the server lists no tool {name!r} (it lists {listed})")
    result = await client.call_tool(name, arguments, timeout=TIMEOUT)
    if result.get("isError"):
        raise RuntimeError(f"{name} failed: {json.dumps(result)}")
    return result


SCENARIOS: dict[str, Scenario] = {
    "initialize": initialize,
    "tools_call": tools_call,
    "elicitation-sep1034-client-defaults": elicitation_defaults,
    "sse-retry": sse_retry,
    "json-schema-2020-12-preservation": schema_preservation,
    # revision 2026-07-28 (lesson 12): the same client, in Mode.AUTO
    "request-metadata": initialize,
    "sep-2322-client-request-state": answer_questions,
    "http-standard-headers": every_listed,
    "http-custom-headers": given_calls,
    "http-invalid-tool-headers": every_listed,
    "json-schema-ref-no-deref": initialize,
}


def run(url: str, scenario: str | None = None) -> int:
    """Run one scenario (by default the one the suite names in ``MCP_CONFORMANCE_SCENARIO``)."""
    scenario = scenario or os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    if scenario.startswith("auth/"):
        asyncio.run(asyncio.wait_for(authorization(url), TIMEOUT))
        return 0
    if scenario not in SCENARIOS:
        print(
            f"conformance-client: unknown scenario {scenario!r}; "
            f"known: {', '.join(SCENARIOS)}, and every auth/* scenario",
            file=sys.stderr,
        )
        return 2
    asyncio.run(asyncio.wait_for(SCENARIOS[scenario](url), TIMEOUT))
    return 0
