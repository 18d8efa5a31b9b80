"""What a client answers when the server asks: sampling, elicitation and roots (lesson 09).

Until lesson 08 the client asked and the server answered. But the connection is symmetric (lesson
01), and three requests travel the other way (spec 2025-11-25, client/sampling, client/elicitation,
client/roots):

* ``sampling/createMessage``: "let me use your model": the server borrows the host's language model;
* ``elicitation/create``: "let me ask your user": a form to fill in, or a URL to open;
* ``roots/list``: "which folders may I work in?".

A client offers each one by **declaring a capability** in ``initialize``, and a server must not ask
for what was not declared. :class:`ClientAnswers` keeps both halves together, so they can never
disagree: give it a handler and it declares the capability; give it none and it answers ``-32601``
(Method not found), as the spec asks for roots, for any request it never offered.

The handlers decide *how* to answer: with the host's model, from local configuration, or by asking
the person (:mod:`minimcp.host.questions`). This module keeps the rules around them:

* a sampling request with ``tools`` needs ``sampling.tools`` declared (-32602 otherwise); a handler
  that raises :class:`Refused` (the user said no) becomes error ``-1``, the spec's example code;
* an elicitation in a mode not declared is ``-32602`` ("MUST"), and so is a form whose schema is not
  the spec's flat object of primitives; an accepted form gets the schema's defaults for the fields
  the user left empty, and is checked against the schema before it is sent;
* roots are ``file://`` URIs; :meth:`ClientAnswers.set_roots` changes them (the client then sends
  ``notifications/roots/list_changed``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

from minimcp.rpc.aio import call
from minimcp.rpc.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, RpcError, method_not_found
from minimcp.session.forms import (
    ACTIONS,
    check_form_schema,
    form_problems,
    supports_mode,
    with_defaults,
)
from minimcp.session.schemas import load_jsonschema
from minimcp.session.tool_messages import tool_message_problem

log = logging.getLogger("minimcp.client")

#: The error a client sends when its user refuses a sampling request (the spec's example code).
USER_REJECTED = -1

#: ``sampling(params)`` → ``{"role": "assistant", "content": {...}, "model", "stopReason"}``.
SamplingHandler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]] | dict[str, Any]]
#: ``elicitation(params)`` → ``{"action": "accept", "content": {...}}``, or decline, or cancel.
ElicitationHandler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]] | dict[str, Any]]
#: A root: a folder (a path), or the spec's ``{"uri": "file:///…", "name": …}``.
RootLike = str | Path | dict[str, Any]


class Refused(Exception):
    """Raise it in a sampling handler when the user refuses: the server gets error -1, and why."""


def check_url_question(params: dict[str, Any], handshake: bool) -> None:
    """A URL question has its ``url``; in 2025-11-25 (a session ``initialize`` opened) also the
    ``elicitationId`` naming it, which 2026-07-28 removed. ``-32602`` if it lacks them."""
    if handshake and not (
        isinstance(params.get("url"), str) and isinstance(params.get("elicitationId"), str)
    ):
        raise RpcError(
            INVALID_PARAMS, 'a URL elicitation needs "url" and "elicitationId" (strings)'
        )
    if not isinstance(params.get("url"), str):
        raise RpcError(INVALID_PARAMS, 'a URL elicitation needs "url" (a string)')


def to_root(root: RootLike) -> dict[str, Any]:
    """The spec's root for a folder: ``{"uri": "file:///home/me/project", "name": "project"}``."""
    if isinstance(root, dict):
        if not (isinstance(root.get("uri"), str) and root["uri"].startswith("file://")):
            raise ValueError(f'a root\'s "uri" must be a file:// URI, not {root.get("uri")!r}')
        return dict(root)
    path = Path(root).expanduser().resolve()
    return {"uri": path.as_uri(), "name": path.name or str(path)}


