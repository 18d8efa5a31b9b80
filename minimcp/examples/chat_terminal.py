"""The person at the terminal of ``python -m minimcp chat``: what they see, and what they are asked.

The model's answers go to stdout; everything on the way goes to stderr as it happens: each tool
call and its result, a long tool's progress, and the two questions the chat may ask the person.

* **May this tool run?** (:class:`ToolApproval`) The spec wants "a human in the loop with the
  ability to deny tool invocations" (2025-11-25, server/tools, "User Interaction Model"). A tool
  whose server marks it ``"annotations": {"readOnlyHint": true}`` says it changes nothing, and runs
  at once; any other tool may change something (book a meeting, write a file, send a mail), so
  the person sees it, with its arguments, and answers ``[y/N]``. A "no" goes back to the model as
  a failed call, lesson 04's "The user declined this tool call.", and the model carries on.
* **May the server use the model?** (:class:`SamplingApproval`) Lesson 09's sampling: a server's
  request for the model is shown, and goes to the model only after a yes.

With ``--prompt`` nobody is there to answer, so both are refused; ``--yes`` lets every tool run
without asking (a server's sampling requests still need a person).
"""

from __future__ import annotations

import json
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from minimcp.examples.keyboard import read_line
from minimcp.host.chat import ChatMessage, ToolCall


# -- what the person sees ----------------------------------------------------------------------
def note(text: str) -> None:
    """What happens on the way, on stderr (stdout holds the answers alone)."""
    print(text, file=sys.stderr, flush=True)


def shortened(text: str, lines: int = 6, width: int = 400) -> str:
    """A tool's result, cut to a few lines for the screen (the model gets all of it)."""
    kept = "\n    ".join(text.splitlines()[:lines])
    cut = len(kept) > width or len(text.splitlines()) > lines
    return kept[:width] + (" …" if cut else "")


def show(message: ChatMessage) -> None:
    """Each tool call, and each result, as the host adds it to the conversation."""
    if message.tool_call is not None:
        arguments = json.dumps(message.tool_call.arguments, ensure_ascii=False)
        note(f"  → {message.tool_call.name} {arguments}")
    elif message.role == "tool":
        failed = " (error)" if message.is_error else ""
        note(f"  ← {message.name}{failed}: {shortened(message.content)}")


def show_progress(tool: str, done: float, total: float | None, message: str | None) -> None:
    of = f"/{total:g}" if total else ""
    note(f"  … {tool}: {done:g}{of} {message or ''}".rstrip())


# -- what the person is asked ------------------------------------------------------------------
def ask_person(question: str) -> str:
    """A line typed by the person (none at the end of input), asked while a tool runs.

    The question goes to stderr with the rest of what happens on the way. While the event loop
    runs, Ctrl+C goes to :class:`asyncio.Runner`'s handler, which cancels the chat's task but
    cannot stop a read that blocks: so Python's own handler reads the line, and a Ctrl+C is handed
    on to the runner's, which then ends the chat as it would have a moment later.
    """
    runners = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return read_line(question)
    except EOFError:
        return ""
    except KeyboardInterrupt:
        if not callable(runners):  # no runner: nobody else to tell
            raise
        runners(signal.SIGINT, None)
        return ""
    finally:
        signal.signal(signal.SIGINT, runners)


def said_yes(question: str) -> bool:
    """The person's answer to a ``[y/N]`` question: anything but y or yes is a no."""
    return ask_person(question).strip().lower() in ("y", "yes")


# --8<-- [start:tool_approval]
def only_reads(tool: dict[str, Any]) -> bool:
    """Whether the tool's server says it changes nothing: ``readOnlyHint`` true, and nothing less
    (the hint is false when absent). It is the server's word: the person chose the server."""
    return tool.get("annotations", {}).get("readOnlyHint") is True


class ToolApproval:
    """The host's ``confirm``: may the model's call run? A tool that only reads runs at once;
    any other asks the person, or, with nobody there, is refused unless ``allow_all``."""

    def __init__(
        self,
        tools: Callable[[], Awaitable[list[dict[str, Any]]]],
        *,
        someone_there: bool,
        allow_all: bool = False,
    ) -> None:
        self.tools = tools  # the host's discover_tools: the tools on offer, with their annotations
        self.someone_there = someone_there
        self.allow_all = allow_all

    async def __call__(self, call: ToolCall) -> bool:
        offered = {tool["name"]: tool for tool in await self.tools()}
        if self.allow_all or only_reads(offered.get(call.name, {})):
            return True
        arguments = json.dumps(call.arguments, ensure_ascii=False)
        note(f"  ? {call.name} {arguments} is not marked read-only: it may change things")
        if not self.someone_there:
            note("    refused: nobody to approve it (--yes lets every tool run)")
            return False
        return said_yes("    run it? [y/N] ")


# --8<-- [end:tool_approval]


class SamplingApproval:
    """Lesson 09's person in the loop: may the server's request go to the model?"""

    def __init__(self, someone_there: bool) -> None:
        self.someone_there = someone_there

    def __call__(self, server: str, request: dict[str, Any]) -> bool:
        asked = request["messages"][-1].get("content", {})
        text = asked.get("text", "") if isinstance(asked, dict) else ""
        note(f"  ? {server} asks the model (sampling): {shortened(text, lines=2, width=200)}")
        if not self.someone_there:
            note("    refused: nobody to approve it (without --prompt, you are asked)")
            return False
        return said_yes("    let the model answer? [y/N] ")
