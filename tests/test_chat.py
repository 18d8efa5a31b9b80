"""``python -m minimcp chat``, end to end: a real process, the real course server over stdio, and a
fake provider on loopback (:mod:`fake_providers`) in the model's place.

Each test runs the command as a person would, with a recognisable fake key in the provider's
environment variable, and checks what it printed, its exit code, and what the provider received.
``--prompt`` gives one answer; without it the chat reads questions from stdin (a pipe here), and
Ctrl+D (the pipe's end) or Ctrl+C (SIGINT) leave it. Every failure a person can meet is one line
on stderr, exit code 1, and the key appears nowhere in what the chat printed.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fake_providers import (
    FAKE_KEY,
    FakeProvider,
    Reply,
    claude_error,
    claude_text,
    claude_tools,
    fake_provider,
    gpt_error,
    gpt_text,
    gpt_tools,
)
from support import START_TIMEOUT, ctrl_c_reaches_it

from minimcp.transports.http.server import bind

ROOT = Path(__file__).resolve().parent.parent
#: The environment variables a provider's client reads: each test sets its own.
PROVIDER_VARIABLES = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_BASE_URL",
)
PYTHON = shlex.quote(sys.executable)


@pytest.fixture
async def fake() -> AsyncIterator[FakeProvider]:
    async with fake_provider() as provider:
        yield provider


async def start_chat(*options: str, key: str | None = FAKE_KEY) -> asyncio.subprocess.Process:
    """``python -m minimcp chat OPTIONS``, with ``key`` in both providers' variables."""
    env = {name: value for name, value in os.environ.items() if name not in PROVIDER_VARIABLES}
    env["PYTHONPATH"] = str(ROOT)
    if key is not None:
        env["ANTHROPIC_API_KEY"] = env["OPENAI_API_KEY"] = key
    return await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "minimcp", "chat", *options),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
        cwd=ROOT,
        preexec_fn=ctrl_c_reaches_it,  # the Ctrl+C tests below send it SIGINT
    )


async def chat(*options: str, typed: str = "", key: str | None = FAKE_KEY) -> tuple[int, str, str]:
    """Run the chat to its end, ``typed`` on its stdin: its exit code, stdout and stderr (and
    the proof that the key is in neither)."""
    process = await start_chat(*options, key=key)
    out, err = await asyncio.wait_for(process.communicate(typed.encode()), START_TIMEOUT)
    stdout, stderr = out.decode(), err.decode()
    assert FAKE_KEY not in stdout and FAKE_KEY not in stderr
    assert "Traceback" not in stderr, stderr
    assert process.returncode is not None
    return process.returncode, stdout, stderr


def claude_model(fake: FakeProvider) -> tuple[str, ...]:
    return ("--model", "anthropic:claude-test-1", "--base-url", fake.url)


def gpt_model(fake: FakeProvider) -> tuple[str, ...]:
    return ("--model", "openai:gpt-test-1", "--base-url", fake.url + "/v1")


# -- one answer, a conversation --------------------------------------------------------------------
async def test_one_answer_with_prompt(fake: FakeProvider) -> None:
    fake.script(
        gpt_tools(("call_1", "course__read_events", {"date": "2025-03-21"})),
        gpt_text("At 09:00 you see the doctor."),
    )
    code, out, err = await chat(*gpt_model(fake), "--prompt", "What is on 2025-03-21?")
    assert (code, out) == (0, "At 09:00 you see the doctor.\n")
    assert '  → course/read_events {"date": "2025-03-21"}\n' in err
    assert "  ← course/read_events: Events for 2025-03-21:\n    - 09:00 Doctor appointment" in err
    first, second = fake.bodies
    names = {tool["function"]["name"] for tool in first["tools"]}
    assert {"course__read_events", "course__find_similar_courses"} <= names
    assert first["messages"][-1] == {"role": "user", "content": "What is on 2025-03-21?"}
    result = second["messages"][-1]
    assert result["role"] == "tool" and result["tool_call_id"] == "call_1"
    assert "09:00 Doctor appointment" in result["content"]


