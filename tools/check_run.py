"""Running a lesson's exercise tests, for ``tools/check.py``, and what came out of them.

Two things are read here. *Before* the run, from the test file itself (without importing it): each
test's docstring, which is its hint, and the part of the exercise it belongs to. A test file is
cut into parts by comments like this one, one per part of the exercise, in the part's order::

    # -- Exercise 2 · A lifecycle guard ---------------------------------------------------

Every test defined below such a line, up to the next one, belongs to that part. *After* the run,
from the report that ``tools/check_pytest.py`` wrote inside the child pytest: each test's outcome.
"""

from __future__ import annotations

import ast
import inspect
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools import exercises

TOOLS = Path(__file__).resolve().parent

#: How long one run of the tests may take before it is stopped. Each test has its own, shorter,
#: limit too (pytest-timeout, set in pyproject.toml).
RUN_TIMEOUT = 900.0


# --------------------------------------------------------------------------------------------
# Before the run: hints and parts, from the test file's text
# --------------------------------------------------------------------------------------------

#: ``# -- Exercise 2 · A lifecycle guard -----``: the start of a part, in a test file.
PART_RE = re.compile(r"^#\s*--\s*Exercise\s+(?P<number>\d+)\s*[·:.]?\s*(?P<title>.*?)[\s-]*$")


@dataclass(frozen=True)
class Part:
    """One numbered part of an exercise: "2 · A lifecycle guard"."""

    number: int
    title: str


@dataclass
class Outline:
    """What a test file says about its tests, each named ``test_x`` or ``TestClass.test_x``."""

    parts: list[Part] = field(default_factory=list)
    hints: dict[str, str] = field(default_factory=dict)  # name -> docstring
    part_of: dict[str, int] = field(default_factory=dict)  # name -> part number
    node_ids: dict[str, str] = field(
        default_factory=dict
    )  # name -> "test_x" or "TestClass::test_x"

    def find_part(self, number: int) -> Part | None:
        return next((part for part in self.parts if part.number == number), None)

    def tests_of(self, number: int) -> list[str]:
        """The node ids (within the file) of part ``number``'s tests, in the file's order."""
        return [self.node_ids[name] for name, part in self.part_of.items() if part == number]


def read_test_file(path: Path) -> Outline:
    """The hints and parts of ``path``; an empty :class:`Outline` when it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
    except (OSError, SyntaxError, UnicodeDecodeError):
        return Outline()
    found = Outline()
    starts: list[tuple[int, Part]] = []  # (line, part), in the file's order
    for line_number, line in enumerate(text.splitlines(), start=1):
        match = PART_RE.match(line.strip())
        if match:
            part = Part(int(match["number"]), match["title"])
            starts.append((line_number, part))
            found.parts.append(part)

    def visit(body: list[ast.stmt], cls: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith(
                "test"
            ):
                name = f"{cls}.{node.name}" if cls else node.name
                found.node_ids[name] = f"{cls}::{node.name}" if cls else node.name
                doc = ast.get_docstring(node)
                if doc:
                    found.hints[name] = inspect.cleandoc(doc)
                above = [part for line, part in starts if line < node.lineno]
                if above:
                    found.part_of[name] = above[-1].number
            elif isinstance(node, ast.ClassDef) and node.name.startswith("Test") and not cls:
                visit(node.body, node.name)

    visit(tree.body, "")
    return found


# --------------------------------------------------------------------------------------------
# The outcome of a run
# --------------------------------------------------------------------------------------------


@dataclass
class Result:
    """One test's outcome, as the student sees it."""

    name: str  # "test_read_frame", "test_read_frame[crlf]" or "TestDecoder.test_feed"
    outcome: str  # "passed", "failed", "error" (setup/teardown), "skipped" or "not started"
    message: list[str] = field(default_factory=list)  # what went wrong, every line of it
    hint: str = ""  # the test's docstring
    part: int | None = None  # the part of the exercise it checks
    params: dict[str, str] = field(
        default_factory=dict
    )  # a parametrized test's input: name -> repr
    location: str = (
        ""  # "lessons/02-stdio/exercise.py:57", where the error surfaced in the exercise
    )
    test_location: str = ""  # "tests/exercises/test_02_stdio.py:40", the test's line that failed
    test_line: str = ""  # the code on that line
    collection: bool = False  # the test file itself could not be collected

    @property
    def base(self) -> str:
        """The name without the parameters: the test function, whatever its input."""
        return self.name.split("[", 1)[0]


