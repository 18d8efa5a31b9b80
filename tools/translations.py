"""The Spanish edition, kept in step with the English one.

Every page ``lessons/**/name.md`` has a Spanish twin ``lessons/**/name.es.md`` beside it (the
suffix rule of mkdocs-static-i18n, which builds the Spanish site under ``/es/``). A twin says in
its front matter which version of the English page it translates, as the English file's git blob
id (what ``git hash-object lessons/04-tools/index.md`` prints)::

    ---
    translates: 3f1c9a...
    ---

and it keeps the English page's *structure*: the same headings, at the same levels, with the
same anchors (a Spanish heading ends with ``{#the-english-anchor}``, so every link into the page
works in both editions); the same code blocks, with the same code (only comments may be
translated; a diagram's labels may be); the same kinds of admonitions, the same links, the same
tables. What differs is the prose, and the prose must differ: an English sentence left as it was
is reported.

Commands::

    python tools/translations.py check            # every twin: missing, stale, or out of shape
    python tools/translations.py anchors PAGE.md  # the English headings, with the anchors to keep
    python tools/translations.py stamp PAGE.es.md # record that the twin now translates HEAD's page

When an English page changes, ``check`` (and ``tests/test_translations.py``) names its twin as
stale and prints the command that shows what changed since the version it translates (a ``git
diff`` between the two blobs); revisit the twin, then ``stamp`` it.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from tools.page_shape import Shape, page_shape

ROOT = Path(__file__).resolve().parent.parent
PAGES = ROOT / "lessons"
LANGUAGE = "es"
FRONT_MATTER = re.compile(r"\A---\n(?P<yaml>.*?)\n---\n", re.S)


def blob_id(data: bytes) -> str:
    """The id git gives a file's content: sha1 of ``blob <size>\\0`` and the bytes."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def english_pages(root: Path = ROOT) -> list[Path]:
    """Every page of the English edition (a name with no language suffix)."""
    return sorted(p for p in (root / "lessons").rglob("*.md") if "." not in p.stem)


def twin_of(page: Path) -> Path:
    return page.with_name(f"{page.stem}.{LANGUAGE}.md")


def translates(twin_text: str) -> str | None:
    """The blob id a twin's front matter records, if any."""
    match = FRONT_MATTER.match(twin_text)
    found = match and re.search(r"^translates:\s*([0-9a-f]{40})\s*$", match["yaml"], re.M)
    return found.group(1) if found else None


def stale_message(page: Path, recorded: str | None, root: Path) -> str:
    where = page.relative_to(root)
    if recorded is None:
        return f"{twin_of(where)} has no `translates:` line in its front matter"
    return (
        f"{twin_of(where)} translates an older {where}: see what changed with\n"
        f"    git diff {recorded} HEAD:{where}\n"
        f"then revisit the twin and run: python tools/translations.py stamp {twin_of(where)}"
    )


def compare(english: Shape, spanish: Shape) -> list[str]:
    """How the twin's structure differs from the page's (empty when it matches)."""
    problems: list[str] = []
    for part in ("headings", "admonitions", "fence_kinds", "table_rows", "includes"):
        if getattr(english, part) != getattr(spanish, part):
            en, es = getattr(english, part), getattr(spanish, part)
            problems.append(f"{part} differ:\n    en: {en}\n    es: {es}")
    if sorted(english.links) != sorted(spanish.links):
        only_en = sorted(set(english.links) - set(spanish.links))
        only_es = sorted(set(spanish.links) - set(english.links))
        problems.append(f"links differ: only in en {only_en}, only in es {only_es}")
    pairs = zip(english.code, spanish.code, strict=False)  # a count that differs is named above
    for number, (en_code, es_code) in enumerate(pairs, start=1):
        if en_code != es_code:
            problems.append(f"code block {number} differs beyond its comments:\n{es_code[:300]}")
    for line in sorted(set(english.prose) & set(spanish.prose)):
        problems.append(f"left in English: {line[:100]}")
    return problems


def check_twin(page: Path, root: Path = ROOT) -> list[str]:
    """Everything wrong with ``page``'s twin: missing, stale, or of another shape."""
    twin = twin_of(page)
    if not twin.is_file():
        return [f"{twin.relative_to(root)} is missing"]
    english_bytes = page.read_bytes()
    twin_text = twin.read_text(encoding="utf-8")
    problems = []
    recorded = translates(twin_text)
    if recorded != blob_id(english_bytes):
        problems.append(stale_message(page, recorded, root))
    body = FRONT_MATTER.sub("", twin_text, count=1)
    shape_problems = compare(page_shape(english_bytes.decode("utf-8")), page_shape(body))
    problems += [f"{twin.relative_to(root)}: {p}" for p in shape_problems]
    return problems


def stamp(twin: Path) -> None:
    """Record in ``twin``'s front matter the blob id of its English page as it is now."""
    page = twin.with_name(twin.name.replace(f".{LANGUAGE}.md", ".md"))
    line = f"translates: {blob_id(page.read_bytes())}"
    text = twin.read_text(encoding="utf-8")
    match = FRONT_MATTER.match(text)
    if match is None:
        text = f"---\n{line}\n---\n\n{text}"
    elif translates(text) is None:
        text = f"---\n{match['yaml']}\n{line}\n---\n{text[match.end() :]}"
    else:
        text = re.sub(r"^translates:.*$", line, text, count=1, flags=re.M)
    twin.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("check", help="report every twin that is missing, stale or out of shape")
    commands.add_parser("anchors", help="an English page's headings and anchors").add_argument(
        "page", type=Path
    )
    commands.add_parser("stamp", help="record the English version a twin translates").add_argument(
        "twin", type=Path, nargs="+"
    )
    args = parser.parse_args(argv)
    if args.command == "anchors":
        for level, anchor, title in page_shape(args.page.read_text(encoding="utf-8")).titled:
            print(f"{'#' * level} {title} {{#{anchor}}}")
        return 0
    if args.command == "stamp":
        for twin in args.twin:
            stamp(twin)
        return 0
    problems = [p for page in english_pages() for p in check_twin(page)]
    print("\n".join(problems) or "every page has an up-to-date twin of the same shape")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
