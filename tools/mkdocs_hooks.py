"""MkDocs hooks for the course site (listed under `hooks:` in mkdocs.yml).

What they do, and why:

1. **Notebooks join the site.** The notebooks live in ``notebooks/`` at the repository root,
   outside ``docs_dir`` (``lessons/``), because that is where they run (``pytest --nbval``,
   ``tools/run_notebooks.py``). ``on_files`` adds every ``notebooks/*.ipynb`` to the site under the
   same path, ``notebooks/NN-slug.ipynb``, so the nav can list it and lesson pages can link it. It
   runs first (priority 100) so that mkdocs-jupyter's own ``on_files``, which wraps the notebooks it
   will convert, already sees them.
2. **Paths are relative to mkdocs.yml**, not to the directory mkdocs was started from: the snippets
   base path (``--8<-- "minimcp/rpc/jsonrpc.py:parse"``) and mkdocs-jupyter's cache.
3. **The site works offline.** nbconvert's page template loads MathJax and Mermaid from a CDN;
   notebook pages get neither (the notebooks use no math, and Material renders Mermaid with the
   copy the site serves). Then every built page is checked: a ``<script src>``, ``<link href>`` or
   ``import()`` that points at another host is reported as a warning, which fails ``mkdocs build
   --strict``.
4. **Search finds the lessons first.** A notebook page weighs less in the search index than a lesson
   page, and its "In [3]:" prompts and copy buttons ("Copied!") are not indexed.
5. **A notebook's contents read like a lesson's.** They are made from the page's headings, so a
   heading's inline code stays in its entry (mkdocs-jupyter deletes it), and each heading's "¶" is
   the theme's permalink, which search leaves out of the heading.
6. **A search for Last-Event-ID looks for Last-Event-ID.** mkdocs.yml's search ``separator`` keeps
   hyphenated words whole in the index; ``on_post_build`` makes the theme's search worker split a
   query the same way (it used lunr's default, which cuts at hyphens).
7. ``mkdocs serve`` also watches ``notebooks/`` and ``minimcp/`` (the code the lessons include).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import AnchorLink, TableOfContents

log = logging.getLogger("mkdocs.hooks.course")

NOTEBOOKS_DIR = "notebooks"
#: The line under a notebook's title, in each edition's language.
NOTEBOOK_SOURCE = {
    "en": '<p class="notebook-source">Stored outputs of {link}. '
    "To run it yourself: <code>jupyter lab {folder}/</code></p>",
    "es": '<p class="notebook-source">Salidas guardadas de {link}. '
    "Para ejecutarlo tú: <code>jupyter lab {folder}/</code></p>",
}


def _repo_root(config: MkDocsConfig) -> Path:
    """The folder holding mkdocs.yml: the repository root."""
    return Path(config.config_file_path).resolve().parent


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    root = _repo_root(config)

    snippets = config.mdx_configs.get("pymdownx.snippets")
    if snippets is not None:
        base = snippets.get("base_path", ["."])
        base = [base] if isinstance(base, str) else base
        snippets["base_path"] = [str((root / p).resolve()) for p in base]

    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is not None:
        cache_dir = Path(jupyter.config["cache_dir"])
        if not cache_dir.is_absolute():
            jupyter.config["cache_dir"] = str(root / cache_dir)
    return config


@event_priority(-200)  # after mkdocs-static-i18n (-100) has chosen each page's language
def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the notebooks of the edition being built (see :mod:`tools.mkdocs_notebooks`)."""
    for notebook in site_notebooks(_repo_root(config), config):
        if files.get_file_from_path(notebook.src_uri) is None:
            files.append(notebook)
    return files


def site_notebooks(root: Path, config: MkDocsConfig) -> list[File]:
    """The notebooks of the edition being built, as pages of the site.

    Each lesson's notebook is ``notebooks/NN-slug.ipynb``, and its Spanish twin
    ``notebooks/NN-slug.es.ipynb`` beside it (the suffix rule of the pages). Both live outside
    ``docs_dir``, which mkdocs-static-i18n does not expect, so they join the files after it has
    sorted the pages by language: the English build gets ``notebooks/NN-slug/``, the Spanish one
    ``es/notebooks/NN-slug/``, each page knowing its twin for the theme's language switcher.
    """
    i18n = config.plugins.get("i18n")
    language = getattr(i18n, "current_language", "en")
    found: list[File] = []
    for english in sorted((root / NOTEBOOKS_DIR).glob("*.ipynb")):
        stem = english.name.removesuffix(".ipynb")
        if "." in stem:  # a translation: found through its English notebook
            continue
        twins = {lang: _notebook_file(root, stem, lang, config) for lang in ("en", "es")}
        if not (root / twins["es"].src_uri).is_file():
            twins["es"] = _notebook_file(root, stem, "en", config, url_language="es")
        page = twins[language] if language in twins else twins["en"]
        # What mkdocs-static-i18n gives each page it sorts: the switcher links the twins.
        vars(page).update(alternates=twins, locale=language, locale_alternate_of=language)
        found.append(page)
    return found


