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

Run ``python -m minimcp.tools`` to watch a client list and call the tools of a tiny server.
"""

from __future__ import annotations

import base64
import functools
import inspect
import json
import logging
import re
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

from .jsonrpc import INVALID_PARAMS, RpcError
from .pagination import page_result
from .session import RequestContext

if TYPE_CHECKING:  # only for type hints: server.py imports this module, not the other way round
    from jsonschema.protocols import Validator

    from .server import Server

log = logging.getLogger("minimcp.tools")


# -- content blocks ---------------------------------------------------------------------------------
# --8<-- [start:content]
# What a tool (or a prompt, lesson 06) can answer with: a list of typed blocks. Binary data travels
# as base64 text, because JSON has no bytes.
def text_content(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def image_content(data: bytes, mime_type: str) -> dict[str, Any]:
    return {"type": "image", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime_type}


def audio_content(data: bytes, mime_type: str) -> dict[str, Any]:
    return {"type": "audio", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime_type}


def resource_link(uri: str, name: str, *, title: str | None = None, description: str | None = None,
                  mime_type: str | None = None) -> dict[str, Any]:
    """A pointer to a resource the client may read later (lesson 05), instead of its contents."""
    block = {"type": "resource_link", "uri": uri, "name": name, "title": title,
             "description": description, "mimeType": mime_type}
    return {key: value for key, value in block.items() if value is not None}


def embedded_resource(uri: str, *, text: str | None = None, blob: bytes | None = None,
                      mime_type: str = "text/plain") -> dict[str, Any]:
    """A resource's contents carried inside the answer itself: either ``text`` or binary ``blob``."""
    if (text is None) == (blob is None):
        raise ValueError("an embedded resource has either text or blob, not both and not neither")
    contents: dict[str, Any] = {"uri": uri, "mimeType": mime_type}
    if text is not None:
        contents["text"] = text
    else:
        contents["blob"] = base64.b64encode(blob or b"").decode("ascii")
    return {"type": "resource", "resource": contents}
# --8<-- [end:content]


CONTENT_TYPES = {"text", "image", "audio", "resource_link", "resource"}


def is_content_block(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") in CONTENT_TYPES


def to_content(value: Any) -> list[dict[str, Any]]:
    """Turn what a handler returned into content blocks.

    A string becomes one text block; a block (or a list of strings and blocks) is kept as it is;
    anything else (numbers, dicts, lists of data) is written as JSON text; None is no content.
    """
    if value is None:
        return []
    if isinstance(value, str):
        return [text_content(value)]
    if is_content_block(value):
        return [value]
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) or is_content_block(v)
                                                          for v in value):
        return [block for item in value for block in to_content(item)]
    return [text_content(json.dumps(value, ensure_ascii=False))]


@dataclass
class ToolResult:
    """Return this from a tool to choose the whole result yourself (several blocks, an error, both)."""

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


# -- input schemas from Python signatures -------------------------------------------------------
# --8<-- [start:schema]
JSON_TYPES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean",
                              type(None): "null"}


