"""Check your exercise: the one command you need while practising.

    python tools/check.py 02        # check lesson 02's exercise (also: 2, 02-stdio)
    python tools/check.py           # every lesson with an exercise, and how far you got

It runs the lesson's tests (``tests/exercises/test_NN_slug.py``) against *your* copy,
``lessons/NN-slug/exercise.py``, and prints one line per test: passed, or failed with a hint (the
test's docstring) and the first line of what went wrong. The exit code is 0 only when every test
passes, so it also works in scripts.

Which lessons have an exercise, and each one's files (exercise, solution, tests, page, notebook),
come from the course manifest, ``course.toml``, read by ``tools/exercises.py``.

Options: ``--solutions`` checks the worked answers instead of your copy (the tests must pass on
them); ``--root DIR`` (or the environment variable ``MCP_COURSE_ROOT``) checks another checkout.

Under the hood it is plain pytest, run in a child process with ``MCP_COURSE_EXERCISES=lessons``
(the ``exercise`` fixture then loads your copy). ``--verbose`` also shows pytest's own output, with
full tracebacks.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import inspect
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TextIO

TOOLS = Path(__file__).resolve().parent

#: How long one lesson's test run may take before it is stopped. Each test has its own,
#: shorter, limit too (pytest-timeout, set in pyproject.toml).
RUN_TIMEOUT = 900.0


def _load_exercises_tool() -> ModuleType:
    """tools/exercises.py, loaded from its path (so no other module named `exercises` can shadow it)."""
    name = "mcp_course_tools_exercises"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, TOOLS / "exercises.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


exercises = _load_exercises_tool()


# --------------------------------------------------------------------------------------------
# Running a lesson's tests
# --------------------------------------------------------------------------------------------


@dataclass
class Result:
    """One test's outcome, as the student sees it."""

    name: str  # "test_read_frame" or "test_read_frame[crlf]"
    outcome: str  # "passed", "failed", "error" (setup/teardown/collection) or "skipped"
    message: str = ""  # the first line of what went wrong
    hint: str = ""  # the test's docstring
    location: str = ""  # "lessons/02-stdio/exercise.py:57", where the error surfaced in the exercise
    collection: bool = False  # the test file itself could not be collected


@dataclass
class Run:
    """One pytest run over a lesson's test file."""

    lesson: exercises.Lesson
    copy: str  # "lessons" or "solutions"
    returncode: int
    results: list[Result] = field(default_factory=list)
    output: str = ""  # pytest's own output, for when something went wrong outside the tests
    timed_out: bool = False

    def count(self, outcome: str) -> int:
        return sum(1 for result in self.results if result.outcome == outcome)

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
            self.returncode == 0
            and not self.timed_out
            and bool(tests)
            and not self.collection_errors
            and all(result.outcome == "passed" for result in tests)
        )


def pytest_command(lesson: exercises.Lesson, junit: Path, extra_args: tuple[str, ...] = ()) -> list[str]:
    """The pytest command line that runs ``lesson``'s tests and writes a JUnit XML report."""
    return [
        sys.executable,
        "-m",
        "pytest",
        str(lesson.test_file),
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
        f"--rootdir={lesson.root}",
        f"--junitxml={junit}",
        "-o",
        "junit_family=xunit2",
        *extra_args,
    ]


