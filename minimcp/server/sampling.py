"""Sampling: the server asks the client's model for a completion (see "the client talks back").

Until now the client asked and the server answered. But the connection is symmetric (lesson 01),
and a server may ask too. With ``sampling/createMessage`` a tool that needs a language model, to
summarise a text or to choose between options, borrows the *client's* model: the server needs no
API key of its own, and the client (and its user) stays in control of what is sent to which model
(spec 2025-11-25, client/sampling).

* A client that can do this declares the ``sampling`` capability in ``initialize``. A server
  **must not** ask a client that did not: :func:`create_message` refuses with
  :class:`CapabilityMissing` before anything is sent. Sampling with ``tools`` needs
  ``sampling.tools`` as well.
* The request carries ``messages`` (each a ``role`` and ``content``, the same shape as a prompt's
  messages, lesson 06) and ``maxTokens``; optionally a ``systemPrompt``, a ``temperature``,
  ``stopSequences`` and ``modelPreferences`` (hints, never orders: the client picks the model).
* The answer is one message from the model: ``role``, ``content``, the ``model`` the client
  actually used and the ``stopReason``. A user who refuses may make the client answer with an
  error instead (the spec suggests code -1): it reaches the tool as an :class:`RpcError`.

The request travels *while the tool is running*: the server sends it from inside the handler of
``tools/call`` and waits for the answer before it answers the call. That is why a connection
runs each incoming request in a task of its own (lesson 01): the reading loop stays free to read
the client's answer::

    @server.tool()
    async def summarise(text: str, context: RequestContext) -> str:
        result = await create_message(context, [f"Summarise in one line:\\n{text}"], max_tokens=60)
        return text_of(result)
"""

from __future__ import annotations

from typing import Any

from minimcp.server.prompts import user
from minimcp.server.tools import ToolError
from minimcp.session.context import RequestContext
from minimcp.session.progress import ProgressCallback, request_with_progress
from minimcp.session.tool_messages import tool_message_problem

#: How long to wait for the client, by default. A person may have to approve the request first.
DEFAULT_TIMEOUT = 300.0


# --8<-- [start:capability]
class CapabilityMissing(ToolError):
    """The client did not declare what a request to it needs, so the server may not send it.

    It is a :class:`~minimcp.server.tools.ToolError`: inside a tool, the model reads why it failed.
    """


def require_capability(context: RequestContext, name: str, method: str) -> dict[str, Any]:
    """The options of the client capability ``name`` (e.g. ``{}`` for ``"sampling": {}``), or
    :class:`CapabilityMissing` if the client never declared it in ``initialize``. A 2026-07-28
    request that lacks it gets the revision's own error, ``-32021``, naming the capability
    (lesson 12)."""
    declared = context.client_capabilities.get(name)
    if not isinstance(declared, dict):
        error = context.missing_capability(name)  # the era's own error, if it has one (lesson 12)
        if error is not None:
            raise error
        raise CapabilityMissing(
            f"The client did not declare the {name!r} capability, so this server "
            f"cannot send it {method}"
        )
    return declared


# --8<-- [end:capability]


# --8<-- [start:create_message]
async def create_message(
    context: RequestContext,
    messages: str | list[str | dict[str, Any]],
    *,
    max_tokens: int,
    system_prompt: str | None = None,
    temperature: float | None = None,
    stop_sequences: list[str] | None = None,
    model_preferences: dict[str, Any] | None = None,
    tools: list[dict[str, Any]] | None = None,
    tool_choice: dict[str, Any] | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,
    progress: ProgressCallback | None = None,
) -> dict[str, Any]:
    """Send ``sampling/createMessage`` to the client whose request is being answered; return its
    answer: ``{"role": "assistant", "content": {...}, "model": ..., "stopReason": ...}``.

    ``messages`` is a list of messages (a string is a user message), or one string. ``progress``
    hears how far the client got (a person reviewing the request, a slow model), if it says.
    """
    require_sampling(context, with_tools=tools is not None or tool_choice is not None)
    if isinstance(messages, str):
        messages = [messages]
    params: dict[str, Any] = {
        "messages": [
            user(message) if isinstance(message, str) else message for message in messages
        ],
        "maxTokens": max_tokens,
    }
    problem = tool_message_problem(params["messages"])
    # A tool loop that lost track: the server's bug, found before anything is sent
    if problem is not None:
        raise ValueError(problem)
    optional = {
        "systemPrompt": system_prompt,
        "temperature": temperature,
        "stopSequences": stop_sequences,
        "modelPreferences": model_preferences,
        "tools": tools,
        "toolChoice": tool_choice,
    }
    params.update({key: value for key, value in optional.items() if value is not None})
    result = await request_with_progress(
        context, "sampling/createMessage", params, timeout, progress
    )
    return sampled_message(result)


def require_sampling(context: RequestContext, with_tools: bool) -> None:
    """The client must have declared ``sampling``, and ``sampling.tools`` to get tools."""
    options = require_capability(context, "sampling", "sampling/createMessage")
    if with_tools and not isinstance(options.get("tools"), dict):
        raise CapabilityMissing(
            "The client did not declare 'sampling.tools', so this server cannot "
            "send it a sampling request with tools"
        )


def sampled_message(result: Any) -> dict[str, Any]:
    """The client's answer, once it is known to be a message: else :class:`ToolError`."""
    if not (
        isinstance(result, dict)
        and result.get("role") in ("user", "assistant")
        and isinstance(result.get("content"), (dict, list))
    ):
        raise ToolError(
            f"The client's answer to sampling/createMessage is not a message: {result!r}"
        )
    return result


def text_of(result: dict[str, Any]) -> str:
    """The text of a sampled message: its text blocks joined (the content: one block or a list)."""
    content = result.get("content")
    blocks = content if isinstance(content, list) else [content]
    texts = [
        block.get("text")
        for block in blocks
        if isinstance(block, dict) and block.get("type") == "text"
    ]
    return "".join(text for text in texts if isinstance(text, str))


# --8<-- [end:create_message]
