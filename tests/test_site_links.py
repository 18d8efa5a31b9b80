"""The built site, as a reader gets it: every in-page link leads somewhere, and search finds lessons
first.

The site is built for real (``mkdocs build``, into a temporary folder), once for this module. A
notebook page's contents once linked to ids that did not exist whenever a heading held inline code;
and search once ranked notebooks above lessons, with "In [3]: Copied!" in its snippets. Three
diagrams once reached the reader as raw Mermaid source, which the build cannot see: each diagram is
drawn by Mermaid itself, in headless Chromium (``tools/check_diagrams.py``). A notebook's contents
once dropped its headings' inline code ("5. : hearing about changes"), its search titles ended with
"¶", and a search for Last-Event-ID looked for every "id".
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest

from tools import check_diagrams, mkdocs_hooks

#: The first test of this file waits for the site to build: both editions, every notebook
#: rendered twice, which took minutes on a loaded 2-core machine. A bound, not a budget.
pytestmark = pytest.mark.timeout(900)

ROOT = Path(__file__).resolve().parents[1]


class Anchors(HTMLParser):
    """The ids of one page, and the targets of its in-page links."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(str(found["id"]))
        href = found.get("href") or ""
        if tag == "a" and href.startswith("#") and len(href) > 1:
            self.links.append(unquote(href[1:]))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built with ``mkdocs build --strict`` into a temporary folder."""
    site = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert built.returncode == 0, built.stderr
    return site


def test_every_in_page_link_of_the_built_site_resolves(site: Path) -> None:
    dead = []
    pages = [
        page
        for page in sorted(site.rglob("*.html"))
        if "assets" not in page.parts and page.name != "404.html"
    ]
    assert len(pages) > 10, "the site has lessons and notebooks"
    for page in pages:
        anchors = Anchors()
        anchors.feed(page.read_text(encoding="utf-8", errors="replace"))
        dead += [
            f"{page.relative_to(site)}#{link}" for link in anchors.links if link not in anchors.ids
        ]
    assert dead == []


def test_search_ranks_lessons_above_notebooks_and_indexes_no_prompts(site: Path) -> None:
    entries = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))[
        "docs"
    ]
    in_notebook = re.compile(r"(es/)?notebooks/")  # either edition's
    notebooks = [e for e in entries if in_notebook.match(e["location"])]
    lessons = [e for e in entries if not in_notebook.match(e["location"])]
    assert notebooks and lessons
    # Lunr multiplies a document's score by its boost (1 when absent).
    assert {e.get("boost", 1) for e in lessons} == {1}
    assert max(e.get("boost", 1) for e in notebooks) < 1
    # What surrounds a notebook's code is no text: "In [3]:", "Out[3]:" and the copy button's
    # "Copied!".
    prompt = re.compile(r"(In|Out)\s?\[\d*\]:|Copied!")
    assert [e["location"] for e in entries if prompt.search(e["text"])] == []
    # ... while the code itself stays searchable.
    assert any("import asyncio" in e["text"] for e in notebooks)


def test_mermaid_draws_every_diagram_of_the_built_site(site: Path) -> None:
    # No skip when Chromium is missing: .ci/run installs it, and a student's machine needs it to
    # see the diagrams at all.
    count, failures = check_diagrams.check(site, check_diagrams.find_chromium(None))
    assert count > 30, "the lessons have dozens of diagrams"
    assert failures == []


# The text column of a phone 390 px wide: the theme leaves 16 px on each side.
PHONE_COLUMN = 390 - 2 * 16


def test_the_home_pages_diagram_fits_a_phone(site: Path) -> None:
    # Wider diagrams scroll sideways; the first one a reader meets was cut mid-word on a phone.
    home = [d for d in check_diagrams.find_diagrams(site) if d.page == "index.html"]
    drawings = check_diagrams.draw(home, site, check_diagrams.find_chromium(None))
    assert home and [d.width for d in drawings if d.width > PHONE_COLUMN] == []


# An entry of a page's table of contents: the heading's id, and the words shown.
CONTENTS_ENTRY = re.compile(
    r'<a href="#([^"]+)" class="md-nav__link">\s*<span class="md-ellipsis">(.*?)</span>', re.S
)


def _words(html: str) -> str:
    """The words of some HTML, tags and permalinks left out."""
    html = re.sub(r'<a class="headerlink".*?</a>', "", html, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", "", html).split())


def test_notebook_contents_keep_each_headings_code_and_search_titles_no_pilcrow(site: Path) -> None:
    # mkdocs-jupyter once listed "5. `subscriptions/listen`: hearing ..." as "5. : hearing ...".
    missing = []
    for page in sorted(
        [*site.glob("notebooks/*/index.html"), *site.glob("es/notebooks/*/index.html")]
    ):
        text = page.read_text(encoding="utf-8")
        contents = {href: " ".join(title.split()) for href, title in CONTENTS_ENTRY.findall(text)}
        for heading_id, inner in re.findall(r'<h[2-6] id="([^"]+)">(.*?)</h[2-6]>', text, re.S):
            if contents.get(heading_id) != _words(inner):
                missing.append(
                    f"{page.parent.name}: {_words(inner)!r} is {contents.get(heading_id)!r}"
                )
    assert missing == []
    entries = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert [e["title"] for e in entries["docs"] if "¶" in e["title"]] == []


def test_search_keeps_hyphenated_words_whole(site: Path) -> None:
    # The theme's default separator, [\s\-]+, made a search for Last-Event-ID one for "id".
    entries = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    separator = entries["config"]["separator"]
    # ... and a query is split the same way, not with lunr's default (tools/mkdocs_hooks.py).
    workers = list(site.glob(mkdocs_hooks.SEARCH_WORKER))
    assert workers
    assert all(mkdocs_hooks.QUERY_SPLITS_LIKE_PAGES in w.read_text("utf-8") for w in workers)
    assert re.split(separator, "Last-Event-ID mcp-session-id") == [
        "Last-Event-ID",
        "mcp-session-id",
    ]


def test_the_spanish_edition_is_searched_in_spanish(site: Path) -> None:
    # One index holds both editions; lunr stems each with its language's rules (en and es).
    entries = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert entries["config"]["lang"] == ["en", "es"]
    spanish = " ".join(e["text"] for e in entries["docs"] if e["location"].startswith("es/"))
    for word in ("herramientas", "reanudación", "anfitrión"):
        assert word in spanish
    html = (site / "es" / "04-tools" / "index.html").read_text(encoding="utf-8")
    assert '<html lang="es"' in html
    assert 'hreflang="en"' in html and 'href="../../04-tools/"' in html  # the switcher
