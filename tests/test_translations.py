"""The Spanish edition stays in step with the English one.

Every page has a Spanish twin that translates the page as it is now and keeps its shape
(``tools/translations.py``), and every notebook a twin with the same code and outputs, its prose
translated (``tools/notebook_twins.py``). The second half of this file shows that each check
fails on a deliberately stale or mistranslated twin, in a small course made in a temporary folder.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tools import notebook_twins, translations

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "page", translations.english_pages(ROOT), ids=lambda p: str(p.relative_to(ROOT / "lessons"))
)
def test_every_page_has_an_up_to_date_spanish_twin_of_the_same_shape(page: Path) -> None:
    problems = translations.check_twin(page, ROOT)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("notebook", notebook_twins.english_notebooks(ROOT), ids=lambda p: p.stem)
def test_every_notebook_has_a_twin_with_its_code_and_outputs_and_its_prose_translated(
    notebook: Path,
) -> None:
    problems = notebook_twins.check(notebook, ROOT)
    assert not problems, "\n".join(problems)


# -- the checks fail when they should ---------------------------------------------------------

PAGE = """# 01 · A lesson

Some prose that a reader reads, long enough to count as a sentence of words.

## 1. The idea

```json
{"jsonrpc": "2.0", "id": 1, "method": "ping"}
```

```text
# the client asks
-> {"jsonrpc": "2.0", "id": 1, "method": "ping"}
```

!!! note "A note"

    See [the spec](https://modelcontextprotocol.io/specification/2025-11-25) for more.
"""

TWIN = """# 01 · Una lección {#01-a-lesson}

Un texto que se lee, lo bastante largo como para contar como una frase de palabras.

## 1. La idea {#1-the-idea}

```json
{"jsonrpc": "2.0", "id": 1, "method": "ping"}
```

```text
# el cliente pregunta
-> {"jsonrpc": "2.0", "id": 1, "method": "ping"}
```

!!! note "Una nota"

    Mira [la especificación](https://modelcontextprotocol.io/specification/2025-11-25).
"""


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """A course of one page and its twin, stamped: a twin that passes."""
    page = tmp_path / "lessons" / "01-a" / "index.md"
    page.parent.mkdir(parents=True)
    page.write_text(PAGE, encoding="utf-8")
    translations.twin_of(page).write_text(TWIN, encoding="utf-8")
    translations.stamp(translations.twin_of(page))
    return page


def test_a_faithful_twin_passes(course: Path) -> None:
    assert translations.check_twin(course, course.parents[2]) == []


def test_a_twin_goes_stale_when_its_english_page_changes(course: Path) -> None:
    course.write_text(PAGE + "\nOne more sentence, added to the English page after it.\n")
    (problem,) = translations.check_twin(course, course.parents[2])
    assert "translates an older lessons/01-a/index.md" in problem
    assert "git diff" in problem and "HEAD:lessons/01-a/index.md" in problem


@pytest.mark.parametrize(
    ("change", "reported"),
    [
        (("{#1-the-idea}", "{#1-la-idea}"), "headings differ"),
        (
            ('"method": "ping"}\n```\n\n```text', '"method": "pong"}\n```\n\n```text'),
            "code block 1",
        ),
        (("# el cliente pregunta\n->", "# el cliente pregunta\n<-"), "code block 2"),
        (("!!! note", "!!! tip"), "admonitions differ"),
        (("2025-11-25)", "2025-06-18)"), "links differ"),
        (
            (
                "Un texto que se lee, lo bastante largo como para contar como una frase de "
                "palabras.",
                "Some prose that a reader reads, long enough to count as a sentence of words.",
            ),
            "left in English",
        ),
    ],
    ids=["anchor", "json", "trace", "admonition", "link", "untranslated"],
)
def test_a_mistranslated_twin_is_reported(
    course: Path, change: tuple[str, str], reported: str
) -> None:
    twin = translations.twin_of(course)
    text = twin.read_text(encoding="utf-8")
    assert change[0] in text
    twin.write_text(text.replace(change[0], change[1], 1), encoding="utf-8")
    problems = translations.check_twin(course, course.parents[2])
    assert any(reported in problem for problem in problems), problems


def test_a_missing_twin_is_reported(course: Path) -> None:
    translations.twin_of(course).unlink()
    assert translations.check_twin(course, course.parents[2]) == [
        "lessons/01-a/index.es.md is missing"
    ]


@pytest.fixture
def notebook(tmp_path: Path) -> Path:
    """A real notebook of the course and its twin, translated cell by cell."""
    english = tmp_path / "notebooks" / "12-mcp-2026.ipynb"
    english.parent.mkdir()
    shutil.copy(ROOT / "notebooks" / english.name, english)
    exported = notebook_twins.export(english)
    translated = re.sub(r"(<!-- cell \d+ -->\n)", r"\1Traducido. ", exported)
    assert notebook_twins.import_text(english, translated) == []
    return english


def test_a_faithful_notebook_twin_passes(notebook: Path) -> None:
    assert notebook_twins.check(notebook, notebook.parents[1]) == []


def _edit_twin(notebook: Path, edit: str) -> None:
    twin_path = notebook_twins.twin_of(notebook)
    twin = json.loads(twin_path.read_text(encoding="utf-8"))
    code = next(c for c in twin["cells"] if c["cell_type"] == "code" and c["outputs"])
    prose = next(c for c in twin["cells"] if c["cell_type"] == "markdown")
    if edit == "output":
        code["outputs"][0].setdefault("text", ["x"])[0] += " changed"
    elif edit == "code":
        code["source"][0] = "# " + code["source"][0]
    else:
        prose["source"] = ["# English, left as it was\n"]
        prose["metadata"]["translates"] = "0" * 12
    twin_path.write_text(json.dumps(twin), encoding="utf-8")


@pytest.mark.parametrize(
    ("edit", "reported"),
    [
        ("output", "code or outputs differ"),
        ("code", "code or outputs differ"),
        ("stale", "translates an older English text"),
    ],
)
def test_a_notebook_twin_that_is_more_than_translated_is_reported(
    notebook: Path, edit: str, reported: str
) -> None:
    _edit_twin(notebook, edit)
    problems = notebook_twins.check(notebook, notebook.parents[1])
    assert any(reported in problem for problem in problems), problems


def test_a_re_run_notebook_reaches_its_twin_and_names_the_cells_to_translate_again(
    notebook: Path,
) -> None:
    english = json.loads(notebook.read_text(encoding="utf-8"))
    cells = english["cells"]
    code = next(c for c in cells if c["cell_type"] == "code" and c["outputs"])
    code["outputs"][0].setdefault("text", ["x"])[0] += " a new output"
    first_prose = next(n for n, c in enumerate(cells) if c["cell_type"] == "markdown")
    cells[first_prose]["source"] = ["# A heading the English notebook changed\n"]
    notebook.write_text(json.dumps(english), encoding="utf-8")
    assert notebook_twins.sync(notebook) == [first_prose]
    problems = notebook_twins.check(notebook, notebook.parents[1])
    assert problems == [
        f"notebooks/12-mcp-2026.es.ipynb, cell {first_prose}: translates an older English text: "
        "export, revisit, import (see the docstring)"
    ]