@dataclass
class Run:
    """One lesson's tests, run (or only collected) by pytest."""

    lesson: exercises.Lesson
    copy: str  # "lessons" or "solutions"
    returncode: int
    results: list[Result] = field(default_factory=list)
    parts: list[Part] = field(default_factory=list)
    output: str = ""  # pytest's own output, for when something went wrong outside the tests
    timed_out: bool = False

    def count(self, outcome: str) -> int:
        return sum(1 for result in self.tests if result.outcome == outcome)

    @property
    def collection_errors(self) -> list[Result]:
        return [result for result in self.results if result.collection]

    @property
    def tests(self) -> list[Result]:
        return [result for result in self.results if not result.collection]

    @property
    def all_passed(self) -> bool:
        tests = self.tests
        return (
            not self.timed_out
            and bool(tests)
            and not self.collection_errors
            and self.count("passed") == len(tests)
        )


# --------------------------------------------------------------------------------------------
# Running pytest
# --------------------------------------------------------------------------------------------


def pytest_command(
    report: Path,
    exercise_files: Iterable[Path],
    targets: Iterable[str],
    root: Path,
    extra_args: Iterable[str] = (),
) -> list[str]:
    """The command that runs pytest on ``targets`` (files or node ids) with check_pytest's recorder."""
    return [
        sys.executable,
        str(TOOLS / "check_pytest.py"),
        str(report),
        *(str(path) for path in exercise_files),
        "--",
        *targets,
        "-q",
        "--color=no",
        # The project's addopts turn on nbval for the notebooks; an exercise check needs none of
        # that. Everything else in pyproject.toml (asyncio_mode, timeout) still applies.
        "-o",
        "addopts=",
        "-p",
        "no:nbval",
        "-p",
        "no:cacheprovider",
        f"--rootdir={root}",
        # Assertion messages in full, as `pytest -vv` shows them: the checker prints the
        # expected and the actual value whole.
        "-o",
        "verbosity_assertions=2",
        # pytest's own tracebacks are not shown (unless --verbose): the short kind is quicker to make.
        "--tb=native",
        *extra_args,
    ]


def run_pytest(
    root: Path,
    copy: str,
    exercise_files: list[Path],
    targets: list[str],
    extra_args: Iterable[str] = (),
    timeout: float = RUN_TIMEOUT,
) -> tuple[int, str, list[dict[str, Any]], bool]:
    """Run pytest in a child process against ``copy``: ``(returncode, output, records, timed_out)``."""
    env = dict(os.environ)
    env["MCP_COURSE_EXERCISES"] = copy  # the `exercise` fixture then loads this copy
    env["PYTHONIOENCODING"] = "utf-8"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("PYTEST_ADDOPTS", None)  # the run must not depend on the caller's shell
    with tempfile.TemporaryDirectory(prefix="mcp-course-check-") as tmp:
        report = Path(tmp) / "report.jsonl"
        command = pytest_command(report, exercise_files, targets, root, extra_args)
        returncode, timed_out = -1, False
        try:
            done = subprocess.run(
                command,
                cwd=root,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                timeout=timeout,
            )
            returncode, output = done.returncode, done.stdout.decode("utf-8", "replace")
        except subprocess.TimeoutExpired as expired:
            output, timed_out = (expired.stdout or b"").decode("utf-8", "replace"), True
        lines = report.read_text(encoding="utf-8").splitlines() if report.is_file() else []
    return returncode, output, [json.loads(line) for line in lines if line.strip()], timed_out


