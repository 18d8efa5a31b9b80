"""Every JSON-RPC message a lesson page shows must come from its notebook's stored outputs.

The course promises that no message is typed by hand: the notebook produces it, and the page
copies it. This test holds the page to that promise. It collects every JSON-RPC message in a
page's code blocks (a block that is one JSON document, or each line holding a ``"jsonrpc"``
object), and every HTTP trace in a ``text`` block (lesson 10's requests, statuses and bodies), and
looks for it, white space aside, in the outputs of ``notebooks/NN-*.ipynb``. A value the page masks
(``<port>``, ``<token>``, ``<sealed>``) stands for whatever the notebook printed there; everything
around it is compared. When a notebook is re-run and its traffic changes, this test names the page
lines to refresh.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>```+|~~~+)(?P<info>[^\n]*)\n(?P<body>.*?)"
    r"^(?P=indent)(?P=fence)[ \t]*$",
    re.S | re.M,
)

#: A shape, not a message: an elision, or a placeholder in words (``"id": <the same>``).
SCHEMATIC = re.compile(r"\.\.\.|…|<[a-z]+(?: [a-z]+)+>")
#: What the notebooks mask because it changes on every run (``<port>``, ``<token>``,
#: ``<sealed>``, ``client-<id>``): on the page it stands for any text, so the rest is compared.
MASK = re.compile(r"<[a-z][^<>]*>")
#: A line of an HTTP trace as the notebooks print it: a request, or one that ends with a status.
HTTP_TRACE = re.compile(r"^(?:GET|POST|DELETE) https?://|-> \d{3}$", re.M)


def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def notebook_outputs(path: Path) -> str:
    """All text the notebook's code cells printed or returned, white space removed."""
    pieces: list[str] = []
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        for output in cell.get("outputs", []):
            if "text" in output:
                pieces.append("".join(output["text"]))
            for value in output.get("data", {}).values():
                if isinstance(value, (list, str)):
                    pieces.append("".join(value))
    return squeeze("\n".join(pieces))


def page_messages(page: str) -> list[str]:
    """The JSON-RPC messages shown in a page's code blocks."""
    found: list[str] = []
    for match in FENCE.finditer(page):
        body = match.group("body")
        if '"jsonrpc"' not in body or "--8<--" in body:
            continue
        try:
            json.loads(body)
        except ValueError:
            for line in body.splitlines():
                if '"jsonrpc"' in line and "{" in line:
                    start, end = line.index("{"), line.rfind("}")
                    found.append(line[start : end + 1] if end > start else line[start:])
        else:
            found.append(body)
    outside = FENCE.sub("", page)  # inline code, e.g. in a table
    found += re.findall(r'`(\{"jsonrpc"[^`]*\})`', outside)
    # A schematic shape such as {"jsonrpc": "2.0", "id": <the same>, "result": ...} is not a
    # message.
    return [m for m in found if not SCHEMATIC.search(m)]


def http_traces(page: str) -> list[str]:
    """The HTTP traces in a page's ``text`` blocks (requests, statuses, headers and bodies, as
    lesson 10 shows them), each block whole."""
    return [
        match.group("body")
        for match in FENCE.finditer(page)
        if match.group("info").strip() == "text" and HTTP_TRACE.search(match.group("body"))
    ]


def found_in(trace: str, outputs: str) -> bool:
    """Whether ``trace`` is in the notebook's (squeezed) outputs, each masked value on the page
    standing for whatever the notebook printed there (its own mask, or the value itself)."""
    squeezed = squeeze(trace)
    if squeezed in outputs:
        return True
    pieces = [re.escape(piece) for piece in MASK.split(squeezed)]
    return re.search(".{0,2000}?".join(pieces), outputs) is not None


def lessons() -> list[Path]:
    # a lesson may have several pages
    return sorted(p for p in (ROOT / "lessons").glob("[0-9][0-9]-*/*.md"))


@pytest.mark.parametrize("page", lessons(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_message_on_the_page_comes_from_the_notebook(page: Path) -> None:
    """Copy messages from the notebook's stored outputs; never type or edit them by hand."""
    text = page.read_text(encoding="utf-8")
    messages = page_messages(text) + http_traces(text)
    if not messages:
        return  # a page without traces (lesson 00) has nothing to check
    # A Spanish page (index.es.md) shows the same messages, which its notebook printed.
    notebooks = [
        n
        for n in (ROOT / "notebooks").glob(page.parent.name[:2] + "-*.ipynb")
        if ".es." not in n.name
    ]
    assert notebooks, f"{page.parent.name} shows messages but has no notebook"
    outputs = notebook_outputs(notebooks[0])
    missing = [m for m in messages if not found_in(m, outputs)]
    assert not missing, (
        f"{len(missing)} message(s) on {page.relative_to(ROOT)} are not in "
        f"{notebooks[0].relative_to(ROOT)}'s outputs:\n" + "\n".join(m[:160] for m in missing)
    )


def test_the_checker_sees_messages() -> None:
    """The extraction itself: a one-line trace, a pretty-printed block and inline code are all
    found."""
    page = (
        '```text\n-> {"jsonrpc":"2.0","id":1,"method":"ping"}\n```\n\n'
        '```json\n{\n  "jsonrpc": "2.0",\n  "id": 1,\n  "result": {}\n}\n```\n'
        '| ping | `{"jsonrpc":"2.0","id":2,"result":{}}` |\n'
        '| shape | `{"jsonrpc": "2.0", "id": <the same>, "result": ...}` |\n'
    )
    assert [squeeze(m) for m in page_messages(page)] == [
        '{"jsonrpc":"2.0","id":1,"method":"ping"}',
        '{"jsonrpc":"2.0","id":1,"result":{}}',
        '{"jsonrpc":"2.0","id":2,"result":{}}',
    ]


def test_masked_values_and_http_traces_are_compared() -> None:
    """A masked value stands for any text, and only there; an HTTP trace in a ``text`` block is
    compared whole."""
    outputs = squeeze('{"jsonrpc":"2.0","id":2,"result":{"state":"eyJhbGci0123"}}\n-> 401\nok')
    assert found_in('{"jsonrpc":"2.0","id":2,"result":{"state":"<sealed>"}}', outputs)
    assert not found_in('{"jsonrpc":"2.0","id":3,"result":{"state":"<sealed>"}}', outputs)
    page = "```text\nPOST http://127.0.0.1:<port>/mcp\n-> 401\n```\n\n```text\nok\n```\n"
    assert http_traces(page) == ["POST http://127.0.0.1:<port>/mcp\n-> 401\n"]