async def test_a_conversation_at_the_terminal(fake: FakeProvider) -> None:
    fake.script(
        claude_tools(("toolu_1", "course__read_events", {"date": "2025-03-21"})),
        claude_text("At 09:00 you see the doctor."),
        claude_text("You're welcome."),
    )
    typed = "What is on 2025-03-21?\nThanks!\n"  # then the end of input: Ctrl+D
    code, out, err = await chat(*claude_model(fake), typed=typed)
    assert code == 0
    assert out == "you> At 09:00 you see the doctor.\nyou> You're welcome.\nyou> "
    assert err.startswith("tools: course/read_events, ")
    assert "  → course/read_events" in err
    last = fake.bodies[-1]["messages"]  # the whole conversation, each result with its call
    assert [m["role"] for m in last] == ["user", "assistant", "user", "assistant", "user"]
    assert last[2]["content"][0]["tool_use_id"] == "toolu_1"
    assert last[4]["content"] == [{"type": "text", "text": "Thanks!"}]


async def test_the_rule_model_needs_no_provider() -> None:
    question = "What do I have on my calendar on 2025-03-21?"
    code, out, _ = await chat("--model", "rule", "--prompt", question, key=None)
    assert code == 0 and out.startswith("Here is what course/read_events says:\nEvents for")


async def test_a_servers_sampling_request_asks_the_person(fake: FakeProvider) -> None:
    assistant = f"assistant={PYTHON} -m minimcp serve --example assistant"
    fake.script(
        gpt_tools(("call_1", "assistant__xml_to_json", {"xml": "<a>b</a>"})),
        gpt_text('{"a": "b"}', model="gpt-test-1-2026"),  # the sampling request's answer
        gpt_text('As JSON: {"a": "b"}'),
    )
    typed = "Turn <a>b</a> into JSON\ny\n"  # the question, then yes to the server's request
    code, out, err = await chat(*gpt_model(fake), "--server", assistant, typed=typed)
    assert code == 0 and 'you> As JSON: {"a": "b"}\n' in out
    assert "  ? assistant asks the model (sampling): Translate this XML to JSON:" in err
    assert '  ← assistant/xml_to_json: {"a": "b"}' in err
    sampling = fake.bodies[1]
    assert sampling["messages"][0] == {
        "role": "system",
        "content": "You convert XML documents to JSON. Answer with the JSON only.",
    }
    assert sampling["max_tokens"] == 2000 and "tools" not in sampling


async def test_with_prompt_nobody_approves_a_sampling_request(fake: FakeProvider) -> None:
    assistant = f"assistant={PYTHON} -m minimcp serve --example assistant"
    fake.script(
        gpt_tools(("call_1", "assistant__xml_to_json", {"xml": "<a>b</a>"})),
        gpt_text("The server could not use me."),
    )
    code, out, err = await chat(*gpt_model(fake), "--server", assistant, "--prompt", "To JSON")
    assert (code, out) == (0, "The server could not use me.\n")
    assert "refused: nobody to approve it" in err and len(fake.seen) == 2


# -- the system prompt ----------------------------------------------------------------------------
#: What a provider model is told in the system prompt: no tool list (the API's ``tools`` carries the
#: definitions, under the names the model calls), and the course server's instructions.
PROVIDER_SYSTEM_PROMPT = (
    "You are a helpful assistant inside an MCP host.\n"
    "To use a tool, reply with a tool call: the tool's name and its arguments as a JSON object\n"
    "that follows the tool's input schema. When you know the answer, reply in plain text.\n"
    "\n"
    "# Instructions from the server 'course'\n"
    "The course server of MCP from Scratch. It knows a small catalogue of courses and a calendar."
)


async def test_the_system_prompt_leaves_the_tools_to_the_api(fake: FakeProvider) -> None:
    fake.script(gpt_text("Nothing today."), claude_text("Nothing today."))
    for model in (gpt_model(fake), claude_model(fake)):
        code, _, _ = await chat(*model, "--prompt", "What is on today?")
        assert code == 0
    gpt, claude = fake.bodies
    assert gpt["messages"][0] == {"role": "system", "content": PROVIDER_SYSTEM_PROMPT}
    assert claude["system"] == PROVIDER_SYSTEM_PROMPT
    names = {"course__read_events", "course__find_similar_courses", "course__run_analysis"}
    assert {tool["function"]["name"] for tool in gpt["tools"]} == names
    assert {tool["name"] for tool in claude["tools"]} == names


# -- tools that may change things: the person says yes or no ---------------------------------------
ASSISTANT = f"assistant={PYTHON} -m minimcp serve --example assistant"
COURSE = f"course={PYTHON} -m minimcp serve"
BOOK = {"title": "Review", "date": "2026-07-28"}
BOOKED = "Booked 'Review' on 2026-07-28 at 10:00 for 30 minutes, room Online."
ASKED = (
    '  ? assistant/book_meeting {"title": "Review", "date": "2026-07-28"} is not marked read-only'
)


