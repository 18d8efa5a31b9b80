"""The exercise files: one source of truth, one student's copy.

Every lesson with an exercise has two copies of the same file:

* ``solutions/NN-slug/exercise.py`` -- the worked answer, the *source*. The code a student must
  write sits between two marker lines::

      def read_frame(stream):
          \"\"\"Read one Content-Length frame.\"\"\"
          # BEGIN SOLUTION: read the headers up to the blank line, then exactly N bytes
          ...the answer...
          # END SOLUTION

* ``lessons/NN-slug/exercise.py`` -- the student's copy, *generated* from the source by cutting
  every marked block into a stub at the same indentation::

      def read_frame(stream):
          \"\"\"Read one Content-Length frame.\"\"\"
          # TODO: read the headers up to the blank line, then exactly N bytes
          raise NotImplementedError("read_frame")

Everything outside the blocks (docstrings, imports, signatures) is copied byte for byte, so the
tests in ``tests/exercises/test_NN_slug.py`` run unchanged against either copy.

Which lessons have an exercise, and where its files are, is read from the course manifest,
``course.toml`` (through ``tools/course.py``): a lesson with an ``exercise`` entry has one. Nothing
is guessed from folder names, so a file the manifest does not name is not part of the course.

Commands (run from anywhere; ``--root`` points at another checkout)::

    python tools/exercises.py generate [NN ...]   # rewrite the student's copies, print what changed
    python tools/exercises.py check               # exit 1 if a student's copy is stale or missing
    python tools/exercises.py list                # the lessons that have an exercise
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __name__ == "__main__":
    # `python tools/exercises.py`: Python put tools/ first on sys.path; the repository root instead
    # makes `tools` the package the line below imports from (see tools/__init__.py).
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from tools import course

#: The repository root: this file lives in ``<root>/tools/``.
ROOT = Path(__file__).resolve().parent.parent

BEGIN = "# BEGIN SOLUTION"
END = "# END SOLUTION"

# A marker is matched on the stripped line, so it may sit at any indentation.
_BEGIN_RE = re.compile(r"^# BEGIN SOLUTION(?::(?P<hint>.*))?$")
_END_RE = re.compile(r"^# END SOLUTION$")
# Anything that looks like a marker but is not one exactly (a typo would leak the answer).
_NEAR_MISS_RE = re.compile(r"^#+\s*(BEGIN|END)[\s_-]*SOLUTION", re.IGNORECASE)
_DEF_RE = re.compile(r"^(?P<indent>[ \t]*)(?:async[ \t]+)?def[ \t]+(?P<name>\w+)")

FALLBACK_NAME = "this step"


class ExerciseMarkerError(ValueError):
    """The solution markers are unbalanced, nested or misspelled. The message names the lines."""


class ManifestError(ValueError):
    """``course.toml`` names an exercise but not the files that go with it. The message says which."""


# --------------------------------------------------------------------------------------------
# Cutting the solution blocks
# --------------------------------------------------------------------------------------------


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _line_ending(line: str) -> str:
    for ending in ("\r\n", "\n", "\r"):
        if line.endswith(ending):
            return ending
    return "\n"


def _function_names_by_ast(source: str) -> list[tuple[int, int, str]] | None:
    """Every function as ``(first line, last line, name)``, or None if the source does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            spans.append((node.lineno, node.end_lineno or node.lineno, node.name))
    return spans


def _enclosing_function(
    lines: list[str], index: int, spans: list[tuple[int, int, str]] | None
) -> str:
    """The name of the function whose body holds ``lines[index]`` (0-based), or "this step"."""
    lineno = index + 1
    if spans is not None:
        # The innermost function whose span covers the line: the one that starts last.
        inside = [(start, name) for start, end, name in spans if start < lineno <= end]
        return max(inside)[1] if inside else FALLBACK_NAME
    # The source does not parse: fall back to indentation. Walk upwards; every line indented less
    # than what we have seen so far opens an enclosing block. The first such `def` names the step.
    width = len(_indent_of(lines[index]).expandtabs())
    for line in reversed(lines[:index]):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        line_width = len(_indent_of(line).expandtabs())
        if line_width >= width:
            continue
        match = _DEF_RE.match(line)
        if match:
            return match["name"]
        if stripped.startswith("class "):
            return FALLBACK_NAME
        width = line_width
        if width == 0:
            break
    return FALLBACK_NAME


