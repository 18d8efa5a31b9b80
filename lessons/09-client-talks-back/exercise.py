# ----------------------------------------------------------------------------------------
# Lesson 09-client-talks-back: your exercise.
#
# 1. Read the docstrings below: each part says exactly what to build.
# 2. Replace each `raise NotImplementedError(...)`, under its TODO, with your code.
# 3. Check your work, as often as you like:  python tools/check.py 09
#
# Stuck for good? A worked answer is in solutions/09-client-talks-back/exercise.py.
# This file is yours: a new version of the course may replace it, so keep a copy of your work.
# ----------------------------------------------------------------------------------------
"""Lesson 09 exercise: the decisions a client makes when the server asks, and the work it stops.

1. **A sampling approval policy.** A server asks to use the host's model. The person in the loop
   does not want to read every request, so the host applies a written policy first: refuse servers
   it does not trust, never share context from other servers, and keep requests small. Write the
   function that returns the verdict (refuse, let through, or let through edited), without ever
   changing the request it was given.
2. **Check a form's answer by hand.** minimcp checks an elicitation answer with the jsonschema
   library. Write the check yourself, for the spec's restricted schema (one flat object of strings,
   numbers, integers, booleans and single-choice enums), with one plain sentence per problem, so
   that a host could show the user what to fix before anything is sent.
3. **A cancellable task registry.** Either side may cancel a request it sent
   (notifications/cancelled). The receiver must stop the work and send no answer; an unknown or
   finished id is ignored; ``initialize`` may never be cancelled. Write the registry that runs each
   request's work in a task and keeps those rules.

Check your work with ``python tools/check.py 09``. Only the standard library is needed.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable, Collection
from typing import Any

# =================================================================================================
# Part 1 · A sampling approval policy (spec 2025-11-25, client/sampling, "User Interaction Model")
# =================================================================================================
#
# review(server, request, trusted=..., max_tokens=...) decides, in this order:
#
#   * a server not in `trusted` ......................................... False (refused: error -1)
#   * "includeContext" other than "none" (asking for context from this or other servers) is
#     rewritten to "none": the host never shares another server's conversation ........... edit
#   * "maxTokens" above `max_tokens` is lowered to `max_tokens` ............................ edit
#   * a "temperature" outside 0.0–1.0 is removed (the model's own default is used) ......... edit
#   * anything else: nothing to change ..................................................... True
#
# When something was edited, return the edited *copy* (a dict); the request passed in must come
# out unchanged (the caller may show the person both, before and after).


def review(
    server: str, request: dict[str, Any], *, trusted: Collection[str], max_tokens: int = 500
) -> bool | dict[str, Any]:
    """The verdict on one ``sampling/createMessage`` request: False, True, or an edited copy."""
    # TODO: refuse the untrusted; edit a deep copy; return it only if it differs
    raise NotImplementedError("review")


# =================================================================================================
# Part 2 · Check a form's answer by hand (spec 2025-11-25, client/elicitation, "Requested Schema")
# =================================================================================================
#
# form_problems(schema, content) returns a list of sentences, sorted, one per problem; [] when the
# answer fits. The schema is {"type": "object", "properties": {...}, "required": [...]}; check:
#
#   * each name in "required" is present ........................ "name: required"
#   * no field the schema does not name ......................... "colour: not in the form"
#   * the type: "string" a str; "integer" an int; "number" an int or a float; "boolean" a bool.
#     Careful: in Python, True is an int; a bool is never a number here
#     ............................................................ "age: must be an integer"
#     (the words are "a string", "an integer", "a number", "a boolean")
#   * "enum": the value is one of them ........................... "plan: must be one of free, pro"
#   * "minLength" / "maxLength" (strings) ........................ "name: at least 3 characters"
#                                                                   "name: at most 10 characters"
#   * "minimum" / "maximum" (numbers) ............................ "age: at least 18"
#                                                                   "age: at most 99"
#
# A value of the wrong type gets only the type sentence (its length or size means nothing then).

TYPE_WORDS = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
}


def fits_type(value: Any, kind: str) -> bool:
    """Whether ``value`` is of the JSON Schema type ``kind`` (one of TYPE_WORDS)."""
    # TODO: bool first (it is an int in Python), then the plain isinstance checks
    raise NotImplementedError("fits_type")


def form_problems(schema: dict[str, Any], content: dict[str, Any]) -> list[str]:
    """Every way ``content`` breaks the form ``schema``, one sorted sentence each."""
    # TODO: required and unknown names first, then each present field's type, enum, bounds
    raise NotImplementedError("form_problems")


# =================================================================================================
# Part 3 · A cancellable task registry (spec 2025-11-25, basic/utilities/cancellation)
# =================================================================================================
#
# Tasks runs the work of each incoming request in an asyncio task and sends its answer with
# `send(request_id, result)`. Its rules:
#
#   * start(request_id, work): run `work()` (a coroutine function) in a new task; when it returns,
#     call `await send(request_id, result)`; the id is then finished. An id already running is a
#     ValueError (ids are unique among requests in flight).
#   * cancel(request_id) -> bool: cancel that request's task and make sure NO answer is sent, even
#     if the work catches the cancellation and returns anyway. False, doing nothing, for an id that
#     is unknown, already finished, or protected (`initialize`: "MUST NOT be cancelled").
#   * running(): the ids still running, in the order they started.
#   * wait(): wait until every task has finished (cancelled ones included).


class Tasks:
    """The requests being answered, each in its own task, and how to stop one."""

    def __init__(
        self, send: Callable[[Any, Any], Awaitable[None]], protected: Collection[Any] = ()
    ) -> None:
        self.send = send
        self.protected = set(protected)
        # TODO: the tasks by id, and the ids whose answer must never be sent
        raise NotImplementedError("__init__")

    def start(self, request_id: Any, work: Callable[[], Awaitable[Any]]) -> None:
        """Run ``work()`` for ``request_id``; send its result when it returns (unless cancelled)."""
        # TODO: refuse a running id; wrap the work so the answer is sent unless silenced
        raise NotImplementedError("start")

    def cancel(self, request_id: Any) -> bool:
        """Stop ``request_id``'s work and send no answer; False if there is nothing to cancel."""
        # TODO: protected or unknown (finished) ids are ignored; else silence, then cancel
        raise NotImplementedError("cancel")

    def running(self) -> list[Any]:
        """The ids still running, oldest first."""
        # TODO: the dict keeps the order the tasks started in
        raise NotImplementedError("running")

    async def wait(self) -> None:
        """Until every task has finished."""
        # TODO: gather the tasks still there, ignoring their cancellations
        raise NotImplementedError("wait")