async def test_a_tool_that_may_change_things_runs_after_a_yes(fake: FakeProvider) -> None:
    fake.script(
        gpt_tools(("call_1", "assistant__book_meeting", BOOK)),
        gpt_text("Booked."),
    )
    typed = "Book a review on 2026-07-28\ny\n"  # the question, then yes to the tool call
    code, out, err = await chat(*gpt_model(fake), "--server", ASSISTANT, typed=typed)
    assert code == 0 and "you> Booked.\n" in out
    assert ASKED in err and "    run it? [y/N] " in err
    assert f"  ← assistant/book_meeting: {BOOKED}" in err
    result = fake.bodies[1]["messages"][-1]
    assert result == {"role": "tool", "tool_call_id": "call_1", "content": BOOKED}


async def test_a_no_goes_back_to_the_model_as_a_failed_call(fake: FakeProvider) -> None:
    fake.script(
        claude_tools(("toolu_1", "assistant__book_meeting", BOOK)),
        claude_text("As you wish: nothing booked."),
    )
    typed = "Book a review on 2026-07-28\nn\n"  # the question, then no
    code, out, err = await chat(*claude_model(fake), "--server", ASSISTANT, typed=typed)
    assert code == 0 and "you> As you wish: nothing booked.\n" in out
    assert ASKED in err
    assert "  ← assistant/book_meeting (error): The user declined this tool call." in err
    (result,) = fake.bodies[1]["messages"][-1]["content"]
    assert result == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": [{"type": "text", "text": "The user declined this tool call."}],
        "is_error": True,
    }


async def test_with_prompt_only_the_tools_that_only_read_run(fake: FakeProvider) -> None:
    fake.script(
        gpt_tools(
            ("call_1", "course__read_events", {"date": "2025-03-21"}),
            ("call_2", "assistant__book_meeting", BOOK),
        ),
        gpt_text("You have three events; I could not book the review."),
    )
    servers = ("--server", COURSE, "--server", ASSISTANT)
    code, out, err = await chat(*gpt_model(fake), *servers, "--prompt", "Book a review")
    assert (code, out) == (0, "You have three events; I could not book the review.\n")
    assert "? course/read_events" not in err  # it only reads: it runs without asking
    assert ASKED in err and "    refused: nobody to approve it (--yes lets every tool run)" in err
    assert "[y/N]" not in err
    events, booking = fake.bodies[1]["messages"][-2:]
    assert events["tool_call_id"] == "call_1" and "09:00 Doctor appointment" in events["content"]
    assert booking == {
        "role": "tool",
        "tool_call_id": "call_2",
        "content": "Error: The user declined this tool call.",
    }


async def test_with_prompt_and_yes_every_tool_runs(fake: FakeProvider) -> None:
    fake.script(
        gpt_tools(("call_1", "assistant__book_meeting", BOOK)),
        gpt_text("Booked."),
    )
    options = ("--server", ASSISTANT, "--prompt", "Book a review", "--yes")
    code, out, err = await chat(*gpt_model(fake), *options)
    assert (code, out) == (0, "Booked.\n")
    assert " ? " not in err and "refused" not in err
    assert fake.bodies[1]["messages"][-1]["content"] == BOOKED


# -- leaving: Ctrl+C -------------------------------------------------------------------------------
async def until_prompted(process: asyncio.subprocess.Process) -> None:
    """Until the chat writes its ``you>`` prompt (it then waits for a line)."""
    assert process.stdout is not None
    shown = b""
    while not shown.endswith(b"you> "):
        chunk = await asyncio.wait_for(process.stdout.read(100), START_TIMEOUT)
        assert chunk, "the chat ended before asking"
        shown += chunk


async def interrupted(process: asyncio.subprocess.Process) -> tuple[int, str]:
    process.send_signal(signal.SIGINT)
    _, err = await asyncio.wait_for(process.communicate(), START_TIMEOUT)
    assert process.returncode is not None
    return process.returncode, err.decode()


async def test_ctrl_c_at_the_prompt_leaves_cleanly(fake: FakeProvider) -> None:
    process = await start_chat(*claude_model(fake))
    await until_prompted(process)
    code, err = await interrupted(process)
    assert code == 0 and "Traceback" not in err


