"""URL-mode elicitation as 2026-07-28 asks it (lesson 12).

Lesson 09 taught URL mode as 2025-11-25 has it: the question names the interaction with an
``elicitationId``, the server may say ``notifications/elicitation/complete`` when it is over, and a
tool that cannot go on until the user has opened some URLs answers its ``tools/call`` with the
error ``-32042`` listing them. Revision 2026-07-28 removed the id and the notice ("the client learns
the outcome of an out-of-band interaction by retrying the original request": changelog, minor
change 11) and retired the code ("Implementations of this protocol version MUST NOT emit" it:
basic, "Error codes"). A 2026 URL question is ``mode``, ``message`` and ``url``, inside an
``input_required`` answer like any other question; a server that must tell its interactions apart
keeps its own name for them, here the question's key, which ``requestState`` carries.

So lesson 09's tools run unchanged, the 2026 front (:mod:`minimcp.session.modern`) asks their
questions through :func:`as_asked_in_2026`, and turns their ``-32042`` into questions with
:func:`ask_for_urls`.
"""

from __future__ import annotations

from typing import Any

from minimcp.rpc.jsonrpc import RpcError
from minimcp.session.envelope import missing_capability
from minimcp.session.forms import supports_mode
from minimcp.session.input_required import Answers, InputRequired

#: 2025-11-25's "URL elicitation required": a code 2026-07-28 retired.
URL_ELICITATION_REQUIRED_2025 = -32042
#: The fields of a question that 2026-07-28 removed, by the question's method.
REMOVED_FIELDS = {"elicitation/create": ("elicitationId",)}


# --8<-- [start:asked]
def as_asked_in_2026(question: dict[str, Any]) -> dict[str, Any]:
    """A question to the client as 2026-07-28 asks it: without the fields that revision removed
    (a URL question's ``elicitationId``)."""
    removed = REMOVED_FIELDS.get(question["method"], ())
    params = question.get("params") or {}
    if not any(name in params for name in removed):
        return question
    kept = {name: value for name, value in params.items() if name not in removed}
    return {**question, "params": kept}


def urls_required(error: RpcError, capabilities: dict[str, Any]) -> InputRequired:
    """A tool's ``-32042`` as 2026-07-28 asks the same: one URL question per interaction it
    listed, keyed by the server's own id for it. ``-32021`` if the client has no URL mode."""
    elicitation = capabilities.get("elicitation")
    if not (isinstance(elicitation, dict) and supports_mode(elicitation, "url")):
        raise missing_capability("elicitation", {"url": {}})
    listed = error.data.get("elicitations", []) if isinstance(error.data, dict) else []
    questions = {
        each["elicitationId"]: {
            "method": "elicitation/create",
            "params": {"mode": "url", "message": each["message"], "url": each["url"]},
        }
        for each in listed
    }
    return InputRequired(questions)


def declined(needed: InputRequired, answers: Answers | None) -> str | None:
    """The URL of a required interaction that the user declined or cancelled, if this attempt
    says so: asking again would only ask them again."""
    for key, question in needed.requests.items():
        answer = answers.take(key, question["method"]) if answers is not None else None
        if answer is not None and answer["action"] != "accept":
            return str(question["params"]["url"])
    return None


def ask_for_urls(
    error: RpcError, capabilities: dict[str, Any], answers: Answers | None, tool: Any
) -> InputRequired | dict[str, Any]:
    """A tool's ``-32042``, answered the 2026-07-28 way: the URL questions to ask; or, once the
    user declined one of them, the tool's failed result (asking again would only ask them again).
    """
    needed = urls_required(error, capabilities)
    url = declined(needed, answers)
    if url is None:
        return needed
    text = f"The user declined to open what {tool} needs: {url}"
    return {"content": [{"type": "text", "text": text}], "isError": True}


# --8<-- [end:asked]
