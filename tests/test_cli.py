"""``python -m minimcp``: the command line that serves the course's example server."""

from __future__ import annotations

import subprocess
import sys
import time

from minimcp.client import stdio_client
from minimcp.session import LATEST_PROTOCOL_VERSION
from minimcp.stdio import python_command

TIMEOUT = 30.0


async def test_serve_over_stdio_answers_initialize_and_ping(repo_root) -> None:
    stderr: list[str] = []
    async with stdio_client(python_command("-m", "minimcp", "serve"), cwd=str(repo_root),
                            on_stderr=stderr.append) as client:
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


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "minimcp", *args], capture_output=True, text=True,
                          timeout=TIMEOUT, stdin=subprocess.DEVNULL)


def test_ws_transport_is_not_there_yet() -> None:
    done = run_cli("serve", "--transport", "ws")
    assert done.returncode == 2
    assert "the ws transport arrives in lesson 07" in done.stderr
    assert done.stdout == ""


def test_a_command_is_required() -> None:
    done = run_cli()
    assert done.returncode == 2
    assert "usage: python -m minimcp" in done.stderr
    assert done.stdout == ""
