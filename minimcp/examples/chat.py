"""``python -m minimcp chat``: the course's host, a real model and MCP servers, at a terminal.

    python -m minimcp chat --model anthropic:claude-sonnet-4-5   # its key in ANTHROPIC_API_KEY
    python -m minimcp chat --model openai:gpt-4.1-mini           # its key in OPENAI_API_KEY
    python -m minimcp chat --model openai:qwen3 --base-url http://localhost:11434/v1   # Ollama
    python -m minimcp chat --model rule                          # lesson 04's rules: no LLM at all
    python -m minimcp chat --model rule --prompt "What do I have on my calendar today?"
    python -m minimcp chat --model rule --server "python -m minimcp serve --example assistant" \\
        --server course=http://127.0.0.1:8000/mcp

Lesson 04's :class:`~minimcp.host.host.Host` runs the tool loop, with one of
:mod:`minimcp.host.providers`' models. Each ``--server`` is a command, started as a child process
and spoken to over stdio (lesson 02), or the URL of a Streamable HTTP endpoint (lesson 08), or of a
WebSocket (lesson 07). ``NAME=`` in front names it (its tools are ``NAME/tool``); without, the
servers are ``server1``, ``server2``… With no ``--server``, the course server is started:
``course``, ``python -m minimcp serve``. A server's sampling requests (lesson 09) go to the same
model, once the person says yes.

The model's answers go to stdout; what happens on the way (each tool call and its result, a
server's request) goes to stderr as it happens. A failure a person can meet (no key, a key
refused, a rate limit, a provider down, a model without tools, a server that does not start) ends
the chat with one line on stderr and exit code 1. Ctrl+C or Ctrl+D leave without a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import shlex
import signal
import sys
from collections import deque
from dataclasses import dataclass
from typing import Any

from minimcp.client import http_client, stdio_client, websocket_client
from minimcp.host.chat import ChatMessage
from minimcp.host.host import Host
from minimcp.host.providers.choosing import choose_model
from minimcp.host.providers.failures import ProviderError
from minimcp.host.questions import HostQuestions
from minimcp.transports.process import python_command

#: How long a server may take to start and finish its handshake, in seconds.
START_TIMEOUT = 60.0

#: A server's name given in front of its command or URL: ``course=python -m minimcp serve``.
NAMED = re.compile(r"(?P<name>[A-Za-z0-9_-]+)=(?P<target>.+)", re.DOTALL)


def add_chat_options(chat: argparse.ArgumentParser) -> None:
    """``chat``'s options: which model, which servers, and one question or a conversation."""
    chat.add_argument(
        "--model",
        required=True,
        metavar="PROVIDER:NAME",
        help="anthropic:NAME (key in ANTHROPIC_API_KEY), openai:NAME (key in OPENAI_API_KEY), or "
        "rule: lesson 04's offline rules",
    )
    chat.add_argument(
        "--base-url",
        metavar="URL",
        help="another server that speaks the provider's API, e.g. Ollama's "
        "http://localhost:11434/v1 with openai:NAME (a key is then optional)",
    )
    chat.add_argument(
        "--server",
        action="append",
        default=[],
        metavar="[NAME=]COMMAND|URL",
        help="an MCP server: a command (stdio) or an http(s):// or ws:// URL; repeatable "
        "(default: course=python -m minimcp serve)",
    )
    chat.add_argument("--prompt", metavar="TEXT", help="ask this, print the answer, and exit")
    chat.add_argument(
        "--max-turns",
        type=int,
        default=10,
        help="model requests per question (default %(default)s)",
    )
    chat.add_argument(
        "--max-retries",
        type=int,
        default=2,
        metavar="N",
        help="times a request is sent again after 429 or 5xx (default %(default)s)",
    )
    chat.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="how long one request to the model may take (default %(default)s)",
    )


# -- the servers ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class ServerSpec:
    """One ``--server``: the name its tools are prefixed with, and its command line or URL."""

    name: str
    target: str


class ServerDidNotStart(Exception):
    """A server that could not be started or reached, or did not finish its handshake."""


def parse_servers(values: list[str]) -> list[ServerSpec]:
    """The ``--server`` values, named; none at all means the course server."""
    if not values:
        return [ServerSpec("course", shlex.join(python_command("-m", "minimcp", "serve")))]
    servers = []
    for place, value in enumerate(values, start=1):
        named = NAMED.fullmatch(value)
        if named:
            servers.append(ServerSpec(named["name"], named["target"]))
        else:
            servers.append(ServerSpec(f"server{place}", value))
    return servers


