"""Prompts: message templates the server fills in for the user (lesson 06).

A prompt is chosen by the *user* (a slash command, a menu entry), filled in by the *server*, and
pasted into the conversation by the *client*, as if the user had typed it (spec 2025-11-25,
server/prompts). The server can do real work while filling it in: the course's
``course-similar-by-name`` turns course names, which the user knows, into course IDs, which the
tools need.

* ``prompts/list`` answers the catalogue: each prompt's ``name``, ``title``, ``description`` and
  ``arguments`` (each with ``name``, ``description`` and ``required``);
* ``prompts/get`` checks the arguments (an unknown prompt or a missing required argument is
  -32602) and answers ``messages``: each one a ``role`` (``user`` or ``assistant``) and one
  ``content`` block, the same blocks tools answer with (text, image, audio, embedded resources).

Notice the spec's inconsistency the course notes point out: a tool's arguments are a JSON Schema
with a ``required`` *array*; a prompt's arguments are a plain list with a ``required`` *boolean*
each, and their values are always strings.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, TypeVar, get_args, get_origin

from minimcp.rpc.jsonrpc import INVALID_PARAMS, RpcError, shorten
from minimcp.server.content import is_content_block, text_content
from minimcp.server.core import ServerCore
from minimcp.server.handlers import call_handler, model_parameters
from minimcp.server.registry import Catalogue, described
from minimcp.server.resource_server import ResourceServer
from minimcp.server.server import parentheses_please
from minimcp.session.context import RequestContext

F = TypeVar("F", bound=Callable[..., Any])


# --8<-- [start:messages]
def user(content: str | dict[str, Any]) -> dict[str, Any]:
    """A message in the user's voice: a string becomes a text block."""
    return {
        "role": "user",
        "content": text_content(content) if isinstance(content, str) else content,
    }


def assistant(content: str | dict[str, Any]) -> dict[str, Any]:
    """A message in the model's voice, e.g. to start its answer for it."""
    return {
        "role": "assistant",
        "content": text_content(content) if isinstance(content, str) else content,
    }


def to_messages(value: Any) -> list[dict[str, Any]]:
    """What a prompt handler returned, as ``messages``: a string is one user message."""
    if isinstance(value, str) or is_content_block(value):
        return [user(value)]
    if isinstance(value, dict) and value.get("role") in ("user", "assistant"):
        return [value]
    if isinstance(value, (list, tuple)):
        return [message for item in value for message in to_messages(item)]
    raise TypeError(
        f"a prompt returns text, messages or content blocks, not {type(value).__name__}"
    )


# --8<-- [end:messages]


# --8<-- [start:arguments]
@dataclass
class PromptArgument:
    name: str
    description: str | None = None
    required: bool = True

    def definition(self) -> dict[str, Any]:
        return described(name=self.name, description=self.description, required=self.required)


def arguments_for(function: Callable[..., Any]) -> list[PromptArgument]:
    """A prompt's arguments, from a function: no default means required; ``Annotated[str, "..."]``
    gives the description."""
    found = []
    for parameter in model_parameters(function):
        description = None
        if get_origin(parameter.hint) is Annotated:
            description = next(
                (extra for extra in get_args(parameter.hint)[1:] if isinstance(extra, str)), None
            )
        found.append(PromptArgument(parameter.name, description, required=parameter.required))
    return found


# --8<-- [end:arguments]


