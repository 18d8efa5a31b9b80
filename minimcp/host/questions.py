"""The host answers its servers' questions (lesson 09): with its model, its user, its workspace.

:mod:`minimcp.client.answers` keeps the protocol's rules (what was declared, what a form may ask,
which errors to send). *What* to answer is the host's business, because the host is where the model,
the person and the configuration live (notes §6.5; spec 2025-11-25, client/sampling, "User
Interaction Model", and client/elicitation):

* **sampling**: the host's own model writes the answer (the rule-based one by default, so everything
  runs offline; a real LLM's API, a :class:`Sampler`, takes the request whole). A person stays in
  the loop: ``approve(server, request)`` sees the request first and may let it through (True),
  refuse it (False: the server gets error -1), or edit it (return the new request);
* **elicitation, form mode**: what the user's ``profile`` (local configuration) already knows is
  filled in; ``ask_user(server, message, schema, prefilled)`` lets the person check and complete the
  form, and returns the answer. With nobody to ask, a form the profile fills is accepted, and one it
  cannot is cancelled;
* **elicitation, URL mode**: offered only when the host can ask ``consent(server, url, message)``:
  the URL is never opened without the person's yes;
* **roots**: the folders of the host's workspace.

Every callback is told which ``server`` asks: a client must show the user who wants what.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from functools import partial
from typing import Any, Protocol, runtime_checkable

from minimcp.client.answers import ClientAnswers, Refused, RootLike
from minimcp.host.chat import ChatMessage, Model, content_text
from minimcp.host.rule_model import RuleModel
from minimcp.rpc.aio import call

#: ``approve(server, request)`` → True, False, or the request as the person edited it.
Approve = Callable[[str, dict[str, Any]], Awaitable[bool | dict[str, Any]] | bool | dict[str, Any]]
#: ``ask_user(server, message, schema, prefilled)`` → ``{"action": ..., "content": {...}}``.
AskUser = Callable[
    [str, str, dict[str, Any], dict[str, Any]], Awaitable[dict[str, Any]] | dict[str, Any]
]
#: ``consent(server, url, message)`` → whether the person agrees to open ``url``.
Consent = Callable[[str, str, str], Awaitable[bool] | bool]


@runtime_checkable
class Sampler(Protocol):
    """A model that answers a sampling request itself: a real LLM's API, which has its own name,
    counts its own tokens (``maxTokens``) and says why it stopped (``stopReason``). The provider
    models of :mod:`minimcp.host.providers` are samplers; the rule model is not."""

    async def create_message(self, request: dict[str, Any]) -> dict[str, Any]:
        """``sampling/createMessage``'s params in, its result out (role, content, model, ...)."""
        ...


class HostQuestions:
    """One policy for every server a host connects: how its questions are answered."""

    def __init__(
        self,
        model: Model | None = None,
        *,
        approve: Approve | None = None,
        profile: dict[str, Any] | None = None,
        ask_user: AskUser | None = None,
        consent: Consent | None = None,
        roots: Iterable[RootLike] | None = None,
    ) -> None:
        self.model: Model = model or RuleModel()
        self.approve = approve
        self.profile = dict(profile or {})
        self.ask_user = ask_user
        self.consent = consent
        self.roots = None if roots is None else list(roots)

    def client_options(self, server: str) -> dict[str, Any]:
        """The :class:`~minimcp.client.Client` options for the client of ``server``: its answers."""
        modes = ("form", "url") if self.consent is not None else ("form",)
        return {
            "answers": ClientAnswers(
                sampling=partial(self.sample, server),
                elicitation=partial(self.elicit, server),
                elicitation_modes=modes,
                roots=self.roots,
            )
        }

    # --8<-- [start:sample]
    async def sample(self, server: str, request: dict[str, Any]) -> dict[str, Any]:
        """``sampling/createMessage``: the person may look first, then the host's model answers."""
        if self.approve is not None:
            verdict = await call(self.approve, server, request)
            if verdict is False or verdict is None:
                raise Refused(f"The user refused {server}'s request to use the model")
            if isinstance(verdict, dict):  # the person edited the request (the spec allows it)
                request = verdict
        if isinstance(self.model, Sampler):  # a real LLM: its API takes the request as it is
            return await self.model.create_message(request)
        messages = (
            [ChatMessage("system", request["systemPrompt"])] if request.get("systemPrompt") else []
        )
        for message in request["messages"]:
            messages.append(
                ChatMessage(message.get("role", "user"), content_text(message.get("content", [])))
            )
        reply = await self.model.respond(messages, [])  # no tools on offer: the answer is text
        text, stop = str(reply), "endTurn"
        words = text.split(" ")
        # A rough token count: the rule model writes few words
        if len(words) > request["maxTokens"]:
            text, stop = " ".join(words[: request["maxTokens"]]), "maxTokens"
        return {
            "role": "assistant",
            "content": {"type": "text", "text": text},
            "model": type(self.model).__name__,
            "stopReason": stop,
        }

    # --8<-- [end:sample]

    # --8<-- [start:elicit]
    async def elicit(self, server: str, request: dict[str, Any]) -> dict[str, Any]:
        """``elicitation/create``: from the profile, the person, or (a URL) the person's consent."""
        if request.get("mode") == "url":
            agreed = await call(self.consent, server, request["url"], request["message"])
            return {"action": "accept" if agreed else "decline"}
        schema = request["requestedSchema"]
        properties = schema.get("properties", {})
        prefilled = {name: self.profile[name] for name in properties if name in self.profile}
        if self.ask_user is not None:
            return await call(self.ask_user, server, request["message"], schema, prefilled)
        missing = [
            name
            for name in schema.get("required", [])
            if name not in prefilled and "default" not in properties.get(name, {})
        ]
        if missing:  # nobody to ask, and the profile does not know: the form is dismissed
            return {"action": "cancel"}
        return {"action": "accept", "content": prefilled}  # the client adds the defaults

    # --8<-- [end:elicit]
