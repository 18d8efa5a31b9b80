"""What the conformance suite's 2026-07-28 scenarios ask of the server, by their names (lesson 12).

The suite's pre-release (0.2.0-alpha.12) adds scenarios for the revision without a handshake:
questions to the client answered ``input_required`` (multi round-trip requests), the envelope's
capabilities, log lines only on request, and list changes heard on ``subscriptions/listen``. Each
needs a tool or a prompt of a given name; :func:`add_2026_fixtures` adds them to the conformance
server of :mod:`minimcp.examples.conformance`. Every question is asked with
:meth:`RequestContext.ask <minimcp.session.context.RequestContext.ask>`, so the same tools also work
in a 2025-11-25 session, where the questions travel as requests.
"""

from __future__ import annotations

from typing import Any

from minimcp.server.complete import Server
from minimcp.server.logs import log
from minimcp.server.sampling import require_capability, text_of
from minimcp.server.tools import report_progress
from minimcp.session.context import RequestContext


def form(message: str, **fields: str) -> dict[str, Any]:
    """An ``elicitation/create`` question: a flat form, every field required."""
    schema = {
        "type": "object",
        "properties": {name: {"type": kind} for name, kind in fields.items()},
        "required": list(fields),
    }
    return {
        "method": "elicitation/create",
        "params": {"message": message, "requestedSchema": schema},
    }


def sample(prompt: str) -> dict[str, Any]:
    """A ``sampling/createMessage`` question."""
    return {
        "method": "sampling/createMessage",
        "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
            "maxTokens": 100,
        },
    }


ROOTS = {"method": "roots/list", "params": {}}


def field(answer: dict[str, Any], name: str) -> Any:
    """A field of an accepted form (None if the user declined or left it out)."""
    return (answer.get("content") or {}).get(name)


def roots_of(answer: dict[str, Any]) -> str:
    return ", ".join(str(root.get("uri")) for root in answer.get("roots", []))


def add_2026_fixtures(server: Server) -> None:
    add_question_tools(server)
    add_several_questions_tools(server)
    add_envelope_tools(server)
    add_list_change_tools(server)

    @server.prompt()
    async def test_input_required_result_prompt(context: RequestContext) -> str:
        """A prompt that needs some context from the user first"""
        answers = await context.ask(
            {"user_context": form("What context should the prompt use?", context="string")}
        )
        return f"Prompt with context: {field(answers['user_context'], 'context')}"


def add_question_tools(server: Server) -> None:
    """The input-required-result scenarios of one question: to the user, the model, the roots."""

    @server.tool()
    async def test_input_required_result_elicitation(context: RequestContext) -> str:
        """Asks the user's name"""
        answers = await context.ask({"user_name": form("What is your name?", name="string")})
        return f"Hello, {field(answers['user_name'], 'name')}!"

    @server.tool()
    async def test_input_required_result_sampling(context: RequestContext) -> str:
        """Asks the client's model a question"""
        answers = await context.ask({"capital_question": sample("What is the capital of France?")})
        return f"The model said: {text_of(answers['capital_question'])}"

    @server.tool()
    async def test_input_required_result_list_roots(context: RequestContext) -> str:
        """Asks the client's roots"""
        answers = await context.ask({"client_roots": ROOTS})
        return f"Roots: {roots_of(answers['client_roots'])}"

    async def confirm(context: RequestContext) -> str:
        """Asks a confirmation; a retry with the request state changed is refused"""
        answers = await context.ask({"confirm": form("Go on?", ok="boolean")})
        return f"state-ok: confirmed={field(answers['confirm'], 'ok')}"

    # Two scenarios, one tool: the state echoed unchanged ("state-ok"), or tampered with (refused).
    server.add_tool(confirm, "test_input_required_result_request_state")
    server.add_tool(confirm, "test_input_required_result_tampered_state")


