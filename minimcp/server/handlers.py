"""Calling the functions a server author registers: tools, resources, prompts, completers.

A handler may be a plain function or a coroutine function, and may ask for the request's
:class:`~minimcp.session.context.RequestContext` by having a parameter named ``context``. Its other
parameters are what the model (or the user) fills in: :func:`model_parameters` walks them once,
for the tool's input schema and the prompt's arguments alike.
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, get_type_hints

from minimcp.rpc.aio import resolve
from minimcp.session.context import RequestContext

# Reading a signature is slow, and a tool is called again and again: remember the answer per
# function, weakly, so that a handler taken away (remove_tool) is not kept alive by this cache.
_takes_context: weakref.WeakKeyDictionary[Callable[..., Any], bool] = weakref.WeakKeyDictionary()


def wants_context(handler: Callable[..., Any]) -> bool:
    """Does ``handler`` take a ``context`` parameter?"""
    try:
        return _takes_context[handler]
    except (KeyError, TypeError):  # not seen yet, or not weakly referable (then: not cached)
        answer = "context" in inspect.signature(handler).parameters
        try:
            _takes_context[handler] = answer
        except TypeError:
            pass
        return answer


async def call_handler(
    handler: Callable[..., Any], arguments: dict[str, Any], context: RequestContext | None = None
) -> Any:
    """Call a sync or async handler with keyword arguments, adding ``context`` if it asks for one.

    A sync handler runs on the event loop itself: keep it quick (or make it async), since every
    session of the server waits while it runs.
    """
    if context is not None and wants_context(handler):
        arguments = {**arguments, "context": context}
    return await resolve(handler(**arguments))


@dataclass(frozen=True)
class ModelParameter:
    """One parameter a model or a user fills in: its name, type hint, and default (if any)."""

    name: str
    hint: Any
    default: Any = inspect.Parameter.empty

    @property
    def required(self) -> bool:
        return self.default is inspect.Parameter.empty


def model_parameters(function: Callable[..., Any]) -> Iterator[ModelParameter]:
    """The model's parameters of ``function``: all but ``context``, ``*args`` and ``**kwargs``."""
    hints = get_type_hints(function, include_extras=True)
    for name, parameter in inspect.signature(function).parameters.items():
        if name == "context" or parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        yield ModelParameter(name, hints.get(name, Any), parameter.default)
