"""Check your exercise: the one command you need while practising.

    python tools/check.py 03            # check lesson 03's exercise (also: 3, 03-handshake)
    python tools/check.py 03 --part 2   # only part 2 of it
    python tools/check.py 03 --watch    # check again each time you save the file (Ctrl-C stops)
    python tools/check.py               # every lesson: how far you got, with a progress bar

It runs the lesson's tests (``tests/exercises/test_NN_slug.py``) against *your* copy,
``lessons/NN-slug/exercise.py``, and reports them part by part, as the exercise is numbered:

    Part 2 · A lifecycle guard — 7/12 passed
      ✓ passed       test_guard_starts_new_and_checks_its_role
      ✗ failed       test_server_refuses_a_second_initialize
            hint:   the test's docstring: what the test expects, and often how to get there
            input:  the parameters of the test, if it has any
            got:    what went wrong, in full: `assert actual == expected`, and how the two differ
            test:   the test's line that failed
            at:     the line of your exercise where the error was raised
      ○ not started  test_ping_is_always_allowed_while_open

"Not started" (○) means the test reached a ``raise NotImplementedError`` that is still in your copy:
it is no failure, just work still to do (it does not count as passed, though). The exit code is 0
only when every test checked passes, so the command also works in scripts.

Which lessons have an exercise, and each one's files (exercise, solution, tests, page, notebook),
come from the course manifest, ``course.toml``. Options: ``--solutions`` checks the worked answers
instead of your copy (the tests must pass on them); ``--root DIR`` (or the environment variable
``MCP_COURSE_ROOT``) checks another checkout; ``--verbose`` also shows pytest's own output, with
full tracebacks.

Under the hood it is plain pytest, run in a child process with ``MCP_COURSE_EXERCISES=lessons``
(the ``exercise`` fixture then loads your copy): ``tools/check_run.py`` starts it and reads its
results, ``tools/check_pytest.py`` records them inside it, ``tools/check_report.py`` prints them
(``tools/check_progress.py``: every lesson at a glance). ``--watch`` uses the watchfiles library.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TextIO

if __name__ == "__main__":
    # `python tools/check.py`: Python put tools/ first on sys.path; the repository root instead
    # makes `tools` the package the lines below import from (see tools/__init__.py).
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from tools import check_report as report  # printing the results
from tools import exercises  # the lessons, from course.toml
from tools.check_outline import read_test_file
from tools.check_progress import print_progress
from tools.check_report import Marks
from tools.check_run import run_lesson_tests

TOOLS = Path(__file__).resolve().parent


# --------------------------------------------------------------------------------------------
# One lesson, once or on every save
# --------------------------------------------------------------------------------------------


def check_lesson(
    lesson: exercises.Lesson,
    copy: str,
    part: int | None,
    verbose: bool,
    marks: Marks,
    out: TextIO,
    watching: bool = False,
) -> int:
    """Run and print one lesson's check; the exit code: 0 when every test checked passed."""
    target = lesson.solution if copy == "solutions" else lesson.stub
    # Printed before the tests run (they take a while): the student can open the lesson meanwhile.
    print(report.lesson_line(lesson, marks), file=out)
    only = f", part {part}" if part is not None else ""
    print(f"Checking {lesson.relative(target)}{only} ...", file=out, flush=True)
    run = run_lesson_tests(lesson, copy, part=part, extra_args=("--tb=auto",) if verbose else ())
    following = [
        other for other in exercises.discover(lesson.root) if int(other.number) > int(lesson.number)
    ]
    report.print_run(run, marks, out, part, verbose, following[0] if following else None, watching)
    return 0 if run.all_passed else 1


