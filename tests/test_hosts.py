"""The files in hosts/ plug the course server into real hosts: Claude Desktop, VS Code and Cursor.

The appendix "Plug the course server into a real host" includes each file as it is, so each must be
true twice over. Its shape is the one its host documents (the key that holds the servers, the fields
of a stdio entry and of an HTTP entry): a misspelt field is one a real host ignores, or refuses.
And it works: each stdio entry's command is started exactly as written, the interpreter placeholder
alone replaced by this test's Python, and answers ``initialize`` and ``tools/list``; each HTTP entry
reaches the course server that ``python -m minimcp serve --transport http`` starts, on a free port
put in place of the file's 8000.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from support import FIRST_CALL_TIMEOUT
from worker_support import start_serve, stderr_of, until_listening

from minimcp.client import http_client, stdio_client
from minimcp.rpc import ConnectionClosed

ROOT = Path(__file__).resolve().parents[1]
HOSTS = ROOT / "hosts"


@dataclass(frozen=True)
class Format:
    """What one host's file may hold, as its documentation gives it."""

    servers: str  # the top-level key that maps each server's name to its entry
    stdio: frozenset[str]  # the fields a stdio entry may have (``command`` is required)
    http: frozenset[str]  # the fields an HTTP entry may have (``url`` is required); none: no HTTP
    typed: bool = False  # each entry names its transport: "type": "stdio" or "http"


FORMATS = {
    # modelcontextprotocol.io/docs/develop/connect-local-servers; remote servers are added in
    # Settings > Connectors, never in this file (support.anthropic.com, article 11503834).
    "claude_desktop_config.json": Format(
        "mcpServers", frozenset({"command", "args", "env"}), frozenset()
    ),
    # code.visualstudio.com/docs/copilot/reference/mcp-configuration
    "vscode/mcp.json": Format(
        "servers",
        frozenset({"type", "command", "args", "env", "envFile"}),
        frozenset({"type", "url", "headers"}),
        typed=True,
    ),
    # cursor.com/docs/mcp
    "cursor/mcp.json": Format(
        "mcpServers", frozenset({"command", "args", "env"}), frozenset({"url", "headers"})
    ),
}

#: Where a reader writes the full path of their virtual environment's Python: the one part of a
#: command this test replaces (by its own interpreter, which has minimcp).
INTERPRETERS = (
    "/ABSOLUTE/PATH/TO/mcp-from-scratch/.venv/bin/python",  # Claude Desktop, Cursor
    "${workspaceFolder}/.venv/bin/python",  # VS Code fills in the folder it has open
)

#: The port of the HTTP entries: the one the appendix's command serves on.
HTTP_PORT = 8000


def servers_of(name: str) -> dict[str, dict[str, Any]]:
    """The server entries of ``hosts/NAME``, by server name."""
    found: dict[str, dict[str, Any]] = json.loads((HOSTS / name).read_text(encoding="utf-8"))
    return found[FORMATS[name].servers]


def entries(kind: str) -> list[Any]:
    """Every entry of that kind (``command`` for stdio, ``url`` for HTTP), as pytest params."""
    return [
        pytest.param(entry, id=f"{name}:{server}")
        for name in FORMATS
        for server, entry in servers_of(name).items()
        if kind in entry
    ]


def test_every_file_in_hosts_is_one_whose_format_is_known() -> None:
    found = {str(path.relative_to(HOSTS)) for path in HOSTS.rglob("*.json")}
    assert found == set(FORMATS)


@pytest.mark.parametrize("name", FORMATS)
def test_each_file_has_its_hosts_documented_shape(name: str) -> None:
    layout = FORMATS[name]
    assert list(json.loads((HOSTS / name).read_text(encoding="utf-8"))) == [layout.servers]
    kinds = set()
    for server, entry in servers_of(name).items():
        kind = "stdio" if "command" in entry else "http"
        allowed = layout.stdio if kind == "stdio" else layout.http
        assert "url" in entry or kind == "stdio", f"{server}: neither a command nor a url"
        assert set(entry) <= allowed, f"{server}: {set(entry) - allowed} is no field of {name}"
        assert not layout.typed or entry.get("type") == kind, f"{server}: type is not {kind!r}"
        assert all(isinstance(arg, str) for arg in entry.get("args", [])), server
        kinds.add(kind)
    assert kinds == ({"stdio", "http"} if layout.http else {"stdio"})


def command_of(entry: dict[str, Any]) -> list[str]:
    """The entry's command line as a host starts it: only the placeholder is replaced."""
    command = entry["command"]
    return [sys.executable if command in INTERPRETERS else command, *entry.get("args", [])]


@pytest.mark.parametrize("entry", entries("command"))
async def test_a_stdio_entry_starts_the_course_server(
    entry: dict[str, Any], tmp_path: Path
) -> None:
    """A host starts the command in a folder of its choosing: here an empty one, so the server
    owes nothing to the folder it starts in (minimcp is found as an installed package is)."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, **entry.get("env", {}), "PYTHONPATH": path}
    log: list[str] = []  # the server's standard error: its log, and why it stopped if it did
    try:
        async with stdio_client(
            command_of(entry), cwd=str(tmp_path), env=env, on_stderr=log.append
        ) as client:
            assert client.server_info["name"] == "course-server"
            tools = await client.list_tools(timeout=FIRST_CALL_TIMEOUT)
    except ConnectionClosed:
        pytest.fail(f"{command_of(entry)} stopped; it said:\n" + "\n".join(log))
    assert "read_events" in {tool["name"] for tool in tools}


@pytest.mark.parametrize("entry", entries("url"))
async def test_an_http_entry_reaches_the_course_server(entry: dict[str, Any]) -> None:
    written = urlsplit(entry["url"])
    assert written.port == HTTP_PORT, "the appendix serves on --port 8000"
    server = start_serve(0, stdout=subprocess.DEVNULL)  # port 0: the system picks a free one
    try:
        endpoint = (await until_listening(server)).splitlines()[-1].removeprefix("MCP endpoint: ")
        url = written._replace(netloc=f"{written.hostname}:{urlsplit(endpoint).port}").geturl()
        assert url == endpoint, "the entry's host and path must be those the server serves"
        async with http_client(url, max_retries=0) as client:
            assert client.server_info["name"] == "course-server"
            tools = await client.list_tools(timeout=FIRST_CALL_TIMEOUT)
        assert "read_events" in {tool["name"] for tool in tools}, stderr_of(server)
    finally:
        server.terminate()
        server.wait(timeout=FIRST_CALL_TIMEOUT)
