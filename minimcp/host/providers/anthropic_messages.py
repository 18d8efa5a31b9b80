"""Claude behind the host: lesson 04's :class:`~minimcp.host.chat.Model` over the Messages API.

Every turn of the host's tool loop is one ``POST /v1/messages`` (Anthropic's docs: "Messages",
and "Tool use"), sent through the official ``anthropic`` package. The request carries the whole
conversation, translated:

=========================================  ==================================================
the host (lesson 04)                       the Messages API
=========================================  ==================================================
the system prompt                          ``"system"``, beside the messages, not among them
a tool: name, description, inputSchema     ``{"name", "description", "input_schema"}``
the model's tool calls (one reply)         one ``assistant`` message of ``tool_use`` blocks,
                                           each with its ``id``
their results                              one ``user`` message of ``tool_result`` blocks,
                                           each naming its ``tool_use_id``, ``is_error`` if
                                           the tool failed
an MCP image block                         ``{"type": "image", "source": {"type": "base64",
                                           "media_type", "data"}}``
=========================================  ==================================================

The reply is a list of blocks: ``text``, or ``tool_use`` (possibly several: Claude may ask for
tools in parallel, and the host runs them all). ``stop_reason`` says why it stopped.
"""

from __future__ import annotations

from typing import Any

import anthropic  # the official client: imported only when this provider is chosen
from anthropic.types import Message, TextBlock, ToolUseBlock

from minimcp.host.chat import ChatMessage, ToolCall, block_text
from minimcp.host.providers.common import (
    ToolNames,
    is_image,
    read_key,
    sampling_conversation,
    sampling_result,
    system_text,
    turns,
    with_ids,
)
from minimcp.host.providers.failures import Provider, Refused, patiently, said

#: Why Claude stopped, in MCP's words (a sampling result's ``stopReason``); others pass unchanged.
STOP_REASONS = {
    "end_turn": "endTurn",
    "max_tokens": "maxTokens",
    "stop_sequence": "stopSequence",
    "tool_use": "toolUse",
}


class AnthropicModel:
    """A Claude model, by name: ``AnthropicModel("claude-sonnet-4-5")``.

    The key comes from ``ANTHROPIC_API_KEY`` (or ``api_key``). ``base_url`` points at another
    server that speaks the same API, which may need no key. ``max_tokens`` bounds each answer
    (the API requires a bound); ``retries`` and ``timeout`` bound how long a failing provider is
    waited for (:mod:`~minimcp.host.providers.failures`).
    """

    KEY_VARIABLE = "ANTHROPIC_API_KEY"
    #: The API takes the tools as definitions of their own (``tools``): the host leaves them out
    #: of the system prompt, where they would cost tokens again, under names the model never calls.
    tools_in_request = True

    def __init__(
        self,
        name: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        max_tokens: int = 4096,
        retries: int = 2,
        timeout: float = 120.0,
    ) -> None:
        key = api_key or read_key(self.KEY_VARIABLE, base_url)
        # max_retries=0: failures.patiently retries, with a bound on retry-after
        self.client = anthropic.AsyncAnthropic(
            api_key=key, base_url=base_url, max_retries=0, timeout=timeout
        )
        self.name = name
        self.max_tokens = max_tokens
        self.retries = retries
        self.timeout = timeout
        url = str(self.client.base_url)
        self.provider = Provider("Anthropic", self.KEY_VARIABLE, name, url, key)

    async def aclose(self) -> None:
        """Close the connections the client keeps open to the provider (the chat does, as it
        leaves). Left open, the client closes them when it is collected, on whatever event loop
        runs then, which may not be the one they belong to."""
        await self.client.close()

    # --8<-- [start:respond]
    async def respond(
        self, messages: list[ChatMessage], tools: list[dict[str, Any]]
    ) -> str | list[ToolCall]:
        """One turn of the host's loop: the conversation and the tools out, text or calls back."""
        names = ToolNames(tools)
        body = self.body(messages, names, self.max_tokens)
        if tools:
            body["tools"] = [tool_definition(tool, names) for tool in tools]
        reply = await self.send(body)
        calls = [
            ToolCall(names.host_name(block.name), dict(block.input), id=block.id)
            for block in reply.content
            if isinstance(block, ToolUseBlock)
        ]
        return calls or text_of(reply) or f"(no answer: the model stopped, {reply.stop_reason})"

    # --8<-- [end:respond]

    # --8<-- [start:create_message]
    async def create_message(self, request: dict[str, Any]) -> dict[str, Any]:
        """A server's ``sampling/createMessage`` (lesson 09), once the person approved it: its
        system prompt, messages, ``maxTokens`` and ``stopSequences`` go to the API as they are."""
        body = self.body(sampling_conversation(request), ToolNames([]), request["maxTokens"])
        # (A temperature the server prefers is not passed: this API version takes none.)
        if request.get("stopSequences"):
            body["stop_sequences"] = request["stopSequences"]
        reply = await self.send(body)
        stop = reply.stop_reason
        return sampling_result(text_of(reply), reply.model, STOP_REASONS.get(stop or "", stop))

    # --8<-- [end:create_message]

    def body(
        self, messages: list[ChatMessage], names: ToolNames, max_tokens: int
    ) -> dict[str, Any]:
        """The JSON body of ``POST /v1/messages`` for ``messages`` (the system prompt apart)."""
        body: dict[str, Any] = {
            "model": self.name,
            "max_tokens": max_tokens,
            "messages": api_messages(messages, names),
        }
        system = system_text(messages)
        if system:
            body["system"] = system
        return body

    async def send(self, body: dict[str, Any]) -> Message:
        """``POST /v1/messages``, asked again as :func:`patiently` says; a failure, one line."""

        async def once() -> Message:
            try:
                return await self.client.messages.create(**body)
            except anthropic.APIStatusError as error:
                retry_after = error.response.headers.get("retry-after")
                raise Refused(error.status_code, said(error.body), retry_after) from None
            except anthropic.APITimeoutError:
                raise self.provider.silent(self.timeout) from None
            except anthropic.APIConnectionError:
                raise self.provider.unreachable() from None

        return await patiently(once, self.retries, self.provider)


