"""GPT, and every server that copies its API, behind the host: Chat Completions.

Every turn of the host's tool loop is one ``POST /v1/chat/completions`` (OpenAI's docs: "Chat
Completions", and "Function calling"), sent through the official ``openai`` package. The same API
is spoken by local servers: Ollama (``--base-url http://localhost:11434/v1``), llama.cpp's server,
vLLM, LM Studio. The request carries the whole conversation, translated:

=========================================  ==================================================
the host (lesson 04)                       Chat Completions
=========================================  ==================================================
the system prompt                          the first message, role ``system``
a tool: name, description, inputSchema     ``{"type": "function", "function": {"name",
                                           "description", "parameters"}}``
the model's tool calls (one reply)         one ``assistant`` message with ``tool_calls``,
                                           each with its ``id``; the arguments as JSON *text*
their results                              one ``tool`` message each, naming its
                                           ``tool_call_id``; a failure says so in its text
an MCP image block                         a tool message holds text only: the images follow
                                           in a ``user`` message, as ``image_url`` data URLs
=========================================  ==================================================

The reply's ``choices[0].message`` holds ``content`` (text) or ``tool_calls`` (possibly several:
the host runs them all); ``finish_reason`` says why it stopped.
"""

from __future__ import annotations

import json
from typing import Any

import openai  # the official client: imported only when this provider is chosen
from openai.types.chat import ChatCompletion, ChatCompletionMessageFunctionToolCall

from minimcp.host.chat import ChatMessage, ToolCall, block_text
from minimcp.host.providers.common import (
    ToolNames,
    is_image,
    read_key,
    sampling_conversation,
    sampling_result,
    turns,
    with_ids,
)
from minimcp.host.providers.failures import Provider, Refused, patiently, said

#: Why the model stopped, in MCP's words (a sampling result's ``stopReason``); others, unchanged.
STOP_REASONS = {"stop": "endTurn", "length": "maxTokens", "tool_calls": "toolUse"}


class OpenAIModel:
    """A model by name: ``OpenAIModel("gpt-4.1-mini")``, or a local one with ``base_url``.

    The key comes from ``OPENAI_API_KEY`` (or ``api_key``); a local server given by ``base_url``
    may need none. ``max_tokens`` bounds each answer if given; ``retries`` and ``timeout`` bound
    how long a failing provider is waited for (:mod:`~minimcp.host.providers.failures`).
    """

    KEY_VARIABLE = "OPENAI_API_KEY"
    #: The API takes the tools as definitions of their own (``tools``): the host leaves them out
    #: of the system prompt, where they would cost tokens again, under names the model never calls.
    tools_in_request = True

    def __init__(
        self,
        name: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        max_tokens: int | None = None,
        retries: int = 2,
        timeout: float = 120.0,
    ) -> None:
        key = api_key or read_key(self.KEY_VARIABLE, base_url)
        # max_retries=0: failures.patiently retries, with a bound on retry-after
        self.client = openai.AsyncOpenAI(
            api_key=key, base_url=base_url, max_retries=0, timeout=timeout
        )
        self.name = name
        self.max_tokens = max_tokens
        self.retries = retries
        self.timeout = timeout
        # OpenAI counts an answer's bound in max_completion_tokens; the servers that copy its API
        # know the older max_tokens
        self.tokens_field = "max_tokens" if base_url else "max_completion_tokens"
        url = str(self.client.base_url)
        self.provider = Provider(
            "the provider" if base_url else "OpenAI", self.KEY_VARIABLE, name, url, key
        )

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
        choice = reply.choices[0]
        calls = [
            ToolCall(
                names.host_name(call.function.name), arguments(call.function.arguments), id=call.id
            )
            for call in choice.message.tool_calls or []
            if isinstance(call, ChatCompletionMessageFunctionToolCall)
        ]
        return calls or choice.message.content or f"(no answer: {choice.finish_reason})"

    # --8<-- [end:respond]

    # --8<-- [start:create_message]
    async def create_message(self, request: dict[str, Any]) -> dict[str, Any]:
        """A server's ``sampling/createMessage`` (lesson 09), once the person approved it: its
        system prompt, messages and ``maxTokens`` go to the API as they are."""
        body = self.body(sampling_conversation(request), ToolNames([]), request["maxTokens"])
        if "temperature" in request:
            body["temperature"] = request["temperature"]
        if request.get("stopSequences"):
            body["stop"] = request["stopSequences"]
        reply = await self.send(body)
        choice = reply.choices[0]
        stop = STOP_REASONS.get(choice.finish_reason, choice.finish_reason)
        return sampling_result(choice.message.content or "", reply.model, stop)

    # --8<-- [end:create_message]

    def body(
        self, messages: list[ChatMessage], names: ToolNames, max_tokens: int | None
    ) -> dict[str, Any]:
        """The JSON body of ``POST /v1/chat/completions`` for ``messages``."""
        body: dict[str, Any] = {"model": self.name, "messages": api_messages(messages, names)}
        if max_tokens is not None:
            body[self.tokens_field] = max_tokens
        return body

    async def send(self, body: dict[str, Any]) -> ChatCompletion:
        """``POST /v1/chat/completions``, asked again as :func:`patiently` says; a failure, one
        line."""

        async def once() -> ChatCompletion:
            try:
                return await self.client.chat.completions.create(**body)
            except openai.APIStatusError as error:
                retry_after = error.response.headers.get("retry-after")
                raise Refused(error.status_code, said(error.body), retry_after) from None
            except openai.APITimeoutError:
                raise self.provider.silent(self.timeout) from None
            except openai.APIConnectionError:
                raise self.provider.unreachable() from None

        return await patiently(once, self.retries, self.provider)