async def test_ctrl_c_while_the_model_thinks_leaves_cleanly(fake: FakeProvider) -> None:
    fake.script(Reply(hang=True))  # the provider never answers
    process = await start_chat(*claude_model(fake))
    await until_prompted(process)
    assert process.stdin is not None
    process.stdin.write(b"Hello?\n")
    await asyncio.wait_for(fake.arrived.wait(), START_TIMEOUT)
    code, err = await interrupted(process)
    assert code == 0 and "Traceback" not in err


# -- failures: one line, exit code 1 ---------------------------------------------------------------
async def one_line(*options: str, key: str | None = FAKE_KEY) -> str:
    code, out, err = await chat(*options, "--prompt", "What is on today?", key=key)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: "), err
    return err.removeprefix("error: ").rstrip("\n")


async def test_no_key() -> None:
    line = await one_line("--model", "anthropic:claude-sonnet-4-5", key=None)
    assert line == (
        "no key: set ANTHROPIC_API_KEY to your API key (or give --base-url for a local server)"
    )


async def test_a_wrong_key(fake: FakeProvider) -> None:
    fake.script(gpt_error(401, f"Incorrect API key provided: {FAKE_KEY}.", "invalid_api_key"))
    line = await one_line("--model", "openai:gpt-test-1", "--base-url", fake.url + "/v1")
    assert line == "the provider refused the key in OPENAI_API_KEY (401): check it"


async def test_a_rate_limit_that_asks_too_long_a_wait(fake: FakeProvider) -> None:
    fake.script(claude_error(429, "rate_limit_error", "Slow down", retry_after="3600"))
    line = await one_line(*claude_model(fake))
    assert line.startswith("rate limited by Anthropic (429): it asks to wait 3600 s")


async def test_a_model_without_tools(fake: FakeProvider) -> None:
    fake.script(gpt_error(400, "registry.ollama.ai/library/gemma:2b does not support tools"))
    line = await one_line("--model", "openai:gemma:2b", "--base-url", fake.url + "/v1")
    assert line.startswith("the model gemma:2b refused the tools (400: ")


async def test_a_provider_down() -> None:
    closed = bind("127.0.0.1", 0)  # a free port, nobody listening
    url = f"http://127.0.0.1:{closed.getsockname()[1]}"
    closed.close()
    line = await one_line("--model", "anthropic:claude-test-1", "--base-url", url)
    assert line == f"cannot reach Anthropic at {url}: is it running, and is the address right?"


async def test_a_server_that_will_not_start(fake: FakeProvider) -> None:
    line = await one_line(*claude_model(fake), "--server", f"{PYTHON} -m no_such_server")
    assert line.startswith("the server 'server1' did not start: ")
    assert line.endswith("No module named no_such_server")
    line = await one_line(*claude_model(fake), "--server", "calendar=no-such-command --stdio")
    assert line.startswith("the server 'calendar' did not start: [Errno 2] No such file")
    assert fake.seen == []  # the model was never asked


async def test_a_missing_package_says_what_to_install() -> None:
    """A plain ``pip install -e .`` has no ``anthropic``: the chat says what to install."""
    hide = "import sys; sys.modules['anthropic'] = None; from minimcp.cli import main; "
    run = "sys.exit(main(['chat', '--model', 'anthropic:claude-sonnet-4-5', '--prompt', 'Hi']))"
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        hide + run,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    _, err = await asyncio.wait_for(process.communicate(), START_TIMEOUT)
    assert process.returncode == 1
    assert err.decode() == (
        "error: the anthropic package is not installed: pip install anthropic==2.14.0\n"
    )


async def test_ctrl_c_while_a_server_asks_leaves_cleanly(fake: FakeProvider) -> None:
    assistant = f"assistant={PYTHON} -m minimcp serve --example assistant"
    fake.script(gpt_tools(("call_1", "assistant__xml_to_json", {"xml": "<a>b</a>"})))
    process = await start_chat(*gpt_model(fake), "--server", assistant)
    assert process.stdin is not None and process.stderr is not None
    process.stdin.write(b"Turn <a>b</a> into JSON\n")
    shown = b""
    while not shown.endswith(b"[y/N] "):  # the chat asks the person, and waits
        chunk = await asyncio.wait_for(process.stderr.read(100), START_TIMEOUT)
        assert chunk, f"the chat ended before asking: {shown!r}"
        shown += chunk
    code, err = await interrupted(process)
    assert code == 0 and "Traceback" not in err, err
