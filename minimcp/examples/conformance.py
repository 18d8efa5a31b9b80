"""The server the official MCP conformance suite tests: one of everything, with the suite's names.

The conformance suite (``@modelcontextprotocol/conformance``, version 0.1.16) is a client that
connects to a server over Streamable HTTP and checks, scenario by scenario, that it behaves as the
spec says. Most scenarios need the server to offer something *by name*: a tool
``test_simple_text`` answering a text block, a resource ``test://static-text``, a prompt
``test_prompt_with_arguments``… This module builds exactly that server, on minimcp, so that lesson
08 can run the suite against our own Streamable HTTP transport::

    python tools/conformance.py          # installs the suite and Node.js if needed, then runs it

or by hand, in two terminals::

    python -m minimcp serve --example conformance --transport http --port 8765
    npx @modelcontextprotocol/conformance@0.1.16 server --url http://127.0.0.1:8765/mcp \\
        --suite all --spec-version 2025-11-25

What it offers, by the suite's scenarios:

* tools: simple text, image, audio, an embedded resource, mixed content, an error, progress
  (``test_tool_with_progress``), log messages (``test_tool_with_logging``), sampling
  (``test_sampling``), elicitation (``test_elicitation`` and the two SEP-1034 / SEP-1330 variants)
  a JSON Schema 2020-12 input schema kept exactly as written, and ``test_reconnection``, which
  ends its SSE connection mid-call (the suite's SSE polling scenario, lesson 08);
* resources: ``test://static-text``, ``test://static-binary``, ``test://watched-resource`` (to
  subscribe to) and the template ``test://template/{id}/data``;
* prompts: ``test_simple_prompt``, ``test_prompt_with_arguments``,
  ``test_prompt_with_embedded_resource``, ``test_prompt_with_image``;
* the utilities: ``logging/setLevel`` and ``completion/complete``.

Logging, completion, sampling and elicitation are built in :mod:`minimcp.server.logs`,
:mod:`minimcp.server.completion`, :mod:`minimcp.server.sampling` and
:mod:`minimcp.server.elicitation`, and taught in a later lesson. The resources, prompts and
completions are in :mod:`minimcp.examples.conformance_context`; the suite's fixed data (a PNG, a
WAV, the elicitation forms, a JSON Schema) is in :mod:`minimcp.examples.conformance_data`. What the
suite checks of the *transport* (sessions, streams, the Host and Origin headers) is lesson 08's
business, not this file's.
"""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any

from minimcp.examples.complete import complete
from minimcp.examples.conformance_2026 import add_2026_fixtures
from minimcp.examples.conformance_context import add_completions, add_prompts, add_resources
from minimcp.examples.conformance_data import (
    DEFAULTS_FORM,
    ENUMS_FORM,
    JSON_SCHEMA_2020_12,
    PNG,
    USER_FORM,
    WAV,
)
from minimcp.examples.conformance_tasks import add_task_fixtures
from minimcp.server.complete import Server
from minimcp.server.content import audio_content, embedded_resource, image_content, text_content
from minimcp.server.elicitation import elicit
from minimcp.server.logs import log
from minimcp.server.sampling import create_message, text_of
from minimcp.server.tools import ToolError, report_progress
from minimcp.session.context import RequestContext


def build_server() -> Server:
    """Everything the suite's server scenarios ask for, under the names they use."""
    server = Server(
        "minimcp-conformance",
        title="minimcp: the conformance suite's server",
        instructions="For the MCP conformance suite: one of everything, by the suite's names.",
    )
    server.enable_logging()  # logging-set-level, tools-call-with-logging
    add_content_tools(server)
    add_utility_tools(server)
    add_client_tools(server)
    add_schema_tool(server)
    add_2026_fixtures(server)  # the suite's 2026-07-28 scenarios (lesson 12)
    add_task_fixtures(server)  # its tasks scenarios: the extension, and the tools they call (13)
    add_resources(server)
    add_prompts(server)
    add_completions(server)
    return complete(server)  # cancellation (lesson 09), both eras (lesson 12)…


def elicitation_summary(answer: dict[str, Any], prefix: str) -> str:
    return f"{prefix}: action={answer['action']}, content={json.dumps(answer.get('content') or {})}"


