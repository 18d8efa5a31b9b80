"""Lesson 12 exercise: three rules of MCP 2026-07-28, written by hand.

1. **Every request stands alone.** Read a request's ``_meta`` envelope, refusing what the spec
   refuses with its exact error; and check, as a Streamable HTTP server must, that the standard
   headers say what the body says.
2. **A state the client carries, and cannot forge.** Seal a multi round-trip ``requestState`` with
   HMAC-SHA256, bound to the request it belongs to and to an expiry, and open only what you sealed.
3. **Which era is this server?** The decision a dual-era client makes from the answer to its
   ``server/discover`` probe: stay modern, try another version, fall back to ``initialize``, or
   give up.

Check your work with ``python tools/check.py 12``. Only the standard library is needed.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from typing import Any

PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
LOG_LEVEL = "io.modelcontextprotocol/logLevel"

INVALID_PARAMS = -32602
HEADER_MISMATCH = -32020
UNSUPPORTED_PROTOCOL_VERSION = -32022


class ProtocolError(Exception):
    """A JSON-RPC error: its ``code``, ``message`` (the exception's text) and ``data``."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.data = data


# =================================================================================================
# Part 1 · Every request stands alone
#          (basic/index "Request metadata"; transports "Standard headers")
# =================================================================================================
#
# read_envelope(params, supported) -> {"version", "capabilities", "client_info", "log_level"}
#   in this order, raising ProtocolError:
#   * params is not a dict, or its "_meta" is not a dict ...
#                                       INVALID_PARAMS, 'every request needs "_meta"'
#   * _meta[PROTOCOL_VERSION] missing or not a string ......
#                                       INVALID_PARAMS, '"_meta" needs a protocolVersion'
#   * _meta[CLIENT_CAPABILITIES] missing or not a dict ......
#                                       INVALID_PARAMS, '"_meta" needs clientCapabilities'
#   * the version is not in supported ......................
#                                       UNSUPPORTED_PROTOCOL_VERSION,
#                                       "Unsupported protocol version",
#                                       data {"supported": list(supported), "requested": version}
#   client_info is _meta[CLIENT_INFO] (default {}), log_level _meta[LOG_LEVEL] (default None)
#
# check_headers(headers, message): headers have lower-case names; message is the JSON-RPC request
# (a dict). Each failure is HEADER_MISMATCH with the message "Header mismatch: <name>", in this
# order:
#   * "mcp-protocol-version" missing, or not the envelope's version ......
#                                       "Header mismatch: MCP-Protocol-Version"
#   * "mcp-method" missing, or not exactly the method ......................
#                                       "Header mismatch: Mcp-Method"
#   * for tools/call and prompts/get (params.name) and resources/read (params.uri): "mcp-name"
#     missing, or, once decoded, not exactly that value ....................
#                                       "Header mismatch: Mcp-Name"
#   A header value is compared after trimming surrounding spaces; "=?base64?<b64>?=" carries the
#   UTF-8 text <b64> encodes (strict Base64: bad padding or characters are a mismatch too).

NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}


def read_envelope(params: Any, supported: tuple[str, ...]) -> dict[str, Any]:
    """What one request says about its client, or the error it earns."""
    # BEGIN SOLUTION: the four checks in order, then the two optional keys
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict):
        raise ProtocolError(INVALID_PARAMS, 'every request needs "_meta"')
    version = meta.get(PROTOCOL_VERSION)
    if not isinstance(version, str):
        raise ProtocolError(INVALID_PARAMS, '"_meta" needs a protocolVersion')
    capabilities = meta.get(CLIENT_CAPABILITIES)
    if not isinstance(capabilities, dict):
        raise ProtocolError(INVALID_PARAMS, '"_meta" needs clientCapabilities')
    if version not in supported:
        raise ProtocolError(
            UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
            {"supported": list(supported), "requested": version},
        )
    return {
        "version": version,
        "capabilities": capabilities,
        "client_info": meta.get(CLIENT_INFO, {}),
        "log_level": meta.get(LOG_LEVEL),
    }
    # END SOLUTION


