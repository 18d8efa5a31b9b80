"""JSON-RPC 2.0: the envelope every MCP message travels in (lesson 01).

MCP does not invent a wire format. Every message is a JSON-RPC 2.0 object of one of four kinds:

* a **request** has an ``id`` and a ``method`` and expects exactly one answer;
* a **notification** has a ``method`` but no ``id``, and is never answered;
* a **result** answers a request: the same ``id`` and a ``result``;
* an **error** answers a request that failed: the same ``id`` and an ``error`` object.

This module turns text into those four kinds and back. When text is not a valid message it
raises :class:`RpcError` carrying the standard error code, so the caller can answer the peer
with an error instead of crashing. Nothing here knows about sockets, pipes or MCP methods.

Run ``python -m minimcp demo jsonrpc`` and type messages to see how each one is classified.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, TypeGuard, cast

JSONRPC_VERSION = "2.0"

# --8<-- [start:codes]
# The standard error codes of JSON-RPC 2.0 (https://www.jsonrpc.org/specification#error_object).
PARSE_ERROR = -32700  # the text is not JSON at all
INVALID_REQUEST = -32600  # JSON, but not a valid JSON-RPC message
METHOD_NOT_FOUND = -32601  # nobody here answers that method
INVALID_PARAMS = -32602  # the method exists, its parameters are wrong
INTERNAL_ERROR = -32603  # the handler itself failed
# --8<-- [end:codes]

RequestId = str | int


# --8<-- [start:types]
@dataclass(frozen=True)
class Request:
    """A call that expects exactly one answer, matched to it by ``id``."""

    id: RequestId
    method: str
    params: dict[str, Any] | None = None


@dataclass(frozen=True)
class Notification:
    """A one-way message: no ``id``, so no answer can ever refer to it."""

    method: str
    params: dict[str, Any] | None = None


@dataclass(frozen=True)
class Response:
    """The successful answer to the request with the same ``id``."""

    id: RequestId
    result: Any


@dataclass(frozen=True)
class ErrorResponse:
    """The failed answer to a request. ``id`` is None only when the request's id was unreadable."""

    id: RequestId | None
    code: int
    message: str
    data: Any = None


Message = Request | Notification | Response | ErrorResponse
# --8<-- [end:types]


