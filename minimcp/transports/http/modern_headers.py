"""The standard headers of a 2026-07-28 POST: what the body says, repeated for gateways (lesson 12).

A 2026-07-28 request repeats in headers what its body says, so that a gateway can route it without
reading the body (basic/transports/streamable-http, "Standard headers"): ``MCP-Protocol-Version``
(the envelope's version), ``Mcp-Method`` (the method), ``Mcp-Name`` (the tool, prompt or resource),
and each argument a tool's input schema marks with ``x-mcp-header`` as ``Mcp-Param-<Name>``. A
value a header cannot carry travels as ``=?base64?...?=``. The server checks that every header says
what the body says (a missing or different one is ``400``, error ``-32020``); the client writes
them (:func:`request_headers`).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator
from typing import Any

from minimcp.rpc.jsonrpc import Request
from minimcp.rpc.mcp import HEADER_MISMATCH, PROTOCOL_VERSION
from minimcp.transports.http.asgi import VERSION_HEADER, HttpRequest, Refusal

METHOD_HEADER = "mcp-method"
NAME_HEADER = "mcp-name"
#: Where each named method keeps the name its ``Mcp-Name`` header repeats.
NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}


def name_header(method: str, field: str) -> None:
    """Let ``method``, which an extension adds, carry an ``Mcp-Name`` header too: the value of its
    ``params[field]``, for a gateway to route on (lesson 13's ``tasks/get``: the task's id). Both
    sides follow it: the server checks the header, the client writes it."""
    NAMED[method] = field


# --8<-- [start:headers]
def check_headers(request: HttpRequest, message: Request) -> None:
    """The standard headers must say what the body says (streamable-http, "Standard headers")."""
    params = message.params or {}
    meta: dict[str, Any] = params["_meta"] if isinstance(params.get("_meta"), dict) else {}
    version = request.headers.get(VERSION_HEADER)
    if version is None:
        raise mismatch(message, "the MCP-Protocol-Version header is required")
    if PROTOCOL_VERSION in meta and meta[PROTOCOL_VERSION] != version:
        raise mismatch(
            message,
            f"MCP-Protocol-Version header value {quoted(version)} does not match body value "
            f"{quoted(meta[PROTOCOL_VERSION])}",
        )
    method = request.headers.get(METHOD_HEADER)
    if method is None:
        raise mismatch(
            message,
            "the Mcp-Method header is required: it repeats the body's method, "
            f"{quoted(message.method)}",
        )
    if method.strip() != message.method:
        raise mismatch(
            message,
            f"Mcp-Method header value {quoted(method)} does not match body value "
            f"{quoted(message.method)}",
        )
    field = NAMED.get(message.method)
    if field is not None:
        name = request.headers.get(NAME_HEADER)
        if name is None:
            raise mismatch(message, f"the Mcp-Name header is required for {message.method}")
        if decoded(name.strip(), message) != params.get(field):
            raise mismatch(
                message,
                f"Mcp-Name header value {quoted(name)} does not match body value "
                f"{quoted(params.get(field))}",
            )


def check_param_headers(
    request: HttpRequest, message: Request, schema: dict[str, Any] | None
) -> None:
    """A tool's ``x-mcp-header`` arguments must come as ``Mcp-Param-<Name>`` headers too, the
    same."""
    arguments = (message.params or {}).get("arguments")
    for path, header in header_parameters(schema).items():
        value = value_at(arguments, path)
        sent = request.headers.get(f"mcp-param-{header.lower()}")
        if value is None:
            continue  # absent or null in the body: no header expected
        if sent is None:
            raise mismatch(
                message,
                f"the Mcp-Param-{header} header is required: the body sets {'.'.join(path)!r}",
            )
        if not (sent.isascii() and sent.isprintable()):
            raise mismatch(message, f"Mcp-Param-{header} header value contains invalid characters")
        if decoded(sent.strip(), message) != header_text(value):
            raise mismatch(
                message,
                f"Mcp-Param-{header} header value {quoted(sent)} does not match body value "
                f"{quoted(value)}",
            )


# The characters of a token (RFC 9110)
TCHAR = set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def header_problem(schema: Any) -> str | None:
    """Why a tool's ``x-mcp-header`` annotations cannot be honoured (the client drops it), or None.

    A header name is a non-empty token, unique whatever its case, on an argument of type string,
    integer or boolean (a float has no single text form), which the schema's root reaches through
    ``properties`` alone: a top-level argument, or a property of one that is an object, and so on
    (streamable-http, "Schema Extension"). Anywhere else (under ``items``, ``anyOf``, ``$ref``…)
    an annotation is refused.
    """
    seen: set[str] = set()
    honoured = 0
    for path, spec in reachable(schema):
        if "x-mcp-header" not in spec:
            continue
        honoured += 1
        name, header = ".".join(path), spec["x-mcp-header"]
        if not (isinstance(header, str) and header and set(header) <= TCHAR):
            return f"argument {name!r}: x-mcp-header {header!r} is not a header name"
        if header.lower() in seen:
            return f"argument {name!r}: x-mcp-header {header!r} is used twice"
        seen.add(header.lower())
        if spec.get("type") not in ("string", "integer", "boolean"):
            return (
                f"argument {name!r}: x-mcp-header needs a string, integer or boolean, "
                f"not {spec.get('type')!r}"
            )
    if header_annotations(schema) > honoured:
        return "x-mcp-header is honoured only on properties reached through properties alone"
    return None


def reachable(schema: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every property the schema reaches through a chain of ``properties`` keys alone, with that
    chain: ``("filter", "region")`` is ``arguments["filter"]["region"]``."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    for name, spec in (properties if isinstance(properties, dict) else {}).items():
        if isinstance(spec, dict):
            yield (*path, name), spec
            yield from reachable(spec, (*path, name))


def header_annotations(value: Any) -> int:
    """How many ``x-mcp-header`` annotations there are anywhere inside ``value``."""
    if isinstance(value, dict):
        here = 1 if "x-mcp-header" in value else 0
        return here + sum(header_annotations(inner) for inner in value.values())
    return sum(header_annotations(inner) for inner in value) if isinstance(value, list) else 0


def header_parameters(schema: dict[str, Any] | None) -> dict[tuple[str, ...], str]:
    """The arguments a tool's input schema mirrors in headers: the chain of ``properties`` keys
    that reaches each (one key for a top-level argument) → its header name."""
    return {
        path: spec["x-mcp-header"]
        for path, spec in reachable(schema)
        if isinstance(spec.get("x-mcp-header"), str)
    }


def value_at(arguments: Any, path: tuple[str, ...]) -> Any:
    """The value of the arguments at ``path`` (streamable-http: "the exact property path"); None
    if there is none, and then no header is sent."""
    value = arguments
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def header_text(value: Any) -> str:
    """How a client writes an argument in its header: booleans as true/false, numbers in decimal."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def encoded(text: str) -> str:
    """A value as a header carries it: as it is if plain visible ASCII, else ``=?base64?...?=``."""
    plain = text.isascii() and text.isprintable() and text == text.strip()
    if plain and not (text.startswith("=?base64?") and text.endswith("?=")):
        return text
    return "=?base64?" + base64.b64encode(text.encode("utf-8")).decode("ascii") + "?="


