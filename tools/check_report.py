"""How ``tools/check.py`` prints a lesson's check: part by part, a line per test, what to do next.

Every function here only prints what a :class:`tools.check_run.Run` holds; nothing runs tests.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator
from functools import partial
from typing import TextIO

from tools.check_run import Result, Run
from tools.exercises import Lesson

#: The width of a progress bar, in characters.
BAR_WIDTH = 20

#: The width of the outcome column ("not started" is the longest), so that the test names line up.
OUTCOME_WIDTH = 11


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
        f"Lesson {lesson.number} {marks.dot} {lesson.title}"
        if lesson.title
        else f"Lesson {lesson.name}"
    )
    places = [
        f"{kind} {lesson.relative(path)}"
        for kind, path in (("page", lesson.page), ("notebook", lesson.notebook))
        if path is not None
    ]
    return f"{heading} {marks.dash} {', '.join(places)}" if places else heading


def lesson_status(run: Run | None, marks: Marks) -> tuple[str, str]:
    """``(mark, status)`` of a lesson in the list of them all: done, in progress or not started."""
    if run is None or not run.tests:
        return marks.bad, "no test could run" + (
            f" (see `python tools/check.py {run.lesson.number}`)" if run else ""
        )
    if run.all_passed:
        return marks.ok, "done"
    if run.count("not started") == len(run.tests):
        return marks.todo, "not started"
    # Red only when something is wrong; passes and work still to do are simply progress.
    wrong = run.count("failed") + run.count("error") + len(run.collection_errors)
    return (marks.bad if wrong else marks.todo), "in progress"


def counts(results: list[Result]) -> str:
    """``7/12 passed``, then what the others are: ``7/12 passed, 2 failed, 3 not started``."""
    passed = sum(result.outcome == "passed" for result in results)
    text = f"{passed}/{len(results)} passed"
    for outcome in ("failed", "error", "skipped", "not started"):
        number = sum(result.outcome == outcome for result in results)
        if number:
            noun = "errors" if outcome == "error" and number > 1 else outcome
            text += f", {number} {noun}"
    return text


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
        say(f"{marks.bad} {error.name} could not be loaded:")
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
            yield f"Lesson {run.lesson.name} {marks.dash} {counts(tests)}", tests
        return
    for part in run.parts:
        results = [result for result in tests if result.part == part.number]
        if results:
            yield (
                f"Part {part.number} {marks.dot} {part.title} {marks.dash} {counts(results)}",
                results,
            )
    others = [result for result in tests if result.part is None]
    if others:
        yield f"Other tests {marks.dash} {counts(others)}", others


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
            yield dataclasses.replace(cases[0], name=f"{base} ({len(cases)} cases)")
        else:
            yield from cases


def print_result(result: Result, marks: Marks, out: TextIO) -> None:
    """One test's lines: ``✓ passed  name``, or ``✗ failed  name`` with everything that explains
    it."""
    say = partial(print, file=out)
    say(f"  {marks.of(result.outcome)} {result.outcome:<{OUTCOME_WIDTH}}  {result.name}")
    if result.outcome in ("passed", "not started"):
        return  # a stub's NotImplementedError needs no explaining; the summary says where to start

    def field(label: str, lines: list[str]) -> None:
        for index, line in enumerate(lines):
            say(f"        {label + ':' if index == 0 else '':<7} {line}".rstrip())

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
        say(
            "The tests did not finish in time and were stopped. "
            "Does your code wait for something that never comes?"
        )
    elif not tests:
        say("No test ran. pytest said:")
        say(_tail(run.output))
        return
    elif run.collection_errors or run.returncode not in (0, 1):
        say("pytest reported a problem outside the tests:")
        say(_tail(run.output))
    passed = run.count("passed")
    titles = {known.number: f"Part {known.number} {marks.dot} {known.title}" for known in run.parts}
    scope = titles.get(part, f"Part {part}") if part is not None else f"Lesson {lesson.name}"
    say(f"{scope}: {bar(passed, len(tests), marks)} {counts(tests)}")
    if run.all_passed:
        say(_well_done(run, part, following))
        return
    first = next(result for result in tests if result.outcome != "passed")
    if first.outcome == "not started":
        say(_where_to_start(run, first))
    else:
        say(f"Next to fix: {first.name}. Its hint, and what went wrong, are above.")
    watch = " (or add --watch to check each time you save)" if not watching else ""
    say(f"Run `{command}` again when you are ready{watch}.")
    if not verbose and run.count("failed") + run.count("error"):
        say(f"pytest's own report, with full tracebacks: `{command} --verbose`.")


def _well_done(run: Run, part: int | None, following: Lesson | None) -> str:
    """What to do once every test checked passes: the next part, the whole lesson, or the next
    lesson."""
    lesson = run.lesson
    command = f"python tools/check.py {lesson.number}"
    if run.copy == "solutions":
        return (
            "All pass. (These are the worked answers in solutions/; "
            "your own copy is checked without --solutions.)"
        )
    if part is not None:
        later = [other.number for other in run.parts if other.number > part]
        if later:
            return f"Part {part} is done. Next: `{command} --part {later[0]}`."
        return f"Part {part} is done. Now check the whole lesson: `{command}`."
    if following is not None:
        return (
            f"Lesson {lesson.name} is done: well done! Next: lesson {following.name}, "
            f"checked with `python tools/check.py {following.number}`."
        )
    return (
        f"Lesson {lesson.name} is done: well done! "
        "That was the last exercise so far. Congratulations!"
    )


def _where_to_start(run: Run, first: Result) -> str:
    """Which part to start, which stub to replace, and what its first test expects."""
    part = next((part for part in run.parts if part.number == first.part), None)
    begun = any(result.outcome == "passed" and result.part == first.part for result in run.tests)
    verb = "Go on with" if begun else "Start with"
    lines = [f"{verb} part {part.number} ({part.title})." if part else f"{verb} {first.base}."]
    message = first.message[0] if first.message else ""
    if message.startswith("NotImplementedError: ") and first.location:
        function = message.split(": ", 1)[1]
        lines.append(
            f"Replace the `raise NotImplementedError` of {function}, at {first.location}, "
            "with your code."
        )
    if first.hint:
        lines.append(f"The next test to pass, {first.base}, expects this:")
        lines.extend(f"    {line}" for line in first.hint.splitlines())
    return "\n".join(lines)


def _tail(output: str, lines: int = 30) -> str:
    kept = output.rstrip().splitlines()[-lines:]
    return "\n".join(f"    {line}" for line in kept)
