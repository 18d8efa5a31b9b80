"""The student's copy of an exercise, cut from its worked answer.

In ``solutions/NN-slug/exercise.py`` the code a student must write sits between two marker lines::

    def read_frame(stream):
        \"\"\"Read one Content-Length frame.\"\"\"
        # BEGIN SOLUTION: read the headers up to the blank line, then exactly N bytes
        ...the answer...
        # END SOLUTION

:func:`generate_stub` cuts every marked block into a stub at the same indentation, which is the
student's copy, ``lessons/NN-slug/exercise.py``::

    def read_frame(stream):
        \"\"\"Read one Content-Length frame.\"\"\"
        # TODO: read the headers up to the blank line, then exactly N bytes
        raise NotImplementedError("read_frame")

Everything outside the blocks (docstrings, imports, signatures) is copied byte for byte, so the
tests in ``tests/exercises/test_NN_slug.py`` run unchanged against either copy.

A translated source, ``solutions/NN-slug/exercise.es.py``, is cut the same way into
``lessons/NN-slug/exercise.es.py``; the few words the cutter writes itself (the header, ``TODO``)
then come from that language's catalogue, ``tools/messages/es.toml``: ``# POR HACER: ...``.
"""

from __future__ import annotations

import ast
import re

from tools import messages

BEGIN = "# BEGIN SOLUTION"
END = "# END SOLUTION"

# A marker is matched on the stripped line, so it may sit at any indentation.
_BEGIN_RE = re.compile(r"^# BEGIN SOLUTION(?::(?P<hint>.*))?$")
_END_RE = re.compile(r"^# END SOLUTION$")
# Anything that looks like a marker but is not one exactly (a typo would leak the answer).
_NEAR_MISS_RE = re.compile(r"^#+\s*(BEGIN|END)[\s_-]*SOLUTION", re.IGNORECASE)
_DEF_RE = re.compile(r"^(?P<indent>[ \t]*)(?:async[ \t]+)?def[ \t]+(?P<name>\w+)")


class ExerciseMarkerError(ValueError):
    """The solution markers are unbalanced, nested or misspelled. The message names the lines."""


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
    lines: list[str], index: int, spans: list[tuple[int, int, str]] | None, fallback: str
) -> str:
    """The name of the function whose body holds ``lines[index]`` (0-based), or ``fallback``."""
    lineno = index + 1
    if spans is not None:
        # The innermost function whose span covers the line: the one that starts last.
        inside = [(start, name) for start, end, name in spans if start < lineno <= end]
        return max(inside)[1] if inside else fallback
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
            return fallback
        width = line_width
        if width == 0:
            break
    return fallback


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


def _header(lesson: str, language: str) -> str:
    """The comment on top of a student's copy: what the file is, and how to check it."""
    return messages.message(language, "stub.header", lesson=lesson, number=lesson.split("-", 1)[0])


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


def generate_stub(source: str, lesson: str | None = None, language: str = messages.ENGLISH) -> str:
    """Cut every solution block of ``source`` into a stub; return the student's copy.

    Each block -- from a ``# BEGIN SOLUTION`` line (optionally ``# BEGIN SOLUTION: hint``) to the
    next ``# END SOLUTION`` line, both included -- becomes, at the BEGIN line's indentation::

        # TODO: hint                                  (only when the marker has a hint)
        raise NotImplementedError("<enclosing function's name, or 'this step'>")

    Every other byte is kept as it is. With ``lesson`` (e.g. ``"02-stdio"``), a header comment
    telling the student what the file is and how to check it goes on top.

    The words the generator adds itself -- the header, ``TODO``, ``this step`` -- come from the
    catalogue of ``language`` (``tools/messages/<language>.toml``, section ``[stub]``): a Spanish
    copy reads ``# POR HACER: ...``. The hint is the marker's own text, already in the file's
    language.

    Raises :class:`ExerciseMarkerError`, naming the line, for unbalanced, nested or misspelled
    markers.
    """
    lines = source.splitlines(keepends=True)
    blocks = _find_blocks(lines)
    spans = _function_names_by_ast(source) if blocks else None
    todo = messages.message(language, "stub.todo")
    fallback = messages.message(language, "stub.this_step")
    out: list[str] = []
    position = 0
    for begin, end, hint in blocks:
        out.extend(lines[position:begin])
        indent = _indent_of(lines[begin])
        ending = _line_ending(lines[begin])
        name = _enclosing_function(lines, begin, spans, fallback)
        if hint:
            out.append(f"{indent}# {todo}: {hint}{ending}")
        out.append(f'{indent}raise NotImplementedError("{name}"){ending}')
        position = end + 1
    out.extend(lines[position:])
    stub = "".join(out)
    if lesson is not None:
        stub = _add_header(stub, _header(lesson, language))
    return stub


def count_blocks(source: str) -> int:
    """How many solution blocks ``source`` has (raises like :func:`generate_stub` on bad
    markers)."""
    return len(_find_blocks(source.splitlines(keepends=True)))