def add_several_questions_tools(server: Server) -> None:
    """The input-required-result scenarios of several questions: at once, in rounds, as declared."""

    @server.tool()
    async def test_input_required_result_multiple_inputs(context: RequestContext) -> str:
        """Asks three things at once: the user, the model and the roots"""
        answers = await context.ask(
            {
                "user_name": form("What is your name?", name="string"),
                "greeting": sample("Say hello."),
                "client_roots": ROOTS,
            }
        )
        return (
            f"{field(answers['user_name'], 'name')}; {text_of(answers['greeting'])}; "
            f"roots: {roots_of(answers['client_roots'])}"
        )

    @server.tool()
    async def test_input_required_result_multi_round(context: RequestContext) -> str:
        """Asks twice, the second question after the first answer"""
        first = await context.ask({"step1": form("First step: your name?", name="string")})
        second = await context.ask(
            {
                "step2": form(
                    f"Second step: {field(first['step1'], 'name')}, your city?", city="string"
                )
            }
        )
        return f"{field(first['step1'], 'name')} from {field(second['step2'], 'city')}"

    @server.tool()
    async def test_input_required_result_capabilities(context: RequestContext) -> str:
        """Asks only what the client declared it can answer: the user if it can, else its model"""
        if "elicitation" in context.client_capabilities:
            answers = await context.ask({"user_name": form("What is your name?", name="string")})
            return f"Hello, {field(answers['user_name'], 'name')}!"
        answers = await context.ask({"capital_question": sample("What is the capital of France?")})
        return f"The model said: {text_of(answers['capital_question'])}"


def add_envelope_tools(server: Server) -> None:
    """The server-stateless scenario's diagnostics: what a request's envelope and headers say."""

    @server.tool()
    async def test_missing_capability(context: RequestContext) -> str:
        """Needs the client's sampling capability: without it, -32021"""
        require_capability(context, "sampling", "sampling/createMessage")
        return "Success"

    def test_header_parameters(region: str, priority: int | None = None) -> str:
        return f"region={region} priority={priority}"

    # Over HTTP, a 2026-07-28 client also sends these two arguments as headers, to route on.
    server.add_tool(
        test_header_parameters,
        description="Tool whose arguments travel as Mcp-Param-* headers too",
        input_schema={
            "type": "object",
            "required": ["region"],
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "priority": {"type": "integer", "x-mcp-header": "Priority"},
            },
        },
    )

    @server.tool()
    async def test_streaming_elicitation(context: RequestContext) -> str:
        """Reports progress, then asks the user (in the answer, never as a request on the stream)"""
        await report_progress(context, 1, 2, "asking")
        answers = await context.ask({"user_name": form("What is your name?", name="string")})
        return f"Hello, {field(answers['user_name'], 'name')}!"

    @server.tool()
    async def test_logging_tool(context: RequestContext) -> str:
        """Logs three lines (sent only if the request asked for log lines)"""
        for level in ("debug", "info", "warning"):
            await log(context, level, f"a {level} line", logger="test_logging_tool")
        return "Logged"


def add_list_change_tools(server: Server) -> None:
    """Tools that change the tool and prompt lists, for ``subscriptions/listen`` to hear of it."""

    def changed_tool() -> str:
        """Added and removed to change the tool list"""
        return "here"

    def changed_prompt() -> str:
        """Added and removed to change the prompt list"""
        return "here"

    @server.tool()
    def test_trigger_tool_change() -> str:
        """Changes the tool list (a tool comes or goes): listeners hear tools/list_changed"""
        if server.tools.get("test_changed_tool") is None:
            server.add_tool(changed_tool, "test_changed_tool")
        else:
            server.remove_tool("test_changed_tool")
        return "tool list changed"

    @server.tool()
    def test_trigger_prompt_change() -> str:
        """Changes the prompt list (a prompt comes or goes): listeners hear prompts/list_changed"""
        if server.find_prompt("test_changed_prompt") is None:
            server.add_prompt(changed_prompt, "test_changed_prompt")
        else:
            server.remove_prompt("test_changed_prompt")
        return "prompt list changed"
