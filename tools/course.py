"""The course manifest, ``course.toml``, read in one place.

    python tools/course.py            # every lesson: its page, notebook, exercise, tests, modules
    python tools/course.py 05         # one lesson
    python tools/course.py closure    # what importing each lesson's modules runs, and whose it is
    python tools/course.py snapshot 04 DIR   # minimcp as of lesson 04: only lessons 01-04's modules

``tools/check.py``, ``tests/test_layers.py`` and the README's lesson-table test all read the
manifest through :func:`load`, so a lesson's files are named once.
"""

from __future__ import annotations

import argparse
import ast
import shutil
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def load(root: Path = ROOT) -> dict[str, Any]:
    """The parsed manifest: ``{"layers": {"order": [...]}, "lesson": [{...}, ...]}``."""
    with open(root / "course.toml", "rb") as file:
        return tomllib.load(file)


def lessons(root: Path = ROOT) -> list[dict[str, Any]]:
    """Every lesson's entry, in the manifest's order: ``{"number": "05", "title": ..., ...}``.

    A key a lesson does not need is absent (lesson 00 has no notebook and no exercise), so read
    the optional ones with ``entry.get(...)``.
    """
    return list(load(root).get("lesson", []))


def lesson(number: str, root: Path = ROOT) -> dict[str, Any]:
    """The lesson whose number is ``number`` ("5", "05", or "05-resources" all name lesson 05)."""
    wanted = number.split("-")[0].zfill(2)
    for entry in lessons(root):
        if entry["number"] == wanted:
            return entry
    raise KeyError(f"no lesson {number!r} in course.toml")


def describe(entry: dict[str, Any]) -> str:
    """One lesson's files, a line each, for a person to read (``python tools/course.py 05``)."""
    lines = [f"{entry['number']} · {entry['title']}"]
    if "page" in entry:
        lines.append(f"  {'page:':10} {entry['page']}")
    # The same lesson, continued.
    lines += [f"  {'':10} {path}" for path in entry.get("more_pages", [])]
    for key in ("notebook", "exercise", "solution"):
        if key in entry:
            lines.append(f"  {key + ':':10} {entry[key]}")
    for key in ("tests", "modules"):
        for i, path in enumerate(entry.get(key, [])):
            lines.append(f"  {(key + ':') if i == 0 else '':10} {path}")
    return "\n".join(lines)


# -- the import graph: which minimcp module imports which ---------------------------------------
def module_name(path: Path, root: Path) -> str:
    """``minimcp/server/tools.py`` -> ``minimcp.server.tools``; a package's ``__init__`` is the
    package."""
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def all_modules(package: Path) -> dict[str, Path]:
    return {module_name(path, package.parent): path for path in sorted(package.rglob("*.py"))}


def imports_of(name: str, path: Path, known: set[str]) -> Iterator[tuple[str, int]]:
    """The minimcp modules that ``name`` imports, with the line of each import.

    Every ``import`` counts, wherever it stands: at the top, inside a function, under ``if
    TYPE_CHECKING:``. Python runs some of them only later, but a reader follows them all.
    """
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "minimcp":
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # a relative import: resolve it against this module's package
                package = name.split(".") if is_package else name.split(".")[:-1]
                package = package[: len(package) - (node.level - 1)]
                base = ".".join(package + ([base] if base else []))
            if base.split(".")[0] != "minimcp":
                continue
            for alias in node.names:  # `from minimcp.server import tools` imports a module
                candidate = f"{base}.{alias.name}"
                yield (candidate if candidate in known else base), node.lineno


def import_graph(package: Path) -> dict[str, dict[str, int]]:
    """Every module of ``package`` -> the package's modules it imports (and the line of each)."""
    modules = all_modules(package)
    known = set(modules)
    return {name: dict(imports_of(name, path, known)) for name, path in modules.items()}


# -- each lesson's code, and what importing it runs ---------------------------------------------
def owners(root: Path = ROOT) -> dict[str, str]:
    """Module name -> the number of the lesson that builds it (from each lesson's ``modules``)."""
    return {
        module_name(Path(path), Path(".")): entry["number"]
        for entry in lessons(root)
        for path in entry.get("modules", [])
    }


def closure(graph: dict[str, dict[str, int]], start: list[str]) -> set[str]:
    """Every module that importing ``start`` runs: what they import, and the packages above each
    (Python runs a package's ``__init__`` before any module inside it), and so on."""
    seen: set[str] = set()
    todo = list(start)
    while todo:
        module = todo.pop()
        if module in seen or module not in graph:
            continue
        seen.add(module)
        parts = module.split(".")
        todo += [".".join(parts[:end]) for end in range(1, len(parts))]
        todo += graph[module]
    return seen


