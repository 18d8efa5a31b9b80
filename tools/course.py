"""The course manifest, ``course.toml``, read in one place.

    python tools/course.py            # every lesson: its page, notebook, exercise, tests, modules
    python tools/course.py 05         # one lesson

``tools/check.py``, ``tests/test_layers.py`` and the README's lesson-table test all read the manifest
through :func:`load`, so a lesson's files are named once.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
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
    lines += [f"  {'':10} {path}" for path in entry.get("more_pages", [])]  # the same lesson, continued
    for key in ("notebook", "exercise", "solution"):
        if key in entry:
            lines.append(f"  {key + ':':10} {entry[key]}")
    for key in ("tests", "modules"):
        for i, path in enumerate(entry.get(key, [])):
            lines.append(f"  {(key + ':') if i == 0 else '':10} {path}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/course.py", description="Where a lesson's files are.")
    parser.add_argument("lesson", nargs="?", help="a lesson number, e.g. 05 (default: every lesson)")
    args = parser.parse_args(argv)
    entries = [lesson(args.lesson)] if args.lesson else lessons()
    print("\n\n".join(describe(entry) for entry in entries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