async def connect(host: Host, server: ServerSpec) -> None:
    """Start or reach ``server`` and run its handshake; one line if it does not work."""
    said: deque[str] = deque(maxlen=1)  # a child's last line on stderr: often why it stopped
    try:
        async with asyncio.timeout(START_TIMEOUT):
            if server.target.startswith(("http://", "https://")):
                await host.connect_with(server.name, http_client, server.target)
            elif server.target.startswith(("ws://", "wss://")):
                await host.connect_with(server.name, websocket_client, server.target)
            else:
                command = shlex.split(server.target)
                await host.connect_with(server.name, stdio_client, command, on_stderr=said.append)
    except Exception as error:  # whatever it was, the server is not there to talk to
        why = said[-1] if said else str(error) or type(error).__name__
        if isinstance(error, TimeoutError):
            why = f"no handshake within {START_TIMEOUT:g} s"
        raise ServerDidNotStart(f"the server {server.name!r} did not start: {why}") from None


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


def ask_person(question: str) -> str:
    """A line typed by the person (none at the end of input), asked while a tool runs.

    The question goes to stderr with the rest of what happens on the way. While the event loop
    runs, Ctrl+C goes to :class:`asyncio.Runner`'s handler, which cancels the chat's task but
    cannot stop a read that blocks: so Python's own handler reads the line, and a Ctrl+C is handed
    on to the runner's, which then ends the chat as it would have a moment later.
    """
    print(question, end="", file=sys.stderr, flush=True)
    runners = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return sys.stdin.readline()
    except KeyboardInterrupt:
        if not callable(runners):  # no runner: nobody else to tell
            raise
        runners(signal.SIGINT, None)
        return ""
    finally:
        signal.signal(signal.SIGINT, runners)


class Approval:
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
        return ask_person("    let the model answer? [y/N] ").strip().lower() in ("y", "yes")


# -- the chat -------------------------------------------------------------------------------------
def run_chat(args: argparse.Namespace) -> int:
    """``python -m minimcp chat``: 0 when the person leaves, 1 after a one-line failure."""
    try:
        model = choose_model(
            args.model, base_url=args.base_url, retries=args.max_retries, timeout=args.timeout
        )
    except ProviderError as error:
        return failed(error)
    someone_there = args.prompt is None
    host = Host(
        model,
        max_turns=args.max_turns,
        on_message=show,
        on_progress=show_progress,
        questions=HostQuestions(model, approve=Approval(someone_there)),
    )
    with asyncio.Runner() as runner:
        try:
            for server in parse_servers(args.server):
                runner.run(connect(host, server))
            if someone_there:
                converse(runner, host)
            else:
                print(runner.run(host.ask(args.prompt)), flush=True)
        except (ProviderError, ServerDidNotStart) as error:
            return failed(error)
        except (KeyboardInterrupt, EOFError):  # Ctrl+C, Ctrl+D: the person leaves
            note("")
        finally:
            stop(runner, host)
    return 0


def converse(runner: asyncio.Runner, host: Host) -> None:
    """Question, answer, question… until Ctrl+D (EOFError) or Ctrl+C (KeyboardInterrupt).

    The event loop runs only while the host answers (``runner.run``): between questions, Python
    reads the line itself, so Ctrl+C and Ctrl+D reach it as they do any program.
    """
    if sys.stdin.isatty():
        with contextlib.suppress(ImportError):  # line editing and history, where there is one
            import readline  # noqa: F401
    tools = ", ".join(tool["name"] for tool in runner.run(host.discover_tools())) or "none"
    note(f"tools: {tools}\nAsk away; Ctrl+D or Ctrl+C leaves.")
    while True:
        question = input("you> ").strip()
        if question:
            print(runner.run(host.ask(question)), flush=True)


def stop(runner: asyncio.Runner, host: Host) -> None:
    """Close every client, and stop every server this chat started."""
    # Leaving anyway: a second Ctrl+C here, or a server that fails as it stops, must not print
    # a traceback over the last answer
    with contextlib.suppress(Exception, KeyboardInterrupt):
        runner.run(host.close())


def failed(error: Exception) -> int:
    """One line for the person, and the exit code that says it went wrong."""
    note(f"error: {error}")
    return 1
