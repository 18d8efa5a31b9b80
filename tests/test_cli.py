"""``python -m minimcp``: the command line that serves the course's example server."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import sys
import time

import pytest
from http_support import raw_session
from support import free_port
from worker_support import exited, start_serve, stderr_of, until_listening

from minimcp.client import http_client, stdio_client, websocket_client
from minimcp.examples.serving import EXAMPLES
from minimcp.session import LATEST_PROTOCOL_VERSION
from minimcp.transports.process import python_command

TIMEOUT = 30.0


async def test_serve_over_stdio_answers_initialize_and_ping(repo_root) -> None:
    stderr: list[str] = []
    async with stdio_client(
        python_command("-m", "minimcp", "serve"), cwd=str(repo_root), on_stderr=stderr.append
    ) as client:
        assert client.protocol_version == LATEST_PROTOCOL_VERSION
        assert client.server_info["name"] == "course-server"
        assert client.server_info["version"] == "0.1.0"
        assert client.instructions
        await client.ping(timeout=TIMEOUT)
        await client.ping(timeout=TIMEOUT)
        transport = client.session.transport
        began = time.monotonic()
    # Leaving the block closed the server's stdin; it exited on its own, quickly and cleanly.
    assert transport.process.returncode == 0, stderr
    assert time.monotonic() - began < 3.0


INITIALIZE_PARAMS = {
    "protocolVersion": LATEST_PROTOCOL_VERSION,
    "capabilities": {},
    "clientInfo": {"name": "printf", "version": "1"},
}


def run_cli(*args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m minimcp ARGS``, with ``input`` on its stdin (or no stdin at all)."""
    return subprocess.run(
        [sys.executable, "-m", "minimcp", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        input=input,
        stdin=None if input is not None else subprocess.DEVNULL,
    )


async def test_serve_over_websocket_answers_a_client_and_stops_on_ctrl_c(repo_root) -> None:
    # Port 0: the system picks a free port, and the server says which on stderr.
    process = start_serve(0, transport="ws", cwd=str(repo_root), stdout=subprocess.PIPE)
    try:
        assert process.stdout is not None
        line = (await until_listening(process)).splitlines()[-1]
        match = re.fullmatch(r"MCP endpoint: (ws://127\.0\.0\.1:\d+/mcp)", line)
        assert match, line
        async with websocket_client(match[1], name="cli-test") as client:
            assert client.protocol_version == LATEST_PROTOCOL_VERSION
            assert client.server_info["name"] == "course-server"
            result = await client.call_tool("read_events", {"date": "2025-03-21"}, timeout=TIMEOUT)
            assert result["content"][0]["text"].startswith("Events for 2025-03-21:")
            await client.ping(timeout=TIMEOUT)
        if sys.platform == "win32":  # no SIGINT to send a child there: just stop it
            process.terminate()
            await exited(process, TIMEOUT)
        else:  # Ctrl+C: the server closes its sockets and exits cleanly
            process.send_signal(signal.SIGINT)
            assert await exited(process, TIMEOUT) == 0
        assert process.stdout.read() == b""  # over WebSocket, stdout carries nothing
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(TIMEOUT)


def test_a_command_is_required() -> None:
    done = run_cli()
    assert done.returncode == 2
    assert "usage: python -m minimcp" in done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize(
    ("name", "stdin", "expected"),
    [
        (
            "jsonrpc",
            '{"jsonrpc":"2.0","id":1,"method":"ping"}\nnot json\n',
            "✓ request #1 ping\n✗ -32700",
        ),
        ("connection", "", "add -> {'sum': 5}"),
        ("pagination", "", "a bad cursor -> -32602"),
        ("sse", "", "Event(data='two\\nlines'"),
        ("event-store", "", "is too old"),
    ],
)
def test_each_demo_runs_on_its_own(name: str, stdin: str, expected: str) -> None:
    """``python -m minimcp demo NAME``: one layer at work, with nothing else started first."""
    done = run_cli("demo", name, input=stdin)
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout


def test_a_piped_server_answers_everything_that_arrived_before_end_of_input() -> None:
    """``printf ... | python -m minimcp serve``: stdin ends at once, but stdout is still read, so a
    call that takes longer than a moment (here about 2 s) is answered too, then the server exits."""
    call = {"name": "run_analysis", "arguments": {"steps": 40}}  # 40 steps of 0.05 s
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE_PARAMS},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call},
    ]
    done = run_cli("serve", input="".join(json.dumps(line) + "\n" for line in lines))
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [answer.get("id") for answer in answers if "id" in answer] == [1, 2], done.stdout
    assert not answers[-1]["result"].get("isError"), answers[-1]


