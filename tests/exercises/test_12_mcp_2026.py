"""Checks for lesson 12's exercise: the client's multi round-trip loop, a sealed request state,
the era probe.

Each test's docstring is the hint a student sees when it fails (``python tools/check.py 12``).
"""

from __future__ import annotations

import base64
import copy
import hashlib
import itertools
import json
from typing import Any

import pytest

VERSION = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientCapabilities": {"sampling": {}, "elicitation": {"form": {}}},
}

# -- Exercise 1 · Ask again until the answer is complete -------------------------------------------

CALL = {"_meta": META, "name": "book_room", "arguments": {"room": "A"}}
ASK_NAME = {"method": "elicitation/create", "params": {"message": "Your name?"}}
ASK_MODEL = {"method": "sampling/createMessage", "params": {"maxTokens": 9}}
DONE = {"content": [{"type": "text", "text": "Booked"}], "isError": False}


def needs(questions: dict[str, Any], state: str | None = None) -> dict[str, Any]:
    """An input_required result with these questions (and this state)."""
    result: dict[str, Any] = {"resultType": "input_required", "inputRequests": questions}
    if state is not None:
        result["requestState"] = state
    return result


async def answer(method: str, params: dict[str, Any]) -> Any:
    """The client's answers: a name to the form, a sentence from the model."""
    if method == "elicitation/create":
        return {"action": "accept", "content": {"name": "Ada"}}
    return {"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m"}


class Server:
    """Answers each request with the next of ``results`` (a result, or {"error": ...}), and keeps
    what it was sent."""

    def __init__(self, *results: dict[str, Any]) -> None:
        self.results = list(results)
        self.sent: list[dict[str, Any]] = []

    async def send(self, message: dict[str, Any]) -> dict[str, Any]:
        self.sent.append(copy.deepcopy(message))
        assert self.results, "the client sent one request too many"
        reply = self.results.pop(0)
        if "error" in reply:
            return {"jsonrpc": "2.0", "id": message["id"], **reply}
        return {"jsonrpc": "2.0", "id": message["id"], "result": reply}


async def test_the_next_params_carry_the_answers_and_the_state(exercise: Any) -> None:
    """retry_params: the first attempt's params, plus "inputResponses" (each key's answer, from
    answer(method, params)) and "requestState" exactly as it came."""
    result = needs({"who": ASK_NAME, "draft": ASK_MODEL}, state="opaque.STATE==")
    retry = await exercise.retry_params(CALL, result, answer)
    assert retry == {
        **CALL,
        "inputResponses": {
            "who": await answer("elicitation/create", {}),
            "draft": await answer("sampling/createMessage", {}),
        },
        "requestState": "opaque.STATE==",
    }


async def test_the_next_params_are_a_new_dict_with_only_this_round(exercise: Any) -> None:
    """retry_params never changes the params it is given; a result without requestState gives
    params without one; a question without "params" is answered with {}."""
    seen: list[tuple[str, dict[str, Any]]] = []

    async def remember(method: str, params: dict[str, Any]) -> str:
        seen.append((method, params))
        return "answered"

    before = copy.deepcopy(CALL)
    retry = await exercise.retry_params(CALL, needs({"r": {"method": "roots/list"}}), remember)
    assert CALL == before, "the params passed in must not change"
    assert retry == {**CALL, "inputResponses": {"r": "answered"}}
    assert seen == [("roots/list", {})]


async def test_a_complete_answer_ends_the_loop_at_once(exercise: Any) -> None:
    """request: send {"jsonrpc": "2.0", "id": next(ids), "method": ..., "params": params} once; a
    result with "resultType": "complete", or none at all (an older server), is returned."""
    server = Server({**DONE, "resultType": "complete"})
    got = await exercise.request(server.send, "tools/call", CALL, answer, itertools.count(1))
    assert got == {**DONE, "resultType": "complete"}
    assert server.sent == [{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": CALL}]
    server = Server(DONE)
    assert await exercise.request(server.send, "tools/call", CALL, answer, iter(["a"])) == DONE


async def test_input_required_is_asked_again_as_a_new_request(exercise: Any) -> None:
    """Each round is a new request (the next id) with the answers and the echoed state; the last
    round's answers and state only, never an earlier round's."""
    server = Server(
        needs({"who": ASK_NAME}, state="s1"),
        needs({"draft": ASK_MODEL}, state="s2"),
        DONE,
    )
    got = await exercise.request(server.send, "tools/call", CALL, answer, itertools.count(7))
    assert got == DONE
    assert [message["id"] for message in server.sent] == [7, 8, 9]
    first, second, third = (message["params"] for message in server.sent)
    assert first == CALL
    name = await answer("elicitation/create", {})
    draft = await answer("sampling/createMessage", {})
    assert second == {**CALL, "inputResponses": {"who": name}, "requestState": "s1"}
    assert third == {**CALL, "inputResponses": {"draft": draft}, "requestState": "s2"}


async def test_an_error_response_is_a_protocol_error(exercise: Any) -> None:
    """A response with "error": raise ProtocolError(code, message, data), at any round."""
    refused = {"code": -32602, "message": "Unknown tool", "data": {"name": "book_room"}}
    server = Server(needs({"who": ASK_NAME}, state="s"), {"error": refused})
    with pytest.raises(exercise.ProtocolError) as raised:
        await exercise.request(server.send, "tools/call", CALL, answer, itertools.count())
    error = raised.value
    assert (error.code, str(error), error.data) == (-32602, "Unknown tool", {"name": "book_room"})


async def test_an_unknown_result_type_is_an_internal_error(exercise: Any) -> None:
    """A resultType other than "complete" and "input_required": ProtocolError(-32603, ...)."""
    server = Server({"resultType": "maybe_later"})
    with pytest.raises(exercise.ProtocolError) as raised:
        await exercise.request(server.send, "tools/call", CALL, answer, itertools.count())
    assert raised.value.code == -32603


async def test_a_server_that_never_stops_asking_is_given_up_on(exercise: Any) -> None:
    """After max_rounds requests all answered input_required, ProtocolError(-32603, ...), and not
    one request more."""
    server = Server(*(needs({"who": ASK_NAME}, state=f"s{n}") for n in range(20)))
    with pytest.raises(exercise.ProtocolError) as raised:
        await exercise.request(
            server.send, "tools/call", CALL, answer, itertools.count(), max_rounds=3
        )
    assert raised.value.code == -32603 and len(server.sent) == 3
    server = Server(*(needs({"who": ASK_NAME}) for _ in range(20)))
    with pytest.raises(exercise.ProtocolError):
        await exercise.request(server.send, "tools/call", CALL, answer, itertools.count())
    assert len(server.sent) == exercise.MAX_ROUNDS == 10


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
