"""Each lesson adds files: the code of lesson N stands without the lessons after it.

A student reads lesson 04 as lesson 04's modules and what they import, package ``__init__`` files
included, since Python runs them. ``course.toml`` says which lesson builds each module; from it,
``tools/course.py`` computes each lesson's *closure* (everything importing its modules runs) and
the modules of later lessons found in it. ``python tools/course.py closure`` prints the table.

A later lesson plugs into an earlier one through a seam the earlier one offers (a parameter, a hook,
a strategy passed in); it is never imported by it. So every lesson's list here is empty.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tools import course

ROOT = Path(__file__).resolve().parents[1]


def later_modules(number: str) -> set[str]:
    graph = course.import_graph(ROOT / "minimcp")
    entry = course.lesson(number)
    return {
        name.removeprefix("minimcp.")
        for name in course.later_modules(entry, graph, course.owners())
    }


LESSONS_WITH_CODE = [entry["number"] for entry in course.lessons() if entry.get("modules")]


@pytest.mark.parametrize("number", LESSONS_WITH_CODE)
def test_a_lesson_imports_nothing_of_the_lessons_after_it(number: str) -> None:
    assert later_modules(number) == set()


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
    graph = course.import_graph(package)
    owner = {
        "minimcp.rpc.connection": "01",
        "minimcp.server.core": "03",
        "minimcp.server.tools": "04",
        "minimcp.session.cancellation": "09",
    }
    assert course.later_modules(
        {"number": "01", "modules": ["minimcp/rpc/connection.py"]}, graph, owner
    ) == ["minimcp.session.cancellation"]
    assert course.later_modules(
        {"number": "03", "modules": ["minimcp/server/core.py"]}, graph, owner
    ) == ["minimcp.server.tools"]
