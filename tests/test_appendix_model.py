"""The appendix "A real model behind the host" shows only real requests: this test makes them again.

Every request body, MCP message and terminal session that ``lessons/appendix-model/index.md`` shows
is a file of ``lessons/appendix-model/wire/``, included by the page (and by its Spanish twin). This
test produces each one afresh, as the page says it was produced: lesson 04's host, with the course
server in memory (or ``python -m minimcp chat`` for the terminal session), and a model whose API is
:mod:`fake_providers`' server on loopback, which records what minimcp sends and answers what the
test scripted. No real model wrote any reply shown there. The test fails when minimcp would send
something other than what the page shows; after a deliberate change, write the files again with

    PYTHONPATH=. python tests/test_appendix_model.py
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_providers import (
    FAKE_KEY,
    FakeProvider,
    claude_text,
    claude_tools,
    fake_provider,
    gpt_text,
    gpt_tools,
)

from minimcp.client import Client
from minimcp.examples.assistant import build_server as build_assistant
from minimcp.examples.course import build_server as build_course
from minimcp.host import Host
from minimcp.host.chat import Model
from minimcp.host.providers import AnthropicModel, OpenAIModel
from minimcp.host.questions import HostQuestions
from minimcp.rpc import memory_pair
from minimcp.rpc.cables import TracingTransport

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "lessons" / "appendix-model" / "index.md"
WIRE = PAGE.parent / "wire"
#: How long the terminal session may take: two servers start, the model is asked twice.
SESSION_TIMEOUT = 60.0

QUESTION = "What do I have on my calendar on 2025-03-21?"
ANSWER = (
    "On 2025-03-21 you have a doctor's appointment at 09:00, a team meeting at 12:30 "
    "and the gym at 18:00."
)
READ_EVENTS = ("course__read_events", {"date": "2025-03-21"})
BOOK_MEETING = ("assistant__book_meeting", {"title": "Review", "date": "2026-07-28"})


def as_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def connect_course(host: Host, trace: list[str]) -> Any:
    """The course server, in memory, its messages recorded on ``trace`` as the notebooks show
    them (``-> {...}`` sent, ``<- {...}`` received)."""
    client_end, server_end = memory_pair()
    asyncio.ensure_future(build_course().serve(server_end))  # ends when the host closes
    traced = TracingTransport(client_end, lambda way, text: trace.append(f"{way} {text}"))
    return host.connect("course", Client(traced))


async def one_question(model: Model, fake: FakeProvider, trace: list[str]) -> list[Any]:
    """The question, through a host with ``model`` and the course server: the bodies sent."""
    before = len(fake.seen)
    async with Host(model) as host:
        await connect_course(host, trace)
        await host.ask(QUESTION)
    return fake.bodies[before:]


async def calendar_question(fake: FakeProvider) -> dict[str, str]:
    """One question, both APIs: the MCP side, and the requests of each API."""
    trace: list[str] = []
    tool_use = claude_tools(("toolu_01", *READ_EVENTS))
    fake.script(tool_use, claude_text(ANSWER))
    claude = fake.owns(AnthropicModel("claude-sonnet-4-5", base_url=fake.url, api_key=FAKE_KEY))
    first, second = await one_question(claude, fake, trace)
    fake.script(gpt_tools(("call_01", *READ_EVENTS)), gpt_text(ANSWER))
    gpt = fake.owns(OpenAIModel("gpt-4.1-mini", base_url=fake.url + "/v1", api_key=FAKE_KEY))
    gpt_first, gpt_second = await one_question(gpt, fake, [])
    listed = next(line for line in trace if line.startswith('<- {"jsonrpc":"2.0","id":2,'))
    return {
        "mcp-tool.json": as_json(json.loads(listed[3:])["result"]["tools"][0]),
        "mcp-call.txt": "\n".join(line for line in trace if '"id":3' in line) + "\n",
        "anthropic-tool.json": as_json(first["tools"][0]),
        "openai-tool.json": as_json(gpt_first["tools"][0]),
        "anthropic-request-1.json": as_json(first),
        "anthropic-reply-1.json": as_json(tool_use.body),
        "anthropic-request-2-messages.json": as_json(second["messages"]),
        "openai-request-2-messages.json": as_json(gpt_second["messages"]),
        "costs.txt": costs([first, second]),
    }


def costs(bodies: list[dict[str, Any]]) -> str:
    """How many characters of JSON each request holds, in all and by part."""

    def size(value: Any) -> int:
        return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False))

    lines = [f"{'':10}{'in all':>8}{'tools':>8}{'system':>8}{'messages':>10}"]
    for number, body in enumerate(bodies, start=1):
        parts = [size(body), size(body["tools"]), size(body["system"]), size(body["messages"])]
        lines.append(f"request {number} {parts[0]:>8}{parts[1]:>8}{parts[2]:>8}{parts[3]:>10}")
    return "\n".join(lines) + "\n"


async def sampling_request(fake: FakeProvider) -> dict[str, str]:
    """Lesson 09's assistant asks the host's model (sampling), and the person said yes."""
    xml = ("assistant__xml_to_json", {"xml": "<a>b</a>"})
    fake.script(claude_tools(("toolu_01", *xml)), claude_text('{"a": "b"}'), claude_text("Done."))
    claude = fake.owns(AnthropicModel("claude-sonnet-4-5", base_url=fake.url, api_key=FAKE_KEY))
    questions = HostQuestions(claude, approve=lambda server, request: True)
    before = len(fake.seen)
    async with Host(claude, questions=questions) as host:
        client_end, server_end = memory_pair()
        asyncio.ensure_future(build_assistant().serve(server_end))
        await host.connect("assistant", Client(client_end, **questions.client_options("assistant")))
        await host.ask("Turn <a>b</a> into JSON")
    return {"anthropic-sampling-request.json": as_json(fake.bodies[before + 1])}


async def terminal_session(fake: FakeProvider) -> dict[str, str]:
    """``python -m minimcp chat --prompt`` with the course server and lesson 09's assistant: one
    tool only reads, one may change things and nobody is there to approve it."""
    fake.script(
        gpt_tools(("call_01", *READ_EVENTS), ("call_02", *BOOK_MEETING)),
        gpt_text("You have three events on 2025-03-21. I could not book the review: say yes."),
    )
    shown = [
        ("--model", "openai:gpt-4.1-mini", "--base-url", "http://127.0.0.1:<port>/v1"),
        ("--server", "course=python -m minimcp serve"),
        ("--server", "assistant=python -m minimcp serve --example assistant"),
        ("--prompt", "What is on 2025-03-21? And book a review on 2026-07-28."),
    ]
    port = fake.url.rsplit(":", 1)[1]
    options = [
        word.replace("<port>", port).replace("=python ", f"={sys.executable} ")
        for line in shown
        for word in line
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": FAKE_KEY}
    process = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "minimcp", "chat", *options),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,  # one stream, in the order the person sees it
        env=env,
        cwd=ROOT,
    )
    out, _ = await asyncio.wait_for(process.communicate(), SESSION_TIMEOUT)
    assert process.returncode == 0 and FAKE_KEY not in out.decode()
    command = " \\\n    ".join(" ".join(quoted(word) for word in line) for line in shown)
    return {"chat-prompt.txt": f"$ python -m minimcp chat {command}\n{out.decode()}"}


def quoted(word: str) -> str:
    return f'"{word}"' if " " in word else word


async def produce() -> dict[str, str]:
    """Every file the page includes, by name, as minimcp produces it today."""
    async with fake_provider() as fake:
        files = await calendar_question(fake)
        files |= await sampling_request(fake)
        files |= await terminal_session(fake)
    return files


# The pinned anthropic package warns that this model name, the README's, nears its end of life
@pytest.mark.filterwarnings("ignore:The model 'claude-sonnet-4-5' is deprecated")
async def test_the_page_shows_what_minimcp_sends() -> None:
    files = await produce()
    on_disk = {path.name: path.read_text(encoding="utf-8") for path in WIRE.iterdir()}
    assert sorted(on_disk) == sorted(files), "write them again: see this module's docstring"
    for name, text in files.items():
        assert on_disk[name] == text, f"{name} changed: see this module's docstring"


def test_the_page_includes_every_file() -> None:
    for page in (PAGE, PAGE.with_suffix(".es.md")):
        text = page.read_text(encoding="utf-8")
        for path in WIRE.iterdir():
            assert f'--8<-- "lessons/appendix-model/wire/{path.name}"' in text, (page, path)


if __name__ == "__main__":
    WIRE.mkdir(parents=True, exist_ok=True)
    for old in WIRE.iterdir():
        old.unlink()
    for name, text in asyncio.run(produce()).items():
        (WIRE / name).write_text(text, encoding="utf-8")
        print(f"wrote {(WIRE / name).relative_to(ROOT)}")
