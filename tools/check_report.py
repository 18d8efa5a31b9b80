"""How ``tools/check.py`` prints a lesson's check: part by part, a line per test, what to do next.

Every function here only prints what a :class:`tools.check_run.Run` holds; nothing runs tests.
Every sentence comes from the catalogue of the run's language (``tools/messages.py``).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator
from functools import partial
from typing import TextIO

from tools.check_run import Result, Run
from tools.exercises import Lesson
from tools.messages import text

#: The width of a progress bar, in characters.
BAR_WIDTH = 20

#: The outcomes a test can have, in the order a count lists them after "passed".
OUTCOMES = ("passed", "failed", "error", "skipped", "not started")

#: The narrowest the label column of a failure's details may be: "input:" and a space.
LABEL_WIDTH = 7


class Marks:
    """The symbols of the report -- ✓ ✗ ○ · — █ ░ -- or plain ASCII where the terminal lacks
    them."""

    FANCY = ("✓", "✗", "○", "·", "—", "█", "░")
    PLAIN = ("+", "x", "o", "-", "--", "#", ".")

    def __init__(self, stream: TextIO) -> None:
        encoding = getattr(stream, "encoding", None) or "ascii"
        try:
            "".join(self.FANCY).encode(encoding)
            chosen = self.FANCY
        except (UnicodeEncodeError, LookupError):
            chosen = self.PLAIN
        self.ok, self.bad, self.todo, self.dot, self.dash, self.full, self.empty = chosen

    def of(self, outcome: str) -> str:
        """The mark of one test: ✓ passed, ○ not started (work to do, not a mistake), ✗
        otherwise."""
        return {"passed": self.ok, "not started": self.todo}.get(outcome, self.bad)


def bar(done: int, total: int, marks: Marks) -> str:
    """``[██████░░░░░░░░░░░░░░]``: ``done`` out of ``total``, in BAR_WIDTH characters."""
    filled = round(BAR_WIDTH * done / total) if total else 0
    if 0 < done < total:
        # Some done shows; not all done never looks full.
        filled = min(max(filled, 1), BAR_WIDTH - 1)
    return f"[{marks.full * filled}{marks.empty * (BAR_WIDTH - filled)}]"


def lesson_line(lesson: Lesson, marks: Marks) -> str:
    """Where to read about ``lesson``, from the manifest: its title, its page and its notebook.

    ``Lesson 05 · Resources and templates — page lessons/05-resources/index.md, notebook ...``
    """
    heading = (
        text("report.lesson", number=lesson.number, dot=marks.dot, title=lesson.title)
        if lesson.title
        else text("report.lesson_without_title", name=lesson.name)
    )
    places = [
        text(f"report.{kind}", path=lesson.relative(path))
        for kind, path in (("page", lesson.page), ("notebook", lesson.notebook))
        if path is not None
    ]
    return f"{heading} {marks.dash} {', '.join(places)}" if places else heading


def lesson_status(run: Run | None, marks: Marks) -> tuple[str, str]:
    """``(mark, status)`` of a lesson in the list of them all; ``status`` is a key of ``[status]``
    in the catalogue: done, in_progress, not_started, no_test or no_test_see."""
    if run is None or not run.tests:
        return marks.bad, "no_test_see" if run else "no_test"
    if run.all_passed:
        return marks.ok, "done"
    if run.count("not started") == len(run.tests):
        return marks.todo, "not_started"
    # Red only when something is wrong; passes and work still to do are simply progress.
    wrong = run.count("failed") + run.count("error") + len(run.collection_errors)
    return (marks.bad if wrong else marks.todo), "in_progress"


def outcome_word(outcome: str) -> str:
    """How the report names ``outcome`` ("not started" in English, "no empezada" in Spanish)."""
    return text(f"outcome.{outcome.replace(' ', '_')}")


def counts(results: list[Result]) -> str:
    """``7/12 passed``, then what the others are: ``7/12 passed, 2 failed, 3 not started``."""
    passed = sum(result.outcome == "passed" for result in results)
    words = [text("counts.passed", passed=passed, total=len(results))]
    for outcome in OUTCOMES[1:]:
        number = sum(result.outcome == outcome for result in results)
        if number:
            key = f"counts.{outcome.replace(' ', '_')}_{'one' if number == 1 else 'many'}"
            words.append(text(key, count=number))
    return ", ".join(words)


# --------------------------------------------------------------------------------------------
# One lesson
# --------------------------------------------------------------------------------------------


def print_run(
    run: Run,
    marks: Marks,
    out: TextIO,
    part: int | None = None,
    verbose: bool = False,
    following: Lesson | None = None,
    watching: bool = False,
) -> None:
    """One lesson's report: its parts, a line per test, details under each failure, the next step.

    With ``verbose``, pytest's own output (with full tracebacks) comes first. For ``following``
    and ``watching``, see :func:`print_summary`.
    """
    say = partial(print, file=out)
    if verbose:
        say(run.output.rstrip())
    for error in run.collection_errors:
        say()
        say(text("report.not_loaded", mark=marks.bad, name=error.name))
        for line in error.message:
            say(f"    {line}")
    for heading, results in grouped(run, marks):
        say()
        say(heading)
        for result in collapsed(results):
            print_result(result, marks, out)
    say()
    print_summary(run, marks, out, part, verbose, following, watching)


def grouped(run: Run, marks: Marks) -> Iterator[tuple[str, list[Result]]]:
    """``(heading, results)`` per part of the exercise, in the parts' order, with its count.

    A test file without parts is one group, headed by the lesson; tests outside any part come last.
    """
    tests = run.tests
    if not run.parts:
        if tests:
            heading = text("report.lesson_without_title", name=run.lesson.name)
            yield f"{heading} {marks.dash} {counts(tests)}", tests
        return
    for part in run.parts:
        results = [result for result in tests if result.part == part.number]
        if results:
            heading = text("report.part", number=part.number, dot=marks.dot, title=part.title)
            yield f"{heading} {marks.dash} {counts(results)}", results
    others = [result for result in tests if result.part is None]
    if others:
        yield f"{text('report.other_tests')} {marks.dash} {counts(others)}", others


def collapsed(results: list[Result]) -> Iterator[Result]:
    """The results, with the cases of one parametrized test that passed (or are not started) as one.

    Twelve lines of ``test_x[case]  passed`` say nothing that ``test_x (12 cases)`` does not.
    Failures stay one by one: each shows its own input.
    """
    for (base, outcome), same in itertools.groupby(
        results, key=lambda result: (result.base, result.outcome)
    ):
        cases = list(same)
        if len(cases) > 1 and outcome in ("passed", "not started"):
            name = text("report.cases", name=base, count=len(cases))
            yield dataclasses.replace(cases[0], name=name)
        else:
            yield from cases


def print_result(result: Result, marks: Marks, out: TextIO) -> None:
    """One test's lines: ``✓ passed  name``, or ``✗ failed  name`` with everything that explains
    it."""
    say = partial(print, file=out)
    # The outcome column is as wide as its longest word, so that the test names line up.
    width = max(len(outcome_word(outcome)) for outcome in OUTCOMES)
    say(f"  {marks.of(result.outcome)} {outcome_word(result.outcome):<{width}}  {result.name}")
    if result.outcome in ("passed", "not started"):
        return  # a stub's NotImplementedError needs no explaining; the summary says where to start
    labels = ("hint", "input", "got", "test", "at")
    column = max(LABEL_WIDTH, *(len(text(f"report.labels.{label}")) + 1 for label in labels))

    def field(label: str, lines: list[str]) -> None:
        shown = text(f"report.labels.{label}") + ":"
        for index, line in enumerate(lines):
            say(f"        {shown if index == 0 else '':<{column}} {line}".rstrip())

    field("hint", result.hint.splitlines())
    field("input", [f"{name} = {value}" for name, value in result.params.items()])
    field("got", result.message)
    if result.test_location:
        code = f"  {result.test_line}" if result.test_line else ""
        field("test", [f"{result.test_location}{code}"])
    field("at", [result.location] if result.location else [])


def print_summary(
    run: Run,
    marks: Marks,
    out: TextIO,
    part: int | None = None,
    verbose: bool = False,
    following: Lesson | None = None,
    watching: bool = False,
) -> None:
    """The lesson's (or part's) count and progress bar, then the one next step to take.

    ``following`` is the next lesson with an exercise, if any: where to go once this one is done.
    """
    say = partial(print, file=out)
    lesson, tests = run.lesson, run.tests
    only = f" --part {part}" if part is not None else ""
    command = f"python tools/check.py {lesson.number}{only}"
    if run.timed_out:
        say(text("summary.timed_out"))
    elif not tests:
        say(text("summary.no_test"))
        say(_tail(run.output))
        return
    elif run.collection_errors or run.returncode not in (0, 1):
        say(text("summary.outside"))
        say(_tail(run.output))
    passed = run.count("passed")
    say(f"{_scope(run, part, marks)}: {bar(passed, len(tests), marks)} {counts(tests)}")
    if run.all_passed:
        say(_well_done(run, part, following))
        return
    first = next(result for result in tests if result.outcome != "passed")
    if first.outcome == "not started":
        say(_where_to_start(run, first))
    else:
        say(text("summary.next_to_fix", name=first.name))
    say(text("summary.run_again" if watching else "summary.run_again_or_watch", command=command))
    if not verbose and run.count("failed") + run.count("error"):
        say(text("summary.verbose", command=command))


def _scope(run: Run, part: int | None, marks: Marks) -> str:
    """What the count at the end covers: ``Part 2 · A lifecycle guard``, or the whole lesson."""
    if part is None:
        return text("report.lesson_without_title", name=run.lesson.name)
    known = next((known for known in run.parts if known.number == part), None)
    if known is None:
        return text("report.part_without_title", number=part)
    return text("report.part", number=part, dot=marks.dot, title=known.title)


def _well_done(run: Run, part: int | None, following: Lesson | None) -> str:
    """What to do once every test checked passes: the next part, the whole lesson, or the next
    lesson."""
    lesson = run.lesson
    command = f"python tools/check.py {lesson.number}"
    if run.copy == "solutions":
        return text("summary.solutions_pass")
    if part is not None:
        later = [other.number for other in run.parts if other.number > part]
        if later:
            return text("summary.part_done", part=part, command=command, next=later[0])
        return text("summary.last_part_done", part=part, command=command)
    if following is not None:
        return text(
            "summary.lesson_done", name=lesson.name, next=following.name, number=following.number
        )
    return text("summary.last_lesson_done", name=lesson.name)


def _where_to_start(run: Run, first: Result) -> str:
    """Which part to start, which stub to replace, and what its first test expects."""
    part = next((part for part in run.parts if part.number == first.part), None)
    begun = any(result.outcome == "passed" and result.part == first.part for result in run.tests)
    if part:
        key = "summary.go_on_part" if begun else "summary.start_part"
        lines = [text(key, number=part.number, title=part.title)]
    else:
        lines = [text("summary.go_on_test" if begun else "summary.start_test", name=first.base)]
    message = first.message[0] if first.message else ""
    if message.startswith("NotImplementedError: ") and first.location:
        function = message.split(": ", 1)[1]
        lines.append(text("summary.replace_stub", function=function, location=first.location))
    if first.hint:
        lines.append(text("summary.next_test", name=first.base))
        lines.extend(f"    {line}" for line in first.hint.splitlines())
    return "\n".join(lines)


def _tail(output: str, lines: int = 30) -> str:
    kept = output.rstrip().splitlines()[-lines:]
    return "\n".join(f"    {line}" for line in kept)
