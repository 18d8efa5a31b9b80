"""Completion: suggestions while the user types an argument (taught in "the client talks back").

A prompt's arguments (lesson 06) and a template's variables (lesson 05) are typed by a *user*, in a
form the client shows. Typing ``AI1`` and being offered ``AI101`` and ``AI102`` is kinder than
guessing, so MCP lets the client ask the server for suggestions, like an editor's autocompletion
(spec 2025-11-25, server/utilities/completion):

* the server declares the ``completions`` capability;
* the client sends ``completion/complete`` with a ``ref``, *what* is being filled in, either
  ``{"type": "ref/prompt", "name": "code_review"}`` or
  ``{"type": "ref/resource", "uri": "courses://{id}"}`` (the template itself, braces and all);
  the ``argument`` being typed, ``{"name": "language", "value": "py"}``; and, optionally,
  ``context.arguments``, the values already chosen for the other arguments;
* the server answers ``{"completion": {"values": [...], "total": n, "hasMore": bool}}``: at most
  100 values, best first; ``total`` says how many matched in all and ``hasMore`` whether some
  were left out.

A ref to a prompt or template that does not exist, or to an argument it does not have, is -32602
Invalid params. A real argument with nobody to suggest values simply gets no values.

Suggestions are registered next to the prompt or template they help fill in::

    @server.prompt()
    def code_review(code: str, language: str) -> str: ...

    @server.completion(prompt="code_review", argument="language")
    def languages(value: str) -> list[str]:
        return matching(["python", "pytorch", "pyside", "rust"], value)

A completer gets the typed ``value`` and, if it asks for them by name, the other ``arguments``
already chosen (and the request's ``context``, like any handler); it returns the values, best first.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any

from minimcp.rpc.jsonrpc import INVALID_PARAMS, RpcError
from minimcp.server.core import ServerCore
from minimcp.server.handlers import call_handler
from minimcp.server.prompts import Prompt
from minimcp.server.resources import ResourceTemplate
from minimcp.server.uri_templates import VARIABLE
from minimcp.session.context import RequestContext

#: Where the registry looks up a prompt by name, and a template by its URI template (the Server's).
FindPrompt = Callable[[str], "Prompt | None"]
FindTemplate = Callable[[str], "ResourceTemplate | None"]

#: The spec's limit on how many values one answer carries.
MAX_VALUES = 100

#: ``completer(value, [arguments], [context])``: the values that fit ``value``, best first.
Completer = Callable[..., Any]


# --8<-- [start:result]
def matching(options: Iterable[str], value: str) -> list[str]:
    """The options that start with what the user typed (ignoring case), in their original order.

    The simplest useful notion of "relevant"; a server may rank by anything it likes.
    """
    typed = value.casefold()
    return [option for option in options if option.casefold().startswith(typed)]


def completion_result(values: Iterable[str]) -> dict[str, Any]:
    """The answer to ``completion/complete``: the first 100 values, how many in all, and whether
    some were left out."""
    values = list(values)
    if not all(isinstance(value, str) for value in values):
        raise TypeError("a completer returns strings")
    return {
        "completion": {
            "values": values[:MAX_VALUES],
            "total": len(values),
            "hasMore": len(values) > MAX_VALUES,
        }
    }


# --8<-- [end:result]


# --8<-- [start:registry]
class CompletionRegistry:
    """Completers by (ref type, prompt name or URI template, argument). Creating it installs
    ``completion/complete`` and declares ``completions``."""

    def __init__(
        self, server: ServerCore, find_prompt: FindPrompt, find_template: FindTemplate
    ) -> None:
        self.find_prompt = find_prompt
        self.find_template = find_template
        self._completers: dict[tuple[str, str, str], Completer] = {}
        server.method("completion/complete")(self.complete)
        server.declare("completions")

    def add(
        self,
        completer: Completer,
        *,
        argument: str,
        prompt: str | None = None,
        template: str | None = None,
    ) -> None:
        """Suggest values for ``argument`` of prompt ``prompt`` or URI template ``template``.

        Register the prompt or template first: a completion for something that does not exist (or
        for an argument it does not have) is a mistake, reported here rather than to a client.
        """
        if prompt is not None and template is None:
            kind, key, what = "ref/prompt", prompt, "prompt"
        elif template is not None and prompt is None:
            kind, key, what = "ref/resource", template, "resource template"
        else:
            raise ValueError("name either prompt= or template=, not both and not neither")
        known = self.arguments_of(kind, key)
        if known is None:
            raise ValueError(f"no {what} {key!r} is registered: register it before its completions")
        if argument not in known:
            raise ValueError(
                f"{key!r} has no argument {argument!r} (it has: {', '.join(known) or 'none'})"
            )
        self._completers[(kind, key, argument)] = completer

    # --8<-- [end:registry]

    def arguments_of(self, kind: str, key: str) -> list[str] | None:
        """The argument names of the prompt or template a ref names; None if it does not exist."""
        if kind == "ref/prompt":
            prompt = self.find_prompt(key)
            return None if prompt is None else [argument.name for argument in prompt.arguments]
        template = self.find_template(key)
        return None if template is None else VARIABLE.findall(template.uri_template)

    # --8<-- [start:complete]
    async def complete(self, context: RequestContext) -> dict[str, Any]:
        """``completion/complete``: check what is being completed, then ask its completer."""
        kind, key, argument, value, arguments = _request(context.params)
        known = self.arguments_of(kind, key)
        if known is None:
            what = "prompt" if kind == "ref/prompt" else "resource template"
            raise RpcError(INVALID_PARAMS, f"Unknown {what}: {key}")
        if argument not in known:
            raise RpcError(INVALID_PARAMS, f"{key} has no argument named {argument!r}")
        completer = self._completers.get((kind, key, argument))
        if completer is None:  # a real argument, but nobody suggests values for it
            return completion_result([])
        wanted: dict[str, Any] = {"value": value}
        if "arguments" in inspect.signature(completer).parameters:
            wanted["arguments"] = arguments
        return completion_result(await call_handler(completer, wanted, context))

    # --8<-- [end:complete]


def _request(params: dict[str, Any]) -> tuple[str, str, str, str, dict[str, str]]:
    """The parts of a ``completion/complete`` request, or -32602 saying what is wrong with it."""
    ref = params.get("ref")
    if not isinstance(ref, dict):
        raise RpcError(INVALID_PARAMS, 'completion/complete needs "ref" (an object)')
    kind = ref.get("type")
    if kind == "ref/prompt":
        key = ref.get("name")
        if not isinstance(key, str):
            raise RpcError(INVALID_PARAMS, 'a "ref/prompt" needs "name" (a string)')
    elif kind == "ref/resource":
        key = ref.get("uri")
        if not isinstance(key, str):
            raise RpcError(INVALID_PARAMS, 'a "ref/resource" needs "uri" (a string)')
    else:
        raise RpcError(
            INVALID_PARAMS, f'Unknown ref type {kind!r}: use "ref/prompt" or "ref/resource"'
        )
    argument = params.get("argument")
    if not (
        isinstance(argument, dict)
        and isinstance(argument.get("name"), str)
        and isinstance(argument.get("value"), str)
    ):
        raise RpcError(
            INVALID_PARAMS,
            'completion/complete needs "argument" with a "name" and a "value" (strings)',
        )
    context = params.get("context", {})  # optional: the values already chosen for other arguments
    arguments = context.get("arguments", {}) if isinstance(context, dict) else None
    if not (isinstance(arguments, dict) and all(isinstance(v, str) for v in arguments.values())):
        raise RpcError(INVALID_PARAMS, '"context.arguments" must be an object of strings')
    return kind, key, argument["name"], argument["value"], arguments
