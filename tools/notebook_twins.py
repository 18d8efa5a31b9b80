"""The Spanish twins of the notebooks: the same code and outputs, the prose in Spanish.

``notebooks/NN-slug.es.ipynb`` is ``notebooks/NN-slug.ipynb`` with its Markdown cells translated
and nothing else changed: the same code cells, the same stored outputs, the same metadata. So
nbval runs only the English notebooks (``--ignore-glob`` in pyproject.toml) and
``tests/test_translations.py`` proves each twin identical to its notebook but for the prose.
Each translated cell records, in its metadata, which English text it translates (``translates``:
a short hash of the English cell's source), so a changed English cell is found.

How to translate a notebook, or revisit one whose English changed::

    python tools/notebook_twins.py export 04 > 04.md   # its Markdown cells, one block each
    # translate the blocks in 04.md (keep the <!-- cell N --> lines as they are)
    python tools/notebook_twins.py import 04 04.md     # writes notebooks/04-tools.es.ipynb

``export`` gives the twin's Spanish text where it is up to date, and the English text where the
twin has none yet or the English cell changed. After re-running the English notebooks
(``tools/run_notebooks.py`` does this for you), ``python tools/notebook_twins.py sync`` copies
their new code and outputs into the twins and names the cells still to translate; ``check``
reports every twin that is missing, stale or different in anything but its prose.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
LANGUAGE = "es"
CELL_MARK = re.compile(r"^<!-- cell (\d+) -->$", re.M)

Notebook = dict[str, Any]


def text_hash(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:12]


def source_of(cell: dict[str, Any]) -> str:
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def as_lines(text: str) -> list[str]:
    """A cell's source as Jupyter stores it: a list of lines, each keeping its newline."""
    return text.splitlines(keepends=True)


def english_notebooks(root: Path = ROOT) -> list[Path]:
    return sorted(p for p in (root / "notebooks").glob("*.ipynb") if "." not in p.stem)


def twin_of(notebook: Path) -> Path:
    return notebook.with_name(f"{notebook.stem}.{LANGUAGE}.ipynb")


def find(ident: str, root: Path = ROOT) -> Path:
    """The English notebook of a lesson: ``04``, ``04-tools`` or a path."""
    matches = [p for p in english_notebooks(root) if p.name.startswith(Path(ident).stem)]
    if len(matches) != 1:
        raise SystemExit(f"no single notebook matches {ident!r}: {[p.name for p in matches]}")
    return matches[0]


def read(path: Path) -> Notebook:
    result: Notebook = json.loads(path.read_text(encoding="utf-8"))
    return result


def write(path: Path, notebook: Notebook) -> None:
    """As Jupyter and nbformat write a notebook: one-space indents, a newline at the end."""
    text = json.dumps(notebook, indent=1, ensure_ascii=False, sort_keys=True)
    path.write_text(text + "\n", encoding="utf-8")


def translations(twin: Notebook) -> dict[str, str]:
    """The twin's translated cells, by the hash of the English text each one translates."""
    return {
        cell["metadata"]["translates"]: source_of(cell)
        for cell in twin["cells"]
        if cell["cell_type"] == "markdown" and "translates" in cell["metadata"]
    }


