"""Helpers for the tests of the pages' "The same with the official SDK" boxes (``sdk/``).

Every file in ``sdk/`` is a small runnable script written with the official Python SDK
(``mcp==2.3.0``). A test either starts an SDK *server* script, and ``minimcp``'s client talks to it,
or runs an SDK *client* script against ``minimcp``'s server and reads what it printed. So each box
on a page is code that ran against ``minimcp``. Importable as ``sdk_support`` (pytest puts tests/ on
sys.path); ``minimcp`` itself never imports ``mcp``.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only named here: lesson 02's test runs without lesson 04's client
    from minimcp.client.client import Client

#: The repository root: scripts run from here, so ``python -m minimcp`` is this checkout's.
ROOT = Path(__file__).resolve().parent.parent
SDK = ROOT / "sdk"
#: The longest an SDK script may take, start to end (a loaded 2-core machine imports ``mcp``
#: slowly): a bound that only a script that hangs reaches.
SCRIPT_TIMEOUT = 60.0
#: How long starting an SDK server's process may take (not its handshake: that has its own bound).
START_TIMEOUT = 60.0


def sdk_command(script: str, *arguments: str) -> list[str]:
    """The command line that runs ``sdk/<script>`` with this same Python, unbuffered."""
    return [sys.executable, "-u", str(SDK / script), *arguments]


async def run_sdk_script(script: str, *arguments: str) -> str:
    """Run ``sdk/<script>`` to its end, from the repository root, and return what it printed.

    Fails with the script's stderr if it exits with an error, or if it runs longer than
    :data:`SCRIPT_TIMEOUT` (the process is killed first).
    """
    process = await asyncio.create_subprocess_exec(
        *sdk_command(script, *arguments),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=str(ROOT),
    )
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(), SCRIPT_TIMEOUT)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    assert process.returncode == 0, f"{script} exited with {process.returncode}:\n{stderr.decode()}"
    return stdout.decode()


@asynccontextmanager
async def sdk_server(script: str) -> AsyncIterator[Client]:
    """``minimcp``'s client, after the handshake, talking to ``sdk/<script>`` as a child process.

    Built from lesson 02's ``spawn()`` and lesson 04's ``Client`` only (not lesson 07's
    ``stdio_client``), so that a lesson's test runs on "minimcp as of that lesson". Leaving the
    block closes the child's stdin: the SDK's server exits.
    """
    from minimcp.client.client import Client  # lesson 04: imported by the tests that use it
    from minimcp.transports.process import spawn

    transport = await asyncio.wait_for(spawn(sdk_command(script), cwd=str(ROOT)), START_TIMEOUT)
    async with Client(transport, name="sdk-box-test") as client:  # the handshake: 30 s at most
        yield client