def _notebook_file(
    root: Path, stem: str, lang: str, config: MkDocsConfig, url_language: str | None = None
) -> File:
    """One notebook as a page of the ``lang`` edition, wrapped for mkdocs-jupyter."""
    from mkdocs_jupyter.plugin import NotebookFile  # type: ignore[import-untyped]

    name = f"{stem}.ipynb" if lang == "en" else f"{stem}.{lang}.ipynb"
    prefix = "" if (url_language or lang) == "en" else f"{url_language or lang}/"
    source = File(f"{NOTEBOOKS_DIR}/{name}", str(root), config.site_dir, config.use_directory_urls)
    page = NotebookFile(source, config.use_directory_urls, config.site_dir)
    page.dest_path = f"{prefix}{NOTEBOOKS_DIR}/{stem}/index.html"
    page.abs_dest_path = str(Path(config.site_dir) / page.dest_path)
    page.url = f"{prefix}{NOTEBOOKS_DIR}/{stem}/"
    return page


def on_serve(
    server: LiveReloadServer, config: MkDocsConfig, builder: Callable[..., None]
) -> LiveReloadServer:
    root = _repo_root(config)
    for folder in (NOTEBOOKS_DIR, "minimcp"):
        if (root / folder).is_dir():
            server.watch(str(root / folder))
    return server