# --8<-- [start:client_headers]
def request_headers(
    message: Request, header_params: dict[str, dict[tuple[str, ...], str]]
) -> dict[str, str]:
    """The headers a 2026-07-28 client sends with ``message``: what the body says, for gateways.

    ``header_params``: for each tool, its ``x-mcp-header`` arguments (the path to each → its header
    name), as its ``tools/list`` entry said.
    """
    params = message.params or {}
    headers = {
        VERSION_HEADER: str(params["_meta"][PROTOCOL_VERSION]),
        METHOD_HEADER: message.method,
    }
    field = NAMED.get(message.method)
    if field is not None and isinstance(params.get(field), str):
        headers[NAME_HEADER] = encoded(params[field])
    arguments = params.get("arguments") if message.method == "tools/call" else None
    for path, header in header_params.get(str(params.get("name")), {}).items():
        value = value_at(arguments, path)
        if value is not None:
            headers[f"mcp-param-{header.lower()}"] = encoded(header_text(value))
    return headers


# --8<-- [end:client_headers]


def decoded(value: str, message: Request) -> str:
    """A header value as the client meant it: ``=?base64?...?=`` carries what a header cannot."""
    if not (value.startswith("=?base64?") and value.endswith("?=")):
        return value
    try:
        return base64.b64decode(value[len("=?base64?") : -2], validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        raise mismatch(
            message, f"header value {quoted(value)} is not valid Base64 of UTF-8 text"
        ) from None


#: The most characters of a value an error message repeats: a line, whatever the client sent.
MAX_QUOTED = 100


def quoted(value: Any) -> str:
    """A value as an error message repeats it: its ``repr`` (one line: a newline shows as ``\\n``),
    cut to :data:`MAX_QUOTED` characters. A client that sends a megabyte does not get it back."""
    shown = repr(value)
    return shown if len(shown) <= MAX_QUOTED else shown[:MAX_QUOTED] + "…"


# --8<-- [end:headers]


def mismatch(message: Request, why: str) -> Refusal:
    return Refusal(400, f"Header mismatch: {why}", HEADER_MISMATCH, request_id=message.id)