def add_content_tools(server: Server) -> None:
    """Tools whose results hold each kind of content block."""

    @server.tool()
    def test_simple_text() -> str:
        """Tests simple text content response"""
        return "This is a simple text response for testing."

    @server.tool()
    def test_image_content() -> dict[str, Any]:
        """Tests image content response"""
        return image_content(PNG, "image/png")

    @server.tool()
    def test_audio_content() -> dict[str, Any]:
        """Tests audio content response"""
        return audio_content(WAV, "audio/wav")

    @server.tool()
    def test_embedded_resource() -> dict[str, Any]:
        """Tests embedded resource content response"""
        return embedded_resource(
            "test://embedded-resource",
            text="This is an embedded resource content.",
            mime_type="text/plain",
        )

    @server.tool()
    def test_multiple_content_types() -> list[dict[str, Any]]:
        """Tests response with multiple content types (text, image, resource)"""
        return [
            text_content("Multiple content types test:"),
            image_content(PNG, "image/png"),
            embedded_resource(
                "test://mixed-content-resource",
                mime_type="application/json",
                text=json.dumps({"test": "data", "value": 123}),
            ),
        ]


def add_utility_tools(server: Server) -> None:
    """Tools that log, report progress, end their SSE connection mid-call, or fail."""

    @server.tool()
    async def test_tool_with_logging(context: RequestContext) -> str:
        """Tests tool that emits log messages during execution"""
        # The pauses matter: the suite checks that messages arrive *while* the tool runs.
        await log(context, "info", "Tool execution started", logger="conformance")
        await asyncio.sleep(0.05)
        await log(context, "info", "Tool processing data", logger="conformance")
        await asyncio.sleep(0.05)
        await log(context, "info", "Tool execution completed", logger="conformance")
        return "Tool with logging executed successfully"

    @server.tool()
    async def test_tool_with_progress(context: RequestContext) -> str:
        """Tests tool that reports progress notifications"""
        for step in (0, 50, 100):
            if step:
                await asyncio.sleep(0.05)
            await report_progress(context, step, 100, f"Completed step {step} of 100")
        return f"Progress reported for token {json.dumps(context.meta.get('progressToken'))}"

    @server.tool()
    async def test_reconnection(context: RequestContext) -> str:
        """Tests SSE polling: the server ends the connection mid-call; the client resumes"""
        # Over Streamable HTTP the connection ends here, after the priming event (with its retry
        # field); the answer is stored, and the client gets it by resuming with Last-Event-ID.
        # On any other cable there is no connection to end, and the call simply completes.
        await asyncio.sleep(0.05)
        context.close_sse_stream(retry_ms=100)
        await asyncio.sleep(0.2)
        return "Reconnection test completed"

    @server.tool()
    def test_error_handling() -> str:
        """Tests error response handling"""
        raise ToolError("This tool intentionally returns an error for testing")


def add_client_tools(server: Server) -> None:
    """Tools that ask the client: for a completion (sampling), or its user (elicitation)."""

    @server.tool()
    async def test_sampling(
        prompt: Annotated[str, "The prompt to send to the LLM"], context: RequestContext
    ) -> str:
        """Tests server-initiated sampling (LLM completion request)"""
        # Refused if the client did not declare "sampling"
        answer = await create_message(context, [prompt], max_tokens=100)
        return f"LLM response: {text_of(answer)}"

    @server.tool()
    async def test_elicitation(
        message: Annotated[str, "The message to show the user"], context: RequestContext
    ) -> str:
        """Tests server-initiated elicitation (user input request)"""
        answer = await elicit(context, message, USER_FORM)  # refused without "elicitation"
        return elicitation_summary(answer, "User response")

    @server.tool()
    async def test_elicitation_sep1034_defaults(context: RequestContext) -> str:
        """Tests elicitation with default values per SEP-1034"""
        message = "Please review and update the form fields with defaults"
        answer = await elicit(context, message, DEFAULTS_FORM)
        return elicitation_summary(answer, "Elicitation completed")

    @server.tool()
    async def test_elicitation_sep1330_enums(context: RequestContext) -> str:
        """Tests elicitation with enum schema improvements per SEP-1330"""
        answer = await elicit(context, "Please select options from the enum fields", ENUMS_FORM)
        return elicitation_summary(answer, "Elicitation completed")


def add_schema_tool(server: Server) -> None:
    """A tool whose input schema is written by hand, with JSON Schema 2020-12's keywords."""

    def json_schema_2020_12_tool(
        name: str | None = None,
        address: dict[str, str] | None = None,
        contactMethod: str | None = None,  # noqa: N803
        phone: str | None = None,
        email: str | None = None,
    ) -> str:
        given = {
            key: value
            for key, value in (
                ("name", name),
                ("address", address),
                ("contactMethod", contactMethod),
                ("phone", phone),
                ("email", email),
            )
            if value is not None
        }
        return f"JSON Schema 2020-12 tool called with: {json.dumps(given)}"

    # Its schema is given, not derived: tools/list must show it exactly, $schema and $defs included.
    server.add_tool(
        json_schema_2020_12_tool,
        input_schema=JSON_SCHEMA_2020_12,
        description="Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
    )
