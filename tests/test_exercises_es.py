"""The exercises in Spanish: the same code, every word translated, the checker speaking Spanish.

For every lesson whose exercise is translated (``solutions/NN-slug/exercise.es.py``):

* the Spanish solution has the English one's code, to the character (docstrings and comments
  aside), and its ``# BEGIN SOLUTION`` blocks hide the same lines;
* its student's copy is generated, and every exercise test passes on the solution and is "not
  started" on the untouched copy, as in English;
* ``tools/messages/es.toml`` has the lesson's title, part titles and a hint for every test, each
  hint translating the English docstring the test has now (its ``of`` hash);

and ``es.toml`` has every sentence of ``en.toml``, with the same fields. At the end, the Spanish
checker is run on a copy of lesson 03, as a student runs it, and remembers the language chosen.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_checker import between, checker_env, run_checker
from test_exercise_machinery import (
    DEMO_SOLUTION,
    ROOT,
    exercises,
    lesson_entry,
    make_course,
    stub_problems,
)

from tools import check, messages
from tools import exercise_translations as translation

LESSONS = exercises.discover(ROOT)
#: Every lesson's exercise is in Spanish: the tests below hold each one to its English.
SPANISH = LESSONS


def ids(lessons: list[exercises.Lesson]) -> list[str]:
    return [lesson.name for lesson in lessons]


# --------------------------------------------------------------------------------------------
# The catalogues
# --------------------------------------------------------------------------------------------


def test_spanish_has_every_sentence_of_english_with_its_fields() -> None:
    assert translation.catalogue_problems("es") == []


def test_a_missing_sentence_or_field_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    real = messages.sentences

    def broken(language: str) -> dict[str, str]:
        found = dict(real(language))
        if language == "es":
            del found["summary.next_to_fix"]
            found["counts.passed"] = "{passed} superadas"  # {total} forgotten
        return found

    monkeypatch.setattr(messages, "sentences", broken)
    problems = "\n".join(translation.catalogue_problems("es"))
    assert "no 'summary.next_to_fix' (English: 'Next to fix: {name}." in problems
    assert "'counts.passed' must use the fields ['passed', 'total']" in problems
    with pytest.raises(KeyError, match="es.toml has no message 'summary.next_to_fix'"):
        messages.message("es", "summary.next_to_fix", name="x")  # never English instead


# --------------------------------------------------------------------------------------------
# Which lessons are translated
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lesson", LESSONS, ids=ids(LESSONS))
def test_every_lesson_has_its_spanish_solution(lesson: exercises.Lesson) -> None:
    spanish = exercises.translated(lesson.solution, "es")
    assert spanish.is_file(), f"lesson {lesson.number} has no Spanish exercise: write {spanish}"


# --------------------------------------------------------------------------------------------
# The same code, in other words
# --------------------------------------------------------------------------------------------


def test_a_changed_line_of_code_is_found_and_words_are_not() -> None:
    english = DEMO_SOLUTION
    words = english.replace('"""Return twice x."""', '"""Devuelve el doble de x."""')
    words = words.replace("# BEGIN SOLUTION: multiply by two", "# BEGIN SOLUTION: multiplica")
    assert translation.code_difference(english, words) is None
    assert translation.cut_difference(english, words) is None

    changed = words.replace("return 2 * x\n", "return x + x\n", 1)
    difference = translation.code_difference(english, changed)
    assert difference is not None and "-    return 2 * x" in difference
    assert "+    return x + x" in difference
    # A block that hides one line less: the same solution, another student's copy.
    moved = words.replace(
        "    # BEGIN SOLUTION\n    await asyncio.sleep(0)\n",
        "    await asyncio.sleep(0)\n    # BEGIN SOLUTION\n",
    )
    assert translation.code_difference(english, moved) is None
    assert "await asyncio.sleep(0)" in (translation.cut_difference(english, moved) or "")


@pytest.mark.parametrize("lesson", SPANISH, ids=ids(SPANISH))
def test_the_spanish_solution_has_the_english_code(lesson: exercises.Lesson) -> None:
    spanish = lesson.in_language("es")
    english = exercises.read_text(lesson.solution)
    translated = exercises.read_text(spanish.solution)
    where = lesson.relative(spanish.solution)
    assert translation.code_difference(english, translated) is None, (
        f"{where} has other code than {lesson.relative(lesson.solution)}: translate only "
        f"docstrings and comments\n{translation.code_difference(english, translated)}"
    )
    assert translation.cut_difference(english, translated) is None, (
        f"{where}: its BEGIN/END SOLUTION blocks hide other lines than the English file's\n"
        f"{translation.cut_difference(english, translated)}"
    )


@pytest.mark.parametrize("lesson", SPANISH, ids=ids(SPANISH))
def test_the_spanish_copy_is_up_to_date(lesson: exercises.Lesson) -> None:
    spanish = lesson.in_language("es")
    assert spanish.stub.is_file() and exercises.read_text(spanish.stub) == spanish.render(), (
        f"{lesson.relative(spanish.stub)} is missing or stale: "
        "run `python tools/exercises.py generate`"
    )
    stub = exercises.read_text(spanish.stub)
    assert "# POR HACER: " in stub and "# TODO" not in stub and "Lección " in stub


@pytest.mark.parametrize("lesson", SPANISH, ids=ids(SPANISH))
def test_the_tests_pass_on_the_spanish_solution_and_not_on_its_copy(
    lesson: exercises.Lesson,
) -> None:
    spanish = lesson.in_language("es")
    run = check.run_lesson_tests(spanish, "solutions", extra_args=("--timeout=60",), timeout=600)
    assert run.all_passed, run.output
    run = check.run_lesson_tests(spanish, "lessons", extra_args=("--timeout=60",), timeout=600)
    problems = stub_problems(run)
    assert not problems, f"{lesson.relative(spanish.stub)}:\n" + "\n".join(problems)


def test_the_fixture_loads_the_spanish_copy_where_there_is_one() -> None:
    spec = importlib.util.spec_from_file_location(
        "exercises_conftest", ROOT / "tests" / "exercises" / "conftest.py"
    )
    assert spec is not None and spec.loader is not None
    fixture = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fixture)
    tests = ROOT / "tests" / "exercises"
    path = fixture.exercise_path(tests / "test_03_handshake.py", "lessons", "es")
    assert path == ROOT / "lessons" / "03-handshake" / "exercise.es.py"
    path = fixture.exercise_path(tests / "test_03_handshake.py", "solutions", "en")
    assert path == ROOT / "solutions" / "03-handshake" / "exercise.py"


# --------------------------------------------------------------------------------------------
# Title, part titles and hints
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lesson", SPANISH, ids=ids(SPANISH))
def test_every_hint_and_part_title_is_translated_and_current(lesson: exercises.Lesson) -> None:
    problems = translation.words_problems(lesson, "es")
    assert not problems, "\n\n".join(problems)


def test_a_stale_or_missing_hint_says_which_test_and_its_english_now(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lesson = exercises.find_lesson("03", ROOT)
    words = messages.lesson_words("03", "es")
    assert words is not None
    hints = dict(words.hints)
    stale = "test_server_refuses_a_second_initialize"
    hints[stale] = dataclasses.replace(hints[stale], of="00000000")
    del hints["test_resource_subscriptions"]
    parts = {number: title for number, title in words.parts.items() if number != 2}
    changed = dataclasses.replace(words, hints=hints, parts=parts)
    monkeypatch.setattr(messages, "lesson_words", lambda number, language: changed)
    problems = "\n\n".join(translation.words_problems(lesson, "es"))
    assert f"the hint of {stale} translates an older English (of = '00000000')" in problems
    assert "Server role: initialize after the first one is refused" in problems  # English now
    assert "no hint for test_resource_subscriptions" in problems
    assert "no title for part 2 (A lifecycle guard)" in problems


# --------------------------------------------------------------------------------------------
# The checker in Spanish, end to end, on a copy of lesson 03
# --------------------------------------------------------------------------------------------


@pytest.fixture
def lesson_03(tmp_path: Path) -> exercises.Lesson:
    """A fake course holding the real lesson 03, English and Spanish, its copies generated."""
    root = make_course(tmp_path, lesson_entry("03", "handshake", "The handshake"))
    (root / "solutions" / "03-handshake").mkdir()
    for name in ("exercise.py", "exercise.es.py"):
        shutil.copy(ROOT / "solutions" / "03-handshake" / name, root / "solutions" / "03-handshake")
    shutil.copy(ROOT / "tests" / "exercises" / "test_03_handshake.py", root / "tests" / "exercises")
    assert exercises.main(["--root", str(root), "generate"]) == 0
    return exercises.find_lesson("03", root)


def test_the_spanish_check_passes_on_the_solution_and_reports_in_spanish(
    lesson_03: exercises.Lesson,
) -> None:
    root = lesson_03.root
    done = run_checker(root, "03", "--lang", "es", "--solutions")
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert out.startswith("Lección 03 · El handshake — página lessons/03-handshake/index.md")
    assert "Comprobando solutions/03-handshake/exercise.es.py ...\n" in out
    assert "Parte 1 · Negociación de la versión — 31/31 superadas\n" in out
    assert "✓ superada     test_parse_version_reads_a_date\n" in out
    assert "(11 casos)" in out and "Son las soluciones resueltas de solutions/" in out
    assert (root / messages.REMEMBERED).read_text(encoding="utf-8") == "es\n"

    # The student's copy, untouched: in Spanish without --lang, remembered.
    done = run_checker(root, "03", "--part", "1")
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    assert "Comprobando lessons/03-handshake/exercise.es.py, parte 1 ...\n" in out
    assert "○ no empezada  test_parse_version_reads_a_date\n" in out
    assert "0/31 superadas, 31 sin empezar\n" in out and "✗" not in out
    assert "Empieza por la parte 1 (Negociación de la versión).\n" in out
    assert "Sustituye el `raise NotImplementedError` de parse_version, en " in out
    assert '    parse_version("2025-11-25") devuelve datetime.date(2025, 11, 25)' in out


def test_a_failure_in_spanish_and_the_language_remembered(lesson_03: exercises.Lesson) -> None:
    root = lesson_03.root
    spanish = lesson_03.in_language("es")
    stub = exercises.read_text(spanish.stub).replace(
        'raise NotImplementedError("parse_version")', "return datetime.date(2000, 1, 1)"
    )
    spanish.stub.write_text(stub, encoding="utf-8")
    done = run_checker(root, "03", "--part", "1", "--lang", "es")
    out = done.stdout
    failure = between(out, "✗ fallida      test_parse_version_reads_a_date\n", "test_latest")
    assert 'pista:    parse_version("2025-11-25") devuelve datetime.date(2025, 11, 25)' in failure
    assert "obtenido: assert datetime.date(2000, 1, 1) == datetime.date(2025, 11, 25)" in failure
    assert "prueba:   tests/exercises/test_03_handshake.py:" in failure
    assert "Lo siguiente que arreglar: test_parse_version_reads_a_date." in out

    # The environment overrides what is remembered; --lang en changes what is remembered.
    done = run_checker_in(root, "en", "03", "--part", "1")
    assert "○ not started  test_parse_version_reads_a_date\n" in done.stdout  # its own copy
    assert "Checking lessons/03-handshake/exercise.py, part 1 ...\n" in done.stdout
    assert (root / messages.REMEMBERED).read_text(encoding="utf-8") == "es\n"
    done = run_checker(root, "--lang", "en")
    assert done.stdout.startswith("MCP from Scratch: your exercises\n"), done.stdout
    assert (root / messages.REMEMBERED).read_text(encoding="utf-8") == "en\n"


def run_checker_in(root: Path, language: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``python tools/check.py ARGS`` with ``MCP_COURSE_LANG=language``."""
    env = dict(checker_env(), MCP_COURSE_LANG=language)
    return subprocess.run(
        [sys.executable, str(root / "tools" / "check.py"), "--root", str(root), *args],
        cwd=root,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=180,
    )


def test_the_language_is_chosen_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(messages.ENV, raising=False)
    assert messages.choose(tmp_path) == "en"  # nothing said: English
    messages.remember(tmp_path, "es")
    assert messages.choose(tmp_path) == "es"  # remembered
    monkeypatch.setenv(messages.ENV, "en")
    assert messages.choose(tmp_path) == "en"  # the environment over what is remembered
    assert messages.choose(tmp_path, "es") == "es"  # --lang over everything
    monkeypatch.setenv(messages.ENV, "klingon")
    assert messages.choose(tmp_path) == "es"  # an unknown language is passed over