def _find_blocks(lines: list[str]) -> list[tuple[int, int, str | None]]:
    """The solution blocks as ``(begin index, end index, hint)``; raises on bad markers."""
    blocks = []
    open_at: int | None = None
    hint: str | None = None
    for index, line in enumerate(lines):
        stripped = line.strip()
        begin = _BEGIN_RE.match(stripped)
        end = _END_RE.match(stripped)
        if begin:
            if open_at is not None:
                raise ExerciseMarkerError(
                    f"line {index + 1}: {BEGIN!r} inside the block opened at line {open_at + 1} "
                    f"(solution blocks cannot nest; close it with {END!r} first)"
                )
            open_at = index
            hint = (begin["hint"] or "").strip() or None
        elif end:
            if open_at is None:
                raise ExerciseMarkerError(
                    f"line {index + 1}: {END!r} without a matching {BEGIN!r} before it"
                )
            blocks.append((open_at, index, hint))
            open_at, hint = None, None
        elif _NEAR_MISS_RE.match(stripped):
            raise ExerciseMarkerError(
                f"line {index + 1}: {stripped!r} looks like a solution marker but is not one; "
                f"write exactly {BEGIN!r}, {BEGIN + ': <hint>'!r} or {END!r}"
            )
    if open_at is not None:
        raise ExerciseMarkerError(f"line {open_at + 1}: {BEGIN!r} is never closed by {END!r}")
    return blocks


def _header(lesson: str) -> str:
    number = lesson.split("-", 1)[0]
    return (
        f"# ----------------------------------------------------------------------------------------\n"
        f"# Lesson {lesson}: your exercise.\n"
        f"#\n"
        f"# 1. Read the docstrings below: each part says exactly what to build.\n"
        f"# 2. Replace each `raise NotImplementedError(...)`, under its TODO, with your code.\n"
        f"# 3. Check your work, as often as you like:  python tools/check.py {number}\n"
        f"#\n"
        f"# Stuck for good? A worked answer is in solutions/{lesson}/exercise.py.\n"
        f"# This file is yours: a new version of the course may replace it, so keep a copy of your work.\n"
        f"# ----------------------------------------------------------------------------------------\n"
    )


def _add_header(text: str, header: str) -> str:
    """Put ``header`` first, after a shebang or encoding line, which must stay on lines 1-2."""
    lines = text.splitlines(keepends=True)
    keep = 0
    for line in lines[:2]:
        if line.startswith("#!") or re.match(r"^[ \t\f]*#.*?coding[:=]", line):
            keep += 1
        else:
            break
    ending = _line_ending(lines[0]) if lines else "\n"
    if ending != "\n":
        header = header.replace("\n", ending)
    return "".join(lines[:keep]) + header + "".join(lines[keep:])


def generate_stub(source: str, lesson: str | None = None) -> str:
    """Cut every solution block of ``source`` into a stub; return the student's copy.

    Each block -- from a ``# BEGIN SOLUTION`` line (optionally ``# BEGIN SOLUTION: hint``) to the
    next ``# END SOLUTION`` line, both included -- becomes, at the BEGIN line's indentation::

        # TODO: hint                                  (only when the marker has a hint)
        raise NotImplementedError("<enclosing function's name, or 'this step'>")

    Every other byte is kept as it is. With ``lesson`` (e.g. ``"02-stdio"``), a header comment
    telling the student what the file is and how to check it goes on top.

    Raises :class:`ExerciseMarkerError`, naming the line, for unbalanced, nested or misspelled
    markers.
    """
    lines = source.splitlines(keepends=True)
    blocks = _find_blocks(lines)
    spans = _function_names_by_ast(source) if blocks else None
    out: list[str] = []
    position = 0
    for begin, end, hint in blocks:
        out.extend(lines[position:begin])
        indent = _indent_of(lines[begin])
        ending = _line_ending(lines[begin])
        name = _enclosing_function(lines, begin, spans)
        if hint:
            out.append(f"{indent}# TODO: {hint}{ending}")
        out.append(f'{indent}raise NotImplementedError("{name}"){ending}')
        position = end + 1
    out.extend(lines[position:])
    stub = "".join(out)
    if lesson is not None:
        stub = _add_header(stub, _header(lesson))
    return stub


