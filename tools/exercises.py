"""The exercise files: one source of truth, one student's copy.

Every lesson with an exercise has two copies of the same file:

* ``solutions/NN-slug/exercise.py`` -- the worked answer, the *source*, where the code a student
  must write sits between ``# BEGIN SOLUTION`` and ``# END SOLUTION`` lines;
* ``lessons/NN-slug/exercise.py`` -- the student's copy, *generated* from the source by cutting
  every marked block into a stub (``raise NotImplementedError``): see ``tools/stubs.py``.

Which lessons have an exercise, and where its files are, is read from the course manifest,
``course.toml`` (through ``tools/course.py``): a lesson with an ``exercise`` entry has one. Nothing
is guessed from folder names, so a file the manifest does not name is not part of the course.

A lesson's exercise in another language follows one rule instead of the manifest: its files sit
beside the English ones, the language before the suffix -- ``solutions/NN-slug/exercise.es.py``,
the source, and ``lessons/NN-slug/exercise.es.py``, the student's copy generated from it (with the
stub's own words, such as ``TODO``, from ``tools/messages/es.toml``). The Spanish source is the
English one with its docstrings and comments translated and its code untouched
(``tools/exercise_translations.py`` proves it). A lesson without one is English only, for now.

Commands (run from anywhere; ``--root`` points at another checkout)::

    python tools/exercises.py generate [NN ...]   # rewrite the student's copies (every language)
    python tools/exercises.py check               # exit 1 if a student's copy is stale or missing
    python tools/exercises.py list                # the lessons that have an exercise
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __name__ == "__main__":
    # `python tools/exercises.py`: Python put tools/ first on sys.path; the repository root instead
    # makes `tools` the package the lines below import from (see tools/__init__.py).
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from tools import course, messages
from tools.stubs import BEGIN, ExerciseMarkerError, count_blocks, generate_stub

#: The repository root: this file lives in ``<root>/tools/``.
ROOT = Path(__file__).resolve().parent.parent


class ManifestError(ValueError):
    """``course.toml`` names an exercise but not the files that go with it. The message says
    which."""


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
    language: str = messages.ENGLISH  # the language of solution and stub: "en", "es"

    def relative(self, path: Path) -> str:
        """``path`` relative to the repository root, with forward slashes (for messages)."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def in_language(self, language: str) -> Lesson:
        """This (English) lesson in ``language``: its exercise, title, page and notebook in that
        language, each where it has one. A lesson whose exercise is not translated is itself."""
        solution = translated(self.solution, language)
        if language == self.language or self.language != messages.ENGLISH or not solution.is_file():
            return self
        words = messages.lesson_words(self.number, language)
        return dataclasses.replace(
            self,
            language=language,
            solution=solution,
            stub=translated(self.stub, language),
            title=words.title if words and words.title else self.title,
            page=_if_there(self.page and translated(self.page, language), self.page),
            # A notebook's twin sits beside it too: notebooks/01-json-rpc.es.ipynb.
            notebook=_if_there(
                self.notebook and translated(self.notebook, language), self.notebook
            ),
        )

    def render(self) -> str:
        """The student's copy as it should be, from the current solution."""
        try:
            source = read_text(self.solution)
            return generate_stub(source, lesson=self.name, language=self.language)
        except ExerciseMarkerError as error:
            raise ExerciseMarkerError(f"{self.relative(self.solution)}, {error}") from None

    def is_stale(self) -> bool:
        """True when the student's copy is missing or differs from :meth:`render`."""
        return not self.stub.is_file() or read_text(self.stub) != self.render()


def translated(path: Path, language: str) -> Path:
    """Where ``path``'s twin in ``language`` is: ``exercise.py`` -> ``exercise.es.py``."""
    if language == messages.ENGLISH:
        return path
    return path.with_name(f"{path.stem}.{language}{path.suffix}")


def _if_there(path: Path | None, otherwise: Path | None) -> Path | None:
    return path if path is not None and path.is_file() else otherwise


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
            f"course.toml: lesson {number} has an exercise ({exercise.as_posix()}) but no "
            f"`solution`, or no file under {EXERCISE_TESTS} in its `tests`: an exercise needs both"
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


def in_every_language(lessons: Iterable[Lesson]) -> list[Lesson]:
    """Each of ``lessons`` (in English), then its translations: one per copy to generate."""
    others = [language for language in messages.languages() if language != messages.ENGLISH]
    found = []
    for lesson in lessons:
        found.append(lesson)
        found += [twin for language in others if (twin := lesson.in_language(language)) != lesson]
    return found


def stale(root: Path = ROOT) -> list[Lesson]:
    """The lessons whose student's copy, in any language, is missing or out of date."""
    return [lesson for lesson in in_every_language(discover(root)) if lesson.is_stale()]


def generate(root: Path = ROOT, lessons: Iterable[Lesson] | None = None) -> list[Lesson]:
    """Write the student's copies of every lesson (or of ``lessons``), in every language it has;
    return those that changed."""
    changed = []
    for lesson in in_every_language(discover(root) if lessons is None else lessons):
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
            total = len(in_every_language(chosen if chosen is not None else discover(root)))
            print(f"{len(changed)} of {total} exercise file(s) changed")
            return 0
        if args.command == "check":
            out_of_date = stale(root)
            for lesson in out_of_date:
                what = "stale" if lesson.stub.is_file() else "missing"
                source = lesson.relative(lesson.solution)
                print(f"{what}: {lesson.relative(lesson.stub)} (from {source})")
            if out_of_date:
                print("run `python tools/exercises.py generate` to rewrite them")
                return 1
            print(f"all {len(in_every_language(discover(root)))} exercise file(s) are up to date")
            return 0
        for lesson in discover(root):
            tests = lesson.relative(lesson.test_file)
            print(f"{lesson.name}: {lesson.relative(lesson.stub)}  (tests: {tests})")
        return 0
    except (ExerciseMarkerError, ManifestError, LookupError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
