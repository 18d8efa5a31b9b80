"""Tools: actions the model may decide to call (lesson 04).

A tool is a name, a description the model reads, and a JSON Schema for its arguments
(spec 2025-11-25, server/tools). Two methods serve them:

* ``tools/list`` answers the catalogue: ``name``, ``title``, ``description``, ``inputSchema`` and,
  when the tool promises a shape for its answer, ``outputSchema``;
* ``tools/call`` runs one tool with ``arguments`` and answers a *result*: a list of content blocks
  (text, image, audio, resource links, embedded resources) and, for a tool with an output schema,
  ``structuredContent``.

The one rule worth learning here is **who hears about a failure**. A request the server cannot
even route (no such tool, ``arguments`` that are not an object) is a JSON-RPC error: the client's
code must deal with it. Everything that goes wrong *inside* the tool (arguments that break the
schema, a date in the wrong format, an exception) is an ordinary result with ``isError: true``
and a message the model can read, so it can correct itself and try again.

:class:`ToolRegistry` installs both methods and the ``tools`` capability into a
:class:`~minimcp.server.Server`; ``@server.tool()`` is the friendly way to use it.

The pieces a tool is made of live beside this module: :mod:`minimcp.server.content` (the blocks of
a result), :mod:`minimcp.server.schema` (the input schema from a signature) and
:mod:`minimcp.server.handlers` (calling the function).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from minimcp.rpc.jsonrpc import INVALID_PARAMS, RpcError, shorten
from minimcp.server.content import text_content, to_content
from minimcp.server.core import ServerCore
from minimcp.server.handlers import call_handler, wants_context
from minimcp.server.registry import Catalogue, described
from minimcp.server.schema import input_schema_for
from minimcp.session.context import RequestContext
from minimcp.session.progress import PROGRESS, progress_notice
from minimcp.session.schemas import load_jsonschema, make_validator, schema_problems
from minimcp.session.server import ForTheClient

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

log = logging.getLogger("minimcp.tools")

#: The one error a tool may answer its ``tools/call`` with, rather than a result: "first complete
#: these URL elicitations" (:class:`minimcp.server.elicitation.UrlElicitationRequired`, lesson 09).
URL_ELICITATION_REQUIRED = -32042

#: How long a tool may run, unless ``server.tools.timeout`` says otherwise.
DEFAULT_TOOL_TIMEOUT = 300.0


# -- results and errors ----------------------------------------------------------------------------
@dataclass
class ToolResult:
    """Return this from a tool to choose the whole result (several blocks, an error, both)."""

    content: list[Any] | None = None
    structured: dict[str, Any] | None = None
    is_error: bool = False


class ToolError(Exception):
    """Raise inside a tool to tell the *model* what went wrong: it becomes an ``isError`` result.

    Write the message for the model, saying how to do better: "Invalid date '21/03/2025': use the
    format YYYY-MM-DD, e.g. 2025-03-21".
    """


def error_result(message: str) -> dict[str, Any]:
    """A tool execution error: a normal result that the model can read and act on."""
    return {"content": [text_content(message)], "isError": True}


# -- progress --------------------------------------------------------------------------------------
# --8<-- [start:progress]
async def report_progress(
    context: RequestContext, progress: float, total: float | None = None, message: str | None = None
) -> None:
    """Send ``notifications/progress`` for the request being answered, if its client asked for it.

    The client asks by putting a ``progressToken`` in the request's ``_meta``; every notification
    names that token so the client knows which request is moving (basic/utilities/progress).
    ``progress`` must grow with each call. Without a token there is nobody to tell: do nothing.
    """
    params = progress_notice(context.params, progress, total, message)  # minimcp.session.progress
    if params is not None:
        await context.notify(PROGRESS, params)


# --8<-- [end:progress]


# -- the registry ----------------------------------------------------------------------------------
TOOL_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")  # what the spec says a tool name SHOULD look like


@dataclass
class Tool:
    """One tool: what ``tools/list`` shows, and the function ``tools/call`` runs."""

    name: str
    handler: Callable[..., Any]
    input_schema: dict[str, Any]
    title: str | None = None
    description: str | None = None
    output_schema: dict[str, Any] | None = None
    annotations: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if not TOOL_NAME.fullmatch(self.name):
            raise ValueError(f"tool name {self.name!r}: use 1-128 letters, digits, '_', '-' or '.'")
        for which, schema in (("input", self.input_schema), ("output", self.output_schema)):
            if schema is not None and schema.get("type") != "object":
                raise ValueError(
                    f'the {which} schema of tool {self.name!r} must have "type": "object"'
                )

    @functools.cached_property
    def input_validator(self) -> Validator:
        return make_validator(self.input_schema)

    @functools.cached_property
    def output_validator(self) -> Validator | None:
        return make_validator(self.output_schema) if self.output_schema else None

    def definition(self) -> dict[str, Any]:
        """The tool as ``tools/list`` shows it (optional fields only when they have a value)."""
        return described(
            name=self.name,
            title=self.title,
            description=self.description,
            inputSchema=self.input_schema,
            outputSchema=self.output_schema,
            annotations=self.annotations,
        )

    # --8<-- [start:result]
    def result(self, value: Any) -> dict[str, Any]:
        """Turn what the handler returned into a ``CallToolResult``."""
        if not isinstance(value, ToolResult):
            # With an output schema the return value *is* the structured result; else, content.
            value = (
                ToolResult(structured=value) if self.output_schema else ToolResult(content=value)
            )
        structured = value.structured
        if self.output_validator is not None and not value.is_error:
            problems = schema_problems(self.output_validator, structured)
            if problems:  # the server broke its own promise: a bug, reported like any other failure
                log.error(
                    "tool %s: output does not match its outputSchema: %s", self.name, problems
                )
                return error_result(
                    f"Tool {self.name} produced output that does not match its "
                    f"outputSchema: {'; '.join(problems)}"
                )
        content = to_content(value.content)
        if structured is not None and not content:
            # Older clients only read `content`: give them the same JSON as text (spec: SHOULD).
            content = [text_content(json.dumps(structured, ensure_ascii=False))]
        out: dict[str, Any] = {"content": content}
        if structured is not None:
            out["structuredContent"] = structured
        if value.is_error:
            out["isError"] = True
        return out

    # --8<-- [end:result]


# --8<-- [start:registry]
class ToolRegistry(Catalogue[Tool]):
    """A server's tools. Creating it installs ``tools/list``, ``tools/call`` and the capability."""

    def __init__(self, server: ServerCore) -> None:
        # listChanged: we promise to say so when tools come and go while a client is connected.
        super().__init__(
            server,
            "tools",
            {"tools/list": self.list_tools, "tools/call": self.call_tool},
            {"listChanged": True},
        )
        #: Seconds a tool may run before its caller gets an error result (else a hung tool holds
        #: its request, and its client's place in the server, until the session ends).
        self.timeout = DEFAULT_TOOL_TIMEOUT

    def add(
        self,
        handler: Callable[..., Any],
        name: str | None = None,
        *,
        title: str | None = None,
        description: str | None = None,
        input_schema: dict[str, Any] | None = None,
        output_schema: dict[str, Any] | None = None,
        annotations: dict[str, Any] | None = None,
    ) -> Tool:
        """Register ``handler`` as a tool. Name, description and schema default to the handler's."""
        tool = Tool(
            name=name or handler.__name__,
            handler=handler,
            input_schema=input_schema if input_schema is not None else input_schema_for(handler),
            title=title,
            description=description if description is not None else inspect.getdoc(handler),
            output_schema=output_schema,
            annotations=annotations,
        )
        return self.put(tool.name, tool)  # put() also tells the clients: list_changed

    # --8<-- [end:registry]

    # --8<-- [start:list]
    async def list_tools(self, context: RequestContext) -> dict[str, Any]:
        """``tools/list``: one page of the catalogue (see :mod:`minimcp.server.pagination`)."""
        return self.page("tools", [tool.definition() for tool in self], context)

    # --8<-- [end:list]

    # --8<-- [start:call]
    async def call_tool(self, context: RequestContext) -> dict[str, Any]:
        """``tools/call``: find the tool, check the arguments, run it, and shape its answer."""
        name = context.params.get("name")
        arguments = context.params.get("arguments")
        if arguments is None:
            arguments = {}
        # Protocol errors: the request itself is wrong, so the client gets a JSON-RPC error.
        if not isinstance(name, str):
            raise RpcError(INVALID_PARAMS, 'tools/call needs "name" (a string)')
        if not isinstance(arguments, dict):
            raise RpcError(INVALID_PARAMS, '"arguments" must be an object')
        tool = self.get(name)
        if tool is None:
            raise RpcError(INVALID_PARAMS, f"Unknown tool: {shorten(name)}")

        # Tool execution errors: from here on the *model* hears what went wrong, as a result.
        await load_jsonschema()  # the first call imports it, in a thread: the other sessions go on
        problems = schema_problems(tool.input_validator, arguments)
        if problems:
            return error_result(f"Invalid arguments for tool {name}: {'; '.join(problems)}")
        try:
            # timeout(), not wait_for(): that would run the call in a task of its own
            async with asyncio.timeout(self.timeout):
                value = await run_tool(tool, arguments, context)
        except ForTheClient:  # e.g. 2026-07-28's questions to the client (lesson 12)
            raise
        except ToolError as err:
            return error_result(str(err))
        except TimeoutError:
            log.warning("tool %s ran out of time (%g s)", name, self.timeout)
            return error_result(f"Tool {name} did not finish within {self.timeout:g} seconds")
        except RpcError as err:
            if err.code == URL_ELICITATION_REQUIRED:  # for the client, not the model
                raise
            # the client refused a question back (sampling, elicitation): say so
            return error_result(f"Tool {name} failed: RpcError: {err.message}")
        except Exception:  # a bug in one tool must never take the server down, nor leak its details
            log.exception("tool %s failed", name)  # the details (paths, values…) stay in our log
            return error_result(
                f"Tool {name} failed with an internal error (the server's log has the details)"
            )
        return tool.result(value)

    # --8<-- [end:call]


# --8<-- [start:run_tool]
async def run_tool(tool: Tool, arguments: dict[str, Any], context: RequestContext) -> Any:
    """Run a tool's function. A plain function runs in a worker thread, not on the event loop.

    The event loop serves every session of the server, one piece of work at a time: a plain function
    that sleeps or reads a large file for 3 seconds would hold *every* client up for 3 seconds. In a
    thread, it holds up only its own call. A coroutine function runs on the loop, as it should (it
    ``await``s instead of blocking), and so does a function that asks for ``context``: the context
    belongs to the event loop's world.
    """
    if inspect.iscoroutinefunction(tool.handler) or wants_context(tool.handler):
        return await call_handler(tool.handler, arguments, context)
    return await asyncio.to_thread(tool.handler, **arguments)


# --8<-- [end:run_tool]
