"""The student's checker, ``python tools/check.py``, end to end on a fake course.

Each test builds the fake course of ``test_exercise_machinery.make_course`` (the real tools, a demo
lesson whose tests come in two parts) in a temporary folder, and runs the checker on it in a child
process, as a student would. What is checked is what the student reads:

* the report is grouped by part, with a count per part, per lesson and in total;
* ``--part N`` runs that part's tests only, and an unknown part is a clear error;
* a test that only reaches the stub's ``NotImplementedError`` is "not started" (○), not a failure;
* a failure shows its input and the expected and actual values whole, however long;
* ``--watch`` checks again when the file is saved, and Ctrl-C ends it without a traceback.
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from support import ctrl_c_reaches_it
from test_exercise_machinery import (
    DEMO_SOLUTION,
    DEMO_TESTS,
    dedent,
    exercises,
    lesson_entry,
    make_course,
)

from tools.check_outline import read_test_file

#: How long a watching checker may take to stop after Ctrl-C: it first ends the check it may be
#: running (a pytest child), which on a loaded 2-core machine took over 30 s. A bound, not a budget.
STOP_TIMEOUT = 180

#: The student's copy of the demo, half done: one mistake in part 1 (double), one in part 2 (the
#: long string of shout), and double_later not started.
HALF_DONE = dedent(
    """
    import asyncio

    NAME = "demo"


    def double(x: int) -> int:
        return x + 1  # right for 1 only


    async def double_later(x: int) -> int:
        raise NotImplementedError("double_later")


    def shout(text: str) -> str:
        return text.upper()  # the "!" is missing
    """
)

#: The demo test file's long value, as it builds it, and what the right answer to it is.
LONG = " ".join(f"word{i}" for i in range(60))


def run_checker(
    root: Path, *args: str, encoding: str = "utf-8"
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(root / "tools" / "check.py"), "--root", str(root), *args],
        cwd=root,
        env=checker_env(encoding),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=180,
    )


def checker_env(encoding: str = "utf-8") -> dict[str, str]:
    env = dict(os.environ, PYTHONIOENCODING=encoding)
    env.pop("MCP_COURSE_EXERCISES", None)
    env.pop("MCP_COURSE_LANG", None)  # the language is the test's to choose, English by default
    env.pop("PYTEST_ADDOPTS", None)
    return env


@pytest.fixture
def course(tmp_path: Path) -> exercises.Lesson:
    """The fake course, its student's copy generated: the demo lesson, untouched."""
    root = make_course(tmp_path)
    assert exercises.main(["--root", str(root), "generate"]) == 0
    return exercises.find_lesson("01", root)


def between(text: str, start: str, end: str | None = None) -> str:
    """The part of ``text`` from the line ``start`` to the line ``end`` (or the end)."""
    assert start in text, text
    after = text[text.index(start) :]
    return after[: after.index(end)] if end else after


# --------------------------------------------------------------------------------------------
# Reading a test file's parts
# --------------------------------------------------------------------------------------------


def test_read_test_file_finds_parts_hints_and_node_ids(tmp_path: Path) -> None:
    path = tmp_path / "test_09_demo.py"
    path.write_text(
        dedent(
            '''
            def test_before(exercise):
                """Before any part."""

            # -- Exercise 1 · First things ------------------------------------------

            class TestA:
                def test_one(self, exercise):
                    """One."""

            # -- Exercise 2: Second things

            async def test_two(exercise):
                pass
            '''
        ),
        encoding="utf-8",
    )
    known = read_test_file(path)
    assert [(part.number, part.title) for part in known.parts] == [
        (1, "First things"),
        (2, "Second things"),
    ]
    assert known.part_of == {"TestA.test_one": 1, "test_two": 2}  # test_before is in no part
    assert known.hints == {"test_before": "Before any part.", "TestA.test_one": "One."}
    assert known.tests_of(1) == ["TestA::test_one"] and known.tests_of(2) == ["test_two"]
    assert read_test_file(tmp_path / "missing.py").parts == []


# --------------------------------------------------------------------------------------------
# One lesson: parts, counts, "not started", failures in full
# --------------------------------------------------------------------------------------------