@dataclass
class Prompt:
    name: str
    handler: Callable[..., Any]
    title: str | None = None
    description: str | None = None
    arguments: list[PromptArgument] = field(default_factory=list)

    def definition(self) -> dict[str, Any]:
        return described(
            name=self.name,
            title=self.title,
            description=self.description,
            arguments=[argument.definition() for argument in self.arguments],
        )

    # --8<-- [start:check]
    def check(self, arguments: Any) -> dict[str, str]:
        """The arguments of a ``prompts/get``, or -32602 saying exactly what is wrong with them."""
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict) or not all(
            isinstance(v, str) for v in arguments.values()
        ):
            raise RpcError(INVALID_PARAMS, '"arguments" must be an object of strings')
        known = {argument.name for argument in self.arguments}
        unknown = sorted(set(arguments) - known)
        if unknown:
            raise RpcError(
                INVALID_PARAMS, f"Unknown argument(s) for prompt {self.name}: {', '.join(unknown)}"
            )
        missing = [a.name for a in self.arguments if a.required and a.name not in arguments]
        if missing:
            raise RpcError(
                INVALID_PARAMS,
                f"Missing required argument(s) for prompt {self.name}: {', '.join(missing)}",
            )
        return arguments

    # --8<-- [end:check]


# --8<-- [start:registry]
class PromptRegistry(Catalogue[Prompt]):
    """A server's prompts. Creating it installs the ``prompts/*`` methods and the capability."""

    def __init__(self, server: ServerCore) -> None:
        super().__init__(
            server,
            "prompts",
            {"prompts/list": self.list_prompts, "prompts/get": self.get_prompt},
            {"listChanged": True},
        )

    def add(
        self,
        handler: Callable[..., Any],
        name: str | None = None,
        *,
        title: str | None = None,
        description: str | None = None,
        arguments: list[PromptArgument] | None = None,
    ) -> Prompt:
        """Register ``handler`` as a prompt; its parameters become the prompt's arguments."""
        prompt = Prompt(
            name=name or handler.__name__,
            handler=handler,
            title=title,
            description=description if description is not None else inspect.getdoc(handler),
            arguments=arguments if arguments is not None else arguments_for(handler),
        )
        return self.put(prompt.name, prompt)  # put() also tells the clients: list_changed

    # --8<-- [end:registry]

    async def list_prompts(self, context: RequestContext) -> dict[str, Any]:
        return self.page("prompts", [prompt.definition() for prompt in self], context)

    # --8<-- [start:get]
    async def get_prompt(self, context: RequestContext) -> dict[str, Any]:
        """``prompts/get``: check the arguments, let the handler write the messages."""
        name = context.params.get("name")
        if not isinstance(name, str):
            raise RpcError(INVALID_PARAMS, 'prompts/get needs "name" (a string)')
        prompt = self.get(name)
        if prompt is None:
            raise RpcError(INVALID_PARAMS, f"Unknown prompt: {shorten(name)}")
        arguments = prompt.check(context.params.get("arguments"))
        messages = to_messages(await call_handler(prompt.handler, arguments, context))
        if prompt.description:
            return {"description": prompt.description, "messages": messages}
        return {"messages": messages}

    # --8<-- [end:get]


# -- the server, with prompts --------------------------------------------------------------------
class PromptServer(ResourceServer):
    """Lesson 05's server (tools, resources), plus prompts: ``@server.prompt()``."""

    _prompts: PromptRegistry | None = None  # created by the first registration

    @property
    def prompts(self) -> PromptRegistry:
        if self._prompts is None:
            self._prompts = PromptRegistry(self)
        return self._prompts

    def prompt(
        self,
        name: str | None = None,
        *,
        title: str | None = None,
        description: str | None = None,
        arguments: list[PromptArgument] | None = None,
    ) -> Callable[[F], F]:
        """Decorator: ``@server.prompt()``; the function's parameters are the prompt's arguments."""
        parentheses_please("prompt", name)

        def register(function: F) -> F:
            self.add_prompt(
                function, name, title=title, description=description, arguments=arguments
            )
            return function

        return register

    def add_prompt(
        self, function: Callable[..., Any], name: str | None = None, **options: Any
    ) -> Prompt:
        return self.prompts.add(function, name, **options)

    def remove_prompt(self, name: str) -> None:
        self.prompts.remove(name)

    def find_prompt(self, name: str) -> Prompt | None:
        """The prompt called ``name``, if any (asking creates no registry, declares nothing)."""
        return self._prompts.get(name) if self._prompts is not None else None
