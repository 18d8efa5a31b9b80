"""Each lesson adds files: the code of lesson N stands without the lessons after it.

A student reads lesson 04 as lesson 04's modules and what they import, package ``__init__`` files
included, since Python runs them. ``course.toml`` says which lesson builds each module; from it,
``tools/course.py`` computes each lesson's *closure* (everything importing its modules runs) and
the modules of later lessons found in it. ``python tools/course.py closure`` prints the table.

The re-layering is done a lesson at a time. ``STILL_REACHING_AHEAD`` lists, for each lesson not yet
standing alone, exactly the later modules its closure still runs: the test fails if a closure gains
one (a new forward import) and also if it loses one without the list being shortened, so the list
can only shrink, and the work left is always written down here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import load_course_tool

COURSE = load_course_tool()
ROOT = Path(__file__).resolve().parents[1]

#: Lesson -> the modules of later lessons that importing its own modules still runs (to be emptied).
STILL_REACHING_AHEAD: dict[str, set[str]] = {
    "03": {
        "rpc.mcp", "server.pagination", "server.subscriptions", "session.cancellation",
        "session.envelope", "session.input_required", "session.modern", "session.progress",
        "session.saved"
    },
    "04": {
        "client.answers", "client.connect", "host.questions", "host.router", "rpc.mcp",
        "server.completion", "server.files", "server.logs", "server.prompts", "server.resources",
        "server.roots", "server.sampling", "server.subscriptions", "server.uri_templates",
        "session.cancellation", "session.envelope", "session.forms", "session.input_required",
        "session.modern", "session.saved", "session.tool_messages", "transports.guard",
        "transports.websocket"
    },
    "05": {
        "rpc.mcp", "server.prompts", "server.roots", "server.sampling", "server.subscriptions",
        "session.cancellation", "session.envelope", "session.input_required", "session.modern",
        "session.saved", "session.tool_messages"
    },
    "06": {
        "rpc.mcp", "server.subscriptions", "session.cancellation", "session.envelope",
        "session.input_required", "session.modern", "session.saved"
    },
    "07": {
        "rpc.mcp", "session.cancellation", "session.envelope", "session.input_required",
        "session.modern", "session.saved"
    },
    "08": {
        "rpc.mcp", "session.cancellation", "session.envelope", "session.input_required",
        "session.modern", "session.saved", "transports.cluster", "transports.cluster.directory",
        "transports.cluster.endpoint", "transports.cluster.redis_store", "transports.cluster.relay",
        "transports.cluster.streams", "transports.http.modern"
    },
    "09": {
        "rpc.mcp", "server.subscriptions", "session.envelope", "session.input_required",
        "session.modern", "session.saved"
    },
    "10": {
        "rpc.mcp", "transports.cluster", "transports.cluster.directory",
        "transports.cluster.endpoint", "transports.cluster.redis_store", "transports.cluster.relay",
        "transports.cluster.streams", "transports.http.modern"
    },
    "11": {
        "rpc.mcp", "session.envelope", "session.input_required", "session.modern",
        "transports.http.modern"
    },
}


def later_modules(number: str) -> set[str]:
    graph = COURSE.import_graph(ROOT / "minimcp")
    entry = COURSE.lesson(number)
    return {name.removeprefix("minimcp.") for name in COURSE.later_modules(entry, graph, COURSE.owners())}


LESSONS_WITH_CODE = [entry["number"] for entry in COURSE.lessons() if entry.get("modules")]


@pytest.mark.parametrize("number", LESSONS_WITH_CODE)
def test_a_lesson_imports_nothing_of_the_lessons_after_it(number: str) -> None:
    assert later_modules(number) == STILL_REACHING_AHEAD.get(number, set())


def test_the_check_can_fail(tmp_path: Path) -> None:
    """Lesson 01's connection importing lesson 09's cancellation, or lesson 03's server package
    importing lesson 04 in its ``__init__``, is caught."""
    package = tmp_path / "minimcp"
    for folder in ("rpc", "session", "server"):
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "rpc" / "connection.py").write_text("from minimcp.session import cancellation\n")
    (package / "session" / "cancellation.py").write_text("")
    (package / "server" / "core.py").write_text("")
    (package / "server" / "tools.py").write_text("")
    (package / "server" / "__init__.py").write_text("from minimcp.server.tools import Tool\n")
    graph = COURSE.import_graph(package)
    owner = {"minimcp.rpc.connection": "01", "minimcp.server.core": "03", "minimcp.server.tools": "04",
             "minimcp.session.cancellation": "09"}
    assert COURSE.later_modules({"number": "01", "modules": ["minimcp/rpc/connection.py"]}, graph, owner) == [
        "minimcp.session.cancellation"]
    assert COURSE.later_modules({"number": "03", "modules": ["minimcp/server/core.py"]}, graph, owner) == [
        "minimcp.server.tools"]