# --8<-- [start:translate]
def tool_definition(tool: dict[str, Any], names: ToolNames) -> dict[str, Any]:
    """An MCP tool as the API declares a function: the input schema becomes its parameters."""
    function = {
        "name": names.api_name(tool["name"]),
        "description": tool.get("description") or tool.get("title") or "",
        "parameters": tool.get("inputSchema", {"type": "object"}),
    }
    return {"type": "function", "function": function}


def api_messages(messages: list[ChatMessage], names: ToolNames) -> list[dict[str, Any]]:
    """The conversation as the API's ``messages``: the calls of one reply in one ``assistant``
    message, then a ``tool`` message per result, then the results' images, if any."""
    out: list[dict[str, Any]] = []
    for kind, run in turns(with_ids(messages)):
        if kind == "calls":
            calls = [tool_call(m, names) for m in run]
            out.append({"role": "assistant", "tool_calls": calls})
        elif kind == "results":
            out += [tool_message(m) for m in run]
            images = [image_part(b) for m in run for b in m.blocks or [] if is_image(b)]
            if images:
                words = {"type": "text", "text": "The images the tools returned:"}
                out.append({"role": "user", "content": [words, *images]})
        else:
            out += [{"role": kind, "content": content(m)} for m in run]
    return out


def tool_call(message: ChatMessage, names: ToolNames) -> dict[str, Any]:
    """The model's call, as the API wrote it: its id, the function's name, the arguments as text."""
    assert message.tool_call is not None
    call = message.tool_call
    function = {"name": names.api_name(call.name), "arguments": json.dumps(call.arguments)}
    return {"id": call.id, "type": "function", "function": function}


def tool_message(message: ChatMessage) -> dict[str, Any]:
    """A tool's result: which call it answers, and its text (the API has no error flag)."""
    text = f"Error: {message.content}" if message.is_error else message.content
    return {"role": "tool", "tool_call_id": message.call_id, "content": text}


def content(message: ChatMessage) -> str | list[dict[str, Any]]:
    """A message's content: its text, or, when it holds images (a sampling request's), parts."""
    if not message.blocks or not any(is_image(block) for block in message.blocks):
        return message.content
    return [
        image_part(block) if is_image(block) else {"type": "text", "text": block_text(block)}
        for block in message.blocks
    ]


def image_part(block: dict[str, Any]) -> dict[str, Any]:
    """An MCP image block as the API's ``image_url`` part: a ``data:`` URL."""
    return {
        "type": "image_url",
        "image_url": {"url": f"data:{block['mimeType']};base64,{block['data']}"},
    }


# --8<-- [end:translate]


def arguments(text: str) -> dict[str, Any]:
    """A call's arguments: JSON *text* in this API, an object in MCP. Text that is no JSON object
    (a small local model may write it) becomes no arguments: the server's check of its input
    schema then tells the model what is missing."""
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
