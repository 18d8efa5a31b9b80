# ----------------------------------------------------------------------------------------
# Lesson 12-mcp-2026: your exercise.
#
# 1. Read the docstrings below: each part says exactly what to build.
# 2. Replace each `raise NotImplementedError(...)`, under its TODO, with your code.
# 3. Check your work, as often as you like:  python tools/check.py 12
#
# Stuck for good? A worked answer is in solutions/12-mcp-2026/exercise.py.
# This file is yours: a new version of the course may replace it, so keep a copy of your work.
# ----------------------------------------------------------------------------------------
"""Lesson 12 exercise: three rules of MCP 2026-07-28, written by hand.

1. **Ask again until the answer is complete.** A 2026-07-28 server that needs something from the
   client (the model, the user, the roots) does not send a request of its own: it answers
   ``input_required``, with its questions and a ``requestState``. Write the client's loop: answer
   the questions, send the request again with the answers and the state exactly as it came, as a
   new request each round, and give up after a bounded number of rounds.
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
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

INTERNAL_ERROR = -32603


class ProtocolError(Exception):
    """A JSON-RPC error: its ``code``, ``message`` (the exception's text) and ``data``."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.data = data


# =================================================================================================
# Part 1 · Ask again until the answer is complete (basic/patterns/mrtr, "Multi Round-Trip
#          Requests")
# =================================================================================================
#
# A result may say {"resultType": "input_required", "inputRequests": {key: {"method": ...,
# "params": {...}}, ...}, "requestState": "<opaque>"}: the server needs those answers first.
#
# retry_params(params, result, answer) -> the params of the next attempt:
#   * a copy of `params` (the first attempt's: its "_meta" envelope, its name and arguments; the
#     dict passed in is never changed), plus
#   * "inputResponses": {key: await answer(question["method"], question.get("params", {}))} for
#     every key of this result's "inputRequests" (only this round's questions: the server keeps
#     what earlier rounds answered in its state), plus
#   * "requestState": the result's, exactly as it came (never read, never changed); no
#     "requestState" at all when the result has none
#
# request(send, method, params, answer, ids, max_rounds=MAX_ROUNDS) -> the complete result.
#   Each round sends {"jsonrpc": "2.0", "id": next(ids), "method": method, "params": p} with
#   `await send(message)`, which returns the server's response (a dict); p is `params` the first
#   time, then retry_params(params, the last result, answer). Each round is a NEW request: a new id.
#   * the response has an "error" ............ ProtocolError(code, message, data) (data may be
#                                              absent: None)
#   * its result has no "resultType", or "complete" ........... return the result
#   * "input_required" ........................................ answer, and go round again
#   * any other resultType .................................... ProtocolError(INTERNAL_ERROR, ...)
#   * max_rounds requests, all answered input_required ........ ProtocolError(INTERNAL_ERROR, ...):
#     send no more (a server that never stops asking must not keep the client forever)

MAX_ROUNDS = 10

#: ``answer(method, params)``: the answer to one of the server's questions (lesson 09's handlers).
Answer = Callable[[str, dict[str, Any]], Awaitable[Any]]


async def retry_params(
    params: dict[str, Any], result: dict[str, Any], answer: Answer
) -> dict[str, Any]:
    """The next attempt's params: the first attempt's, this round's answers, the echoed state."""
    # TODO: a new dict; answer each question of this round; copy the state if there is one
    raise NotImplementedError("retry_params")


async def request(
    send: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]],
    method: str,
    params: dict[str, Any],
    answer: Answer,
    ids: Iterator[Any],
    max_rounds: int = MAX_ROUNDS,
) -> dict[str, Any]:
    """Send ``method`` until its result is complete, answering the server's questions."""
    # TODO: at most max_rounds rounds, a new id each; errors and unknown kinds raise
    raise NotImplementedError("request")


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
    # TODO: drop the three keys, dump [method, salient] canonically, hash
    raise NotImplementedError("digest")


def seal(
    key: bytes, payload: Any, method: str, params: dict[str, Any], now: float, ttl: float
) -> str:
    """A state only ``key`` can have made, for this request, good until ``now + ttl``."""
    # TODO: the body as canonical JSON, its HMAC, both in Base64
    raise NotImplementedError("seal")


def open_state(key: bytes, token: str, method: str, params: dict[str, Any], now: float) -> Any:
    """The payload of a state ``key`` sealed for this very request, still in time."""
    # TODO: split and decode, check the tag, then the time, then the binding
    raise NotImplementedError("open_state")


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
    # TODO: a result; the unsupported-version error and data.supported; then the rest
    raise NotImplementedError("after_probe")