def test_an_unknown_demo_is_refused_with_the_list() -> None:
    done = run_cli("demo", "nope")
    assert done.returncode == 2
    assert "invalid choice: 'nope'" in done.stderr
    assert "connection" in done.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="no SIGINT to send a child on Windows")
async def test_ctrl_c_on_the_http_server_with_a_call_running_exits_quietly(repo_root) -> None:
    """Ctrl+C while a client's long call streams: exit code 0, and not one traceback on stderr."""
    process = start_serve(0, "--max-in-flight", "8", cwd=str(repo_root), stdout=subprocess.DEVNULL)
    try:
        line = (await until_listening(process)).splitlines()[-1]
        match = re.fullmatch(r"MCP endpoint: (http://127\.0\.0\.1:\d+/mcp)", line)
        assert match, line
        async with http_client(match[1], max_retries=0) as client:
            call = asyncio.ensure_future(
                client.call_tool("run_analysis", {"steps": 100}, timeout=TIMEOUT)
            )
            await asyncio.sleep(0.5)  # the call is running, its stream open
            process.send_signal(signal.SIGINT)
            assert await exited(process, TIMEOUT) == 0
            call.cancel()
        stderr = stderr_of(process)
        assert "Traceback" not in stderr, stderr
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(TIMEOUT)


def test_serve_names_every_limit() -> None:
    done = run_cli("serve", "--help")
    for option in (
        "--max-in-flight",
        "--tool-timeout",
        "--max-sessions",
        "--session-timeout",
        "--handshake-timeout",
        "--header-timeout",
        "--max-connections",
        "--max-event-bytes",
    ):
        assert option in done.stdout


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_serve_at_a_terminal_says_what_it_is(repo_root) -> None:
    """A person who types `python -m minimcp serve` learns that it speaks MCP and how to stop it."""
    import os
    import pty

    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "minimcp", "serve"],
        stdin=follower,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=str(repo_root),
        text=True,
    )
    try:
        assert process.stderr is not None
        assert process.stderr.readline() == (
            "course-server speaks MCP on stdin/stdout: one JSON-RPC message "
            "per line. Ctrl+D (end of input) or Ctrl+C stops it.\n"
        )
    finally:
        process.kill()
        process.wait(TIMEOUT)
        os.close(leader)
        os.close(follower)


def test_bare_minimcp_lists_its_commands() -> None:
    done = run_cli()
    assert done.returncode == 2
    for command in ("serve", "echo", "demo"):
        assert f"    {command}" in done.stderr


# -- the course server over the network transports (lessons 07 and 08) ------------------------
async def test_python_m_minimcp_serve_ws_serves_the_course_server(repo_root) -> None:
    process = start_serve(0, transport="ws", cwd=str(repo_root), stdout=subprocess.DEVNULL)
    try:
        line = (await until_listening(process)).splitlines()[-1]
        assert line.startswith("MCP endpoint: ws://127.0.0.1:") and line.endswith("/mcp")
        url = line.removeprefix("MCP endpoint: ")
        async with websocket_client(url) as client:
            assert client.server_info["name"] == "course-server"
            assert len(await client.list_prompts(timeout=TIMEOUT)) == 3
    finally:
        if process.poll() is None:
            process.terminate()
        await exited(process, TIMEOUT)


async def test_the_cli_serves_http(repo_root) -> None:
    port = free_port()  # a free port for the child process
    process = start_serve(port, cwd=str(repo_root))
    try:
        line = (await until_listening(process)).splitlines()[-1]
        assert line.strip() == f"MCP endpoint: http://127.0.0.1:{port}/mcp"
        async with raw_session(f"http://127.0.0.1:{port}/mcp") as raw:
            assert raw.session_id
            answer = await raw.call(2, "tools/list")
            assert [tool["name"] for tool in answer["result"]["tools"]] == [
                "read_events",
                "find_similar_courses",
                "run_analysis",
            ]
    finally:
        process.terminate()
        await exited(process, TIMEOUT)


def test_serve_help_describes_every_example() -> None:
    """``--example``'s help says what each server is, not only the names in braces."""
    done = run_cli("serve", "--help")
    options = done.stdout.split("options:", 1)[1]  # past the usage line, which names them too
    described = options.split("--example {", 1)[1].split("--transport", 1)[0]
    described = " ".join(described.split("}", 1)[1].split())  # the help text, on one line
    for name in EXAMPLES:
        assert f"{name}, " in described, name