def header_text(value: str) -> str | None:
    """A header value as the client meant it; None if it claims Base64 and is not."""
    # BEGIN SOLUTION: trim; decode the =?base64?...?= form strictly
    value = value.strip()
    if not (value.startswith("=?base64?") and value.endswith("?=")):
        return value
    try:
        return base64.b64decode(value[len("=?base64?") : -2], validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    # END SOLUTION


def check_headers(headers: dict[str, str], message: dict[str, Any]) -> None:
    """Raise HEADER_MISMATCH unless the standard headers say what ``message`` says."""
    # BEGIN SOLUTION: version, method, then the name of what is named
    params = message.get("params") or {}
    version = (params.get("_meta") or {}).get(PROTOCOL_VERSION)
    if (
        headers.get("mcp-protocol-version") is None
        or header_text(headers["mcp-protocol-version"]) != version
    ):
        raise ProtocolError(HEADER_MISMATCH, "Header mismatch: MCP-Protocol-Version")
    if headers.get("mcp-method") is None or header_text(headers["mcp-method"]) != message.get(
        "method"
    ):
        raise ProtocolError(HEADER_MISMATCH, "Header mismatch: Mcp-Method")
    field = NAMED.get(str(message.get("method")))
    if field is not None:
        if headers.get("mcp-name") is None or header_text(headers["mcp-name"]) != params.get(field):
            raise ProtocolError(HEADER_MISMATCH, "Header mismatch: Mcp-Name")
    # END SOLUTION


# =================================================================================================
# Part 2 · A state the client carries, and cannot forge (basic/patterns/mrtr, "requestState")
# =================================================================================================
#
# digest(method, params): what a state is bound to. SHA-256 (hex) of the JSON text of
#   [method, salient], salient being params without "_meta", "inputResponses" and "requestState",
#   written with json.dumps(..., sort_keys=True, separators=(",", ":")): the same request always
#   gives the same digest.
#
# seal(key, payload, method, params, now, ttl) -> a token "<body>.<tag>":
#   body = the JSON of {"payload": payload, "for": digest(method, params), "exp": now + ttl}
#   (sort_keys, compact separators), tag = HMAC-SHA256(key, body); both urlsafe Base64 without "="
#   padding.
#
# open_state(key, token, method, params, now) -> the payload, or StateRefused with the reason:
#   * not two Base64 parts joined by "." ................. "malformed"
#   * the tag is not HMAC-SHA256(key, body) .............. "tampered"
#                                                          (compare with hmac.compare_digest)
#   * "exp" is before now ................................ "expired"
#   * "for" is not digest(method, params) ................ "another request"


class StateRefused(ValueError):
    """A request state that must not be used; the message says why."""


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64(text: str) -> bytes:
    """Strict: a character outside the urlsafe alphabet is an error (binascii.Error), not
    skipped."""
    return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)


def digest(method: str, params: dict[str, Any]) -> str:
    """What a request state is bound to: the request, without what changes between its attempts."""
    # BEGIN SOLUTION: drop the three keys, dump [method, salient] canonically, hash
    salient = {
        key: value
        for key, value in params.items()
        if key not in ("_meta", "inputResponses", "requestState")
    }
    return hashlib.sha256(
        json.dumps([method, salient], sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()
    # END SOLUTION


def seal(
    key: bytes, payload: Any, method: str, params: dict[str, Any], now: float, ttl: float
) -> str:
    """A state only ``key`` can have made, for this request, good until ``now + ttl``."""
    # BEGIN SOLUTION: the body as canonical JSON, its HMAC, both in Base64
    body = json.dumps(
        {"payload": payload, "for": digest(method, params), "exp": now + ttl},
        sort_keys=True,
        separators=(",", ":"),
    ).encode()
    return f"{b64(body)}.{b64(hmac.new(key, body, hashlib.sha256).digest())}"
    # END SOLUTION


def open_state(key: bytes, token: str, method: str, params: dict[str, Any], now: float) -> Any:
    """The payload of a state ``key`` sealed for this very request, still in time."""
    # BEGIN SOLUTION: split and decode, check the tag, then the time, then the binding
    try:
        body_text, tag_text = token.split(".")
        body, tag = unb64(body_text), unb64(tag_text)
    except (ValueError, binascii.Error):
        raise StateRefused("malformed") from None
    if not hmac.compare_digest(tag, hmac.new(key, body, hashlib.sha256).digest()):
        raise StateRefused("tampered")
    state = json.loads(body)
    if state["exp"] < now:
        raise StateRefused("expired")
    if state["for"] != digest(method, params):
        raise StateRefused("another request")
    return state["payload"]
    # END SOLUTION


# =================================================================================================
# Part 3 · Which era is this server? (basic/versioning, "Backward compatibility")
# =================================================================================================
#
# after_probe(answer, modern, legacy) -> the client's next step, from the answer to server/discover:
#   answer is {"result": {...}}, {"error": {"code": ..., "data": ...}}, or None (no answer in time);
#   modern and legacy are the versions this client speaks in each era, newest first.
#   * a result ................................................ "modern"
#   * error -32022 whose data.supported names a modern version we speak ....
#                                                               "retry:<the first such>"
#   * error -32022 naming only versions of the handshake era, one we speak .
#                                                               "initialize"
#   * error -32022 naming nothing we speak .................... raise NoCommonVersion
#   * any other error of 2026-07-28's own (-32020, -32021) .... raise NoCommonVersion: the server
#     is modern, and initialize would not help
#   * any other error at all (-32601, -32602, -32600...), or no answer ....
#                                                               "initialize": an older server.
#     Never one specific code: older servers answer an unknown method in different ways.

MODERN_ERRORS = (-32020, -32021, -32022)


class NoCommonVersion(Exception):
    """The server speaks no version this client speaks."""


def after_probe(
    answer: dict[str, Any] | None, modern: tuple[str, ...], legacy: tuple[str, ...]
) -> str:
    """What a dual-era client does next."""
    # BEGIN SOLUTION: a result; the unsupported-version error and data.supported; then the rest
    if answer is not None and "result" in answer:
        return "modern"
    error = (answer or {}).get("error") or {}
    code = error.get("code")
    if code == -32022:
        data = error.get("data")
        supported = data.get("supported", []) if isinstance(data, dict) else []
        common = [version for version in supported if version in modern]
        if common:
            return f"retry:{common[0]}"
        if any(version in legacy for version in supported):
            return "initialize"
        raise NoCommonVersion(f"the server speaks {supported}")
    if code in MODERN_ERRORS:
        raise NoCommonVersion(f"a 2026-era server refused the probe with {code}")
    return "initialize"
    # END SOLUTION
