"""Questions without a connection back: multi round-trip requests (MCP 2026-07-28, lesson 12).

In lesson 09 a tool that needed the user (elicitation), the client's model (sampling) or its roots
sent a request *to the client* and waited for the answer on the same session. Revision 2026-07-28
has no session to wait on, and a server never sends a request (basic/patterns/mrtr). Instead the
tool's request is **answered early** with what it is missing::

    {"resultType": "input_required",
     "inputRequests": {"user_name": {"method": "elicitation/create", "params": {...}}},
     "requestState": "<opaque>"}

and the client sends the *same* request again, with a new id, the answers in ``inputResponses``
(same keys) and the ``requestState`` unchanged. Only ``tools/call``, ``prompts/get`` and
``resources/read`` may do this.

How minimcp runs it without changing lesson 09's tools: the handler simply runs again on the retry.
Each question it asks (:meth:`~minimcp.session.context.RequestContext.ask`) is looked up in this
attempt's :class:`Answers`; a missing one stops the handler with :class:`InputRequired`, and the
dispatcher turns that into the result above. The answers already given travel in ``requestState``,
so the server keeps nothing.

The client can read and rewrite ``requestState``: it is **attacker-controlled**. So it is sealed
with an HMAC under a key every worker of the server shares, bound to the user it was given to (the
authenticated principal, when lesson 10's guard found one), to the request it belongs to (its
method and a digest of its params) and to a short expiry: the three replay defences the spec lists
(basic/patterns/mrtr). Anything else is refused with ``-32602``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from minimcp.rpc.jsonrpc import INVALID_PARAMS, RpcError
from minimcp.session.envelope import missing_capability
from minimcp.session.server import ForTheClient

#: The methods that may answer ``input_required`` (basic/patterns/mrtr, "Supported methods").
ASKING_METHODS = ("tools/call", "prompts/get", "resources/read")
#: What each kind of question is, and the client capability it needs.
QUESTION_CAPABILITY = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}
STATE_TTL = 600.0  # seconds a request state stays good: long enough for a person to answer a form


class MalformedAnswer(RpcError, ForTheClient):
    """An answer in ``inputResponses`` that is not an answer to its question: the request is wrong
    (``-32602``), so it must reach the client as an error even from inside a tool."""

    def __init__(self, key: str, method: str) -> None:
        super().__init__(
            INVALID_PARAMS, f"Invalid params: inputResponses[{key!r}] is not an answer to {method}"
        )


class InputRequired(ForTheClient):
    """The handler needs answers the client has not given: ``requests`` maps keys to questions."""

    def __init__(self, requests: dict[str, dict[str, Any]]) -> None:
        super().__init__(f"input required: {', '.join(requests)}")
        self.requests = requests


# --8<-- [start:seal]
class StateSeal:
    """Seals a request state (JSON) with HMAC-SHA256, and opens only what it sealed, unchanged and
    in time."""

    def __init__(self, key: bytes, ttl: float = STATE_TTL) -> None:
        if len(key) < 32:
            raise ValueError("a request-state key needs at least 32 bytes")
        self.key = key
        self.ttl = ttl

    def seal(self, payload: dict[str, Any]) -> str:
        body = json.dumps(
            {**payload, "exp": int(time.time() + self.ttl)}, separators=(",", ":")
        ).encode()
        tag = hmac.new(self.key, body, hashlib.sha256).digest()
        return f"{_b64(body)}.{_b64(tag)}"

    def open(self, token: Any) -> dict[str, Any]:
        """The payload of a state this server sealed, or ``-32602`` (tampered, foreign, expired)."""
        try:
            body_text, tag_text = token.split(".")
            body, tag = _unb64(body_text), _unb64(tag_text)
        except (AttributeError, ValueError, binascii.Error):
            raise refused("it is not a request state of this server") from None
        if not hmac.compare_digest(tag, hmac.new(self.key, body, hashlib.sha256).digest()):
            raise refused("it failed verification (changed, or sealed by another server)")
        payload: dict[str, Any] = json.loads(body)
        if payload.get("exp", 0) < time.time():
            raise refused("it expired: send the request again without it")
        return payload


# --8<-- [end:seal]


def refused(why: str) -> RpcError:
    return RpcError(INVALID_PARAMS, f"Invalid params: requestState refused: {why}")


def request_digest(method: str, params: dict[str, Any]) -> str:
    """What a state is bound to: the method and its params, less what changes between attempts."""
    salient = {
        key: value
        for key, value in params.items()
        if key not in ("_meta", "inputResponses", "requestState")
    }
    # ASCII JSON escapes every character, so any params can be digested, even a lone surrogate
    # (a string no UTF-8 encodes): it only makes another request, whose state this is not.
    text = json.dumps([method, salient], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


# --8<-- [start:answers]
@dataclass
class Answers:
    """The answers one attempt of a request may use: those sealed in its state, and the new ones."""

    given: dict[str, Any] = field(default_factory=dict)
    # The keys of the questions asked in earlier rounds (from the state), and of those this attempt
    # found answered: the next state keeps their answers only, so that answers nobody asked for (a
    # client may send any) are never sealed and carried from round to round.
    asked_before: set[str] = field(default_factory=set)
    used: set[str] = field(default_factory=set)
    asked: int = 0  # questions asked so far in this attempt: names the ones that come without a key
    # Who is answering: the authenticated principal (None: nobody authenticated the request). The
    # next state is sealed for them, and a state sealed for someone else is refused.
    principal: str | None = None

    @classmethod
    def of(
        cls, method: str, params: dict[str, Any], seal: StateSeal, principal: str | None = None
    ) -> Answers:
        """The answers a retry carries, its state checked first (another request's, or another
        user's, is refused)."""
        given: dict[str, Any] = {}
        asked_before: set[str] = set()
        if "requestState" in params:
            state = seal.open(params["requestState"])
            if state.get("for") != request_digest(method, params):
                raise refused("it belongs to another request")
            if state.get("to") != principal:  # the spec's first replay defence: one user's only
                raise refused("it was sealed for another user")
            given.update(state.get("answers", {}))
            asked_before.update(state.get("asked", []))
        responses = params.get("inputResponses")
        if responses is not None and not isinstance(responses, dict):
            raise RpcError(INVALID_PARAMS, 'Invalid params: "inputResponses" must be an object')
        given.update(responses or {})
        return cls(given, asked_before, principal=principal)

    def take(self, key: str, method: str) -> Any:
        """The answer to question ``key`` (None: not given yet); a malformed one is ``-32602``."""
        answer = self.given.get(key)
        if answer is not None and not answers_method(answer, method):
            raise MalformedAnswer(key, method)
        if answer is not None:
            self.used.add(key)
        return answer

    def state(
        self, method: str, params: dict[str, Any], seal: StateSeal, asking: Iterable[str]
    ) -> str:
        """The sealed state of the next attempt, bound to this request and to its user: the
        questions asked so far (``asking``: this round's) and the answers given to them."""
        asked = sorted(self.asked_before | self.used | set(asking))
        answers = {key: self.given[key] for key in asked if key in self.given}
        bound = {"for": request_digest(method, params), "to": self.principal}
        return seal.seal({**bound, "answers": answers, "asked": asked})


# --8<-- [end:answers]


def pick_answers(
    answers: Answers, questions: dict[str, dict[str, Any]], capabilities: dict[str, Any]
) -> dict[str, Any]:
    """The answers to ``questions``, all of them; or the error, or the :class:`InputRequired`, it
    earns."""
    for question in questions.values():  # never ask what the client cannot answer (mrtr)
        needed = QUESTION_CAPABILITY.get(question["method"])
        if needed is not None and needed not in capabilities:
            raise missing_capability(needed)
    found = {key: answers.take(key, question["method"]) for key, question in questions.items()}
    missing = {key: question for key, question in questions.items() if found[key] is None}
    if missing:
        raise InputRequired(missing)
    return found


def answers_method(answer: Any, method: str) -> bool:
    """Whether ``answer`` has the shape of a ``method`` result (ElicitResult, CreateMessage…)."""
    if not isinstance(answer, dict):
        return False
    if method == "elicitation/create":
        return answer.get("action") in ("accept", "decline", "cancel")
    if method == "sampling/createMessage":
        return answer.get("role") in ("user", "assistant") and isinstance(
            answer.get("content"), (dict, list)
        )
    if method == "roots/list":
        return isinstance(answer.get("roots"), list)
    return True


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
