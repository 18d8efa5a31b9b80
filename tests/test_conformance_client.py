"""``python -m minimcp conformance-client``: each scenario against a minimcp server shaped like the
suite's.

The official suite runs these scenarios itself (``python tools/conformance.py --client``, in CI);
this module checks, without Node.js, that each one does what its scenario asks: the right tool, the
right arguments, the schema sent back untouched, the defaults filled in.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

import pytest
from complete_support import running_complete

from minimcp.examples import conformance_client
from minimcp.server import Server
from minimcp.server.elicitation import elicit
from minimcp.session import RequestContext

FOCAL_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"city": {"type": "string"}},
        }
    },
    "properties": {"address": {"$ref": "#/$defs/address"}, "phone": {"type": "string"}},
    "if": {"required": ["phone"]},
    "then": {"required": ["address"]},
    "else": {},
    "additionalProperties": False,
}
DEFAULTS_FORM = {
    "type": "object",
    "required": [],
    "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {
            "type": "string",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "default": True},
    },
}


def suite_like_server(seen: list[Any]) -> Server:
    server = Server("suite-like")

    @server.tool()
    def add_numbers(a: float, b: float) -> str:
        """Add two numbers together."""
        seen.append(("add_numbers", a, b))
        return f"The sum of {a} and {b} is {a + b}"

    @server.tool()
    async def test_client_elicitation_defaults(context: RequestContext) -> str:
        """Ask for a form whose every field has a default."""
        answer = await elicit(context, "please accept with defaults", DEFAULTS_FORM)
        seen.append(answer)
        return "ok"

    @server.tool(input_schema=FOCAL_SCHEMA)
    def json_schema_2020_12_tool(**arguments: Any) -> str:
        """The focal tool."""
        return "ok"

    @server.tool()
    def json_schema_echo(schema: dict[str, Any]) -> str:
        """Echo a schema."""
        seen.append(schema)
        return "echoed"

    return server


@pytest.mark.parametrize(
    ("scenario", "expected"),
    [
        ("tools_call", ("add_numbers", 2, 3)),
        (
            "elicitation-sep1034-client-defaults",
            {
                "action": "accept",
                "content": {
                    "name": "John Doe",
                    "age": 30,
                    "score": 95.5,
                    "status": "active",
                    "verified": True,
                },
            },
        ),
        ("json-schema-2020-12-preservation", FOCAL_SCHEMA),
    ],
)
async def test_each_scenario_does_what_the_suite_checks(scenario: str, expected: Any) -> None:
    seen: list[Any] = []
    async with running_complete(suite_like_server(seen)) as http:
        await asyncio.wait_for(conformance_client.SCENARIOS[scenario](http.url), 30)
    assert seen == [expected]


async def test_a_tool_the_server_does_not_list_fails_loudly() -> None:
    server = Server("other")
    server.add_tool(lambda a, b: a - b, "subtract")
    async with running_complete(server) as http:
        with pytest.raises(
            RuntimeError,
            match=r"the server lists no tool 'add_numbers' \(it lists \['subtract'\]\)",
        ):
            await conformance_client.tools_call(http.url)


def test_an_unknown_scenario_is_refused_with_exit_code_2() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "minimcp", "conformance-client", "http://127.0.0.1:9/mcp"],
        env={"MCP_CONFORMANCE_SCENARIO": "no-such-scenario", "PATH": ""},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.startswith(
        "conformance-client: unknown scenario 'no-such-scenario'; known: initialize, "
    )
