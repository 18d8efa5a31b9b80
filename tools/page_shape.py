"""The shape of a lesson page: what must be the same in the English page and its Spanish twin.

A translation changes the words and nothing else. :func:`page_shape` reads a page's Markdown and
keeps what a translation must not change -- headings and their anchors, code (without its
comments), which admonitions and tables there are, what the links point at -- and the English
sentences, so that one left untranslated can be found. ``tools/translations.py`` compares the
shapes of a page and its twin.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import markdown  # type: ignore[import-untyped]

#: A fenced code block, as pymdownx.superfences reads one (indented inside an admonition too).
FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>```+|~~~+)(?P<info>[^\n]*)\n(?P<body>.*?)"
    r"^(?P=indent)(?P=fence)[ \t]*$",
    re.S | re.M,
)
ADMONITION = re.compile(r"^\s*(?:!!!|\?\?\?\+?)\s*([\w-]+)", re.M)
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
INLINE_CODE = re.compile(r"`[^`]*`")
#: Blocks whose ``#`` starts a comment, which a translation may put in its own language.
COMMENTED = {"text", "python", "py", "bash", "console", "sh", "shell", "toml", "yaml", "ini"}
#: Mermaid's arrows, whatever their labels: the edges of a diagram.
ARROW = re.compile(r"<<?-+|-+>>?|-+[x)]|==+>|-\.+->|--")
#: The words a Markdown heading may render to, for Python-Markdown's toc extension.
EXTENSIONS = ["toc", "attr_list", "admonition", "md_in_html", "tables", "def_list"]


@dataclass
class Shape:
    """What a translation keeps: see the module's docstring."""

    titled: list[tuple[int, str, str]] = field(default_factory=list)  # level, anchor, title
    admonitions: list[str] = field(default_factory=list)
    fence_kinds: list[str] = field(default_factory=list)
    code: list[str] = field(default_factory=list)
    includes: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    table_rows: list[int] = field(default_factory=list)  # the cells of each table row
    prose: list[str] = field(default_factory=list)  # sentences long enough to be words

    @property
    def headings(self) -> list[tuple[int, str]]:
        return [(level, anchor) for level, anchor, _ in self.titled]


def _headings(text: str) -> list[tuple[int, str, str]]:
    """Each heading's level, anchor and title, as the site renders them."""
    md = markdown.Markdown(extensions=EXTENSIONS + ["pymdownx.superfences"])
    md.convert(text)
    found: list[tuple[int, str, str]] = []

    def walk(tokens: list[dict[str, object]]) -> None:
        for token in tokens:
            found.append((int(str(token["level"])), str(token["id"]), str(token["name"])))
            walk(token["children"])  # type: ignore[arg-type]

    walk(md.toc_tokens)
    return found


def _code(info: str, body: str) -> str:
    """A block's code without what may be translated: comments, and a diagram's labels."""
    kind = info.strip().split(" ")[0].lower()
    lines = body.splitlines()
    if kind == "mermaid":
        return "\n".join(" ".join(ARROW.findall(line)) for line in lines)
    if kind in COMMENTED:
        lines = [re.sub(r"(^\s*|\s)#(\s.*)?$", "", line).rstrip() for line in lines]
    return "\n".join(line for line in lines if line)


def _prose(text: str) -> list[str]:
    """Lines of running text with at least eight words outside code: what must be translated."""
    found = []
    for line in text.splitlines():
        words = INLINE_CODE.sub("", LINK.sub("]", line)).split()
        if len([w for w in words if re.search(r"[A-Za-z]{2}", w)]) >= 8:
            found.append(line.strip())
    return found


def page_shape(text: str) -> Shape:
    """The shape of one page's Markdown (without its front matter)."""
    shape = Shape(titled=_headings(text))
    for match in FENCE.finditer(text):
        shape.fence_kinds.append(match["info"].strip())
        shape.code.append(_code(match["info"], match["body"]))
        shape.includes += re.findall(r"--8<--\s*\"([^\"]+)\"", match["body"])
    outside = FENCE.sub("", text)
    shape.admonitions = ADMONITION.findall(outside)
    shape.links = LINK.findall(INLINE_CODE.sub("", outside))
    shape.table_rows = [
        line.strip().count("|") for line in outside.splitlines() if line.lstrip().startswith("|")
    ]
    shape.prose = _prose(outside)
    return shape
