"""What a lesson's test file says about its tests, read from its text before they run.

For each test: its docstring, which is its hint, and the part of the exercise it belongs to. The
file is read as text and parsed, never imported. It is cut into parts by comments like this one,
one per part of the exercise, in the part's order::

    # -- Exercise 2 · A lifecycle guard ---------------------------------------------------

Every test defined below such a line, up to the next one, belongs to that part.

The test files are written once, in English. A lesson translated into another language has its
part titles and hints in that language's catalogue (``tools/messages/es.toml``):
:func:`lesson_outline` reads them from there.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
from dataclasses import dataclass, field
from pathlib import Path

from tools import messages
from tools.exercises import Lesson

#: ``# -- Exercise 2 · A lifecycle guard -----``: the start of a part, in a test file.
PART_RE = re.compile(r"^#\s*--\s*Exercise\s+(?P<number>\d+)\s*[·:.]?\s*(?P<title>.*?)[\s-]*$")

#: What a test is: a function, plain or async, whose name starts with "test".
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Part:
    """One numbered part of an exercise: "2 · A lifecycle guard"."""

    number: int
    title: str


@dataclass
class Outline:
    """What a test file says about its tests, each named ``test_x`` or ``TestClass.test_x``."""

    parts: list[Part] = field(default_factory=list)
    hints: dict[str, str] = field(default_factory=dict)  # name -> docstring
    part_of: dict[str, int] = field(default_factory=dict)  # name -> part number
    # name -> "test_x" or "TestClass::test_x"
    node_ids: dict[str, str] = field(default_factory=dict)

    def find_part(self, number: int) -> Part | None:
        return next((part for part in self.parts if part.number == number), None)

    def tests_of(self, number: int) -> list[str]:
        """The node ids (within the file) of part ``number``'s tests, in the file's order."""
        return [self.node_ids[name] for name, part in self.part_of.items() if part == number]


def read_test_file(path: Path) -> Outline:
    """The hints and parts of ``path``; an empty :class:`Outline` when it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
    except (OSError, SyntaxError, UnicodeDecodeError):
        return Outline()
    found = Outline()
    starts: list[tuple[int, Part]] = []  # (line, part), in the file's order
    for line_number, line in enumerate(text.splitlines(), start=1):
        match = PART_RE.match(line.strip())
        if match:
            part = Part(int(match["number"]), match["title"])
            starts.append((line_number, part))
            found.parts.append(part)

    def visit(body: list[ast.stmt], cls: str) -> None:
        for node in body:
            if isinstance(node, FUNCTIONS) and node.name.startswith("test"):
                name = f"{cls}.{node.name}" if cls else node.name
                found.node_ids[name] = f"{cls}::{node.name}" if cls else node.name
                doc = ast.get_docstring(node)
                if doc:
                    found.hints[name] = inspect.cleandoc(doc)
                above = [part for line, part in starts if line < node.lineno]
                if above:
                    found.part_of[name] = above[-1].number
            elif isinstance(node, ast.ClassDef) and node.name.startswith("Test") and not cls:
                visit(node.body, node.name)

    visit(tree.body, "")
    return found


def lesson_outline(lesson: Lesson) -> Outline:
    """The outline of ``lesson``'s test file, in the lesson's language."""
    outline = read_test_file(lesson.test_file)
    if lesson.language == messages.ENGLISH:
        return outline
    return translated(outline, messages.lesson_words(lesson.number, lesson.language))


def translated(outline: Outline, words: messages.LessonWords | None) -> Outline:
    """``outline`` with the part titles and hints of ``words``.

    What ``words`` lacks stays in English, and so does a hint whose English has changed since it
    was translated (its ``of`` no longer matches): the test's current words are better than a
    translation of what it used to say.
    """
    if words is None:
        return outline
    parts = [
        Part(part.number, words.parts.get(part.number) or part.title) for part in outline.parts
    ]
    hints = dict(outline.hints)
    for name, english in outline.hints.items():
        hint = words.hints.get(name)
        if hint is not None and hint.text and hint.of == messages.hint_hash(english):
            hints[name] = hint.text
    return dataclasses.replace(outline, parts=parts, hints=hints)
