"""Draw every diagram of the built site with Mermaid itself, in headless Chromium; report errors.

    mkdocs build --strict -d /tmp/site && python tools/check_diagrams.py /tmp/site

Why a check of its own: a ```mermaid block reaches the page as plain text inside
``<pre class="mermaid">``, and only the reader's browser turns it into a drawing. ``mkdocs build
--strict`` never parses it, so a diagram Mermaid cannot read builds without a warning, and the
reader sees its raw source instead. Two slips did exactly that, and a third lost words:

- a ``;`` in a sequence diagram ends the statement, as a line break does: ``Note over A: PKCE;
  state`` leaves ``state`` alone on a line of its own, which is no statement. Write ``#59;``.
- a ``#`` starts one of Mermaid's entity codes (``#35;`` is ``#``, ``#59;`` is ``;``), so in
  ``POST tools/call #2`` Mermaid draws ``POST tools/call`` and drops the rest, with no error. This
  check reports any ``#`` that starts no entity code.

How it works:

1. every built page's ``<pre class="mermaid"><code>`` blocks are read back into Mermaid source;
2. the site is served as it is built, by Python's own static file server on a free port of
   127.0.0.1 (in a thread, stopped at the end), with one page more, made here and never written into
   the site: it loads the site's own Mermaid (``assets/javascripts/mermaid/mermaid.min.js``) and
   settings (``mermaid-config.js``), draws every diagram with ``mermaid.render``, and writes what
   happened to each into the page;
3. ``chromium --headless --dump-dom`` opens that page and prints it once the drawing is done;
   ``--virtual-time-budget`` lets the page's promises run before the dump.

``draw`` also gives each diagram's natural width in pixels: tests/test_site_links.py uses it to
keep the home page's diagram within a phone's column (wider diagrams scroll sideways).

It prints one line per diagram that failed (the page, which diagram, Mermaid's message), then the
count: ``N diagrams checked, 0 failed``; it exits with 0 only if none failed. Chromium is found as
``chromium``, ``chromium-browser``, ``google-chrome`` on PATH, or given with ``--chromium PATH``.
"""

from __future__ import annotations

import argparse
import functools
import html
import json
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

# The page that draws the diagrams: served at this path, next to the site's own files.
HARNESS_PATH = "/__check_diagrams__.html"

# A diagram as the built page holds it: the block Material draws, its source HTML-escaped inside.
MERMAID_BLOCK = re.compile(r'<pre class="mermaid"><code>(.*?)</code></pre>', re.DOTALL)

# A `#` that starts an entity code Mermaid knows: #35; (a number) or #quot; (a name).
ENTITY = re.compile(r"#\w+;")

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


@dataclass(frozen=True)
class Diagram:
    """One diagram: its page (relative to the site), its number on that page, its source."""

    page: str
    number: int
    source: str

    @property
    def name(self) -> str:
        return f"{self.page}, diagram {self.number}"


@dataclass(frozen=True)
class Drawing:
    """What Mermaid made of one diagram: its error ("" if none), and its natural width in pixels."""

    error: str
    width: float


