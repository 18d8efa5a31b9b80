"""Elicitation: the server asks the *user* a question (taught in "the client talks back").

Sampling (:mod:`minimcp.server.sampling`) borrows the client's model; elicitation borrows its user.
A tool that is missing something only a person can give, a name, a choice, a confirmation, sends
``elicitation/create`` and the client shows the user a small form (spec 2025-11-25,
client/elicitation):

* A client that can do this declares ``elicitation`` in ``initialize``: ``{"form": {}}``,
  ``{"url": {}}`` or both; an empty ``{}`` means form only (that is what clients said before
  URL mode existed). The server **must not** send a mode the client did not declare:
  :func:`elicit` and :func:`elicit_url` refuse with
  :class:`~minimcp.server.sampling.CapabilityMissing` before anything is sent.
* **Form mode** sends a ``message`` and a ``requestedSchema``: a deliberately small JSON Schema,
  one flat object whose properties are strings (optionally with a ``format``), numbers, integers,
  booleans, or enums (one value: ``enum`` or titled ``oneOf``; several: an ``array`` whose
  ``items`` have ``enum`` or titled ``anyOf``). Each property may carry a ``default`` the form
  starts from. Never use a form for passwords or keys: the client sees everything typed into it.
* **URL mode** (new in 2025-11-25) sends a ``url`` for the user to open in a browser, for what
  must *not* pass through the client (a payment, signing in to a third party), and an
  ``elicitationId`` naming this interaction. 2026-07-28 removed the id, the completion notice and
  the error ``-32042``: asked in that revision, lesson 12's front sends the same question without
  the id, and turns :class:`UrlElicitationRequired` into questions
  (:mod:`minimcp.session.url_questions`).
* The answer has an ``action``: ``accept`` (with ``content``, the form's values, in form mode),
  ``decline`` (the user said no) or ``cancel`` (the user closed the form). A server should handle
  all three, and should check that accepted content fits the schema: :func:`elicit` does.

Like sampling, the request travels while a tool is running, and the tool waits for the answer::

    @server.tool()
    async def book_table(context: RequestContext) -> str:
        answer = await elicit(context, "How many people?", {
            "type": "object",
            "properties": {"people": {"type": "integer", "minimum": 1, "default": 2}},
            "required": ["people"],
        })
        if answer["action"] != "accept":
            return "Nothing booked."
        return f"Booked for {answer['content']['people']}."
"""

from __future__ import annotations

from typing import Any

from minimcp.rpc.jsonrpc import RpcError
from minimcp.server.sampling import DEFAULT_TIMEOUT, CapabilityMissing, require_capability
from minimcp.server.tools import URL_ELICITATION_REQUIRED, ToolError
from minimcp.session.context import RequestContext
from minimcp.session.forms import ACTIONS, check_form_schema, form_problems, supports_mode
from minimcp.session.server import ServerSession


# --8<-- [start:modes]
def require_mode(context: RequestContext, mode: str) -> None:
    """Refuse, before anything is sent, a mode the client did not declare."""
    capability = require_capability(context, "elicitation", "elicitation/create")
    if not supports_mode(capability, mode):
        raise CapabilityMissing(f"The client's elicitation capability does not include {mode} mode")


# --8<-- [end:modes]


# --8<-- [start:elicit]
async def elicit(
    context: RequestContext,
    message: str,
    requested_schema: dict[str, Any],
    *,
    timeout: float | None = DEFAULT_TIMEOUT,
) -> dict[str, Any]:
    """Ask the user to fill in a form; return the answer: ``{"action": ..., "content": {...}}``.

    Accepted content that does not fit ``requested_schema`` raises
    :class:`~minimcp.server.tools.ToolError`.
    """
    require_mode(context, "form")
    check_form_schema(requested_schema)
    # "mode": "form" is the default, so we leave it out: clients before 2025-11-25 never knew it.
    params = {"message": message, "requestedSchema": requested_schema}
    answer = await context.send_request("elicitation/create", params, timeout)
    _check_action(answer)
    if answer["action"] == "accept":
        content = answer.get("content")
        if not isinstance(content, dict):
            raise ToolError('The user accepted the form but the client sent no "content"')
        problems = form_problems(requested_schema, content)
        if problems:
            raise ToolError(
                f"The client's answer does not fit the requested schema: {'; '.join(problems)}"
            )
    return answer


# --8<-- [end:elicit]


async def elicit_url(
    context: RequestContext,
    message: str,
    url: str,
    elicitation_id: str,
    *,
    timeout: float | None = DEFAULT_TIMEOUT,
) -> dict[str, Any]:
    """Ask the user to open ``url`` (URL mode). ``accept`` means they agreed to go, not that they
    finished: the server learns that on its own side, and may then send
    :func:`elicitation_complete`."""
    require_mode(context, "url")
    params = {"mode": "url", "message": message, "url": url, "elicitationId": elicitation_id}
    answer = await context.send_request("elicitation/create", params, timeout)
    _check_action(answer)
    return answer


class UrlElicitationRequired(RpcError):
    """Raise it from a tool that cannot go on until the user completes URL elicitations.

    Its ``tools/call`` is answered with error ``-32042`` listing them (for the client to show, then
    retry), not with a result. In a 2026-07-28 request, which may not answer ``-32042``, the same
    elicitations are asked in an ``input_required`` answer (lesson 12).

    Each elicitation is ``{"mode": "url", "elicitationId": ..., "url": ..., "message": ...}``.
    """

    def __init__(
        self,
        elicitations: list[dict[str, Any]],
        message: str = "This request requires more information.",
    ) -> None:
        for elicitation in elicitations:
            if not (
                elicitation.get("mode") == "url"
                and all(
                    isinstance(elicitation.get(key), str)
                    for key in ("elicitationId", "url", "message")
                )
            ):
                raise ValueError(
                    "each required elicitation is "
                    '{"mode": "url", "elicitationId", "url", "message"}'
                )
        super().__init__(URL_ELICITATION_REQUIRED, message, {"elicitations": list(elicitations)})


async def elicitation_complete(session: ServerSession, elicitation_id: str) -> None:
    """Tell the client that the out-of-band interaction ``elicitation_id`` has finished.

    Only the session that received the URL may hear it: keep ``context.session`` until then.
    The notice belongs to a session that the ``initialize`` handshake opened: 2026-07-28 removed
    it (the client learns the outcome by retrying its request, lesson 12), so a request without a
    handshake behind it hears nothing.
    """
    if session.protocol_version is None:  # no handshake: a 2026-07-28 request (lesson 12)
        return
    await session.notify("notifications/elicitation/complete", {"elicitationId": elicitation_id})


def _check_action(answer: Any) -> None:
    if not (isinstance(answer, dict) and answer.get("action") in ACTIONS):
        raise ToolError(
            f'The client\'s answer to elicitation/create has no valid "action": {answer!r}'
        )
