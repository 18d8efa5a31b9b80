"""minimcp's layers, kept honest: no import from a lower layer to a higher one, and no import cycle.

Every ``import`` in minimcp counts, wherever it stands: at the top of a module, inside a function,
under ``if TYPE_CHECKING:``. The layers and their order come from ``course.toml`` (``[layers]``),
the same manifest that names each lesson's modules. Two sub-packages of the same layer (the server's
features and the client) may not import each other either: each sees only what lies below.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tools import course

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "minimcp"


def all_modules(package: Path = PACKAGE) -> dict[str, Path]:
    return course.all_modules(package)


def import_graph(package: Path = PACKAGE) -> dict[str, dict[str, int]]:
    """Every module -> the minimcp modules it imports (read by ``tools/course.py``, which the
    lessons' own closure check shares)."""
    return course.import_graph(package)


def layer_of(module: str, layers: dict[str, int]) -> tuple[int, str]:
    """The layer of ``module`` and the sub-package (or module) that gives it: the longest prefix
    named."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in layers:
            return layers[prefix], prefix
    raise KeyError(f"{module} belongs to no layer of course.toml: add its package to [layers]")


def upward_imports(graph: dict[str, dict[str, int]], layers: dict[str, int]) -> list[str]:
    problems = []
    for module, imported in sorted(graph.items()):
        level, home = layer_of(module, layers)
        for target, line in sorted(imported.items()):
            target_level, target_home = layer_of(target, layers)
            if target_home == home or target_level < level:
                continue
            problems.append(
                f"{module} (layer {level}, line {line}) imports {target} (layer {target_level})"
            )
    return problems


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, {}):
            if nxt not in graph:
                continue
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


@pytest.fixture(scope="module")
def layers() -> dict[str, int]:
    manifest = course.load()
    return {
        package: level
        for level, packages in enumerate(manifest["layers"]["order"])
        for package in packages
    }


def test_no_module_imports_a_higher_layer(layers: dict[str, int]) -> None:
    assert upward_imports(import_graph(), layers) == []


def test_no_import_cycle() -> None:
    assert cycles(import_graph()) == []


def test_every_module_belongs_to_a_layer(layers: dict[str, int]) -> None:
    for module in all_modules():
        layer_of(module, layers)  # raises for a module no layer names


def test_the_checks_can_fail(tmp_path: Path, layers: dict[str, int]) -> None:
    """A tiny package with an upward import and a cycle (the shape minimcp once had) is caught."""
    package = tmp_path / "minimcp"
    (package / "rpc").mkdir(parents=True)
    (package / "server").mkdir()
    for init in (package, package / "rpc", package / "server"):
        (init / "__init__.py").write_text("")
    (package / "rpc" / "connection.py").write_text(
        "def f():\n    from minimcp.server import tools\n"
    )
    (package / "server" / "server.py").write_text("from .tools import Tool\n")
    (package / "server" / "tools.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .server import Server\n"
    )
    graph = import_graph(package)
    assert upward_imports(graph, layers) == [
        "minimcp.rpc.connection (layer 1, line 2) imports minimcp.server.tools (layer 4)"
    ]
    assert cycles(graph) == [["minimcp.server.server", "minimcp.server.tools"]]