def count_blocks(source: str) -> int:
    """How many solution blocks ``source`` has (raises like :func:`generate_stub` on bad markers)."""
    return len(_find_blocks(source.splitlines(keepends=True)))


# --------------------------------------------------------------------------------------------
# The lessons
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lesson:
    """One lesson's exercise: where its source, its student's copy and its tests live.

    Every path comes from the lesson's entry in ``course.toml``; see :func:`discover`.
    """

    root: Path
    name: str  # "02-stdio": the folder of the exercise, used in messages and in the stub's header
    number: str  # "02", as the manifest writes it
    solution: Path  # solutions/02-stdio/exercise.py: the worked answer, the source
    stub: Path  # lessons/02-stdio/exercise.py: the student's copy, generated from the solution
    test_file: Path  # tests/exercises/test_02_stdio.py: the tests that check the exercise
    title: str = ""  # "stdio: pipes and framing"
    page: Path | None = None  # lessons/02-stdio/index.md: the lesson's text
    notebook: Path | None = None  # notebooks/02-stdio.ipynb: the lesson's notebook

    def relative(self, path: Path) -> str:
        """``path`` relative to the repository root, with forward slashes (for messages)."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def render(self) -> str:
        """The student's copy as it should be, from the current solution."""
        try:
            return generate_stub(read_text(self.solution), lesson=self.name)
        except ExerciseMarkerError as error:
            raise ExerciseMarkerError(f"{self.relative(self.solution)}, {error}") from None

    def is_stale(self) -> bool:
        """True when the student's copy is missing or differs from :meth:`render`."""
        return not self.stub.is_file() or read_text(self.stub) != self.render()


def read_text(path: Path) -> str:
    # newline="" keeps line endings as they are, so the copy is byte-identical outside the blocks.
    with open(path, encoding="utf-8", newline="") as file:
        return file.read()


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as file:
        file.write(text)


#: The folder that holds the exercise tests; a lesson's ``tests`` also name its other tests.
EXERCISE_TESTS = "tests/exercises/"


def _lesson_from_entry(root: Path, entry: dict[str, Any]) -> Lesson:
    """The :class:`Lesson` of one manifest entry that has an ``exercise``; raises ManifestError."""
    number = str(entry["number"])
    exercise = Path(entry["exercise"])
    # Of the lesson's tests, the exercise's own are the ones under tests/exercises/: the others
    # (tests/test_framing.py, ...) test minimcp, not the student's copy.
    test_files = [path for path in entry.get("tests", []) if path.startswith(EXERCISE_TESTS)]
    if "solution" not in entry or not test_files:
        raise ManifestError(
            f"course.toml: lesson {number} has an exercise ({exercise.as_posix()}) but no `solution`, "
            f"or no file under {EXERCISE_TESTS} in its `tests`: an exercise needs both"
        )
    return Lesson(
        root=root,
        name=exercise.parent.name,
        number=number,
        solution=root / entry["solution"],
        stub=root / exercise,
        test_file=root / test_files[0],
        title=str(entry.get("title", "")),
        page=root / entry["page"] if "page" in entry else None,
        notebook=root / entry["notebook"] if "notebook" in entry else None,
    )


def discover(root: Path = ROOT) -> list[Lesson]:
    """Every lesson of ``root/course.toml`` that has an exercise, in lesson order.

    A folder without a ``course.toml`` is not a course: it has no lessons. Raises ManifestError
    when a lesson names an exercise without its solution or its tests.
    """
    root = Path(root)
    if not (root / "course.toml").is_file():
        return []
    entries = course.load(root).get("lesson", [])
    found = [_lesson_from_entry(root, entry) for entry in entries if "exercise" in entry]
    return sorted(found, key=lambda lesson: (int(lesson.number), lesson.name))