def test_the_untouched_stub_is_not_started_part_by_part(course: exercises.Lesson) -> None:
    done = run_checker(course.root, "01")
    assert done.returncode == 1, done.stdout + done.stderr  # not started still is not passed
    out = done.stdout
    # First, where the lesson is explained, from course.toml.
    assert out.startswith(
        "Lesson 01 · Doubling things — page lessons/01-demo/index.md, "
        "notebook notebooks/01-demo.ipynb\n"
    )
    # A heading per part, in order, with its count; each test under its own part.
    part1 = between(out, "Part 1 · Doubling — 0/5 passed, 5 not started\n", "Part 2")
    part2 = between(
        out, "Part 2 · Names and shouting — 1/2 passed, 1 not started\n", "Lesson 01-demo:"
    )
    assert "○ not started  test_double\n" in part1
    assert "○ not started  test_double_small_numbers (3 cases)\n" in part1  # one line for the cases
    assert "○ not started  test_double_later\n" in part1
    assert "✓ passed       TestNames.test_name\n" in part2
    assert "○ not started  test_shout\n" in part2
    # Work to do is no failure: no red mark, and no error message under each test.
    assert "✗" not in out and "NotImplementedError: double\n" not in out
    assert "Lesson 01-demo: [" in out and "] 1/7 passed, 6 not started\n" in out
    # The next step: where the first stub is, and what its test expects.
    assert "Start with part 1 (Doubling).\n" in out
    assert re.search(
        r"Replace the `raise NotImplementedError` of double, at lessons/01-demo/exercise\.py:\d+,",
        out,
    )
    assert (
        "The next test to pass, test_double, expects this:\n    double(x) returns x + x.\n" in out
    )
    assert "python tools/check.py 01" in out


def test_a_real_failure_shows_its_input_and_both_values_whole(course: exercises.Lesson) -> None:
    course.stub.write_text(HALF_DONE, encoding="utf-8")
    done = run_checker(course.root, "01")
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    assert "Part 1 · Doubling — 1/5 passed, 3 failed, 1 not started\n" in out
    assert "Part 2 · Names and shouting — 1/2 passed, 1 failed\n" in out
    assert "] 2/7 passed, 4 failed, 1 not started\n" in out
    # A failure: its hint, what went wrong (with the call that gave the wrong value), the test's
    # line.
    failure = between(out, "✗ failed       test_double\n", "test_double_small_numbers")
    assert "hint:   double(x) returns x + x.\n" in failure
    assert "got:    assert 22 == 42\n" in failure
    assert "where 22 = double(21)" in failure  # the input, as pytest explains it
    assert (
        "test:   tests/exercises/test_01_demo.py:" in failure
        and "assert exercise.double(21) == 42" in failure
    )
    # A parametrized test: each failing case with its parameters; the passing case on its own line.
    assert "✓ passed       test_double_small_numbers[1]\n" in out
    case = between(
        out, "✗ failed       test_double_small_numbers[2]\n", "test_double_small_numbers[3]"
    )
    assert (
        "input:  x = 2\n" in case
        and "got:    assert 3 == (2 * 2)\n" in case
        and "where 3 = double(2)" in case
    )
    # still the stub's NotImplementedError: neutral
    assert "○ not started  test_double_later\n" in out
    # A long value is shown whole, expected and actual, as `pytest -vv` would (never "...").
    shout = between(out, "✗ failed       test_shout\n", "Lesson 01-demo:")
    assert f"got:    assert {LONG.upper()!r} == {(LONG.upper() + '!')!r}\n" in shout
    # and how they differ
    assert f"  - {LONG.upper()}!\n" in shout and f"  + {LONG.upper()}\n" in shout
    assert "..." not in shout and "Use -v" not in shout
    assert "Next to fix: test_double." in out


def test_an_error_in_the_exercise_is_located_in_it(course: exercises.Lesson) -> None:
    course.stub.write_text(
        HALF_DONE.replace("return x + 1  # right for 1 only", "return x + None"), encoding="utf-8"
    )
    out = run_checker(course.root, "01", "--part", "1").stdout
    failure = between(out, "✗ failed       test_double\n", "test_double_small_numbers")
    assert "got:    TypeError: unsupported operand type(s) for +: 'int' and 'NoneType'\n" in failure
    # `return x + None`, in the student's file
    assert "at:     lessons/01-demo/exercise.py:7\n" in failure

    course.stub.write_text("def double(x)\n    return x\n", encoding="utf-8")  # a syntax error
    out = run_checker(course.root, "01").stdout
    assert "SyntaxError: expected ':'" in out and "at:     lessons/01-demo/exercise.py:1\n" in out