def run_lesson_tests(
    lesson: exercises.Lesson,
    copy: str = "lessons",
    extra_args: tuple[str, ...] = (),
    timeout: float = RUN_TIMEOUT,
) -> Run:
    """Run ``lesson``'s exercise tests against ``copy`` ("lessons" or "solutions") in a child process."""
    env = dict(os.environ)
    env["MCP_COURSE_EXERCISES"] = copy
    env["PYTHONIOENCODING"] = "utf-8"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("PYTEST_ADDOPTS", None)  # the run must not depend on the caller's shell
    with tempfile.TemporaryDirectory(prefix="mcp-course-check-") as tmp:
        junit = Path(tmp) / "report.xml"
        command = pytest_command(lesson, junit, extra_args)
        try:
            done = subprocess.run(
                command,
                cwd=lesson.root,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired as expired:
            output = (expired.stdout or b"").decode("utf-8", "replace")
            return Run(lesson, copy, returncode=-1, output=output, timed_out=True)
        output = done.stdout.decode("utf-8", "replace")
        results = parse_junit(junit, lesson) if junit.is_file() else []
    return Run(lesson, copy, done.returncode, results, output)


def parse_junit(path: Path, lesson: exercises.Lesson) -> list[Result]:
    """The tests of a pytest JUnit XML report, in the order they ran, with their hints."""
    hints = docstring_hints(lesson.test_file)
    results = []
    for case in ET.parse(path).getroot().iter("testcase"):
        name = case.get("name", "?")
        class_name = (case.get("classname") or "").rsplit(".", 1)[-1]
        base = name.split("[", 1)[0]
        hint = hints.get(f"{class_name}.{base}") or hints.get(base, "")
        failure = case.find("failure")
        error = case.find("error")
        skipped = case.find("skipped")
        collection = False
        if failure is not None:
            message, text, outcome = failure.get("message", ""), failure.text or "", "failed"
        elif error is not None:
            message, text, outcome = error.get("message", ""), error.text or "", "error"
            collection = message == "collection failure"
            if collection:
                name, hint = lesson.relative(lesson.test_file), ""
                message = _last_error_line(text) or message
            else:
                # 'failed on setup with "NotImplementedError: x"' -> the part a student needs.
                inner = re.match(r'^failed on (?:setup|teardown) with "(.*)"$', message, re.DOTALL)
                message = inner[1] if inner else message
        elif skipped is not None:
            message, text, outcome = skipped.get("message", ""), "", "skipped"
        else:
            message, text, outcome = "", "", "passed"
        summary, where = _summarize(message, lesson)
        results.append(
            Result(
                name=name,
                outcome=outcome,
                message=summary,
                hint=hint,
                location=where or _exercise_location(text, lesson),
                collection=collection,
            )
        )
    return results


def _summarize(message: str, lesson: exercises.Lesson) -> tuple[str, str]:
    """The line of an error message a student needs first, and a ``path:line`` if it names one.

    Usually that is the first line (``NotImplementedError: read_frame``, ``assert 3 == 4``). A
    SyntaxError starts with ``File "...", line N`` instead; then the ``SyntaxError: ...`` line is
    the one, and the file and line become the location.
    """
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    if not lines:
        return "", ""
    place = re.match(r'^File "(?P<path>[^"]+)", line (?P<line>\d+)', lines[0])
    if not place:
        return lines[0], ""
    error = next((line for line in reversed(lines) if re.match(r"^[A-Za-z_][\w.]*: ", line)), lines[-1])
    path = Path(place["path"])
    try:
        shown = path.resolve().relative_to(lesson.root.resolve()).as_posix()
    except ValueError:
        shown = place["path"]
    return error, f"{shown}:{place['line']}"


def docstring_hints(test_file: Path) -> dict[str, str]:
    """Each test's docstring, keyed by ``name`` and ``Class.name``: the hints shown on failure."""
    try:
        tree = ast.parse(test_file.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return {}
    hints: dict[str, str] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
                doc = ast.get_docstring(node)
                if doc:
                    hints[f"{prefix}{node.name}"] = inspect.cleandoc(doc)
            elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                visit(node.body, f"{node.name}.")

    visit(tree.body, "")
    return hints


def _exercise_location(traceback: str, lesson: exercises.Lesson) -> str:
    """The last ``path:line`` of the traceback that lies in the exercise file, or ""."""
    # Either copy may be the one under test (the student's, or the solution with --solutions).
    exercise_files = (lesson.relative(lesson.stub), lesson.relative(lesson.solution))
    found = ""
    for match in re.finditer(r"^(\S[^\n]*?):(\d+): ", traceback, re.MULTILINE):
        path = match[1].replace("\\", "/")
        if path.endswith(exercise_files):
            found = f"{path}:{match[2]}"
    return found


def _last_error_line(text: str) -> str:
    """The last ``E   ...`` line of a pytest report: the error itself."""
    lines = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
    return lines[-1] if lines else ""


# --------------------------------------------------------------------------------------------
# Printing
# --------------------------------------------------------------------------------------------


class Marks:
    """The symbols of the report: ✓ ✗ · — where the terminal can print them, plain ASCII otherwise."""

    def __init__(self, stream: TextIO) -> None:
        encoding = getattr(stream, "encoding", None) or "ascii"
        try:
            "✓✗·—".encode(encoding)
            fancy = True
        except (UnicodeEncodeError, LookupError):
            fancy = False
        self.ok, self.bad, self.dot, self.dash = ("✓", "✗", "·", "—") if fancy else ("+", "x", "-", "--")


def lesson_line(lesson: exercises.Lesson, marks: Marks) -> str:
    """Where to read about ``lesson``, from the manifest: its title, its page and its notebook.

    ``Lesson 05 · Resources and templates — page lessons/05-resources/index.md, notebook ...``
    """
    heading = f"Lesson {lesson.number} {marks.dot} {lesson.title}" if lesson.title else f"Lesson {lesson.name}"
    places = [
        f"{kind} {lesson.relative(path)}"
        for kind, path in (("page", lesson.page), ("notebook", lesson.notebook))
        if path is not None
    ]
    return f"{heading} {marks.dash} {', '.join(places)}" if places else heading


def print_result(result: Result, marks: Marks, out: TextIO) -> None:
    """One test's lines: ``✓ passed  name``, or ``✗ failed  name`` with its hint, error and place."""
    say = lambda text="": print(text, file=out)  # noqa: E731
    if result.outcome == "passed":
        say(f"  {marks.ok} passed  {result.name}")
        return
    label = {"failed": "failed ", "error": "error  ", "skipped": "skipped"}.get(result.outcome, "failed ")
    say(f"  {marks.bad} {label} {result.name}")
    if result.hint:
        lines = result.hint.splitlines()
        say(f"            hint: {lines[0]}")
        for line in lines[1:]:
            say(f"                  {line}" if line.strip() else "")
    if result.message:
        say(f"            got:  {result.message}")
    if result.location:
        say(f"            at:   {result.location}")


def print_run(run: Run, marks: Marks, out: TextIO, verbose: bool = False) -> None:
    """One lesson's report: a line per test, a hint under each failure, a summary, the next step.

    With ``verbose``, pytest's own output (with full tracebacks) comes first.
    """
    lesson = run.lesson
    target = lesson.stub if run.copy == "lessons" else lesson.solution
    number = lesson.number
    say = lambda text="": print(text, file=out)  # noqa: E731

    if verbose:
        say(run.output.rstrip())
        say()
    say(f"Lesson {lesson.name}: checking {lesson.relative(target)}")
    say()
    for error in run.collection_errors:
        say(f"  {marks.bad} error   {error.name} could not be loaded")
        if error.message:
            say(f"            {error.message}")
    for result in run.tests:
        print_result(result, marks, out)

    tests = run.tests
    passed = run.count("passed")
    say()
    if run.timed_out:
        say(f"The tests did not finish within {RUN_TIMEOUT:.0f} s and were stopped.")
        say("Does your code wait for something that never comes?")
    elif not tests:
        say("No test ran. pytest said:")
        say(_tail(run.output))
    elif run.collection_errors or run.returncode not in (0, 1):
        say(f"{passed}/{len(tests)} passed, but pytest reported a problem outside the tests:")
        say(_tail(run.output))
    if tests and run.all_passed:
        say(f"{passed}/{len(tests)} passed. Lesson {lesson.name} is done: well done!")
        following = [other for other in exercises.discover(lesson.root) if int(other.number) > int(number)]
        if run.copy == "solutions":
            say("(These are the worked answers in solutions/; your own copy is checked without --solutions.)")
        elif following:
            after = following[0]
            say(f"Next: lesson {after.name}, checked with `python tools/check.py {after.number}`.")
        else:
            say("That was the last exercise so far. Congratulations!")
    elif tests:
        first = next(result for result in tests if result.outcome != "passed")
        say(f"{passed}/{len(tests)} passed.")
        if passed == 0:
            say(f"Start with {first.name}: its hint above says what to write in {lesson.relative(target)}.")
        else:
            say(f"Good progress. Next to fix: {first.name}, in {lesson.relative(target)}.")
        say(f"Run `python tools/check.py {number}` again when you are ready.")
        if not verbose:
            say(f"To see pytest's full tracebacks: `python tools/check.py {number} --verbose`.")


def _tail(output: str, lines: int = 30) -> str:
    kept = output.rstrip().splitlines()[-lines:]
    return "\n".join(f"    {line}" for line in kept)


def print_progress(root: Path, marks: Marks, out: TextIO) -> int:
    """Every lesson's status, like a progress bar made of lines; runs tests only on copies you edited."""
    say = lambda text="": print(text, file=out)  # noqa: E731
    lessons = exercises.discover(root)
    say("MCP from Scratch: your exercises")
    say()
    if not lessons:
        say("  No lesson has an exercise yet.")
        return 0
    width = max(len(lesson.name) for lesson in lessons)
    next_up = None
    for lesson in lessons:
        mark, status, detail = _status(lesson, marks)
        say(f"  {lesson.name.ljust(width)}  {mark} {status.ljust(11)}  {detail}".rstrip())
        if next_up is None and status != "done":
            next_up = lesson
    say()
    if next_up is None:
        say("Every exercise passes. Congratulations!")
        return 0
    say(f"Next: open {next_up.relative(next_up.stub)}, then run `python tools/check.py {next_up.number}`.")
    return 1


def _status(lesson: exercises.Lesson, marks: Marks) -> tuple[str, str, str]:
    """``(mark, status, detail)`` of one lesson. An untouched copy is not run: it fails by design."""
    if not lesson.stub.is_file():
        return marks.bad, "missing", "(run `python tools/exercises.py generate`)"
    try:
        untouched = exercises.read_text(lesson.stub) == lesson.render()
    except exercises.ExerciseMarkerError as error:
        return marks.bad, "broken", f"({error})"
    if untouched:
        return marks.dot, "not started", ""
    if not lesson.test_file.is_file():
        return marks.bad, "no tests", f"({lesson.relative(lesson.test_file)} is missing)"
    run = run_lesson_tests(lesson)
    tests = run.tests
    if run.all_passed:
        return marks.ok, "done", f"{len(tests)}/{len(tests)} passed"
    if not tests:
        return marks.bad, "in progress", f"(the tests could not run: python tools/check.py {lesson.number})"
    return marks.bad, "in progress", f"{run.count('passed')}/{len(tests)} passed"


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python tools/check.py",
        description="Check your exercise for one lesson, or list every lesson and how far you got.",
    )
    parser.add_argument("lesson", nargs="?", help="the lesson: 02, 2 or 02-stdio (omit it to list them all)")
    parser.add_argument(
        "--solutions", action="store_true", help="check the worked answers in solutions/ instead of your copy"
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="also show pytest's own output, with full tracebacks"
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=Path(os.environ.get("MCP_COURSE_ROOT") or TOOLS.parent),
        help="the course's folder (default: the one this script is in, or $MCP_COURSE_ROOT)",
    )
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()
    out = sys.stdout
    if hasattr(out, "reconfigure"):
        out.reconfigure(errors="replace")  # a hint with a character the console lacks must not crash
    marks = Marks(out)

    try:
        if args.lesson is None:
            return print_progress(root, marks, out)
        lesson = exercises.find_lesson(args.lesson, root)
    except (LookupError, exercises.ManifestError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if not lesson.test_file.is_file():
        print(
            f"error: lesson {lesson.name} has no tests ({lesson.relative(lesson.test_file)})", file=sys.stderr
        )
        return 2
    # Printed before the tests run (they take a while), so the student can open the lesson meanwhile.
    print(lesson_line(lesson, marks), file=out, flush=True)
    run = run_lesson_tests(lesson, "solutions" if args.solutions else "lessons")
    print_run(run, marks, out, verbose=args.verbose)
    return 0 if run.all_passed else 1


if __name__ == "__main__":
    sys.exit(main())
