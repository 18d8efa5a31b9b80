"""Check your exercise: the one command you need while practising.

    python tools/check.py 03            # check lesson 03's exercise (also: 3, 03-handshake)
    python tools/check.py 03 --part 2   # only part 2 of it
    python tools/check.py 03 --watch    # check again each time you save the file (Ctrl-C stops)
    python tools/check.py               # every lesson: how far you got, with a progress bar
    python tools/check.py 03 --lang es  # en español, from now on (--lang en goes back)

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

Every word it prints comes from the catalogue of one language (``tools/messages.py``). With
``--lang es`` the report is in Spanish, and a lesson translated into Spanish is checked in its
Spanish copy, ``lessons/NN-slug/exercise.es.py``, with its hints and part titles from
``tools/messages/es.toml``. The choice is remembered in ``.course-lang``, in the course's folder,
until ``--lang en``; the environment variable ``MCP_COURSE_LANG`` overrides what is remembered.

Under the hood it is plain pytest, run in a child process with ``MCP_COURSE_EXERCISES=lessons``
(the ``exercise`` fixture then loads your copy; ``MCP_COURSE_EXERCISES_LANG=es``, its Spanish
copy): ``tools/check_args.py`` reads the command line, ``tools/check_run.py`` starts pytest and
reads its results, ``tools/check_pytest.py`` records them inside it, ``tools/check_report.py``
prints them (``tools/check_progress.py``: every lesson at a glance). ``--watch`` uses the
watchfiles library.
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
from tools import exercises, messages  # the lessons, from course.toml; the words, by language
from tools.check_args import parse_args
from tools.check_outline import lesson_outline, read_test_file
from tools.check_progress import print_progress
from tools.check_report import Marks
from tools.check_run import run_lesson_tests
from tools.messages import text

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
    target = lesson.relative(lesson.solution if copy == "solutions" else lesson.stub)
    # Printed before the tests run (they take a while): the student can open the lesson meanwhile.
    print(report.lesson_line(lesson, marks), file=out)
    if part is None:
        print(text("check.checking", path=target), file=out, flush=True)
    else:
        print(text("check.checking_part", path=target, part=part), file=out, flush=True)
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
        return _fail(text("watch.needs_watchfiles"))

    target = path.resolve()
    clear = out.isatty()
    say = partial(print, file=out, flush=True)
    waiting = "\n" + text("watch.waiting", path=shown, dash=Marks(out).dash)
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
            again = text("watch.again", run=runs, time=time.strftime("%H:%M:%S"))
            say(f"\n{rule} {again} {rule}\n")
            check()
            say(waiting)
    except KeyboardInterrupt:
        say("\n" + text("watch.stopped"))
    return 0


def next_part(lesson: exercises.Lesson, done: int, out: TextIO) -> int | None:
    """Part ``done`` passes while watching: the part after it, or None for the whole lesson once
    the last part is done. Said, so the student knows what the next save checks."""
    later = [part.number for part in read_test_file(lesson.test_file).parts if part.number > done]
    following = later[0] if later else None
    if following is None:
        what = text("watch.whole_lesson")
    else:
        what = text("watch.next_part", part=following)
    print("\n" + text("watch.moving_on", what=what), file=out, flush=True)
    return following


# --------------------------------------------------------------------------------------------
# Command line (its options: tools/check_args.py)
# --------------------------------------------------------------------------------------------


def _fail(message: str) -> int:
    print(text("check.error", message=message), file=sys.stderr)
    return 2


def find_lesson(args: argparse.Namespace, root: Path) -> exercises.Lesson | str:
    """The lesson the command line names, in the run's language; or why there is none."""
    try:
        lesson = exercises.find_lesson(args.lesson, root)
    except LookupError:
        names = ", ".join(lesson.name for lesson in exercises.discover(root))
        return text("check.no_lesson", ident=args.lesson, names=names or text("check.none_yet"))
    lesson = lesson.in_language(messages.current())
    if not lesson.test_file.is_file():
        return text("check.no_tests", name=lesson.name, path=lesson.relative(lesson.test_file))
    if args.part is not None:
        outline = lesson_outline(lesson)
        if outline.find_part(args.part) is None:
            parts = ", ".join(f"{part.number} ({part.title})" for part in outline.parts)
            return text(
                "check.no_part",
                name=lesson.name,
                part=args.part,
                parts=parts or text("check.not_in_parts"),
            )
    return lesson


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)  # it also chooses the language of the run
    root: Path = args.root.resolve()
    if args.lang:
        messages.remember(root, args.lang)  # the next runs speak it too
    out = sys.stdout
    if hasattr(out, "reconfigure"):
        # A hint with a character the console lacks must not crash the check.
        out.reconfigure(errors="replace")
    marks = Marks(out)
    try:
        if args.lesson is None:
            return print_progress(root, marks, out, messages.current())
        lesson = find_lesson(args, root)
    except exercises.ManifestError as error:
        return _fail(str(error))
    if isinstance(lesson, str):
        return _fail(lesson)
    copy = "solutions" if args.solutions else "lessons"
    target = lesson.solution if args.solutions else lesson.stub
    if lesson.language != messages.current():
        print(text("check.english_only", name=lesson.name, path=lesson.relative(target)), file=out)
    part = args.part

    def check() -> int:
        nonlocal part
        code = check_lesson(lesson, copy, part, args.verbose, marks, out, watching=args.watch)
        if args.watch and code == 0 and part is not None:
            part = next_part(lesson, part, out)
        return code

    if args.watch:
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