class RpcError(Exception):
    """A JSON-RPC error, raised where it happens and turned into an error response by the caller.

    ``id`` is the id of the offending message when it could be read. ``answerable`` says whether
    the peer is waiting for an answer: a broken *notification* or a broken *response* must never be
    answered (nobody waits for it, and answering a response could loop forever), so the receiver
    only logs those.
    """

    def __init__(
        self,
        code: int,
        message: str,
        data: Any = None,
        *,
        id: RequestId | None = None,
        answerable: bool = True,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data
        self.id = id
        self.answerable = answerable

    def to_response(self) -> ErrorResponse:
        return ErrorResponse(self.id, self.code, self.message, self.data)

    def __repr__(self) -> str:
        return f"RpcError({self.code}, {self.message!r})"


# --8<-- [start:to_dict]
def to_dict(message: Message) -> dict[str, Any]:
    """The JSON object for ``message``, with only the members JSON-RPC allows for its kind."""
    out: dict[str, Any] = {"jsonrpc": JSONRPC_VERSION}
    if isinstance(message, Request):
        out["id"] = message.id
        out["method"] = message.method
        if message.params is not None:
            out["params"] = message.params
    elif isinstance(message, Notification):
        out["method"] = message.method
        if message.params is not None:
            out["params"] = message.params
    elif isinstance(message, Response):
        out["id"] = message.id
        out["result"] = message.result
    else:
        error: dict[str, Any] = {"code": message.code, "message": message.message}
        if message.data is not None:
            error["data"] = message.data
        out["id"] = message.id
        out["error"] = error
    return out


def encode(message: Message) -> str:
    """One message as compact JSON text on a single line (newlines inside strings are escaped).

    ``ensure_ascii=False`` keeps non-English text readable. One thing it cannot write as UTF-8: a
    lone surrogate such as ``"\\ud800"``, which JSON allows as an escape and a hostile peer may put
    in an id or a method. Such a message is written with every non-ASCII character escaped instead:
    still the same JSON, now plain ASCII, so the answer names the very id the peer sent.
    """
    text = json.dumps(to_dict(message), separators=(",", ":"), ensure_ascii=False)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return json.dumps(to_dict(message), separators=(",", ":"), ensure_ascii=True)
    return text


# --8<-- [end:to_dict]


def shorten(text: str, limit: int = 100) -> str:
    """``text`` cut to ``limit`` characters, for an error message that repeats what a peer sent.

    A peer may send a method name of a megabyte: repeating it whole would make the error as large.
    """
    return text if len(text) <= limit else text[:limit] + "…"


def id_reused(request_id: RequestId) -> RpcError:
    """The error for a request whose id names another request still being answered (-32600).

    The spec: an id "MUST NOT have been previously used by the requestor within the same session".
    """
    return RpcError(
        INVALID_REQUEST,
        f"Request id {shorten(repr(request_id))} was already used in this "
        "session, by a request still being answered",
        id=request_id,
    )


def method_not_found(method: str) -> RpcError:
    """The error for a method nobody serves (-32601), naming it (cut short if it is long)."""
    return RpcError(METHOD_NOT_FOUND, f"Method not found: {shorten(method)}")


# --8<-- [start:parse]
def parse(text: str | bytes) -> Message:
    """Read one JSON-RPC message, or raise :class:`RpcError` with the code the peer deserves."""
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and bad UTF-8 are ValueErrors
        raise RpcError(PARSE_ERROR, f"Parse error: {exc}") from None
    if isinstance(obj, list):
        # JSON-RPC allows batches, but MCP removed them in revision 2025-06-18.
        raise RpcError(
            INVALID_REQUEST, "Batches are not supported: send one JSON-RPC message at a time"
        )
    if not isinstance(obj, dict):
        raise RpcError(INVALID_REQUEST, "A JSON-RPC message must be a JSON object")
    return from_dict(obj)


def from_dict(obj: dict[str, Any]) -> Message:
    """Classify an already-decoded JSON object as one of the four kinds of message."""
    msg_id = obj.get("id")
    known_id = msg_id if is_valid_id(msg_id) else None
    is_response = "method" not in obj and ("result" in obj or "error" in obj)
    if obj.get("jsonrpc") != JSONRPC_VERSION:
        raise RpcError(
            INVALID_REQUEST,
            'The member "jsonrpc" must be exactly "2.0"',
            id=known_id,
            answerable=not is_response,
        )
    if "method" in obj:  # a request or a notification
        return request_from(obj)
    if "result" in obj or "error" in obj:  # no method: a response
        return response_from(obj)
    raise RpcError(
        INVALID_REQUEST,
        'A message needs a "method" (request, notification) or a "result" or "error" (response)',
        id=known_id,
    )


def request_from(obj: dict[str, Any]) -> Request | Notification:
    """A message with a ``method``: a request if it has an ``id``, else a notification."""
    has_id = "id" in obj
    msg_id = obj.get("id")
    id_ok = is_valid_id(msg_id)
    known_id = msg_id if id_ok else None
    method = obj["method"]
    if not isinstance(method, str):  # not a valid request object: answered, even without an id
        raise RpcError(INVALID_REQUEST, 'The member "method" must be a string', id=known_id)
    if has_id and not id_ok:
        raise RpcError(
            INVALID_REQUEST, 'The member "id" must be a string or an integer (never null)'
        )
    params = obj.get("params")
    if params is not None and not isinstance(params, dict):
        # JSON-RPC also allows params by position (an array); MCP only ever uses an object.
        # A notification stays unanswered even so: nobody is waiting for it.
        raise RpcError(
            INVALID_PARAMS,
            'The member "params" must be an object',
            id=known_id,
            answerable=has_id,
        )
    if has_id:
        # has_id, so id_ok too: checked above
        return Request(cast(RequestId, msg_id), method, params)
    return Notification(method, params)


def response_from(obj: dict[str, Any]) -> Response | ErrorResponse:
    """A message with no ``method`` but a ``result`` or an ``error``: an answer."""
    msg_id = obj.get("id")
    id_ok = is_valid_id(msg_id)
    if "result" in obj and "error" in obj:
        raise broken_response("A response has a result or an error, not both")
    if "result" in obj:
        if not id_ok:
            raise broken_response('A result needs a string or integer "id"')
        return Response(cast(RequestId, msg_id), obj["result"])
    error = obj["error"]
    if not (
        isinstance(error, dict)
        and is_int(error.get("code"))
        and isinstance(error.get("message"), str)
    ):
        raise broken_response('An error needs an integer "code" and a string "message"')
    if msg_id is not None and not id_ok:
        raise broken_response('An error response needs a string, integer or null "id"')
    return ErrorResponse(msg_id, error["code"], error["message"], error.get("data"))


def broken_response(message: str) -> RpcError:
    """A response is never answered, whatever is wrong with it: only logged (-32600)."""
    return RpcError(INVALID_REQUEST, message, answerable=False)


def is_int(value: Any) -> bool:
    """True for JSON integers. ``bool`` is a subclass of ``int`` in Python; ``true`` is no id."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_valid_id(value: Any) -> TypeGuard[RequestId]:
    """MCP request ids are strings or integers; null is not allowed (unlike plain JSON-RPC)."""
    return isinstance(value, str) or is_int(value)


# --8<-- [end:parse]


def describe(message: Message) -> str:
    """A one-line, human description of a message: handy in traces and in the REPL below."""
    if isinstance(message, Request):
        return f"request #{message.id} {message.method}"
    if isinstance(message, Notification):
        return f"notification {message.method}"
    if isinstance(message, Response):
        return f"result for #{message.id}"
    return f"error {message.code} for #{message.id}: {message.message}"
