"""Every lesson at a glance: what ``python tools/check.py`` prints when given no lesson.

A line per lesson, with a progress bar and its count, then the total and the one lesson to work on
next. Only the copies the student has edited are tested, all in one pytest run: an untouched copy
fails by design, so its tests are collected and counted, not run. A lesson translated into the
student's language is checked in its translated copy (``exercise.es.py``).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TextIO

from tools import check_report as report
from tools import exercises
from tools.check_report import Marks
from tools.check_run import Run, run_course
from tools.exercises import Lesson
from tools.messages import ENGLISH, text
from tools.stubs import ExerciseMarkerError


def print_progress(root: Path, marks: Marks, out: TextIO, language: str = ENGLISH) -> int:
    """Print every lesson's line and the total; the exit code: 0 when every exercise passes.

    Each lesson's copy in ``language`` is the one checked, if the lesson has one (else its
    English copy).
    """
    say = partial(print, file=out, flush=True)
    lessons = [lesson.in_language(language) for lesson in exercises.discover(root)]
    say(text("progress.title"))
    say()
    if not lessons:
        say(f"  {text('progress.no_lessons')}")
        return 0
    problems = {lesson.name: problem for lesson in lessons if (problem := _copy_problem(lesson))}
    started = {lesson.name for lesson in lessons if lesson.name not in problems and _edited(lesson)}
    key = "progress.checking_one" if len(started) == 1 else "progress.checking_many"
    say(f"  {text(key, count=len(started))}")
    tested = [lesson for lesson in lessons if lesson.test_file.is_file()]
    runs = run_course(tested, started, language=language)
    by_name = {run.lesson.name: run for run in runs}
    width = max(len(lesson.name) for lesson in lessons)
    statuses: dict[str, str] = {}
    for lesson in lessons:
        run = by_name.get(lesson.name)
        problem = problems.get(lesson.name)
        mark, status = (marks.bad, "") if problem else report.lesson_status(run, marks)
        statuses[lesson.name] = status
        shown = problem or text(f"status.{status}", number=lesson.number)
        say(_row(lesson.name.ljust(width), run, f"{mark} {shown}", marks))
    passed = sum(run.count("passed") for run in runs)
    total = sum(len(run.tests) for run in runs)
    bar = report.bar(passed, total, marks)
    say(f"  {text('progress.total').ljust(width)}  {bar} {passed:>3}/{total:<3}")
    say()
    not_done = [lesson for lesson in lessons if statuses[lesson.name] != "done"]
    if not not_done:
        say(text("progress.all_pass"))
        return 0
    # Finish what you started first.
    in_progress = [lesson for lesson in not_done if statuses[lesson.name] == "in_progress"]
    next_up = (in_progress or not_done)[0]
    say(text("progress.next", path=next_up.relative(next_up.stub), number=next_up.number))
    return 1


def _row(name: str, run: Run | None, status: str, marks: Marks) -> str:
    """One lesson's line: ``  02-stdio  [███████░░░░░░░░░░░░░]   9/26   ✗ in progress``."""
    tests = run.tests if run else []
    done = run.count("passed") if run else 0
    counts = f"{done:>3}/{len(tests):<3}" if tests else ""
    return f"  {name}  {report.bar(done, len(tests), marks)} {counts}  {status}".rstrip()


def _copy_problem(lesson: Lesson) -> str | None:
    """Why a lesson's copy cannot be checked at all; None when it can."""
    if not lesson.stub.is_file():
        return text("progress.missing")
    if not lesson.test_file.is_file():
        return text("progress.no_tests", path=lesson.relative(lesson.test_file))
    try:
        lesson.render()
    except ExerciseMarkerError as error:
        return text("progress.broken", error=error)
    return None


def _edited(lesson: Lesson) -> bool:
    """Whether the student's copy differs from the generated stub (an untouched one fails by
    design)."""
    return exercises.read_text(lesson.stub) != lesson.render()