# nbconvert's loaders, between the comments its templates put around them.
_MATHJAX_LOADER = re.compile(r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->", re.S)
_MERMAID_LOADER = re.compile(
    r"<script type=\"module\">\s*"
    r"document\.addEventListener\(\"DOMContentLoaded\", async \(\) => \{\s*"
    r"const diagrams = document\.querySelectorAll\(\"\.jp-Mermaid"
    r".*?<!-- End of mermaid configuration -->",
    re.S,
)


# What a notebook page shows around its code that is no text to search: the "In [3]:" / "Out [3]:"
# prompts and the copy button's hidden "Copied!".
_NOT_TEXT = re.compile(r'<div class="(?:jp-InputPrompt|jp-OutputPrompt|zeroclipboard-container)\b')

#: How much a notebook weighs in search, against a lesson page's 1: a lesson explains, its notebook
#: shows the same words among code, so the lesson should come first.
NOTEBOOK_SEARCH_BOOST = 0.3


def prepare_notebook_for_search(html: str, page: Page) -> str:
    """Rank the notebook below the lessons, and keep its prompts and copy buttons out of the index.

    The theme's search reads ``page.meta["search"]["boost"]``, and skips any element marked
    ``data-search-exclude`` (it removes the mark from the page afterwards).
    """
    page.meta.setdefault("search", {}).setdefault("boost", NOTEBOOK_SEARCH_BOOST)
    return _NOT_TEXT.sub(
        lambda match: match.group(0).replace("<div ", '<div data-search-exclude="1" ', 1), html
    )


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if not page.file.src_uri.endswith(".ipynb"):
        return html
    html = _MATHJAX_LOADER.sub("", html)
    html = _MERMAID_LOADER.sub("", html)
    # nbconvert's pilcrow after each heading becomes the theme's permalink, which looks the same as
    # a lesson's and which search leaves out of the heading's title ("Roots ¶" otherwise).
    html = _ANCHOR_LINK.sub(r'<a class="headerlink" \1 title="Permanent link">', html)
    page.toc = notebook_toc(html)
    html = prepare_notebook_for_search(html, page)
    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is not None and jupyter.config["include_source"]:
        # mkdocs-jupyter copies the .ipynb beside the page: offer it, and say how to run it. The
        # line goes under the notebook's first heading (or on top, if it has none).
        name = Path(page.file.abs_src_path or page.file.src_uri).name
        link = f'<a href="{name}" download><code>{NOTEBOOKS_DIR}/{name}</code></a>'
        note = NOTEBOOK_SOURCE[getattr(page.file, "locale", "en")].format(
            link=link, folder=NOTEBOOKS_DIR
        )
        end_of_h1 = html.find("</h1>")
        if end_of_h1 == -1:
            html = note + html
        else:
            end_of_h1 += len("</h1>")
            html = html[:end_of_h1] + note + html[end_of_h1:]
    return html


# An attribute's value (quoted or not) that starts with another host, and a <link> that loads what
# it points at.
_OTHER_HOST = r"""["']?(?:https?:)?//"""
_LOADS = r"""\brel=["']?(?:stylesheet|preconnect|preload|modulepreload)"""
# Anything the browser would fetch from another host on its own: scripts, stylesheets, fonts,
# modules.
_EXTERNAL_FETCH = re.compile(
    "|".join(
        [
            r"<script\b[^>]*\bsrc=" + _OTHER_HOST,
            r"<link\b[^>]*" + _LOADS + r"[^>]*\bhref=" + _OTHER_HOST,
            r"<link\b[^>]*\bhref=" + _OTHER_HOST + r"[^>]*" + _LOADS,
            r"""\bimport\(\s*["'](?:https?:)?//""",
            r"@import\s+(?:url\()?" + _OTHER_HOST,
        ]
    ),
    re.I,
)


# A heading of a rendered notebook, with its id and its inner HTML, and the pilcrow nbconvert puts
# at its end.
_HEADING = re.compile(r'<h([1-6]) id="([^"]+)">(.*?)</h\1>', re.S)
_ANCHOR_LINK = re.compile(r'<a class="anchor-link" (href="#[^"]*")>')


def notebook_toc(html: str) -> TableOfContents:
    """The table of contents of a rendered notebook, read from its headings as the page shows them.

    mkdocs-jupyter makes its own from a Markdown copy of the notebook from which it deletes every
    inline code span, heading or not: "5. `subscriptions/listen`: hearing about changes" was listed
    as "5. : hearing about changes", and linked to an id no heading had. Here each entry keeps the
    heading's words (code included, as plain text, like a lesson page's contents) and its real id.
    """
    top: list[AnchorLink] = []
    open_levels: list[AnchorLink] = []  # the last entry of each level above the current one
    for level, heading_id, inner in _HEADING.findall(html):
        inner = re.sub(r'<a class="headerlink".*?</a>', "", inner, flags=re.S)
        title = " ".join(re.sub(r"<[^>]+>", "", inner).split())
        entry = AnchorLink(title, heading_id, int(level))
        while open_levels and open_levels[-1].level >= entry.level:
            open_levels.pop()
        (open_levels[-1].children if open_levels else top).append(entry)
        open_levels.append(entry)
    return TableOfContents(top)


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    if getattr(page.file, "locale", "en") == "es":
        # The Markdown toc extension titles every heading's link once, for both editions.
        output = output.replace('title="Permanent link"', 'title="Enlace permanente"')
    match = _EXTERNAL_FETCH.search(output)
    if match:
        start = max(match.start() - 40, 0)
        log.warning(
            "%s loads something from another host, so the page would not work offline: ...%s...",
            page.file.src_uri,
            output[start : match.end() + 80].replace("\n", " "),
        )
    return output


# The theme's search splits the *pages* into words with mkdocs.yml's `separator`, but splits a
# *query* with lunr's own default, which also cuts at hyphens: "Last-Event-ID" was looked up as
# "last", "event" and "id". One line added to the search worker makes the query split where the
# pages do (lunr's query lexer reads its separator on every character).
SEARCH_WORKER = "assets/javascripts/workers/search.*.min.js"
QUERY_SPLITS_LIKE_PAGES = (
    "\n// Added by tools/mkdocs_hooks.py: a query splits into words where the pages do.\n"
    'Object.defineProperty(self.lunr.QueryLexer, "termSeparator", '
    "{ get: () => self.lunr.tokenizer.separator });\n"
)


def on_post_build(config: MkDocsConfig) -> None:
    workers = sorted(Path(config.site_dir).glob(SEARCH_WORKER))
    if not workers:
        log.warning("no search worker matches %s: queries split at hyphens again", SEARCH_WORKER)
    for worker in workers:
        text = worker.read_text(encoding="utf-8")
        if QUERY_SPLITS_LIKE_PAGES not in text:
            worker.write_text(text + QUERY_SPLITS_LIKE_PAGES, encoding="utf-8")