# --8<-- [start:answers]
class ClientAnswers:
    """The server's questions this client accepts, the capabilities that say so, and the answers."""

    def __init__(
        self,
        *,
        sampling: SamplingHandler | None = None,
        sampling_tools: bool = False,
        elicitation: ElicitationHandler | None = None,
        elicitation_modes: Iterable[str] = ("form",),
        roots: Iterable[RootLike] | None = None,
    ) -> None:
        self.sampling = sampling
        self.sampling_tools = sampling_tools
        self.elicitation = elicitation
        self.elicitation_modes = tuple(elicitation_modes)
        unknown = set(self.elicitation_modes) - {"form", "url"}
        if unknown or (elicitation is not None and not self.elicitation_modes):
            raise ValueError(
                f"elicitation_modes: name 'form', 'url' or both, not {sorted(unknown) or '()'}"
            )
        self.roots = None if roots is None else [to_root(root) for root in roots]
        self._open_urls: set[str] = set()  # URL elicitations accepted, not yet said complete

    def capabilities(self) -> dict[str, Any]:
        """What ``initialize`` declares: exactly the requests this object will answer."""
        declared: dict[str, Any] = {}
        if self.sampling is not None:
            declared["sampling"] = {"tools": {}} if self.sampling_tools else {}
        if self.elicitation is not None:
            declared["elicitation"] = {mode: {} for mode in self.elicitation_modes}
        if self.roots is not None:
            declared["roots"] = {"listChanged": True}  # set_roots tells the server
        return declared

    def knows(self, method: str) -> bool:
        return (
            method == "sampling/createMessage"
            and self.sampling is not None
            or method == "elicitation/create"
            and self.elicitation is not None
            or method == "roots/list"
            and self.roots is not None
        )

    async def answer(self, method: str, params: dict[str, Any]) -> Any:
        """Answer one of the server's requests, or raise the :class:`RpcError` the spec names."""
        return await self.answer_asked(method, params, handshake=True)

    async def answer_input_request(self, method: str, params: dict[str, Any]) -> Any:
        """Answer a question that came inside a 2026-07-28 ``input_required`` answer (lesson 12):
        the same, except that a URL question carries no ``elicitationId`` there, and no completion
        notice follows."""
        return await self.answer_asked(method, params, handshake=False)

    async def answer_asked(self, method: str, params: dict[str, Any], *, handshake: bool) -> Any:
        """``handshake``: whether the question came within a session ``initialize`` opened."""
        if not self.knows(method):  # never declared: the server should not have asked
            raise method_not_found(method)
        if method == "sampling/createMessage":
            return await self.sample(params)
        if method == "elicitation/create":
            return await self.elicit(params, handshake=handshake)
        return {"roots": list(self.roots or [])}

    # --8<-- [end:answers]

    # --8<-- [start:sample]
    async def sample(self, params: dict[str, Any]) -> dict[str, Any]:
        """``sampling/createMessage``: check the request, let the handler (and its user) answer."""
        if ("tools" in params or "toolChoice" in params) and not self.sampling_tools:
            raise RpcError(
                INVALID_PARAMS, "This client did not declare sampling.tools: ask without tools"
            )
        messages = params.get("messages")
        if not (
            isinstance(messages, list) and messages and isinstance(params.get("maxTokens"), int)
        ):
            raise RpcError(
                INVALID_PARAMS,
                'sampling/createMessage needs "messages" (a non-empty list) '
                'and "maxTokens" (an integer)',
            )
        problem = tool_message_problem(messages)  # a tool loop's messages must be balanced
        if problem is not None:
            raise RpcError(INVALID_PARAMS, problem)
        try:
            result = await call(self.sampling, params)
        except Refused as refusal:
            raise RpcError(
                USER_REJECTED, str(refusal) or "User rejected sampling request"
            ) from None
        if not (
            isinstance(result, dict)
            and result.get("role") == "assistant"
            and isinstance(result.get("content"), (dict, list))
            and isinstance(result.get("model"), str)
        ):
            raise TypeError(
                f'a sampling handler returns {{"role": "assistant", "content": ..., '
                f'"model": ...}}, not {result!r}'
            )
        return result

    # --8<-- [end:sample]

    # --8<-- [start:elicit]
    async def elicit(self, params: dict[str, Any], *, handshake: bool = True) -> dict[str, Any]:
        """``elicitation/create``: check the question, let the handler answer, check the answer."""
        mode = params.get("mode", "form")  # no mode means form (older servers never send one)
        if mode not in ("form", "url") or not supports_mode(
            self.capabilities()["elicitation"], mode
        ):
            raise RpcError(INVALID_PARAMS, f"This client did not declare elicitation mode {mode!r}")
        schema: dict[str, Any] = params.get("requestedSchema") or {}
        if mode == "form":
            await load_jsonschema()  # in a thread, the first time: see minimcp.session.schemas
            try:
                check_form_schema(schema)
            except ValueError as problem:
                raise RpcError(INVALID_PARAMS, f"This form cannot be shown: {problem}") from None
        else:
            check_url_question(params, handshake)
        answer = await call(self.elicitation, params)
        if not (isinstance(answer, dict) and answer.get("action") in ACTIONS):
            raise TypeError(
                f'an elicitation handler returns {{"action": "accept" | "decline" | "cancel", '
                f"...}}, not {answer!r}"
            )
        if answer["action"] != "accept":
            return {"action": answer["action"]}  # nothing the user typed leaves when they said no
        if mode == "url":
            if handshake:  # 2025-11-25: the server may say when it is done (2026: no notice)
                self._open_urls.add(params["elicitationId"])
            return {"action": "accept"}
        content = with_defaults(schema, answer.get("content") or {})
        problems = form_problems(schema, content)
        if problems:  # the form would not have let the user submit this
            raise RpcError(
                INTERNAL_ERROR, f"The answer does not fit the form: {'; '.join(problems)}"
            )
        return {"action": "accept", "content": content}

    # --8<-- [end:elicit]

    def completed(self, elicitation_id: Any) -> bool:
        """The server says a URL interaction is over: True if it was one we accepted and still open.

        The spec: clients MUST ignore notifications about unknown or already-completed ids.
        """
        if elicitation_id in self._open_urls:
            self._open_urls.discard(elicitation_id)
            return True
        log.debug("ignoring elicitation/complete for an unknown or finished id: %r", elicitation_id)
        return False

    def set_roots(self, roots: Iterable[RootLike]) -> bool:
        """Replace the roots; True if they changed. Only a client that declared roots may."""
        if self.roots is None:
            raise RuntimeError(
                "this client did not declare roots: give ClientAnswers(roots=[...]) at the start"
            )
        new = [to_root(root) for root in roots]
        changed, self.roots = new != self.roots, new
        return changed
