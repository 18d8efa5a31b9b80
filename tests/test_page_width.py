"""The code is read on the site, a page at a time: modules and functions stay short enough to read.

Lines are held to 100 columns by ruff (pyproject.toml); this test holds what ruff cannot count:
every module of minimcp, tools and bench at most 300 lines, every function at most 50 (from its
``def`` to its last line, docstring included). A function that needs more is two functions.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("minimcp", "tools", "bench", "sdk")
MAX_MODULE_LINES = 300
MAX_FUNCTION_LINES = 50


def modules() -> list[Path]:
    """The course's own modules: not what npm installs under tools/ for the conformance suite."""
    found = (path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))
    return sorted(path for path in found if "node_modules" not in path.parts)


def long_functions(path: Path) -> list[str]:
    """Each function of ``path`` longer than MAX_FUNCTION_LINES, as ``name (N lines, line L)``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                found.append(f"{node.name} ({length} lines, line {node.lineno})")
    return found


@pytest.mark.parametrize("path", modules(), ids=lambda path: str(path.relative_to(ROOT)))
def test_module_fits_a_reading(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_MODULE_LINES, f"{lines} lines: split it along a seam, one job per module"
    assert not long_functions(path), (
        f"functions over {MAX_FUNCTION_LINES} lines: {long_functions(path)}"
    )