def watch(path: Path, shown: str, check: Callable[[], int], out: TextIO) -> int:
    """Run ``check`` now, then again each time ``path`` is saved, until Ctrl-C.

    watchfiles asks the operating system to report changes (no polling loop here). The folder is
    watched, not the file: many editors save by writing a new file and renaming it over the old one.
    """
    try:
        import watchfiles  # only --watch needs it
    except ImportError:
        print(
            "error: --watch needs watchfiles: `python -m pip install -r requirements.txt`",
            file=sys.stderr,
        )
        return 2

    target = path.resolve()
    clear = out.isatty()
    say = partial(print, file=out, flush=True)
    waiting = f"\nwatching {shown} {Marks(out).dash} save it to check again, Ctrl-C to stop"
    runs = 1
    try:
        check()
        say(waiting)
        # One watcher for the whole session: a save made while the tests run is not lost, it
        # starts the next check as soon as this one is printed.
        for _changes in watchfiles.watch(
            target.parent,
            watch_filter=lambda _change, changed: Path(changed).resolve() == target,
            recursive=False,
        ):
            runs += 1
            # A fresh screen on a terminal; in a log, a rule that says which run this is.
            if clear:
                print("\033[2J\033[H", end="", file=out)
            rule = "=" * 20
            say(f"\n{rule} check {runs}, after a save at {time.strftime('%H:%M:%S')} {rule}\n")
            check()
            say(waiting)
    except KeyboardInterrupt:
        say("\nStopped watching.")
    return 0


def next_part(lesson: exercises.Lesson, done: int, out: TextIO) -> int | None:
    """Part ``done`` passes while watching: the part after it, or None for the whole lesson once
    the last part is done. Said, so the student knows what the next save checks."""
    later = [part.number for part in read_test_file(lesson.test_file).parts if part.number > done]
    following = later[0] if later else None
    what = f"part {following}" if following is not None else "the whole lesson"
    print(f"\nMoving on: from now on, each save checks {what}.", file=out, flush=True)
    return following


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python tools/check.py",
        description="Check your exercise for one lesson, or list every lesson and how far you got.",
    )
    parser.add_argument(
        "lesson", nargs="?", help="the lesson: 03, 3 or 03-handshake (omit it to list them all)"
    )
    parser.add_argument("--part", type=int, metavar="N", help="check only part N of the exercise")
    parser.add_argument(
        "--watch", action="store_true", help="check again each time the exercise file is saved"
    )
    parser.add_argument(
        "--solutions",
        action="store_true",
        help="check the worked answers in solutions/ instead of your copy",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also show pytest's own output, with full tracebacks",
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=Path(os.environ.get("MCP_COURSE_ROOT") or TOOLS.parent),
        help="the course's folder (default: the one this script is in, or $MCP_COURSE_ROOT)",
    )
    args = parser.parse_args(argv)
    if args.lesson is None and (args.part is not None or args.watch):
        parser.error("--part and --watch need a lesson, e.g. `python tools/check.py 03 --part 2`")
    return args


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    root: Path = args.root.resolve()
    out = sys.stdout
    if hasattr(out, "reconfigure"):
        # A hint with a character the console lacks must not crash the check.
        out.reconfigure(errors="replace")
    marks = Marks(out)
    try:
        if args.lesson is None:
            return print_progress(root, marks, out)
        lesson = exercises.find_lesson(args.lesson, root)
    except (LookupError, exercises.ManifestError) as error:
        return _fail(str(error))
    if not lesson.test_file.is_file():
        return _fail(f"lesson {lesson.name} has no tests ({lesson.relative(lesson.test_file)})")
    if args.part is not None:
        outline = read_test_file(lesson.test_file)
        parts = outline.parts
        if outline.find_part(args.part) is None:
            names = (
                ", ".join(f"{part.number} ({part.title})" for part in parts)
                or "none: it is not split into parts"
            )
            return _fail(f"lesson {lesson.name} has no part {args.part} (its parts: {names})")
    copy = "solutions" if args.solutions else "lessons"

    part = args.part

    def check() -> int:
        nonlocal part
        code = check_lesson(lesson, copy, part, args.verbose, marks, out, watching=args.watch)
        if args.watch and code == 0 and part is not None:
            part = next_part(lesson, part, out)
        return code

    if args.watch:
        target = lesson.solution if args.solutions else lesson.stub
        return watch(target, lesson.relative(target), check, out)
    return check()


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        # `python tools/check.py | head`: the reader has gone, and that is no error of the check.
        # Point stdout at devnull, so that Python's own flush at exit does not complain either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