def build_twin(english: Notebook, known: dict[str, str]) -> tuple[Notebook, list[int]]:
    """The twin: ``english`` with each Markdown cell whose translation is known translated.

    Returns it with the numbers of the Markdown cells left in English."""
    twin = copy.deepcopy(english)
    untranslated = []
    for number, cell in enumerate(twin["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        key = text_hash(source_of(cell))
        if key in known:
            cell["source"] = as_lines(known[key])
            cell["metadata"]["translates"] = key
        else:
            untranslated.append(number)
    return twin, untranslated


def export(notebook: Path) -> str:
    """The Markdown cells to translate, as one text: Spanish where known, else English."""
    english = read(notebook)
    twin_path = twin_of(notebook)
    known = translations(read(twin_path)) if twin_path.is_file() else {}
    twin, _ = build_twin(english, known)
    blocks = [
        f"<!-- cell {number} -->\n{source_of(cell).rstrip()}\n"
        for number, cell in enumerate(twin["cells"])
        if cell["cell_type"] == "markdown"
    ]
    return "\n".join(blocks)


def import_text(notebook: Path, text: str) -> list[int]:
    """Write the twin from a translated export; returns the cells still identical to English."""
    english = read(notebook)
    parts = CELL_MARK.split(text)
    blocks = {
        int(number): body.strip("\n") for number, body in zip(parts[1::2], parts[2::2], strict=True)
    }
    expected = [n for n, c in enumerate(english["cells"]) if c["cell_type"] == "markdown"]
    if sorted(blocks) != expected:
        raise SystemExit(f"the text has cells {sorted(blocks)}; the notebook's are {expected}")
    known = {text_hash(source_of(english["cells"][n])): blocks[n] for n in expected}
    twin, _ = build_twin(english, known)
    write(twin_of(notebook), twin)
    return [n for n in expected if blocks[n] == source_of(english["cells"][n]).strip("\n")]


def sync(notebook: Path) -> list[int]:
    """Rebuild a twin from its re-run notebook, keeping its translations; cells to translate."""
    twin_path = twin_of(notebook)
    if not twin_path.is_file():
        return []
    twin, untranslated = build_twin(read(notebook), translations(read(twin_path)))
    write(twin_path, twin)
    return untranslated


def check(notebook: Path, root: Path = ROOT) -> list[str]:
    """Everything wrong with a notebook's twin: missing, stale, or more than its prose changed."""
    twin_path = twin_of(notebook)
    name = twin_path.relative_to(root)
    if not twin_path.is_file():
        return [f"{name} is missing"]
    english, twin = read(notebook), read(twin_path)
    if len(english["cells"]) != len(twin["cells"]):
        return [f"{name} has {len(twin['cells'])} cells, its notebook {len(english['cells'])}"]
    problems = []
    if {k: v for k, v in twin.items() if k != "cells"} != {
        k: v for k, v in english.items() if k != "cells"
    }:
        problems.append(f"{name}: its metadata differs from the English notebook's")
    for number, (en, es) in enumerate(zip(english["cells"], twin["cells"], strict=True)):
        problems += [f"{name}, cell {number}: {p}" for p in _cell_problems(en, es)]
    return problems


def _cell_problems(english: dict[str, Any], twin: dict[str, Any]) -> list[str]:
    """A code cell must be identical; a Markdown cell must translate the English one as it is."""
    if english["cell_type"] != "markdown":
        return [] if english == twin else ["code or outputs differ from the English notebook"]
    if twin["cell_type"] != "markdown":
        return ["is not a Markdown cell"]
    rest = {k: v for k, v in twin.items() if k not in ("source", "metadata")}
    if rest != {k: v for k, v in english.items() if k not in ("source", "metadata")}:
        return ["differs beyond its text"]
    if twin["metadata"].get("translates") != text_hash(source_of(english)):
        return ["translates an older English text: export, revisit, import (see the docstring)"]
    if source_of(twin).strip() == source_of(english).strip():
        return ["is still the English text"]
    return []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("export", help="print a notebook's Markdown cells").add_argument("lesson")
    to_import = commands.add_parser("import", help="write the twin from a translated export")
    to_import.add_argument("lesson")
    to_import.add_argument("text", type=Path)
    commands.add_parser("sync", help="copy re-run code and outputs into every twin")
    commands.add_parser("check", help="report every twin missing, stale or changed")
    args = parser.parse_args(argv)
    if args.command == "export":
        print(export(find(args.lesson)), end="")
        return 0
    if args.command == "import":
        same = import_text(find(args.lesson), args.text.read_text(encoding="utf-8"))
        print(f"wrote {twin_of(find(args.lesson)).name}; cells still in English: {same or 'none'}")
        return 0
    if args.command == "sync":
        for notebook in english_notebooks():
            left = sync(notebook)
            if left:
                print(f"{twin_of(notebook).name}: translate cells {left} again (export/import)")
        return 0
    problems = [p for notebook in english_notebooks() for p in check(notebook)]
    print("\n".join(problems) or "every notebook has an up-to-date twin")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