# --8<-- [start:translate]
#: Who speaks each run of the conversation: the model calls tools, the user hands back results.
ROLES = {"calls": "assistant", "results": "user"}


def tool_definition(tool: dict[str, Any], names: ToolNames) -> dict[str, Any]:
    """An MCP tool as the API declares one: the input schema passes through unchanged."""
    return {
        "name": names.api_name(tool["name"]),
        "description": tool.get("description") or tool.get("title") or "",
        "input_schema": tool.get("inputSchema", {"type": "object"}),
    }


def api_messages(messages: list[ChatMessage], names: ToolNames) -> list[dict[str, Any]]:
    """The conversation as the API's ``messages``: the calls of one reply in one ``assistant``
    message, their results in the next ``user`` one, and two messages of one role in a row made
    one (the API wants the roles to alternate)."""
    out: list[dict[str, Any]] = []
    for kind, run in turns(with_ids(messages)):
        if kind == "system":
            continue
        role = ROLES.get(kind, kind)
        if kind == "calls":
            blocks = [tool_use(m, names) for m in run]
        elif kind == "results":
            blocks = [tool_result(m) for m in run]
        else:
            blocks = [block for m in run for block in content(m)]
        if out and out[-1]["role"] == role:
            out[-1]["content"] += blocks
        elif blocks:
            out.append({"role": role, "content": blocks})
    return out


def tool_use(message: ChatMessage, names: ToolNames) -> dict[str, Any]:
    """The model's call, as the API wrote it: its id, the tool's name for the API, the input."""
    assert message.tool_call is not None
    call = message.tool_call
    name = names.api_name(call.name)
    return {"type": "tool_use", "id": call.id, "name": name, "input": call.arguments}


def tool_result(message: ChatMessage) -> dict[str, Any]:
    """A tool's result: which call it answers, its content (images too), whether it failed."""
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.call_id}
    blocks = content(message)
    if blocks:
        result["content"] = blocks
    if message.is_error:
        result["is_error"] = True
    return result


def content(message: ChatMessage) -> list[dict[str, Any]]:
    """A message's content as the API's blocks: images as images, everything else as text."""
    if not message.blocks:
        return [{"type": "text", "text": message.content}] if message.content else []
    out = []
    for block in message.blocks:
        if is_image(block):
            source = {"type": "base64", "media_type": block["mimeType"], "data": block["data"]}
            out.append({"type": "image", "source": source})
        elif text := block_text(block):  # the API refuses an empty text block
            out.append({"type": "text", "text": text})
    return out


# --8<-- [end:translate]


def text_of(reply: Message) -> str:
    """The words of a reply: its text blocks, joined."""
    return "".join(block.text for block in reply.content if isinstance(block, TextBlock))
