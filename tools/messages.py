"""The checker's words, in the student's language: one catalogue per language.

Every sentence that ``python tools/check.py`` prints is written once per language, in
``tools/messages/en.toml`` and ``tools/messages/es.toml``, under a key such as
``summary.next_to_fix``; its ``{fields}`` are filled in by :meth:`str.format`::

    [summary]
    next_to_fix = "Next to fix: {name}. Its hint, and what went wrong, are above."

Every catalogue has every key of the English one (``tests/test_exercises_es.py`` fails otherwise):
a key missing at run time is an error, never a quiet fall back to English.

As with gettext, a run speaks one language, chosen once (:func:`choose`, then :func:`use`) and
then used by :func:`text` everywhere. The choice, first that applies:

1. ``--lang es`` on the command line, which is also remembered (:func:`remember`);
2. the environment variable ``MCP_COURSE_LANG``;
3. the language remembered in ``.course-lang``, in the course's folder (git ignores the file);
4. English.

A catalogue other than the English one also has a table per translated lesson: its title, its
part titles and each test's hint (:class:`LessonWords`). A hint records the hash of the English
docstring it translates (:func:`hint_hash`), so a changed test shows whose translation to revisit.
``python tools/exercise_translations.py skeleton NN`` prints a lesson's table to fill in.
"""

from __future__ import annotations

import hashlib
import os
import textwrap
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

#: The folder of the catalogues: one ``<language>.toml`` each.
CATALOGUES = Path(__file__).resolve().parent / "messages"

#: The language of the course's own text, and of every test's docstring.
ENGLISH = "en"

#: The environment variable that picks the language, over the remembered one.
ENV = "MCP_COURSE_LANG"

#: The file, in the course's folder, that remembers the language chosen with ``--lang``.
REMEMBERED = ".course-lang"

#: The key of the lessons' table in a catalogue: it holds no sentence of the checker.
LESSONS = "lessons"


def languages() -> list[str]:
    """The languages that have a catalogue: ``["en", "es"]``."""
    return sorted(path.stem for path in CATALOGUES.glob("*.toml"))


@cache
def load(language: str) -> dict[str, Any]:
    """The catalogue of ``language``, as tomllib reads it (read once per run)."""
    with open(CATALOGUES / f"{language}.toml", "rb") as file:
        return tomllib.load(file)


def sentences(language: str) -> dict[str, str]:
    """Every sentence of ``language``'s catalogue, by its dotted key (``"summary.next_to_fix"``)."""
    found: dict[str, str] = {}

    def walk(table: dict[str, Any], prefix: str) -> None:
        for key, value in table.items():
            if isinstance(value, dict):
                walk(value, f"{prefix}{key}.")
            else:
                found[prefix + key] = str(value)

    walk({key: value for key, value in load(language).items() if key != LESSONS}, "")
    return found


def message(language: str, key: str, **fields: object) -> str:
    """The sentence ``key`` of ``language``, its fields filled in. KeyError when it has none."""
    catalogue = sentences(language)
    if key not in catalogue:
        raise KeyError(f"tools/messages/{language}.toml has no message {key!r}")
    return catalogue[key].format(**fields)


# --------------------------------------------------------------------------------------------
# The language of this run
# --------------------------------------------------------------------------------------------

_language = ENGLISH


def use(language: str) -> None:
    """Speak ``language`` from now on (ValueError when it has no catalogue)."""
    global _language
    if language not in languages():
        raise ValueError(f"no catalogue for {language!r} (languages: {', '.join(languages())})")
    _language = language


def current() -> str:
    """The language this run speaks."""
    return _language


def text(key: str, **fields: object) -> str:
    """The sentence ``key`` in this run's language, its fields filled in."""
    return message(_language, key, **fields)


def choose(root: Path, asked: str | None = None) -> str:
    """The language to speak: ``asked`` (``--lang``), else ``MCP_COURSE_LANG``, else the one
    remembered in ``root/.course-lang``, else English. An unknown value is passed over."""
    known = languages()
    remembered = root / REMEMBERED
    saved = remembered.read_text(encoding="utf-8").strip() if remembered.is_file() else ""
    for candidate in (asked, os.environ.get(ENV, "").strip().lower(), saved):
        if candidate in known:
            return candidate
    return ENGLISH


def remember(root: Path, language: str) -> None:
    """Keep ``language`` for the next runs, in ``root/.course-lang``."""
    (root / REMEMBERED).write_text(language + "\n", encoding="utf-8")


# --------------------------------------------------------------------------------------------
# A lesson's own words: title, part titles, hints
# --------------------------------------------------------------------------------------------


def hint_hash(english: str) -> str:
    """The short hash that ties a translated hint to the English docstring it translates."""
    return hashlib.sha256(english.strip().encode("utf-8")).hexdigest()[:8]


@dataclass(frozen=True)
class Hint:
    """One test's hint in another language, and the hash of the English it translates."""

    text: str
    of: str


@dataclass(frozen=True)
class LessonWords:
    """A lesson's title, part titles (by number) and hints (by test name), in one language."""

    title: str = ""
    parts: dict[int, str] = field(default_factory=dict)
    hints: dict[str, Hint] = field(default_factory=dict)


def lesson_words(number: str, language: str) -> LessonWords | None:
    """Lesson ``number``'s table in ``language``'s catalogue, or None when it has none."""
    table = load(language).get(LESSONS, {}).get(number)
    if not isinstance(table, dict):
        return None
    hints = {
        name: Hint(_tidy(str(entry.get("text", ""))), str(entry.get("of", "")))
        for name, entry in table.get("hints", {}).items()
    }
    parts = {int(number): str(title) for number, title in table.get("parts", {}).items()}
    return LessonWords(str(table.get("title", "")), parts, hints)


def _tidy(hint: str) -> str:
    """A hint as written in TOML, indented or not, as the English one reads: no margin, no blank
    lines around it, no spaces at the ends of its lines."""
    lines = textwrap.dedent(hint).strip("\n").splitlines()
    return "\n".join(line.rstrip() for line in lines)