def test_the_finished_copy_passes_every_part(course: exercises.Lesson) -> None:
    shutil.copy(course.solution, course.stub)
    done = run_checker(course.root, "1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Part 1 · Doubling — 5/5 passed\n" in done.stdout
    assert "Part 2 · Names and shouting — 2/2 passed\n" in done.stdout
    assert "✓ passed       test_double_small_numbers (3 cases)\n" in done.stdout
    assert "] 7/7 passed\n" in done.stdout and "✗" not in done.stdout and "○" not in done.stdout
    assert "Lesson 01-demo is done" in done.stdout

    # The worked answers pass too, and --verbose adds pytest's own report.
    done = run_checker(course.root, "--solutions", "--verbose", "01")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "These are the worked answers in solutions/" in done.stdout
    assert re.search(r"^7 passed in ", done.stdout, re.MULTILINE)

    # A missing copy is explained, not a traceback.
    course.stub.unlink()
    done = run_checker(course.root, "01-demo")
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr
    assert (
        "lessons/01-demo/exercise.py not found: run `python tools/exercises.py generate`"
        in done.stdout
    )


# --------------------------------------------------------------------------------------------
# --part N
# --------------------------------------------------------------------------------------------


def test_part_runs_only_that_parts_tests(course: exercises.Lesson) -> None:
    course.stub.write_text(HALF_DONE, encoding="utf-8")
    done = run_checker(course.root, "01", "--part", "2", "--verbose")
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    # pytest itself ran two tests: part 2's (its own summary line, from --verbose, says so).
    assert re.search(r"^1 failed, 1 passed in ", out, re.MULTILINE), out
    assert "Part 2 · Names and shouting — 1/2 passed, 1 failed\n" in out
    assert "Part 1" not in out and "test_double" not in out
    assert "Part 2 · Names and shouting: [" in out and "python tools/check.py 01 --part 2" in out

    shutil.copy(course.solution, course.stub)
    done = run_checker(course.root, "01", "--part", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Part 1 · Doubling — 5/5 passed\n" in done.stdout and "Part 2" not in done.stdout
    assert "Part 1 is done. Next: `python tools/check.py 01 --part 2`." in done.stdout


def test_an_unknown_part_is_a_clear_error(course: exercises.Lesson) -> None:
    done = run_checker(course.root, "01", "--part", "3")
    assert done.returncode == 2
    assert (
        "error: lesson 01-demo has no part 3 (its parts: 1 (Doubling), 2 (Names and shouting))"
        in done.stderr
    )
    assert done.stdout == ""  # nothing ran
    done = run_checker(course.root, "--part", "1")  # a part of which lesson?
    assert done.returncode == 2 and "--part and --watch need a lesson" in done.stderr
    done = run_checker(course.root, "7")
    assert done.returncode == 2 and "no lesson '7'" in done.stderr


# --------------------------------------------------------------------------------------------
# Every lesson at a glance
# --------------------------------------------------------------------------------------------


def test_progress_of_every_lesson_with_bars_and_a_total(tmp_path: Path) -> None:
    root = make_course(tmp_path, lesson_entry("02", "more", "More doubling"))
    (root / "solutions" / "02-more").mkdir()
    (root / "solutions" / "02-more" / "exercise.py").write_text(DEMO_SOLUTION, encoding="utf-8")
    (root / "tests" / "exercises" / "test_02_more.py").write_text(DEMO_TESTS, encoding="utf-8")
    assert exercises.main(["--root", str(root), "generate"]) == 0
    first, second = exercises.discover(root)

    # Untouched copies are counted, not run: test_name would pass on the stub, yet it says 0/7.
    done = run_checker(root)
    assert done.returncode == 1, done.stdout + done.stderr
    assert re.search(r"^  01-demo  \[░{20}\]   0/7    ○ not started$", done.stdout, re.MULTILINE), (
        done.stdout
    )
    assert re.search(r"^  Total    \[░{20}\]   0/14 *$", done.stdout, re.MULTILINE), done.stdout
    assert (
        "Next: open lessons/01-demo/exercise.py, then run `python tools/check.py 01`."
        in done.stdout
    )

    # One done, one half done: the bars fill up, and the next step is the lesson in progress.
    shutil.copy(first.solution, first.stub)
    second.stub.write_text(HALF_DONE, encoding="utf-8")
    done = run_checker(root, encoding="ascii")  # a console without ✓ or █: plain ASCII
    assert done.returncode == 1, done.stdout + done.stderr
    assert re.search(r"^  01-demo  \[#{20}\]   7/7    \+ done$", done.stdout, re.MULTILINE), (
        done.stdout
    )
    assert re.search(
        r"^  02-more  \[#{6}\.{14}\]   2/7    x in progress$", done.stdout, re.MULTILINE
    ), done.stdout
    assert re.search(r"^  Total    \[#{13}\.{7}\]   9/14 *$", done.stdout, re.MULTILINE), (
        done.stdout
    )
    assert (
        "Next: open lessons/02-more/exercise.py, then run `python tools/check.py 02`."
        in done.stdout
    )

    shutil.copy(second.solution, second.stub)
    done = run_checker(root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Every exercise passes." in done.stdout and " 14/14" in done.stdout


# --------------------------------------------------------------------------------------------
# --watch
# --------------------------------------------------------------------------------------------


class Output:
    """A child's standard output, read line by line in a thread, so the test can wait on it."""

    def __init__(self, stream: object) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.text = ""
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream: object) -> None:
        for line in stream:  # type: ignore[attr-defined]
            self.lines.put(line)

    def wait_for(
        self, text: str, count: int = 1, timeout: float = 60.0, poke: object = None
    ) -> bool:
        """Wait until ``text`` has appeared ``count`` times; call ``poke()`` every 3 s meanwhile."""
        deadline = time.monotonic() + timeout
        next_poke = time.monotonic() + 3.0
        while self.text.count(text) < count:
            now = time.monotonic()
            if now > deadline:
                return False
            if poke is not None and now > next_poke:
                poke()  # type: ignore[operator]
                next_poke = now + 3.0
            try:
                self.text += self.lines.get(timeout=0.2)
            except queue.Empty:
                pass
        return True


@pytest.mark.timeout(3 * STOP_TIMEOUT)
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
def test_watch_checks_again_on_save_and_stops_cleanly_on_ctrl_c(course: exercises.Lesson) -> None:
    process = subprocess.Popen(
        [
            sys.executable,
            str(course.root / "tools" / "check.py"),
            "--root",
            str(course.root),
            "--watch",
            "01",
        ],
        cwd=course.root,
        env=checker_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=ctrl_c_reaches_it,
        text=True,
        encoding="utf-8",
        errors="replace",
    )
    output = Output(process.stdout)
    watching = "watching lessons/01-demo/exercise.py — save it to check again, Ctrl-C to stop"
    try:
        # The first report, on the untouched stub, then the promise to watch.
        assert output.wait_for(watching), output.text
        assert "] 1/7 passed, 6 not started" in output.text
        # Save the finished exercise: a second report follows. (Saved again every few seconds, in
        # case the first save came before the watcher was ready.)
        saves = iter(range(1000))

        def save() -> None:
            course.stub.write_text(DEMO_SOLUTION + f"# save {next(saves)}\n", encoding="utf-8")

        save()
        assert output.wait_for("] 7/7 passed", poke=save), output.text
        assert output.wait_for(watching, count=2), output.text
        assert "check 2, after a save at" in output.text
        process.send_signal(signal.SIGINT)  # Ctrl-C
        process.wait(timeout=STOP_TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT)
    assert process.stderr is not None
    errors = process.stderr.read()
    output.wait_for("Stopped watching.", timeout=10)
    assert process.returncode == 0, output.text + errors
    assert "Stopped watching." in output.text
    assert "Traceback" not in errors + output.text and "KeyboardInterrupt" not in errors


@pytest.mark.timeout(3 * STOP_TIMEOUT)
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
def test_watch_moves_on_to_the_next_part_once_a_part_passes(course: exercises.Lesson) -> None:
    """``--watch --part 1``: once part 1 passes, the next save checks part 2, then the lesson."""
    process = subprocess.Popen(
        [sys.executable, str(course.root / "tools" / "check.py"), "--root", str(course.root)]
        + ["--watch", "--part", "1", "01"],
        cwd=course.root,
        env=checker_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=ctrl_c_reaches_it,
        text=True,
        encoding="utf-8",
        errors="replace",
    )
    output = Output(process.stdout)
    saves = iter(range(1000))

    def save() -> None:  # saved again every few seconds, in case the watcher was not ready
        course.stub.write_text(DEMO_SOLUTION + f"# save {next(saves)}\n", encoding="utf-8")

    try:
        assert output.wait_for("save it to check again"), output.text
        save()
        assert output.wait_for("Part 1 is done. Next:", poke=save), output.text
        assert output.wait_for("Moving on: from now on, each save checks part 2."), output.text
        assert output.wait_for("Part 2 · Names and shouting — 2/2 passed", poke=save), output.text
        moved = "Moving on: from now on, each save checks the whole lesson."
        assert output.wait_for(moved), output.text
        assert output.wait_for("] 7/7 passed", poke=save), output.text
        process.send_signal(signal.SIGINT)  # Ctrl-C
        process.wait(timeout=STOP_TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT)
    assert process.returncode == 0, output.text