def later_modules(
    entry: dict[str, Any], graph: dict[str, dict[str, int]], owner: dict[str, str]
) -> list[str]:
    """The modules of later lessons that importing ``entry``'s own modules runs (none, if the
    lesson stands alone). A module no lesson builds counts as later unless it is a package's
    ``__init__`` or part of the package itself (``minimcp.lazy``): those belong to every lesson."""
    own = [module_name(Path(path), Path(".")) for path in entry.get("modules", [])]

    def belongs_later(module: str) -> bool:
        if module in owner:
            return owner[module] > entry["number"]
        return not (
            is_package(module, graph) or module.count(".") == 1 and module.endswith(".lazy")
        )

    return sorted(module for module in closure(graph, own) if belongs_later(module))


def is_package(module: str, graph: dict[str, dict[str, int]]) -> bool:
    return any(other.startswith(module + ".") for other in graph)


def closure_table(root: Path = ROOT) -> list[str]:
    """One line per lesson with code: its own modules and lines, what importing them runs, and how
    much of that comes from later lessons (``python tools/course.py closure``)."""
    graph = import_graph(root / "minimcp")
    owner = owners(root)
    size = {
        name: len(path.read_text(encoding="utf-8").splitlines())
        for name, path in all_modules(root / "minimcp").items()
    }
    rows = [
        f"{'lesson':6} | {'its own modules':>16} | {'importing them runs':>19} | from later lessons"
    ]
    for entry in lessons(root):
        own = [module_name(Path(path), Path(".")) for path in entry.get("modules", [])]
        if not own:
            continue
        runs, later = closure(graph, own), later_modules(entry, graph, owner)
        rows.append(
            f"{entry['number']:6} | {len(own):3} / {sum(size[m] for m in own):6,} lines | "
            f"{len(runs):3} / {sum(size[m] for m in runs):6,} lines | "
            f"{len(later)} / {sum(size[m] for m in later):,} lines"
            + (f": {', '.join(m.removeprefix('minimcp.') for m in later)}" if later else "")
        )
    return rows


# -- a snapshot: the package as of one lesson -----------------------------------------------------
def snapshot(number: str, target: Path, root: Path = ROOT) -> list[str]:
    """Copy ``minimcp`` into ``target/minimcp`` with only the modules of lessons up to ``number``,
    the ``__init__`` of each package that keeps a module, and the JSON data such a package reads;
    returns the modules left out.
    ``PYTHONPATH=target`` then runs "minimcp as of lesson NN", whole and alone.

    An example no lesson builds (``minimcp/examples/course.py``, the course's example server) is
    kept too when everything importing it runs is kept (another example included): it belongs to the
    earliest lesson that has all it stands on. The command line (``cli``, ``__main__``) is the
    course's top and never kept."""
    wanted = lesson(number, root)["number"]
    owner = owners(root)
    modules = all_modules(root / "minimcp")
    kept = {
        name
        for name in modules
        if name in owner and owner[name] <= wanted or name == "minimcp.lazy"
    }
    graph = import_graph(root / "minimcp")
    examples = [
        name for name in modules if name.startswith("minimcp.examples.") and name not in owner
    ]
    grew = True
    # An example may stand on another (course.py on course_tools.py): again, until none is added.
    while grew:
        grew = False
        for name in examples:
            if name not in kept and all(
                other in kept or is_package(other, graph)
                for other in closure(graph, [name]) - {name}
            ):
                kept.add(name)
                grew = True
    packages = {
        ".".join(name.split(".")[:end]) for name in kept for end in range(1, name.count(".") + 1)
    }
    for name in sorted(kept | packages):
        path = modules[name]
        copy = target / path.relative_to(root)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, copy)
    # The data a kept package reads (course_data.json).
    for data in (root / "minimcp").rglob("*.json"):
        if (target / data.relative_to(root)).parent.is_dir():
            shutil.copyfile(data, target / data.relative_to(root))
    return sorted(set(modules) - kept - packages)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python tools/course.py", description="Where a lesson's files are."
    )
    parser.add_argument(
        "lesson",
        nargs="?",
        help="a lesson number, e.g. 05 (default: every lesson); or 'closure', or 'snapshot'",
    )
    parser.add_argument("more", nargs="*", help="for snapshot: the lesson and the folder to write")
    args = parser.parse_args(argv)
    if args.lesson == "closure":
        print("\n".join(closure_table()))
        return 0
    if args.lesson == "snapshot":
        if len(args.more) != 2:
            parser.error("usage: python tools/course.py snapshot NN DIR")
        number, folder = args.more
        left_out = snapshot(number, Path(folder))
        print(
            f"minimcp as of lesson {lesson(number)['number']} in {folder}/minimcp "
            f"({len(left_out)} modules of later lessons left out)"
        )
        return 0
    entries = [lesson(args.lesson)] if args.lesson else lessons()
    print("\n\n".join(describe(entry) for entry in entries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
