"""What a lesson's test file says about its tests, read from its text before they run.

For each test: its docstring, which is its hint, and the part of the exercise it belongs to. The
file is read as text and parsed, never imported. It is cut into parts by comments like this one,
one per part of the exercise, in the part's order::

    # -- Exercise 2 · A lifecycle guard ---------------------------------------------------

Every test defined below such a line, up to the next one, belongs to that part.
"""

from __future__ import annotations

import ast
import inspect
import re
from dataclasses import dataclass, field
from pathlib import Path

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
