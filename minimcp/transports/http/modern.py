"""Streamable HTTP without sessions: one POST, one request, one answer (MCP 2026-07-28, lesson 12).

Lesson 08's endpoint keeps sessions, streams and stored events, and lesson 11 shares them between
workers. A 2026-07-28 request needs none of it: it carries its own envelope, so the server answers
it with one call (its ``answer_alone``: lesson 12's :func:`~minimcp.session.alone.answer_alone`),
with no session around it, and nothing to forget afterwards. Any worker can serve any request;
nothing to share, nothing to resume (basic/transports/streamable-http):

* POST only: ``GET`` and ``DELETE`` are ``405``, for a client that speaks 2026-07-28;
* the headers say what the body says, so that a gateway can route without reading the body:
  ``MCP-Protocol-Version`` (the envelope's version), ``Mcp-Method`` (the method) and ``Mcp-Name``
  (the tool, prompt or resource). A header that is missing or says otherwise is ``400``, error
  ``-32020``;
* the answer is one JSON body, or, if the request says something first (progress, a log line), an
  SSE stream with no event ids: a broken stream is not resumed, the client sends the request again;
* the client closing that stream cancels the request.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from minimcp.rpc.answering import internal_error
from minimcp.rpc.jsonrpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    ErrorResponse,
    Message,
    Request,
    Response,
)
from minimcp.rpc.mcp import HEADER_MISMATCH, MODERN_ERRORS, PROTOCOL_VERSION
from minimcp.transports.http.asgi import (
    VERSION_HEADER,
    HttpRequest,
    Receive,
    Refusal,
    Send,
    send_response,
)
from minimcp.transports.http.routing import First, answer_as
from minimcp.transports.http.streams import Said, sse_response
from minimcp.transports.sse import format_event

METHOD_HEADER = "mcp-method"
NAME_HEADER = "mcp-name"
#: Where each named method keeps the name its ``Mcp-Name`` header repeats.
NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
JSON = "application/json"

log = logging.getLogger("minimcp.http")


class AloneServer(Protocol):
    """What this module needs of the server: a tool's input schema, and the answer to a request
    that arrives alone (lesson 12's :func:`~minimcp.session.alone.answer_alone`)."""

    def input_schema(self, tool: str) -> dict[str, Any] | None: ...

    def answer_alone(
        self, request: Request, say: Callable[[Message], Awaitable[None]], /
    ) -> Awaitable[Response | ErrorResponse]: ...


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
            f"MCP-Protocol-Version header value {version!r} does not match body value "
            f"{meta[PROTOCOL_VERSION]!r}",
        )
    method = request.headers.get(METHOD_HEADER)
    if method is None or method.strip() != message.method:
        raise mismatch(
            message,
            f"Mcp-Method header value {method!r} does not match body value {message.method!r}",
        )
    field = NAMED.get(message.method)
    if field is not None:
        name = request.headers.get(NAME_HEADER)
        if name is None or decoded(name.strip(), message) != params.get(field):
            raise mismatch(
                message,
                f"Mcp-Name header value {name!r} does not match body value {params.get(field)!r}",
            )


def check_param_headers(
    request: HttpRequest, message: Request, schema: dict[str, Any] | None
) -> None:
    """A tool's ``x-mcp-header`` arguments must come as ``Mcp-Param-<Name>`` headers too, the
    same."""
    arguments = (message.params or {}).get("arguments")
    for name, header in header_parameters(schema).items():
        value = arguments.get(name) if isinstance(arguments, dict) else None
        sent = request.headers.get(f"mcp-param-{header.lower()}")
        if value is None:
            continue  # absent or null in the body: no header expected
        if sent is None:
            raise mismatch(
                message, f"the Mcp-Param-{header} header is required: the body sets {name!r}"
            )
        if not (sent.isascii() and sent.isprintable()):
            raise mismatch(message, f"Mcp-Param-{header} header value contains invalid characters")
        if decoded(sent.strip(), message) != header_text(value):
            raise mismatch(
                message,
                f"Mcp-Param-{header} header value {sent!r} does not match body value {value!r}",
            )


# The characters of a token (RFC 9110)
TCHAR = set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def header_problem(schema: Any) -> str | None:
    """Why a tool's ``x-mcp-header`` annotations cannot be honoured (the client drops it), or None.

    A header name is a non-empty token, unique whatever its case, on a top-level argument of type
    string, integer or boolean (a float has no single text form); anywhere else an annotation is
    refused.
    """
    properties = schema.get("properties") if isinstance(schema, dict) else None
    seen: set[str] = set()
    for name, spec in (properties or {}).items():
        if not isinstance(spec, dict) or "x-mcp-header" not in spec:
            continue
        header = spec["x-mcp-header"]
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
    elsewhere = (
        [value for key, value in schema.items() if key != "properties"]
        if isinstance(schema, dict)
        else []
    )
    elsewhere += [
        value
        for spec in (properties or {}).values()
        if isinstance(spec, dict)
        for key, value in spec.items()
        if key != "x-mcp-header"
    ]
    if any(annotated(value) for value in elsewhere):
        return "x-mcp-header is honoured on top-level arguments only"
    return None


