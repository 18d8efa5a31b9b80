"""Sampling with tools: the rule that keeps a tool loop's messages balanced (lesson 09).

A server that offers the client's model tools (``sampling/createMessage`` with ``tools``) runs the
loop of lesson 04 itself: the model answers with ``tool_use`` blocks, the server runs the tools, and
samples again with the conversation so far plus the results. The spec keeps that conversation well
formed (spec 2025-11-25, client/sampling, "Message Content Constraints"):

* every assistant message with ``tool_use`` blocks is followed, before anything else, by a user
  message with one ``tool_result`` per tool use (matching ``toolUseId`` to ``id``);
* a message with tool results holds nothing else.

Both sides check it: the server before it sends (a broken loop is its bug), the client when it
receives (``-32602``, "Tool result missing in request" or "Tool results mixed with other content").
"""

from __future__ import annotations

from typing import Any


def blocks_of(message: Any) -> list[Any]:
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else [content]


# --8<-- [start:balance]
def tool_message_problem(messages: list[Any]) -> str | None:
    """Why ``messages`` break the tool-use rules, in the spec's words; None if they keep them."""
    waiting: set[Any] = set()  # the tool uses of the last assistant message, still to be answered
    for number, message in enumerate(messages, start=1):
        blocks = blocks_of(message)
        kinds = [block.get("type") if isinstance(block, dict) else None for block in blocks]
        results = {
            block.get("toolUseId")
            for block, kind in zip(blocks, kinds, strict=True)
            if kind == "tool_result"
        }
        if "tool_result" in kinds and any(kind != "tool_result" for kind in kinds):
            return f"Tool results mixed with other content (message {number})"
        if waiting and (message.get("role") != "user" or results != waiting):
            return (
                f"Tool result missing in request (message {number}: "
                f"expected results for {sorted(waiting)})"
            )
        if results and not waiting:
            return f"Tool result with no tool use before it (message {number})"
        waiting = {
            block.get("id") for block, kind in zip(blocks, kinds, strict=True) if kind == "tool_use"
        }
    if waiting:
        return f"Tool result missing in request (the last message uses {sorted(waiting)})"
    return None


# --8<-- [end:balance]