def run_lesson_tests(
    lesson: exercises.Lesson,
    copy: str = "lessons",
    extra_args: tuple[str, ...] = (),
    timeout: float = RUN_TIMEOUT,
    part: int | None = None,
) -> Run:
    """Run ``lesson``'s exercise tests (only part ``part``'s, if given) against ``copy``."""
    target = lesson.relative(lesson.test_file)
    targets = [target]
    if part is not None:
        targets = [f"{target}::{node}" for node in read_test_file(lesson.test_file).tests_of(part)]
    returncode, output, records, timed_out = run_pytest(
        lesson.root, copy, [_exercise_file(lesson, copy)], targets, extra_args, timeout
    )
    return make_run(lesson, copy, records, returncode, output, timed_out)


def run_course(
    lessons: list[exercises.Lesson], started: set[str], timeout: float = RUN_TIMEOUT
) -> list[Run]:
    """Every lesson's tests against the student's copies, in one pytest run.

    The tests of a lesson not in ``started`` (names) are collected, to be counted, but not run:
    its copy is untouched, so they all fail by design (the course's own tests prove it).
    """
    if not lessons:
        return []
    root = lessons[0].root
    targets = [
        lesson.relative(lesson.test_file) for lesson in lessons if lesson.test_file.is_file()
    ]
    skipped = [
        f"--deselect={lesson.relative(lesson.test_file)}"
        for lesson in lessons
        if lesson.name not in started
    ]
    # One lesson's test file that cannot even be loaded must not stop the others from running.
    options = ["--continue-on-collection-errors", *skipped]
    files = [lesson.stub for lesson in lessons]
    returncode, output, records, timed_out = run_pytest(
        root, "lessons", files, targets, options, timeout
    )
    return [
        make_run(lesson, "lessons", records, returncode, output, timed_out) for lesson in lessons
    ]


def _exercise_file(lesson: exercises.Lesson, copy: str) -> Path:
    return lesson.solution if copy == "solutions" else lesson.stub


def make_run(
    lesson: exercises.Lesson,
    copy: str,
    records: list[dict[str, Any]],
    returncode: int,
    output: str,
    timed_out: bool,
) -> Run:
    """``lesson``'s :class:`Run`, from the records of check_pytest's report that concern it.

    A test collected but never run is "not started" when the run was whole (its lesson was left
    out on purpose), and an error when the run was cut short.
    """
    file = lesson.relative(lesson.test_file)
    known = read_test_file(lesson.test_file)
    outcomes = {record["nodeid"]: record for record in records if record["event"] == "result"}
    run = Run(lesson, copy, returncode, parts=known.parts, output=output, timed_out=timed_out)
    for record in records:
        if record["event"] == "collection error" and record["nodeid"].split("::")[0] == file:
            run.results.append(
                Result(name=file, outcome="error", message=record["message"], collection=True)
            )
        if record["event"] != "collected" or record["file"] != file:
            continue
        name = record["nodeid"].split("::", 1)[1].replace("::", ".")
        key = f"{record['cls']}.{record['function']}" if record["cls"] else record["function"]
        result = Result(
            name=name,
            outcome="not started",
            hint=known.hints.get(key, ""),
            part=known.part_of.get(key),
            params=record["params"],
        )
        done = outcomes.get(record["nodeid"])
        if done is not None:
            _fill(result, done)
        elif timed_out or returncode not in (0, 1, 5):
            result.outcome, result.message = (
                "error",
                ["did not run: the test run was stopped before it"],
            )
        run.results.append(result)
    return run


def _fill(result: Result, record: dict[str, Any]) -> None:
    """Copy a test's outcome from its ``result`` record; a stub's NotImplementedError is "not started"."""
    result.outcome = "not started" if record.get("stub") else record["outcome"]
    result.message = record.get("message", [])
    result.location = record.get("exercise_at", "")
    result.test_location = record.get("test_at", "")
    result.test_line = record.get("test_line", "")
