"""The conversation a host keeps, and what a model must be able to do with it (lessons 04–06).

A chat is a list of :class:`ChatMessage`: the system prompt, the user's words, the model's answers
and tool calls, the tools' results, the resources and prompts the host pasted. A :class:`Model`
reads the list and the tools on offer and answers with text or with tool calls (:class:`ToolCall`).
The helpers at the end turn MCP's content blocks (and a prompt's messages) into the plain text a
model reads, and write the system prompt.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

Role = Literal["system", "user", "assistant", "tool"]


# -- The conversation -----------------------------------------------------------------------------
# --8<-- [start:messages]
@dataclass(frozen=True)
class ToolCall:
    """What a model says when it wants a tool: which one (prefixed name) and with what arguments.

    ``id`` is the name a real model's API gives the call, so that the result can say which call it
    answers when several are asked at once (the rule model needs none).
    """

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str | None = None


@dataclass
class ChatMessage:
    """One message of the conversation, in the roles chat models know (notes §3).

    * ``system``: the rules of the game, written by the host (and the tools it may use);
    * ``user``: what the person wrote, or what the host pasted on their behalf: a resource's
      content (``resource`` says which) or a prompt's messages (``prompt`` says which);
    * ``assistant``: the model's words, or its request for a tool (``tool_call``);
    * ``tool``: a tool's result, handed back to the model (``name`` says which tool, ``is_error``
      whether it failed, ``call_id`` which call it answers). ``content`` is the result as text;
      ``blocks`` keeps its MCP content blocks, for a model that can see images.
    """

    role: Role
    content: str
    tool_call: ToolCall | None = None
    name: str | None = None
    is_error: bool = False
    resource: str | None = None
    prompt: str | None = None
    call_id: str | None = None
    blocks: list[dict[str, Any]] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The message as JSON, as a text model reads it: without the fields it does not use, and
        without the content ``blocks`` (their text is the ``content``)."""
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_call is not None:
            out["tool_call"] = {"name": self.tool_call.name, "arguments": self.tool_call.arguments}
        for key in ("name", "resource", "prompt", "call_id"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.is_error:
            out["is_error"] = True
        return out

    def __str__(self) -> str:
        if self.tool_call is not None:
            arguments = json.dumps(self.tool_call.arguments, ensure_ascii=False)
            return f"assistant → {self.tool_call.name} {arguments}"
        if self.role == "tool":
            return f"tool {self.name}{' (error)' if self.is_error else ''}: {self.content}"
        origin = f" [{self.resource or self.prompt}]" if (self.resource or self.prompt) else ""
        return f"{self.role}{origin}: {self.content}"


# --8<-- [end:messages]


# --8<-- [start:model]
class Model(Protocol):
    """Anything that reads a conversation and either answers in text or asks for tools.

    ``messages`` starts with the system prompt; ``tools`` are the tools it announces, as the
    servers listed them but with prefixed names. A real LLM client fits here: send both to the
    LLM's API and turn its reply into a ``str``, a :class:`ToolCall`, or a list of them when the
    LLM asks for several tools at once (``minimcp.host.providers`` holds two such clients).

    A model whose API takes the tools as definitions of their own says so with an attribute,
    ``tools_in_request = True`` (the provider models do): the host then leaves them out of the
    system prompt, rather than send them twice, under two names.
    """

    async def respond(
        self, messages: list[ChatMessage], tools: list[dict[str, Any]]
    ) -> str | ToolCall | list[ToolCall]: ...


# --8<-- [end:model]


# -- Turning MCP content into text a model reads --------------------------------------------------
def content_text(content: dict[str, Any] | list[dict[str, Any]]) -> str:
    """The text of one content block, or of a list of them (tool results, prompt messages)."""
    blocks = content if isinstance(content, list) else [content]
    return "\n".join(block_text(block) for block in blocks)


def block_text(block: dict[str, Any]) -> str:
    """One content block as text. Binary blocks become a placeholder: this host is text-only."""
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind == "resource":  # an embedded resource: its contents travel inside the block
        inner = block.get("resource", {})
        return (
            inner["text"]
            if "text" in inner
            else f"[{inner.get('mimeType', 'binary')} {inner.get('uri')}]"
        )
    if kind == "resource_link":
        return f"[resource {block.get('uri')}]"
    return f"[{kind} {block.get('mimeType', '')}]".replace(" ]", "]")  # image, audio, …


def tool_message(call: ToolCall, result: dict[str, Any]) -> ChatMessage:
    """The ``tool`` message that hands a ``tools/call`` result back to the model that asked."""
    return ChatMessage(
        "tool",
        tool_result_text(result),
        name=call.name,
        is_error=bool(result.get("isError")),
        call_id=call.id,
        blocks=result.get("content") or None,
    )


def tool_result_text(result: dict[str, Any]) -> str:
    """What the model sees of a ``tools/call`` result: its content, or its structured content."""
    if result.get("content"):
        return content_text(result["content"])
    if "structuredContent" in result:
        return json.dumps(result["structuredContent"], ensure_ascii=False)
    return ""


def resource_text(result: dict[str, Any]) -> str:
    """The text of a ``resources/read`` result (a blob becomes a placeholder)."""
    contents = result.get("contents", [])
    return "\n".join(block_text({"type": "resource", "resource": item}) for item in contents)


# --8<-- [start:prompt_messages]
def prompt_messages(name: str, messages: list[dict[str, Any]]) -> list[ChatMessage]:
    """The messages of prompt ``name`` (a ``prompts/get`` result's) as chat messages, each with the
    role the server gave it, and the prompt's name for the host's bookkeeping."""
    for m in messages:
        # Only the two roles a prompt may use: a server must not write the system prompt's rules
        # or fake a tool's result. Checked before anything is pasted: all the messages or none.
        if m.get("role") not in ("user", "assistant"):
            raise ValueError(
                f"prompt {name}: role {m.get('role')!r} is neither 'user' nor 'assistant'"
            )
    return [ChatMessage(m["role"], content_text(m["content"]), prompt=name) for m in messages]


# --8<-- [end:prompt_messages]


# -- The system prompt ----------------------------------------------------------------------------
# --8<-- [start:system_prompt]
def build_system_prompt(
    tools: list[dict[str, Any]], instructions: dict[str, str] | None = None, *, listed: bool = True
) -> str:
    """The system prompt: who the model is, and every tool it may use (name, description, schema).

    Resources are *not* announced here (notes §6.2.4): the model cannot ask for them; the host
    pastes them when it decides to. Each server's ``instructions`` from the handshake are added
    at the end, as the spec suggests (basic/lifecycle, initialization). ``listed=False`` leaves
    the tools out, for a model whose API takes them as definitions of their own.
    """
    lines = [
        "You are a helpful assistant inside an MCP host.",
        "To use a tool, reply with a tool call: the tool's name and its arguments as a JSON object",
        "that follows the tool's input schema. When you know the answer, reply in plain text.",
    ]
    if listed:
        lines += ["", "# Tools"]
        if not tools:
            lines.append("(none)")
        for tool in tools:
            title = f" ({tool['title']})" if tool.get("title") else ""
            lines += [
                "",
                f"## {tool['name']}{title}",
                tool.get("description") or "(no description)",
                f"Input schema: {json.dumps(tool.get('inputSchema', {}), ensure_ascii=False)}",
            ]
    for server, text in (instructions or {}).items():
        lines += ["", f"# Instructions from the server {server!r}", text]
    return "\n".join(lines)


# --8<-- [end:system_prompt]