def schema_for(annotation: Any) -> dict[str, Any]:
    """The JSON Schema of one Python type hint: the few types a tool's arguments need."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:  # Annotated[int, "description"] or Annotated[int, {"minimum": 1}]
        schema = schema_for(args[0])
        for extra in args[1:]:
            if isinstance(extra, str):
                schema["description"] = extra
            elif isinstance(extra, dict):
                schema.update(extra)
        return schema
    if annotation is Any or annotation is inspect.Parameter.empty:
        return {}  # no hint: any JSON value
    if annotation in JSON_TYPES:
        return {"type": JSON_TYPES[annotation]}
    if origin is Literal:  # Literal["celsius", "fahrenheit"]
        schema = {"enum": list(args)}
        kinds = {JSON_TYPES.get(type(value)) for value in args}
        if len(kinds) == 1 and None not in kinds:
            schema["type"] = kinds.pop()
        return schema
    if origin in (Union, types.UnionType):  # Optional[str], str | None, int | str
        options = [schema_for(arg) for arg in args]
        return options[0] if len(options) == 1 else {"anyOf": options}
    if annotation is list or origin is list:
        return {"type": "array", "items": schema_for(args[0])} if args else {"type": "array"}
    if annotation is dict or origin is dict:
        if len(args) == 2:
            return {"type": "object", "additionalProperties": schema_for(args[1])}
        return {"type": "object"}
    raise TypeError(f"no JSON Schema for {annotation!r}: pass input_schema= to describe it yourself")


def input_schema_for(function: Callable[..., Any]) -> dict[str, Any]:
    """The ``inputSchema`` of a function: one property per parameter; no default means required.

    A parameter named ``context`` is left out: it is not for the model, the server fills it in.
    """
    hints = get_type_hints(function, include_extras=True)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, parameter in inspect.signature(function).parameters.items():
        if name == "context" or parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        properties[name] = schema_for(hints.get(name, Any))
        if parameter.default is parameter.empty:
            required.append(name)
        elif isinstance(parameter.default, (str, int, float, bool, type(None))):
            properties[name]["default"] = parameter.default
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False  # a misspelt argument is an error the model can fix
    return schema
# --8<-- [end:schema]


def make_validator(schema: dict[str, Any]) -> Validator:
    """A validator for ``schema``: JSON Schema 2020-12 unless the schema names another ``$schema``."""
    # Imported here, on first use: importing jsonschema takes a noticeable moment, and a server
    # that is never asked to call a tool (lessons 02-03 start this one often) should not pay for it.
    import jsonschema

    validator_class = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    validator_class.check_schema(schema)  # a broken schema is the server author's bug: say so loudly
    return validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)


def schema_problems(validator: Validator, instance: Any) -> list[str]:
    """Every way ``instance`` breaks the schema, one sentence each: ``date: 5 is not of type 'string'``."""
    if validator.is_valid(instance):  # the usual case, and a quicker question than "every way it fails"
        return []
    problems = []
    for error in sorted(validator.iter_errors(instance), key=lambda e: [str(p) for p in e.path]):
        where = "/".join(str(part) for part in error.path)
        problems.append(f"{where}: {error.message}" if where else error.message)
    return problems


@functools.lru_cache(maxsize=1024)
def wants_context(handler: Callable[..., Any]) -> bool:
    """Does ``handler`` take a ``context`` parameter? (Reading a signature is slow: asked once per handler.)"""
    return "context" in inspect.signature(handler).parameters


async def call_handler(handler: Callable[..., Any], arguments: dict[str, Any],
                       context: RequestContext | None = None) -> Any:
    """Call a sync or async handler with keyword arguments, adding ``context`` if it asks for one.

    A sync handler runs on the event loop itself: keep it quick (or make it async), since every
    session of the server waits while it runs.
    """
    if context is not None and wants_context(handler):
        arguments = {**arguments, "context": context}
    result = handler(**arguments)
    if inspect.isawaitable(result):
        result = await result
    return result


# -- progress ---------------------------------------------------------------------------------------
# --8<-- [start:progress]
async def report_progress(context: RequestContext, progress: float, total: float | None = None,
                          message: str | None = None) -> None:
    """Send ``notifications/progress`` for the request being answered, if its client asked for it.

    The client asks by putting a ``progressToken`` in the request's ``_meta``; every notification
    names that token so the client knows which request is moving (basic/utilities/progress).
    ``progress`` must grow with each call. Without a token there is nobody to tell: do nothing.
    """
    token = context.meta.get("progressToken")
    if not isinstance(token, (str, int)) or isinstance(token, bool):
        return
    params: dict[str, Any] = {"progressToken": token, "progress": progress}
    if total is not None:
        params["total"] = total
    if message is not None:
        params["message"] = message
    await context.session.notify("notifications/progress", params)
# --8<-- [end:progress]


# -- the registry -----------------------------------------------------------------------------------
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
                raise ValueError(f'the {which} schema of tool {self.name!r} must have "type": "object"')

    @functools.cached_property
    def input_validator(self) -> Validator:
        return make_validator(self.input_schema)

    @functools.cached_property
    def output_validator(self) -> Validator | None:
        return make_validator(self.output_schema) if self.output_schema else None

    def definition(self) -> dict[str, Any]:
        """The tool as ``tools/list`` shows it (optional fields only when they have a value)."""
        out: dict[str, Any] = {"name": self.name}
        if self.title:
            out["title"] = self.title
        if self.description:
            out["description"] = self.description
        out["inputSchema"] = self.input_schema
        if self.output_schema:
            out["outputSchema"] = self.output_schema
        if self.annotations:
            out["annotations"] = self.annotations
        return out

    # --8<-- [start:result]
    def result(self, value: Any) -> dict[str, Any]:
        """Turn what the handler returned into a ``CallToolResult``."""
        if not isinstance(value, ToolResult):
            # With an output schema the return value *is* the structured result; otherwise it is content.
            value = ToolResult(structured=value) if self.output_schema else ToolResult(content=value)
        structured = value.structured
        if self.output_validator is not None and not value.is_error:
            problems = schema_problems(self.output_validator, structured)
            if problems:  # the server broke its own promise: a bug, reported like any other failure
                log.error("tool %s: output does not match its outputSchema: %s", self.name, problems)
                return error_result(f"Tool {self.name} produced output that does not match its "
                                    f"outputSchema: {'; '.join(problems)}")
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
class ToolRegistry:
    """The tools of one server. Creating it installs ``tools/list``, ``tools/call`` and the capability."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self._tools: dict[str, Tool] = {}
        server.method("tools/list")(self.list_tools)
        server.method("tools/call")(self.call_tool)
        # listChanged: we promise to say so when tools come and go while a client is connected.
        server.declare("tools", {"listChanged": True})

    def add(self, handler: Callable[..., Any], name: str | None = None, *, title: str | None = None,
            description: str | None = None, input_schema: dict[str, Any] | None = None,
            output_schema: dict[str, Any] | None = None,
            annotations: dict[str, Any] | None = None) -> Tool:
        """Register ``handler`` as a tool. Name, description and schema default to the function's own."""
        tool = Tool(
            name=name or handler.__name__,
            handler=handler,
            input_schema=input_schema if input_schema is not None else input_schema_for(handler),
            title=title,
            description=description if description is not None else inspect.getdoc(handler),
            output_schema=output_schema,
            annotations=annotations,
        )
        self._tools[tool.name] = tool
        self.server.announce("notifications/tools/list_changed")
        return tool

    def remove(self, name: str) -> None:
        """Take a tool away (KeyError if there is none by that name)."""
        del self._tools[name]
        self.server.announce("notifications/tools/list_changed")
    # --8<-- [end:registry]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)

    # --8<-- [start:list]
    async def list_tools(self, context: RequestContext) -> dict[str, Any]:
        """``tools/list``: one page of the catalogue (see :mod:`minimcp.pagination`)."""
        definitions = [tool.definition() for tool in self._tools.values()]
        return page_result("tools", definitions, context.params, self.server.page_size)
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
        tool = self._tools.get(name)
        if tool is None:
            raise RpcError(INVALID_PARAMS, f"Unknown tool: {name}")

        # Tool execution errors: from here on the *model* hears what went wrong, as a result.
        problems = schema_problems(tool.input_validator, arguments)
        if problems:
            return error_result(f"Invalid arguments for tool {name}: {'; '.join(problems)}")
        try:
            value = await call_handler(tool.handler, arguments, context)
        except ToolError as err:
            return error_result(str(err))
        except Exception as exc:  # a bug in one tool must never take the server down
            log.exception("tool %s failed", name)
            return error_result(f"Tool {name} failed: {type(exc).__name__}: {exc}")
        return tool.result(value)
    # --8<-- [end:call]