def find_diagrams(site: Path) -> list[Diagram]:
    """Every diagram of the built site, page by page, in the order the pages show them."""
    diagrams = []
    for page in sorted(site.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        for number, block in enumerate(MERMAID_BLOCK.findall(text), start=1):
            relative = page.relative_to(site).as_posix()
            diagrams.append(Diagram(relative, number, html.unescape(block)))
    return diagrams


def stray_hashes(diagram: Diagram) -> list[str]:
    """The lines of a diagram with a `#` that starts no entity code (comments, `%%`, aside)."""
    lines = []
    for line in diagram.source.splitlines():
        if not line.strip().startswith("%%") and "#" in ENTITY.sub("", line):
            lines.append(line.strip())
    return lines


def harness(diagrams: list[Diagram]) -> str:
    """The page that draws every diagram with the site's Mermaid and writes down what happened.

    Each result is ``{"error": "", "width": 342}`` (drawn, that many pixels wide at its natural
    size) or ``{"error": "Parse error on line 13: ...", "width": 0}``. The results go into
    ``<pre id="results">`` as JSON, which only exists once every diagram has been tried.
    """
    sources = json.dumps([d.source for d in diagrams]).replace("</", "<\\/")
    return f"""<!doctype html>
<html><head><meta charset="utf-8">
<script src="/assets/javascripts/mermaid/mermaid.min.js"></script>
<script src="/assets/javascripts/mermaid-config.js"></script>
</head><body><script>
(async function () {{
  const sources = {sources};
  mermaid.initialize({{ startOnLoad: false }});
  const results = [];
  for (let i = 0; i < sources.length; i++) {{
    try {{
      const drawn = await mermaid.render("diagram-" + i, sources[i]);
      const box = drawn.svg.match(/viewBox="[^"]*?(\\S+) \\S+"/);
      results.push({{ error: "", width: box ? Number(box[1]) : 0 }});
    }} catch (error) {{
      const message = String(error && error.message ? error.message : error);
      results.push({{ error: message || "error", width: 0 }});
    }}
  }}
  const out = document.createElement("pre");
  out.id = "results";
  out.textContent = JSON.stringify(results);
  document.body.appendChild(out);
}})();
</script></body></html>
"""


@contextmanager
def serve(site: Path, page: str) -> Iterator[str]:
    """Serve the built site on a free loopback port, and ``page`` at HARNESS_PATH; yield its URL."""

    class Handler(SimpleHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path != HARNESS_PATH:
                super().do_GET()
                return
            body = page.encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass  # one line per file served would bury the report

    handler = functools.partial(Handler, directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)  # port 0: the system picks a free one
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{HARNESS_PATH}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def find_chromium(given: str | None) -> str:
    """The Chromium to run: the one given, or the first of BROWSERS on PATH."""
    for name in (given,) if given else BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    raise SystemExit(f"error: no Chromium found (looked for {', '.join(BROWSERS)}): use --chromium")


def draw(diagrams: list[Diagram], site: Path, chromium: str) -> list[Drawing]:
    """Draw every diagram in headless Chromium: what became of each, in the same order."""
    with serve(site, harness(diagrams)) as url:
        dumped = subprocess.run(
            [
                chromium,
                "--headless",
                "--no-sandbox",  # CI runs as root, where Chromium's sandbox refuses to start
                "--disable-gpu",
                "--virtual-time-budget=60000",
                "--dump-dom",
                url,
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
    found = re.search(r'<pre id="results">(.*?)</pre>', dumped.stdout, re.DOTALL)
    if found is None:
        raise SystemExit(f"error: the diagrams were not all drawn in time\n{dumped.stderr[-2000:]}")
    results = json.loads(html.unescape(found.group(1)))
    return [Drawing(str(r["error"]), float(r["width"])) for r in results]


def short(error: str) -> str:
    """Mermaid's message on one line, its list of the tokens it expected cut to their number."""
    message = " ".join(error.split())
    return re.sub(
        r"Expecting ((?:'[^']*', )+)'[^']*', got",
        lambda m: f"Expecting one of {m.group(1).count(',') + 1} tokens, got",
        message,
    )


def check(site: Path, chromium: str) -> tuple[int, list[str]]:
    """Check every diagram of the site: how many there are, and one line per failed diagram."""
    diagrams = find_diagrams(site)
    failures = []
    for diagram, drawing in zip(diagrams, draw(diagrams, site, chromium), strict=True):
        error = drawing.error
        hashes = stray_hashes(diagram)
        if error:
            failures.append(f"{diagram.name}: {short(error)}")
        elif hashes:
            failures.append(
                f"{diagram.name}: Mermaid reads '#' as the start of an entity code and does not"
                f" draw it as written (write #35; for #): {' | '.join(hashes)}"
            )
    return len(diagrams), failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the built site (mkdocs build -d SITE)")
    parser.add_argument("--chromium", help="the Chromium (or Chrome) to run")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        raise SystemExit(f"error: no built site in {args.site} (run mkdocs build -d {args.site})")
    count, failures = check(args.site, find_chromium(args.chromium))
    for failure in failures:
        print(failure)
    print(f"{count} diagrams checked, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