def find_lesson(ident: str, root: Path = ROOT) -> Lesson:
    """The lesson named by ``ident``: ``"2"``, ``"02"``, ``"02-stdio"`` or a path to its folder.

    Raises LookupError with the list of lessons when there is no such lesson.
    """
    lessons = discover(root)
    # Accept a path too (lessons/02-stdio/exercise.py, tests/exercises/test_02_stdio.py): use its
    # last part that starts with the lesson's number.
    parts = [part for part in re.split(r"[\\/]", ident.strip()) if part]
    parts = [re.sub(r"^test_|\.py$", "", part) for part in parts]
    numbered = [part for part in parts if part[:1].isdigit()]
    match = re.match(r"^(\d+)(?:[-_](.*))?$", numbered[-1] if numbered else ident.strip())
    if match:
        number = int(match[1])
        slug = (match[2] or "").replace("_", "-")
        for lesson in lessons:
            if int(lesson.number) == number and (not slug or lesson.name.partition("-")[2] == slug):
                return lesson
    names = ", ".join(lesson.name for lesson in lessons) or "none yet"
    raise LookupError(f"no lesson {ident!r} with an exercise (lessons: {names})")


def stale(root: Path = ROOT) -> list[Lesson]:
    """The lessons whose student's copy is missing or out of date."""
    return [lesson for lesson in discover(root) if lesson.is_stale()]


def generate(root: Path = ROOT, lessons: Iterable[Lesson] | None = None) -> list[Lesson]:
    """Write the student's copy of every lesson (or of ``lessons``); return those that changed."""
    changed = []
    for lesson in discover(root) if lessons is None else lessons:
        text = lesson.render()
        if count_blocks(read_text(lesson.solution)) == 0:
            raise ExerciseMarkerError(
                f"{lesson.relative(lesson.solution)} has no {BEGIN!r} block: "
                "the student's copy would be the answer itself"
            )
        if not lesson.stub.is_file() or read_text(lesson.stub) != text:
            write_text(lesson.stub, text)
            changed.append(lesson)
    return changed


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python tools/exercises.py",
        description="Generate the student's exercise files (lessons/NN-slug/exercise.py) "
        "from the solutions (solutions/NN-slug/exercise.py).",
    )
    parser.add_argument(
        "--root", type=Path, default=ROOT, help="the repository root (default: %(default)s)"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    gen = commands.add_parser("generate", help="rewrite the student's copies from the solutions")
    gen.add_argument(
        "lessons", nargs="*", help="only these lessons (e.g. 02 or 02-stdio); default: all"
    )
    commands.add_parser("check", help="exit 1 if a student's copy is stale or missing")
    commands.add_parser("list", help="list the lessons that have an exercise")
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()

    try:
        if args.command == "generate":
            chosen = [find_lesson(ident, root) for ident in args.lessons] or None
            changed = generate(root, chosen)
            for lesson in changed:
                print(f"wrote {lesson.relative(lesson.stub)}")
            total = len(chosen) if chosen is not None else len(discover(root))
            print(f"{len(changed)} of {total} exercise file(s) changed")
            return 0
        if args.command == "check":
            out_of_date = stale(root)
            for lesson in out_of_date:
                what = "stale" if lesson.stub.is_file() else "missing"
                print(
                    f"{what}: {lesson.relative(lesson.stub)} (from {lesson.relative(lesson.solution)})"
                )
            if out_of_date:
                print("run `python tools/exercises.py generate` to rewrite them")
                return 1
            print(f"all {len(discover(root))} exercise file(s) are up to date")
            return 0
        for lesson in discover(root):
            print(
                f"{lesson.name}: {lesson.relative(lesson.stub)}  (tests: {lesson.relative(lesson.test_file)})"
            )
        return 0
    except (ExerciseMarkerError, ManifestError, LookupError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
