"""Every in-page link of the built site leads somewhere: ``href="#x"`` names an id on the same page.

The site is built for real (``mkdocs build``, into a temporary folder), as a reader gets it. A notebook
page's contents once linked to ids that did not exist whenever a heading held inline code.
"""

from __future__ import annotations

import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

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


def test_every_in_page_link_of_the_built_site_resolves(tmp_path: Path) -> None:
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)],
                           cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    assert built.returncode == 0, built.stderr
    dead = []
    pages = [page for page in sorted(site.rglob("*.html")) if "assets" not in page.parts and page.name != "404.html"]
    assert len(pages) > 10, "the site has lessons and notebooks"
    for page in pages:
        anchors = Anchors()
        anchors.feed(page.read_text(encoding="utf-8", errors="replace"))
        dead += [f"{page.relative_to(site)}#{link}" for link in anchors.links if link not in anchors.ids]
    assert dead == []
