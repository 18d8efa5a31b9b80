"""What the two provider models share: tool names, the conversation in turns, the key, sampling.

A provider model (:mod:`~minimcp.host.providers.anthropic_messages`,
:mod:`~minimcp.host.providers.openai_chat`) translates. Going out, it turns the host's tools and
conversation (lesson 04's :class:`~minimcp.host.chat.ChatMessage` list) into the body of one HTTP
request to the model's API; coming back, the API's reply into text or tool calls
(:class:`~minimcp.host.chat.ToolCall`). Some of that work is the same for every API, and lives
here:

* **tool names**: lesson 04 prefixes each tool with its server (``course/read_events``), but the
  APIs accept only letters, digits, ``_`` and ``-``, at most 64 of them. :class:`ToolNames` gives
  each tool a name they accept (``course__read_events``) and finds the tool again from it;
* **turns**: the host keeps one message per tool call and one per result; the APIs want the calls
  of one reply together, each with an id, and their results together, each naming the id of the
  call it answers. :func:`with_ids` and :func:`turns` prepare that;
* **the key**: read from the provider's usual environment variable (:func:`read_key`), and only
  ever sent to the provider;
* **sampling** (lesson 09): a server's ``sampling/createMessage`` request is a small conversation
  of its own (:func:`sampling_conversation`), and its answer has one shape whatever the API
  (:func:`sampling_result`).

How a failure of the API becomes one line for a person is :mod:`.failures`' job.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from dataclasses import replace
from itertools import groupby
from typing import Any, Literal

from minimcp.host.chat import ChatMessage, content_text
from minimcp.host.providers.failures import ProviderError

#: The images both APIs read, by MIME type; any other binary block reaches the model as text.
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})

#: What both APIs accept as a tool's name.
ACCEPTED_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


# --8<-- [start:names]
class ToolNames:
    """The host's tool names and the names an API accepts, both ways.

    ``course/read_events`` becomes ``course__read_events``: ``/`` becomes ``__`` and any other
    character the API refuses becomes ``_``. A name still too long, or one that two tools would
    share, ends in a short hash of the original instead. The table is rebuilt from the tools on
    offer at every request, so the same tools always get the same names, and a name the model
    made up is passed on unchanged (the host answers it "Unknown tool").
    """

    def __init__(self, tools: list[dict[str, Any]]) -> None:
        plain = {tool["name"]: accepted(tool["name"]) for tool in tools}
        shared = Counter(plain.values())
        self.to_api = {
            name: candidate if shared[candidate] == 1 else hashed(name)
            for name, candidate in plain.items()
        }
        self.from_api = {api_name: name for name, api_name in self.to_api.items()}

    def api_name(self, name: str) -> str:
        """The name the API knows a tool by (a tool no longer on offer is translated alone)."""
        return self.to_api.get(name) or accepted(name)

    def host_name(self, api_name: str) -> str:
        """The host's name for the tool the API calls ``api_name``."""
        return self.from_api.get(api_name, api_name)


def accepted(name: str) -> str:
    """``name`` as the APIs accept it: ``/`` spelled ``__``, other refused characters ``_``."""
    candidate = re.sub(r"[^A-Za-z0-9_-]", "_", name.replace("/", "__"))
    return candidate if ACCEPTED_NAME.fullmatch(candidate) else hashed(name)


def hashed(name: str) -> str:
    """A name of at most 64 accepted characters that only ``name`` gets: a prefix, and a hash."""
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    prefix = re.sub(r"[^A-Za-z0-9_-]", "_", name.replace("/", "__"))[:55]
    return f"{prefix}_{digest}"


# --8<-- [end:names]


# --8<-- [start:turns]
Kind = Literal["system", "user", "assistant", "calls", "results"]


def kind(message: ChatMessage) -> Kind:
    """What a message is to an API: words (by role), tool calls, or tool results."""
    if message.tool_call is not None:
        return "calls"
    if message.role == "tool":
        return "results"
    return message.role


def turns(messages: list[ChatMessage]) -> list[tuple[Kind, list[ChatMessage]]]:
    """The conversation as runs of messages of one kind: the host adds the calls of one reply one
    after another, then their results, so each run is one message in the API's terms."""
    return [(key, list(run)) for key, run in groupby(messages, key=kind)]


def with_ids(messages: list[ChatMessage]) -> list[ChatMessage]:
    """The conversation with an id on every tool call and on every result.

    A real model names its calls, and the host copies the name onto each result. A conversation
    that began with another model (the rule model names none) gets ``call_N`` ids, N the call's
    place in the conversation, and each result without an id answers the oldest call unanswered.
    """
    out: list[ChatMessage] = []
    waiting: list[str] = []  # the calls not answered yet, oldest first
    for place, message in enumerate(messages):
        if message.tool_call is not None:
            call = message.tool_call
            if call.id is None:
                call = replace(call, id=f"call_{place}")
            waiting.append(str(call.id))
            message = replace(message, tool_call=call)
        elif message.role == "tool":
            call_id = message.call_id or (waiting[0] if waiting else f"call_{place}")
            if call_id in waiting:
                waiting.remove(call_id)
            message = replace(message, call_id=call_id)
        out.append(message)
    return out


# --8<-- [end:turns]


def is_image(block: dict[str, Any]) -> bool:
    """Whether an MCP content block is an image both APIs can read."""
    return block.get("type") == "image" and block.get("mimeType") in IMAGE_TYPES


def system_text(messages: list[ChatMessage]) -> str:
    """The system prompt: the text of the conversation's ``system`` messages."""
    return "\n\n".join(m.content for m in messages if m.role == "system")


# --8<-- [start:key]
def read_key(variable: str, base_url: str | None) -> str:
    """The API key from ``variable`` (``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``).

    A local server given with ``base_url`` (Ollama, llama.cpp's server, vLLM, LM Studio) usually
    asks for none: the official clients still want a string, so it gets a placeholder. The key is
    never printed, logged, or put in an error message: it goes to the provider, in a header.
    """
    key = os.environ.get(variable, "").strip()
    if key:
        return key
    if base_url is not None:
        return "none"
    raise ProviderError(
        f"no key: set {variable} to your API key (or give --base-url for a local server)"
    )


# --8<-- [end:key]


# --8<-- [start:sampling]
def sampling_conversation(request: dict[str, Any]) -> list[ChatMessage]:
    """A ``sampling/createMessage`` request (lesson 09) as a conversation: its ``systemPrompt``,
    then its messages, each keeping its content blocks (a server may send an image)."""
    messages = (
        [ChatMessage("system", request["systemPrompt"])] if request.get("systemPrompt") else []
    )
    for message in request["messages"]:
        content = message.get("content", [])
        blocks = content if isinstance(content, list) else [content]
        messages.append(ChatMessage(message["role"], content_text(blocks), blocks=blocks))
    return messages


def sampling_result(text: str, model: str, stop_reason: str | None) -> dict[str, Any]:
    """The answer to ``sampling/createMessage``: the text, the name the API gave its model, and why
    it stopped (MCP's ``endTurn``, ``maxTokens``, ``stopSequence``, or the API's own word)."""
    result: dict[str, Any] = {
        "role": "assistant",
        "content": {"type": "text", "text": text},
        "model": model,
    }
    if stop_reason is not None:
        result["stopReason"] = stop_reason
    return result


# --8<-- [end:sampling]
