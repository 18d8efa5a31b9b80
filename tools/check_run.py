"""Running a lesson's exercise tests, for ``tools/check.py``, and what came out of them.

pytest runs in a child process, with the recorder of ``tools/check_pytest.py``, which writes each
test's outcome to a report. Each outcome is then matched with what the test file says about the
test before any run (its hint and its part: ``tools/check_outline.py``), in the lesson's language.

Which copy the child's ``exercise`` fixture loads, two environment variables say (see
``tests/exercises/conftest.py``): ``MCP_COURSE_EXERCISES`` (``lessons`` or ``solutions``) and
``MCP_COURSE_EXERCISES_LANG`` (``es``: a lesson's ``exercise.es.py``, where it has one).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools import exercises
from tools.check_outline import Part, lesson_outline, read_test_file
from tools.messages import ENGLISH, text

TOOLS = Path(__file__).resolve().parent

#: How long one run of the tests may take before it is stopped. Each test has its own, shorter,
#: limit too (pytest-timeout, set in pyproject.toml).
RUN_TIMEOUT = 900.0


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
    # A parametrized test's input: name -> repr.
    params: dict[str, str] = field(default_factory=dict)
    # "lessons/02-stdio/exercise.py:57": where the error surfaced in the exercise.
    location: str = ""
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
    """The command that runs pytest on ``targets`` (files or node ids), with the recorder of
    ``tools/check_pytest.py``."""
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
        # pytest's own tracebacks are not shown (unless --verbose): the short kind is quicker to
        # make.
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
    language: str = ENGLISH,
) -> tuple[int, str, list[dict[str, Any]], bool]:
    """Run pytest in a child process against ``copy``, in ``language`` where a lesson has it.

    Returns ``(returncode, output, records, timed_out)``: ``records`` are the report's lines.
    """
    env = dict(os.environ)
    env["MCP_COURSE_EXERCISES"] = copy  # the `exercise` fixture then loads this copy
    env["MCP_COURSE_EXERCISES_LANG"] = language  # ... in this language, where the lesson has it
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
    """Run ``lesson``'s exercise tests (only part ``part``'s, if given) against ``copy``, in the
    lesson's language."""
    target = lesson.relative(lesson.test_file)
    targets = [target]
    if part is not None:
        targets = [f"{target}::{node}" for node in read_test_file(lesson.test_file).tests_of(part)]
    files = [_exercise_file(lesson, copy)]
    returncode, output, records, timed_out = run_pytest(
        lesson.root, copy, files, targets, extra_args, timeout, lesson.language
    )
    return make_run(lesson, copy, records, returncode, output, timed_out)


def run_course(
    lessons: list[exercises.Lesson],
    started: set[str],
    timeout: float = RUN_TIMEOUT,
    language: str = ENGLISH,
) -> list[Run]:
    """Every lesson's tests against the student's copies (in ``language`` where a lesson has it:
    give the lessons :meth:`~tools.exercises.Lesson.in_language`), in one pytest run.

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
        root, "lessons", files, targets, options, timeout, language
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
    known = lesson_outline(lesson)
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
            result.outcome = "error"
            result.message = [text("run.stopped_before")]
        run.results.append(result)
    return run


def _fill(result: Result, record: dict[str, Any]) -> None:
    """Copy a test's outcome from its ``result`` record.

    A stub's ``NotImplementedError`` is "not started", not a failure.
    """
    result.outcome = "not started" if record.get("stub") else record["outcome"]
    result.message = record.get("message", [])
    result.location = record.get("exercise_at", "")
    result.test_location = record.get("test_at", "")
    result.test_line = record.get("test_line", "")