def annotated(value: Any) -> bool:
    """Whether an ``x-mcp-header`` appears anywhere inside ``value``."""
    if isinstance(value, dict):
        return "x-mcp-header" in value or any(annotated(inner) for inner in value.values())
    return isinstance(value, list) and any(annotated(inner) for inner in value)


def header_parameters(schema: dict[str, Any] | None) -> dict[str, str]:
    """The top-level arguments a tool's input schema mirrors in headers: argument → header name."""
    properties = (schema or {}).get("properties")
    if not isinstance(properties, dict):
        return {}
    return {
        name: spec["x-mcp-header"]
        for name, spec in properties.items()
        if isinstance(spec, dict) and isinstance(spec.get("x-mcp-header"), str)
    }


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
def request_headers(message: Request, header_params: dict[str, dict[str, str]]) -> dict[str, str]:
    """The headers a 2026-07-28 client sends with ``message``: what the body says, for gateways.

    ``header_params``: for each tool, its ``x-mcp-header`` arguments (argument → header name), as
    its ``tools/list`` entry said.
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
    for name, header in header_params.get(str(params.get("name")), {}).items():
        value = arguments.get(name) if isinstance(arguments, dict) else None
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
            message, f"header value {value!r} is not valid Base64 of UTF-8 text"
        ) from None


# --8<-- [end:headers]


def mismatch(message: Request, why: str) -> Refusal:
    return Refusal(400, f"Header mismatch: {why}", HEADER_MISMATCH, request_id=message.id)


# --8<-- [start:serve]
async def serve_one(
    server: AloneServer,
    request: HttpRequest,
    message: Message,
    send: Send,
    receive: Receive,
    stream_after: float,
    keepalive: float,
) -> None:
    """Serve one 2026-07-28 POST: check its headers, answer it, and write what it says."""
    if not isinstance(message, Request):  # 2026-07-28 defines no client notification over HTTP
        await send_response(send, 202)
        return
    check_headers(request, message)
    if message.method == "tools/call":
        tool = str((message.params or {}).get("name"))
        check_param_headers(request, message, server.input_schema(tool))
    said: asyncio.Queue[Said] = asyncio.Queue()  # what it says, its answer last
    answering = asyncio.create_task(answer_into(server, message, said))
    try:
        try:
            first: Said | None = await asyncio.wait_for(said.get(), stream_after)
        except TimeoutError:
            first = None  # still working, with nothing said yet: stream it
        spoke: First | None = None if first is None else "answer" if first.final else "message"
        if first is not None and answer_as(spoke) == "json":  # lesson 08's rule
            await send_response(send, status_of(first.message), first.text.encode(), JSON)
            return
        await stream(send, receive, said, first, keepalive)
    finally:
        answering.cancel()  # the client left before the answer: nobody wants it any more
        await asyncio.gather(answering, return_exceptions=True)


async def answer_into(server: AloneServer, request: Request, said: asyncio.Queue[Said]) -> None:
    """The server's answer to ``request``, after whatever it says meanwhile, into ``said``: each
    message encoded once, as it is said (:class:`~minimcp.transports.http.streams.Said`)."""

    async def say(message: Message) -> None:
        said.put_nowait(Said.of(message))

    answer = await server.answer_alone(request, say)
    try:
        said.put_nowait(Said.of(answer))
    except (TypeError, ValueError):  # the handler returned something that is not JSON
        log.exception("the result of %s is not JSON", request.method)
        said.put_nowait(Said.of(internal_error(request)))


# --8<-- [end:serve]


def status_of(answer: Message) -> int:
    """The HTTP status of a JSON answer: 404 for an unknown method, 400 for a wrong request."""
    if not isinstance(answer, ErrorResponse):
        return 200
    if answer.code == METHOD_NOT_FOUND:
        return 404
    if answer.code in (INVALID_REQUEST, INVALID_PARAMS, *MODERN_ERRORS):
        return 400
    return 200


async def stream(
    send: Send,
    receive: Receive,
    said: asyncio.Queue[Said],
    first: Said | None,
    keepalive: float,
) -> None:
    """An SSE response with no event ids: what the request says, then its answer, then the end.
    Lesson 08's SSE writer does the rest: keep-alive comments, and the end when the client goes."""
    async with sse_response(send, receive, {"x-accel-buffering": "no"}) as connection:
        pending = [first] if first is not None else []
        while True:
            next_said = pending.pop() if pending else await connection.next(said.get, keepalive)
            if next_said is None:
                return  # the client went away: the caller cancels the request
            await connection.write(format_event(next_said.text))
            if next_said.final:
                return
