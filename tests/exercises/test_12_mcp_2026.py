"""Checks for lesson 12's exercise: the envelope and the headers, a sealed request state, the era
probe.

Each test's docstring is the hint a student sees when it fails (``python tools/check.py 12``).
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

import pytest

VERSION = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
}
SUPPORTED = ("2026-07-28",)

# -- Exercise 1 · Every request stands alone -------------------------------------------------------


def test_a_whole_envelope_is_read(exercise: Any) -> None:
    """read_envelope returns version, capabilities, client_info (default {}) and log_level (default
    None)."""
    meta = {
        **META,
        "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
        "io.modelcontextprotocol/logLevel": "info",
        "progressToken": 7,
    }
    assert exercise.read_envelope({"_meta": meta}, SUPPORTED) == {
        "version": VERSION,
        "capabilities": {},
        "client_info": {"name": "c", "version": "1"},
        "log_level": "info",
    }
    assert exercise.read_envelope({"_meta": META, "name": "x"}, SUPPORTED)["client_info"] == {}


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (None, 'every request needs "_meta"'),
        ({}, 'every request needs "_meta"'),
        ({"_meta": []}, 'every request needs "_meta"'),
        (
            {"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}},
            '"_meta" needs a protocolVersion',
        ),
        (
            {"_meta": {**META, "io.modelcontextprotocol/protocolVersion": 2026}},
            '"_meta" needs a protocolVersion',
        ),
        (
            {"_meta": {"io.modelcontextprotocol/protocolVersion": VERSION}},
            '"_meta" needs clientCapabilities',
        ),
        (
            {"_meta": {**META, "io.modelcontextprotocol/clientCapabilities": []}},
            '"_meta" needs clientCapabilities',
        ),
    ],
)
def test_a_malformed_envelope_is_invalid_params(exercise: Any, params: Any, message: str) -> None:
    """read_envelope raises ProtocolError(-32602, ...): no _meta object, then no protocolVersion
    string, then no clientCapabilities object, in that order."""
    with pytest.raises(exercise.ProtocolError) as refused:
        exercise.read_envelope(params, SUPPORTED)
    assert (refused.value.code, str(refused.value)) == (-32602, message)


def test_an_unsupported_version_names_the_supported_ones(exercise: Any) -> None:
    """read_envelope: a version not in ``supported`` is -32022 "Unsupported protocol version", with
    data {"supported": [...], "requested": the version} (checked after the keys are all there)."""
    with pytest.raises(exercise.ProtocolError) as refused:
        exercise.read_envelope(
            {"_meta": {**META, "io.modelcontextprotocol/protocolVersion": "v9"}},
            ("2026-07-28", "2025-11-25"),
        )
    assert (refused.value.code, str(refused.value)) == (-32022, "Unsupported protocol version")
    assert refused.value.data == {"supported": ["2026-07-28", "2025-11-25"], "requested": "v9"}


def call(name: str = "read_events", method: str = "tools/call") -> dict[str, Any]:
    field = "uri" if method == "resources/read" else "name"
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"_meta": META, field: name}}


GOOD = {"mcp-protocol-version": VERSION, "mcp-method": "tools/call", "mcp-name": "read_events"}


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        (GOOD, call()),
        ({**GOOD, "mcp-name": "  read_events "}, call()),
        ({**GOOD, "mcp-name": "=?base64?cmVhZF9ldmVudHM=?="}, call()),
        (
            {**GOOD, "mcp-method": "tools/list", "mcp-name": "ignored"},
            {**call(), "method": "tools/list"},
        ),
        (
            {
                **GOOD,
                "mcp-method": "resources/read",
                "mcp-name": "=?base64?" + base64.b64encode("é://x".encode()).decode() + "?=",
            },
            call("é://x", "resources/read"),
        ),
    ],
)
def test_headers_that_agree_pass(
    exercise: Any, headers: dict[str, str], message: dict[str, Any]
) -> None:
    """check_headers returns None when the headers repeat the body: values trimmed, =?base64?...?=
    decoded; Mcp-Name only matters for tools/call, prompts/get (params.name) and resources/read
    (params.uri)."""
    assert exercise.check_headers(headers, message) is None


@pytest.mark.parametrize(
    ("changes", "which"),
    [
        ({"mcp-protocol-version": None}, "MCP-Protocol-Version"),
        ({"mcp-protocol-version": "2025-11-25"}, "MCP-Protocol-Version"),
        ({"mcp-method": None}, "Mcp-Method"),
        ({"mcp-method": "TOOLS/CALL"}, "Mcp-Method"),
        ({"mcp-name": None}, "Mcp-Name"),
        ({"mcp-name": "run_analysis"}, "Mcp-Name"),
        ({"mcp-name": "=?base64?cmVhZF9ldmVudHM?="}, "Mcp-Name"),  # bad padding
        ({"mcp-name": "=?base64?cmVh!!!ZXZlbnRz?="}, "Mcp-Name"),  # not Base64
    ],
)
def test_headers_that_contradict_the_body_are_a_mismatch(
    exercise: Any, changes: dict[str, str | None], which: str
) -> None:
    """check_headers raises ProtocolError(-32020, "Header mismatch: <header>"): version, then
    method, then name; a value is case-sensitive, and Base64 that does not decode strictly never
    matches."""
    headers = {name: value for name, value in {**GOOD, **changes}.items() if value is not None}
    with pytest.raises(exercise.ProtocolError) as refused:
        exercise.check_headers(headers, call())
    assert (refused.value.code, str(refused.value)) == (-32020, f"Header mismatch: {which}")


# -- Exercise 2 · A state the client carries, and cannot forge -------------------------------------

KEY = bytes(range(32))
PARAMS = {"_meta": META, "name": "book", "arguments": {"title": "Sync"}}


def test_the_digest_ignores_what_changes_between_attempts(exercise: Any) -> None:
    """digest: SHA-256 hex of json.dumps([method, params minus _meta/inputResponses/requestState],
    sort_keys=True, separators=(",", ":"))."""
    expected = hashlib.sha256(
        b'["tools/call",{"arguments":{"title":"Sync"},"name":"book"}]'
    ).hexdigest()
    assert exercise.digest("tools/call", PARAMS) == expected
    retry = {**PARAMS, "requestState": "s", "inputResponses": {"a": {}}, "_meta": {}}
    assert exercise.digest("tools/call", retry) == expected
    assert exercise.digest("tools/call", {**PARAMS, "arguments": {"title": "Other"}}) != expected


def test_a_sealed_state_opens_with_its_payload(exercise: Any) -> None:
    """seal then open_state (same key, same request, in time) gives the payload back; the token is
    two urlsafe Base64 parts with no "=" padding, joined by "."."""
    token = exercise.seal(KEY, {"answers": {"q1": "Ada"}}, "tools/call", PARAMS, now=1000, ttl=60)
    assert token.count(".") == 1 and "=" not in token
    body = json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))
    assert body == {
        "payload": {"answers": {"q1": "Ada"}},
        "for": exercise.digest("tools/call", PARAMS),
        "exp": 1060,
    }
    retry = {**PARAMS, "requestState": token, "inputResponses": {}}
    assert exercise.open_state(KEY, token, "tools/call", retry, now=1059) == {
        "answers": {"q1": "Ada"}
    }


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda token: token + "x", "tampered"),
        (lambda token: "no-dot-at-all", "malformed"),
        (lambda token: token.split(".")[0] + ".!!!", "malformed"),
    ],
)
def test_a_changed_state_is_refused(exercise: Any, change: Any, reason: str) -> None:
    """open_state raises StateRefused("malformed") if the token is not two Base64 parts, and
    StateRefused("tampered") if its tag is not HMAC-SHA256(key, body)."""
    token = exercise.seal(KEY, {"n": 1}, "tools/call", PARAMS, now=1000, ttl=60)
    with pytest.raises(exercise.StateRefused) as refused:
        exercise.open_state(KEY, change(token), "tools/call", PARAMS, now=1001)
    assert str(refused.value) == reason


def test_a_payload_changed_by_hand_is_tampered(exercise: Any) -> None:
    """open_state: a client that rewrites the body (to give itself other answers) breaks the tag:
    "tampered"."""
    token = exercise.seal(KEY, {"admin": False}, "tools/call", PARAMS, now=1000, ttl=60)
    body = json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))
    body["payload"]["admin"] = True
    forged = base64.urlsafe_b64encode(
        json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
    ).rstrip(b"=")
    with pytest.raises(exercise.StateRefused) as refused:
        exercise.open_state(
            KEY, forged.decode() + "." + token.split(".")[1], "tools/call", PARAMS, now=1001
        )
    assert str(refused.value) == "tampered"


@pytest.mark.parametrize(
    ("key", "method", "params", "now", "reason"),
    [
        (bytes(32), "tools/call", PARAMS, 1001, "tampered"),  # another server's key
        (KEY, "tools/call", PARAMS, 1061, "expired"),
        (KEY, "prompts/get", PARAMS, 1001, "another request"),
        (KEY, "tools/call", {**PARAMS, "arguments": {"title": "Other"}}, 1001, "another request"),
    ],
)
def test_a_state_is_good_only_for_its_server_its_request_and_its_time(
    exercise: Any, key: bytes, method: str, params: dict[str, Any], now: float, reason: str
) -> None:
    """open_state checks, in order: the tag ("tampered"), then exp < now ("expired"), then the
    digest of this request ("another request")."""
    token = exercise.seal(KEY, {"n": 1}, "tools/call", PARAMS, now=1000, ttl=60)
    with pytest.raises(exercise.StateRefused) as refused:
        exercise.open_state(key, token, method, params, now=now)
    assert str(refused.value) == reason


# -- Exercise 3 · Which era is this server? --------------------------------------------------------

MODERN, LEGACY = ("2026-07-28",), ("2025-11-25", "2025-06-18")


def unsupported(*supported: str) -> dict[str, Any]:
    return {
        "error": {
            "code": -32022,
            "message": "Unsupported protocol version",
            "data": {"supported": list(supported), "requested": "2026-07-28"},
        }
    }


@pytest.mark.parametrize(
    ("answer", "step"),
    [
        ({"result": {"supportedVersions": ["2026-07-28"], "capabilities": {}}}, "modern"),
        (unsupported("2027-01-01", "2026-07-28"), "retry:2026-07-28"),
        (unsupported("2027-01-01", "2025-06-18"), "initialize"),
        ({"error": {"code": -32601, "message": "Method not found"}}, "initialize"),
        ({"error": {"code": -32602, "message": "Invalid params"}}, "initialize"),
        (
            {
                "error": {
                    "code": -32600,
                    "message": "Received 'server/discover' before initialization",
                }
            },
            "initialize",
        ),
        (None, "initialize"),
    ],
)
def test_the_next_step_after_the_probe(
    exercise: Any, answer: dict[str, Any] | None, step: str
) -> None:
    """after_probe: a result → "modern"; -32022 naming a modern version we speak → "retry:<it>",
    naming only a handshake-era one we speak → "initialize"; any other error, or no answer →
    "initialize" (never keyed to one code)."""
    assert exercise.after_probe(answer, MODERN, LEGACY) == step


@pytest.mark.parametrize(
    "answer",
    [
        unsupported("2027-01-01"),
        # no data: nothing in common
        {"error": {"code": -32022, "message": "Unsupported protocol version"}},
        {"error": {"code": -32020, "message": "Header mismatch"}},
    ],
)
def test_a_modern_server_we_cannot_speak_to_is_no_common_version(
    exercise: Any, answer: dict[str, Any]
) -> None:
    """after_probe raises NoCommonVersion when -32022 names nothing we speak, and for the other
    errors of 2026-07-28 (-32020, -32021): the server is modern, so initialize would not help."""
    with pytest.raises(exercise.NoCommonVersion):
        exercise.after_probe(answer, MODERN, LEGACY)
