"""The ``exercise`` fixture: the exercise module a test file checks.

A test file ``tests/exercises/test_NN_slug.py`` checks lesson NN's exercise. It never imports the
exercise itself; it asks for the fixture::

    def test_reads_one_frame(exercise):
        \"\"\"Read the headers up to the blank line, then exactly Content-Length bytes.\"\"\"
        assert exercise.read_frame(b"Content-Length: 2\\r\\n\\r\\n{}") == b"{}"

Which file the fixture loads:

* by default, ``solutions/NN-slug/exercise.py`` -- the worked answer, so a plain ``pytest``
  proves every test passes on it;
* with the environment variable ``MCP_COURSE_EXERCISES=lessons``, the student's copy
  ``lessons/NN-slug/exercise.py`` -- what ``python tools/check.py NN`` does;
* with ``MCP_COURSE_EXERCISES_LANG=es`` as well, the Spanish copy beside it, ``exercise.es.py``,
  for a lesson whose solution has one (``solutions/NN-slug/exercise.es.py``); a lesson without one
  is English only, and its English copy is loaded -- what ``python tools/check.py NN --lang es``
  does. The tests are the same for both: the two copies differ only in their words.

The lesson is found from the test file's name (``test_02_stdio.py`` -> the folder
``solutions/02-*``). The module is loaded from its path under a private name, fresh for every test
module, so the two copies never mix and a student's edits are always the ones tested.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

#: The repository root: this file lives in ``<root>/tests/exercises/``.
ROOT = Path(__file__).resolve().parent.parent.parent

#: The environment variable that picks the copy under test, and its values.
ENV = "MCP_COURSE_EXERCISES"
COPIES = {"solutions": "solutions", "lessons": "lessons"}

#: The environment variable that picks the language of the copy: "en" (the default) or "es".
LANGUAGE_ENV = "MCP_COURSE_EXERCISES_LANG"

_TEST_FILE_RE = re.compile(r"^test_(?P<number>\d+)(?:_\w*)?$")
_counter = itertools.count(1)


def exercise_copy() -> str:
    """``"solutions"`` or ``"lessons"``, from ``MCP_COURSE_EXERCISES`` (default: solutions)."""
    value = os.environ.get(ENV, "").strip().lower() or "solutions"
    if value not in COPIES:
        raise ValueError(f"{ENV}={value!r}: expected 'lessons' or 'solutions'")
    return COPIES[value]


def exercise_language() -> str:
    """``"en"``, ``"es"``...: from ``MCP_COURSE_EXERCISES_LANG`` (default: en)."""
    value = os.environ.get(LANGUAGE_ENV, "").strip().lower() or "en"
    if not re.fullmatch(r"[a-z]{2}", value):
        raise ValueError(f"{LANGUAGE_ENV}={value!r}: expected a language such as 'en' or 'es'")
    return value


def exercise_path(test_file: Path, copy: str | None = None, language: str | None = None) -> Path:
    """The exercise file that ``test_file`` (``test_NN_slug.py``) checks, in ``copy``, in
    ``language`` if the lesson's solution has that language (``exercise.es.py``)."""
    copy = copy or exercise_copy()
    language = language or exercise_language()
    match = _TEST_FILE_RE.match(test_file.stem)
    if not match:
        raise LookupError(
            f"{test_file.name}: an exercise test file must be named test_NN_slug.py "
            "(NN is the lesson's number) to use the `exercise` fixture"
        )
    number = int(match["number"])
    folders = sorted(
        folder
        for folder in (ROOT / "solutions").glob("*-*")
        if folder.is_dir()
        and folder.name.split("-", 1)[0].isdigit()
        and int(folder.name.split("-", 1)[0]) == number
    )
    if len(folders) != 1:
        found = ", ".join(folder.name for folder in folders) or "none"
        raise LookupError(
            f"{test_file.name}: expected exactly one folder solutions/{match['number']}-*/ "
            f"for lesson {match['number']} (found: {found})"
        )
    translated = f"exercise.{language}.py"
    if language != "en" and (folders[0] / translated).is_file():
        return ROOT / copy / folders[0].name / translated
    return ROOT / copy / folders[0].name / "exercise.py"


def load_exercise(path: Path) -> ModuleType:
    """Import ``path`` as a fresh module under a private, unique name."""
    slug = re.sub(r"\W", "_", path.parent.name)
    name = f"course_exercise_{path.parent.parent.name}_{slug}_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Registered while it runs: dataclasses and typing look their module up in sys.modules.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


@pytest.fixture(scope="module")
def exercise(request: pytest.FixtureRequest) -> Iterator[ModuleType]:
    """The exercise module for this test file's lesson (solutions/ or lessons/, see above)."""
    try:
        path = exercise_path(Path(str(request.path)))
    except (LookupError, ValueError) as error:
        pytest.fail(str(error), pytrace=False)
    if not path.is_file():
        relative = path.relative_to(ROOT).as_posix()
        hint = (
            "run `python tools/exercises.py generate` to create the student's copies"
            if path.parent.parent.name == "lessons"
            else "the lesson's solution is missing"
        )
        pytest.fail(f"{relative} not found: {hint}", pytrace=False)
    module = load_exercise(path)
    yield module
    sys.modules.pop(module.__name__, None)
