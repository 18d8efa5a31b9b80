"""The translator's tool: what to fill in for a lesson, and whether a translation is whole.

A lesson's exercise in another language is three things (``tools/exercises.py`` and
``tools/messages.py`` say where each one lives):

* ``solutions/NN-slug/exercise.es.py``: the English solution with its docstrings and comments
  translated, and its code untouched -- :func:`code_difference` compares the two files' syntax
  trees without their docstrings, and :func:`cut_difference` the stubs cut from them;
* ``lessons/NN-slug/exercise.es.py``: generated from it by ``python tools/exercises.py generate``;
* the lesson's table in ``tools/messages/es.toml``: its title, its part titles, and each test's
  hint with the hash of the English docstring it translates.

Commands::

    python tools/exercise_translations.py skeleton 04   # lesson 04's table, to fill in (es.toml)
    python tools/exercise_translations.py check         # what is missing or out of date
"""

from __future__ import annotations

import argparse
import ast
import difflib
import string
import sys
from pathlib import Path

if __name__ == "__main__":
    # `python tools/exercise_translations.py`: the repository root first on sys.path, so that
    # `tools` is the package the lines below import from (see tools/__init__.py).
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from tools import exercises, messages
from tools.check_outline import read_test_file
from tools.stubs import generate_stub

# --------------------------------------------------------------------------------------------
# The same code in two languages
# --------------------------------------------------------------------------------------------


def code_of(source: str) -> str:
    """The code of ``source``, without its docstrings or comments, written out by ``ast.unparse``:
    two files with the same code give the same text, whatever their words."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                if isinstance(body[0].value.value, str):
                    # A body cannot be empty: `class UnknownAnswer(Exception): "doc"` keeps a pass.
                    node.body = body[1:] or [ast.Pass()]
    return ast.unparse(tree)


def code_difference(english: str, translated: str) -> str | None:
    """None when the two sources have the same code; otherwise the lines that differ, as a diff
    of their code (``-`` English, ``+`` translated)."""
    before, after = code_of(english).splitlines(), code_of(translated).splitlines()
    if before == after:
        return None
    diff = difflib.unified_diff(before, after, "English", "translated", n=1, lineterm="")
    return "\n".join(list(diff)[:20])


def cut_difference(english: str, translated: str) -> str | None:
    """None when the student's copies cut from the two sources have the same code: the
    ``# BEGIN SOLUTION`` blocks hide the same lines in both."""
    return code_difference(generate_stub(english), generate_stub(translated))


# --------------------------------------------------------------------------------------------
# Whether a lesson's translation is whole
# --------------------------------------------------------------------------------------------


def lesson_problems(lesson: exercises.Lesson, language: str) -> list[str]:
    """What lesson ``lesson`` (English) lacks in ``language``: its exercise, its code kept as it
    is, its title, part titles and hints, each hint translating the English it now has."""
    twin = lesson.in_language(language)
    if twin is lesson:
        return [f"{lesson.name}: no {exercises.translated(lesson.solution, language).name}"]
    english, translated = (exercises.read_text(path) for path in (lesson.solution, twin.solution))
    found = []
    for what, difference in (
        ("code", code_difference(english, translated)),
        ("BEGIN/END SOLUTION blocks", cut_difference(english, translated)),
    ):
        if difference:
            where = lesson.relative(twin.solution)
            found.append(f"{where}: its {what} differ from the English file's:\n{difference}")
    found += words_problems(lesson, language)
    return found


def words_problems(lesson: exercises.Lesson, language: str) -> list[str]:
    """What lesson ``lesson``'s table in ``language``'s catalogue lacks, or has out of date."""
    table = f"tools/messages/{language}.toml, [lessons.{lesson.number}]"
    words = messages.lesson_words(lesson.number, language)
    if words is None:
        command = f"python tools/exercise_translations.py skeleton {lesson.number}"
        return [f"{table} is missing: `{command}`"]
    outline = read_test_file(lesson.test_file)
    found = [] if words.title else [f"{table}: no title"]
    for part in outline.parts:
        if not words.parts.get(part.number):
            found.append(f"{table}: no title for part {part.number} ({part.title})")
    for name, english in outline.hints.items():
        hint = words.hints.get(name)
        now = messages.hint_hash(english)
        if hint is None or not hint.text:
            found.append(f"{table}: no hint for {name}; its English (of = {now!r}):\n{english}")
        elif hint.of != now:
            found.append(
                f"{table}: the hint of {name} translates an older English (of = {hint.of!r}); "
                f"revisit it, and write of = {now!r}. Its English now:\n{english}"
            )
    for name in sorted(set(words.hints) - set(outline.hints)):
        found.append(f"{table}: a hint for {name}, but no such test has a docstring")
    return found


def catalogue_problems(language: str) -> list[str]:
    """The sentences ``language``'s catalogue lacks, or has more of, than the English one; and
    those whose ``{fields}`` are not the English sentence's."""
    english, other = messages.sentences(messages.ENGLISH), messages.sentences(language)
    where = f"tools/messages/{language}.toml"
    found = [f"{where}: no {key!r} (English: {english[key]!r})" for key in english - other.keys()]
    found += [f"{where}: {key!r} is no key of en.toml" for key in other.keys() - english]
    for key in sorted(set(english) & set(other)):
        if fields(english[key]) != fields(other[key]):
            found.append(f"{where}: {key!r} must use the fields {sorted(fields(english[key]))}")
    return found


def fields(sentence: str) -> set[str]:
    """The names of the ``{fields}`` of ``sentence``: ``{"name", "count"}``."""
    return {name for _text, name, _spec, _conv in string.Formatter().parse(sentence) if name}


# --------------------------------------------------------------------------------------------
# A lesson's table, to fill in
# --------------------------------------------------------------------------------------------


def skeleton(lesson: exercises.Lesson) -> str:
    """Lesson ``lesson``'s table for a catalogue, in TOML: every field to translate left empty,
    with the English above it, and each hint's ``of`` already written."""
    outline = read_test_file(lesson.test_file)
    lines = [f"[lessons.{lesson.number}]", f"# en: {lesson.title}", 'title = ""', ""]
    lines.append(f"[lessons.{lesson.number}.parts]")
    lines += [f'"{part.number}" = ""  # {part.title}' for part in outline.parts]
    for name, english in outline.hints.items():
        lines += ["", f'[lessons.{lesson.number}.hints."{name}"]']
        lines += [f"# en: {line}".rstrip() for line in english.splitlines()]
        lines += [f'of = "{messages.hint_hash(english)}"', "text = '''", "'''"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python tools/exercise_translations.py",
        description="Translate a lesson's exercise: its table to fill in, and what is missing.",
    )
    parser.add_argument("--lang", default="es", help="the language (default: %(default)s)")
    commands = parser.add_subparsers(dest="command", required=True)
    table = commands.add_parser("skeleton", help="print a lesson's table for the catalogue")
    table.add_argument("lesson", help="the lesson: 04 or 04-tools")
    commands.add_parser("check", help="exit 1 if a translated lesson lacks something")
    args = parser.parse_args(argv)
    if args.command == "skeleton":
        print(skeleton(exercises.find_lesson(args.lesson)), end="")
        return 0
    found = catalogue_problems(args.lang)
    for lesson in exercises.discover():
        if lesson.in_language(args.lang) is not lesson:
            found += lesson_problems(lesson, args.lang)
    print("\n\n".join(found) or f"every translated lesson is whole in {args.lang!r}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
