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
server's request) goes to stderr as it happens (:mod:`minimcp.examples.chat_terminal`). A tool
that its server does not mark read-only runs only after the person says yes; with ``--prompt``
nobody is asked, and such a call is refused unless ``--yes`` lets every tool run. A failure a
person can meet (no key, a key refused, a rate limit, a provider down, a model without tools, a
server that does not start) ends the chat with one line on stderr and exit code 1. Ctrl+C or
Ctrl+D leave without a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import shlex
import sys
from collections import deque
from dataclasses import dataclass

from minimcp.client import http_client, stdio_client, websocket_client
from minimcp.examples.chat_terminal import (
    SamplingApproval,
    ToolApproval,
    note,
    show,
    show_progress,
)
from minimcp.examples.keyboard import read_line
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
    add_model_options(chat)
    chat.add_argument(
        "--server",
        action="append",
        default=[],
        metavar="[NAME=]COMMAND|URL",
        help="an MCP server: a command (stdio) or an http(s):// or ws:// URL; repeatable "
        "(default: course=python -m minimcp serve)",
    )
    chat.add_argument(
        "--prompt",
        metavar="TEXT",
        help="ask this, print the answer, and exit; nobody is there to approve a tool call, so a "
        "tool not marked read-only is refused (unless --yes)",
    )
    chat.add_argument(
        "--yes",
        action="store_true",
        help="run every tool call without asking (by default, a tool whose server does not mark "
        "it readOnlyHint waits for your yes)",
    )


def add_model_options(chat: argparse.ArgumentParser) -> None:
    """Which model, and how long and how often it is asked."""
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
        questions=HostQuestions(model, approve=SamplingApproval(someone_there)),
    )
    # Tools that may change things wait for the person's yes (or --yes)
    host.confirm = ToolApproval(
        host.discover_tools, someone_there=someone_there, allow_all=args.yes
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

    The event loop runs only while the host answers (``runner.run``): between questions, the
    chat waits for the person's line (:func:`~minimcp.examples.keyboard.read_line`, which hears
    Ctrl+C whichever thread the signal reaches).
    """
    tools = ", ".join(tool["name"] for tool in runner.run(host.discover_tools())) or "none"
    note(f"tools: {tools}\nAsk away; Ctrl+D or Ctrl+C leaves.")
    while True:
        question = read_line("you> ", sys.stdout).strip()
        if question:
            print(runner.run(host.ask(question)), flush=True)


def stop(runner: asyncio.Runner, host: Host) -> None:
    """Close every client, and stop every server this chat started."""
    # Leaving anyway: a second Ctrl+C here, or a server that fails as it stops, must not print
    # a traceback over the last answer
    with contextlib.suppress(Exception, KeyboardInterrupt):
        runner.run(host.close())
        close_model = getattr(host.model, "aclose", None)  # a provider's: its connections
        if close_model is not None:
            runner.run(close_model())


def failed(error: Exception) -> int:
    """One line for the person, and the exit code that says it went wrong."""
    note(f"error: {error}")
    return 1
