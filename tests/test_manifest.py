"""The course manifest, ``course.toml``, kept honest: it names every file, and every file it names
exists.

``course.toml`` is where a newcomer looks first (and what ``tools/check.py`` reads), so it must
agree with the repository in both directions:

* every path it names (page, more pages, notebook, exercise, solution, tests, modules) exists;
* every lesson file on disk (page, notebook, exercise, solution, exercise tests) is named by a
  lesson;
* every minimcp module that a lesson builds is named by exactly one lesson's ``modules``;
* the README's lesson table shows the same lessons, titles and modules.

These tests only read files: they are fast and need no network.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tools import course

ROOT = Path(__file__).resolve().parents[1]
LESSONS: list[dict[str, Any]] = course.lessons(ROOT)
NUMBERED = [entry for entry in LESSONS if int(entry["number"]) >= 1]  # lesson 00 is text only

#: The keys of a lesson that name one file, and those that name a list of files.
SINGLE_PATHS = ("page", "notebook", "exercise", "solution")
PATH_LISTS = ("more_pages", "tests", "modules")

#: The lesson files a lesson must name, as glob patterns. ``[0-9][0-9]-`` leaves out the
#: appendices (lessons/appendix-cables, notebooks/appendix-cables.ipynb): they are no lesson.
LESSON_FILES = (
    "lessons/[0-9][0-9]-*/*.md",
    "lessons/[0-9][0-9]-*/exercise.py",
    "notebooks/[0-9][0-9]-*.ipynb",
    "solutions/[0-9][0-9]-*/exercise.py",
    "tests/exercises/test_[0-9][0-9]_*.py",
)


def named_paths(entry: dict[str, Any]) -> list[str]:
    """Every path a lesson's entry names, in the order it names them."""
    single = [entry[key] for key in SINGLE_PATHS if key in entry]
    return single + [path for key in PATH_LISTS for path in entry.get(key, [])]


def all_named_paths() -> set[str]:
    return {path for entry in LESSONS for path in named_paths(entry)}


def is_lesson_module(path: str) -> bool:
    """True for a minimcp module that some lesson builds (``path`` like ``minimcp/rpc/jsonrpc.py``).

    Not lesson modules: the packages' ``__init__.py`` (they only re-export) and ``minimcp/lazy.py``
    (how they re-export without importing a later lesson), the command line
    (``minimcp/cli.py``, ``minimcp/__main__.py``), and ``minimcp/examples/`` (the conformance
    server and the demonstrations use every lesson's work at once). A lesson may still name one.
    """
    if path.endswith("/__init__.py") or path in (
        "minimcp/__main__.py",
        "minimcp/cli.py",
        "minimcp/lazy.py",
    ):
        return False
    return not path.startswith("minimcp/examples/")


def lesson_modules_on_disk() -> list[str]:
    found = (path.relative_to(ROOT).as_posix() for path in (ROOT / "minimcp").rglob("*.py"))
    return sorted(path for path in found if is_lesson_module(path))


# --------------------------------------------------------------------------------------------
# The manifest and the files
# --------------------------------------------------------------------------------------------


def test_lesson_numbers_are_unique() -> None:
    # tools/course.py finds a lesson by its number: two lessons with one number would hide one.
    numbers = Counter(entry["number"] for entry in LESSONS)
    assert not [number for number, count in numbers.items() if count > 1], numbers


@pytest.mark.parametrize("entry", LESSONS, ids=[entry["number"] for entry in LESSONS])
def test_every_named_path_exists(entry: dict[str, Any]) -> None:
    missing = [path for path in named_paths(entry) if not (ROOT / path).is_file()]
    assert not missing, (
        f"course.toml, lesson {entry['number']} names files that do not exist: {missing}"
    )


@pytest.mark.parametrize("pattern", LESSON_FILES)
def test_every_lesson_file_is_named(pattern: str) -> None:
    on_disk = sorted(path.relative_to(ROOT).as_posix() for path in ROOT.glob(pattern))
    # A Spanish twin (index.es.md, 04-tools.es.ipynb, exercise.es.py) is named by its English file.
    english = {path: re.sub(r"\.es(\.\w+)$", r"\1", path) for path in on_disk}
    forgotten = [path for path in on_disk if english[path] not in all_named_paths()]
    assert not forgotten, f"no lesson in course.toml names these files: {forgotten}"


def test_every_module_is_named_by_exactly_one_lesson() -> None:
    owners: dict[str, list[str]] = {}
    for entry in LESSONS:
        for module in entry.get("modules", []):
            owners.setdefault(module, []).append(entry["number"])
    planned = set(course.load().get("planned", {}).get("modules", []))  # lessons to come
    unnamed = [
        module
        for module in lesson_modules_on_disk()
        if module not in owners and module not in planned
    ]
    twice = {module: numbers for module, numbers in owners.items() if len(numbers) > 1}
    problems = []
    if unnamed:
        problems.append(
            f"named by no lesson's `modules` (add each to the lesson that builds it): {unnamed}"
        )
    if twice:
        problems.append(f"named by more than one lesson (module: lessons): {twice}")
    assert not problems, "course.toml: " + "\n".join(problems)


# --------------------------------------------------------------------------------------------
# The README's lesson table
# --------------------------------------------------------------------------------------------

# A row of the table: `| 05 · Resources and templates | what you build | `minimcp/...`, ... |`.
_ROW_RE = re.compile(r"^\|\s*(?P<number>\d\d)\s*·\s*(?P<title>[^|]*?)\s*\|")


def readme_rows() -> dict[str, tuple[str, str]]:
    """The README's lesson table: ``{number: (title, last column)}``."""
    rows = {}
    for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines():
        match = _ROW_RE.match(line.strip())
        if match:
            cells = line.strip().strip("|").split("|")
            rows[match["number"]] = (match["title"], cells[-1].strip())
    return rows


def titles_agree(readme: str, manifest: str) -> bool:
    """The README may shorten a title ("stdio" for "stdio: pipes and framing"), or the other way
    round."""
    readme, manifest = readme.strip().lower(), manifest.strip().lower()
    return readme.startswith(manifest) or manifest.startswith(readme)


def module_problems(column: str, modules: list[str]) -> list[str]:
    """What is wrong with the ``minimcp/...`` paths in backticks of a row's last column."""
    problems = []
    for path in re.findall(r"`(minimcp/[^`]*)`", column):
        target = path.rstrip("/")
        if not (ROOT / target).exists():
            problems.append(f"`{path}` does not exist")
        elif (ROOT / target).is_dir():
            # A folder stands for the modules in it: it must hold at least one of the lesson's.
            if not any(module.startswith(target + "/") for module in modules):
                problems.append(f"`{path}` holds none of the lesson's modules")
        elif target not in modules:
            problems.append(f"`{path}` is not one of the lesson's modules in course.toml")
    return problems


@pytest.mark.parametrize("entry", NUMBERED, ids=[entry["number"] for entry in NUMBERED])
def test_readme_table_agrees_with_the_manifest(entry: dict[str, Any]) -> None:
    number, title = entry["number"], entry["title"]
    rows = readme_rows()
    assert number in rows, f"README.md's lesson table has no row `| {number} · {title} | ... |`"
    readme_title, column = rows[number]
    assert titles_agree(readme_title, title), (
        f"README.md calls lesson {number} {readme_title!r}, course.toml {title!r}: "
        "one must start the other"
    )
    problems = module_problems(column, entry.get("modules", []))
    assert not problems, f"README.md, lesson {number}'s row: " + "; ".join(problems)
