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
    # BEGIN SOLUTION: refuse the untrusted; edit a deep copy; return it only if it differs
    if server not in trusted:
        return False
    edited = copy.deepcopy(request)
    if edited.get("includeContext", "none") != "none":
        edited["includeContext"] = "none"
    if edited.get("maxTokens", 0) > max_tokens:
        edited["maxTokens"] = max_tokens
    temperature = edited.get("temperature")
    if temperature is not None and not 0.0 <= temperature <= 1.0:
        del edited["temperature"]
    return True if edited == request else edited
    # END SOLUTION


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
    # BEGIN SOLUTION: bool first (it is an int in Python), then the plain isinstance checks
    if isinstance(value, bool):
        return kind == "boolean"
    checks: dict[str, type | tuple[type, ...]] = {
        "string": str,
        "integer": int,
        "number": (int, float),
    }
    expected = checks.get(kind)
    return expected is not None and isinstance(value, expected)
    # END SOLUTION


def form_problems(schema: dict[str, Any], content: dict[str, Any]) -> list[str]:
    """Every way ``content`` breaks the form ``schema``, one sorted sentence each."""
    # BEGIN SOLUTION: required and unknown names first, then each present field's type, enum, bounds
    properties: dict[str, Any] = schema.get("properties", {})
    problems = [f"{name}: required" for name in schema.get("required", []) if name not in content]
    problems += [f"{name}: not in the form" for name in content if name not in properties]
    for name, value in content.items():
        field = properties.get(name)
        if field is None:
            continue
        kind = field.get("type", "string")
        if not fits_type(value, kind):
            problems.append(f"{name}: must be {TYPE_WORDS.get(kind, kind)}")
            continue
        if "enum" in field and value not in field["enum"]:
            problems.append(f"{name}: must be one of {', '.join(map(str, field['enum']))}")
        if kind == "string":
            if "minLength" in field and len(value) < field["minLength"]:
                problems.append(f"{name}: at least {field['minLength']} characters")
            if "maxLength" in field and len(value) > field["maxLength"]:
                problems.append(f"{name}: at most {field['maxLength']} characters")
        elif kind in ("integer", "number"):
            if "minimum" in field and value < field["minimum"]:
                problems.append(f"{name}: at least {field['minimum']}")
            if "maximum" in field and value > field["maximum"]:
                problems.append(f"{name}: at most {field['maximum']}")
    return sorted(problems)
    # END SOLUTION


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
        # BEGIN SOLUTION: the tasks by id, and the ids whose answer must never be sent
        self._tasks: dict[Any, asyncio.Task[None]] = {}
        self._silenced: set[Any] = set()
        # END SOLUTION

    def start(self, request_id: Any, work: Callable[[], Awaitable[Any]]) -> None:
        """Run ``work()`` for ``request_id``; send its result when it returns (unless cancelled)."""
        # BEGIN SOLUTION: refuse a running id; wrap the work so the answer is sent unless silenced
        if request_id in self._tasks:
            raise ValueError(f"request {request_id!r} is already running")

        async def answer() -> None:
            try:
                result = await work()
                if request_id not in self._silenced:  # cancelled, but the work returned anyway
                    await self.send(request_id, result)
            except asyncio.CancelledError:
                pass  # cancelled: no answer at all
            finally:  # finished either way: forget the id, so that it may be used again
                self._tasks.pop(request_id, None)
                self._silenced.discard(request_id)

        self._tasks[request_id] = asyncio.get_running_loop().create_task(answer())
        # END SOLUTION

    def cancel(self, request_id: Any) -> bool:
        """Stop ``request_id``'s work and send no answer; False if there is nothing to cancel."""
        # BEGIN SOLUTION: protected or unknown (finished) ids are ignored; else silence, then cancel
        task = self._tasks.get(request_id)
        if request_id in self.protected or task is None or task.done():
            return False
        self._silenced.add(request_id)
        task.cancel()
        return True
        # END SOLUTION

    def running(self) -> list[Any]:
        """The ids still running, oldest first."""
        # BEGIN SOLUTION: the dict keeps the order the tasks started in
        return list(self._tasks)
        # END SOLUTION

    async def wait(self) -> None:
        """Until every task has finished."""
        # BEGIN SOLUTION: gather the tasks still there, ignoring their cancellations
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        # END SOLUTION