async def _demo() -> None:
    """A tiny server with two tools; a client lists them and calls them, right and wrong."""
    import asyncio

    from .connection import memory_pair
    from .server import Server
    from .session import ClientSession

    server = Server("tools-demo")

    @server.tool(title="Add two numbers")
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool()
    def greet(name: Annotated[str, "Who to greet"], excited: bool = False) -> str:
        """Say hello."""
        return f"Hello, {name}{'!' if excited else '.'}"

    client_end, server_end = memory_pair()
    serving = asyncio.ensure_future(server.serve(server_end))
    client = ClientSession(client_end)
    await client.initialize(timeout=5)

    def show(label: str, value: Any) -> None:
        print(f"{label}\n{json.dumps(value, indent=2)}\n")

    show("tools/list ->", await client.request("tools/list", timeout=5))
    show("tools/call add(2, 3) ->", await client.request("tools/call", {"name": "add",
                                                                          "arguments": {"a": 2, "b": 3}}, 5))
    show("tools/call add(2, 'three') ->", await client.request(
        "tools/call", {"name": "add", "arguments": {"a": 2, "b": "three"}}, 5))
    try:
        await client.request("tools/call", {"name": "divide", "arguments": {}}, 5)
    except RpcError as err:
        print(f"tools/call divide ->\nerror {err.code}: {err.message}")
    await client.close()
    await serving


if __name__ == "__main__":
    import asyncio

    asyncio.run(_demo())
