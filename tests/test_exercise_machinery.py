"""The exercise machinery: the stub generator, the `exercise` fixture and the student's checker.

Four promises are checked here, for every lesson that has an exercise:

* the student's copy ``lessons/NN-slug/exercise.py`` is exactly what the generator makes from
  ``solutions/NN-slug/exercise.py`` (a stale copy fails, with the command that fixes it);
* every exercise test fails on the untouched copy (a test that passes there checks nothing);
* every exercise test is in a numbered part (``# -- Exercise N · title`` in its test file), the
  unit ``python tools/check.py NN`` reports by; its own tests are in ``tests/test_checker.py``.

(That every exercise test passes on the solution is proved by the exercise tests themselves:
plain ``pytest`` runs them against ``solutions/``.)
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from tools import check, exercises
from tools.check_outline import read_test_file
from tools.check_run import Run
from tools.stubs import ExerciseMarkerError, count_blocks, generate_stub

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "tools"


LESSONS = exercises.discover(ROOT)


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


# --------------------------------------------------------------------------------------------
# generate_stub
# --------------------------------------------------------------------------------------------


def test_block_with_hint_becomes_todo_and_raise() -> None:
    source = dedent(
        '''
        def read_frame(stream):
            """Read one frame."""
            # BEGIN SOLUTION: read the headers, then exactly N bytes
            header = stream.readline()
            return stream.read(int(header))
            # END SOLUTION
        '''
    )
    assert generate_stub(source) == dedent(
        '''
        def read_frame(stream):
            """Read one frame."""
            # TODO: read the headers, then exactly N bytes
            raise NotImplementedError("read_frame")
        '''
    )


def test_block_without_hint_becomes_raise_only() -> None:
    source = "def f():\n    # BEGIN SOLUTION\n    return 1\n    # END SOLUTION\n"
    assert generate_stub(source) == 'def f():\n    raise NotImplementedError("f")\n'
    # An empty hint after the colon is no hint.
    source = "def f():\n    # BEGIN SOLUTION:   \n    return 1\n    # END SOLUTION\n"
    assert generate_stub(source) == 'def f():\n    raise NotImplementedError("f")\n'


def test_nested_indentation_uses_innermost_function_and_block_indent() -> None:
    source = dedent(
        """
        class Decoder:
            def feed(self, data):
                if data:
                    # BEGIN SOLUTION: keep the bytes
                    self.buffer += data
                    # END SOLUTION
                return None

            def next_frame(self):
                def helper():
                    # BEGIN SOLUTION
                    return 1
                    # END SOLUTION

                # BEGIN SOLUTION
                return helper()
                # END SOLUTION
        """
    )
    assert generate_stub(source) == dedent(
        """
        class Decoder:
            def feed(self, data):
                if data:
                    # TODO: keep the bytes
                    raise NotImplementedError("feed")
                return None

            def next_frame(self):
                def helper():
                    raise NotImplementedError("helper")

                raise NotImplementedError("next_frame")
        """
    )


def test_async_def_and_decorators() -> None:
    source = dedent(
        """
        @staticmethod
        async def receive(
            reader,
        ) -> bytes:
            # BEGIN SOLUTION: await one line
            return await reader.readline()
            # END SOLUTION
        """
    )
    stub = generate_stub(source)
    assert '    raise NotImplementedError("receive")\n' in stub
    assert "    # TODO: await one line\n" in stub
    compile(stub, "stub.py", "exec")


def test_block_outside_any_function_is_this_step() -> None:
    source = (
        "import json\n\n# BEGIN SOLUTION\nTABLE = {}\n# END SOLUTION\n\n\n"
        "class A:\n    # BEGIN SOLUTION\n    x = 1\n    # END SOLUTION\n"
    )
    stub = generate_stub(source)
    assert stub == (
        'import json\n\nraise NotImplementedError("this step")\n\n\n'
        'class A:\n    raise NotImplementedError("this step")\n'
    )


def test_source_that_does_not_parse_falls_back_to_indentation() -> None:
    # A syntax error elsewhere must not stop the generator from naming the function.
    source = dedent(
        """
        def broken(:
            pass

        class Box:
            def outer(self):
                x = 1
                if x:
                    pass
                # BEGIN SOLUTION
                return x
                # END SOLUTION
        """
    )
    assert '        raise NotImplementedError("outer")\n' in generate_stub(source)


def test_everything_outside_the_blocks_is_byte_identical() -> None:
    before = (
        '#!/usr/bin/env python\n"""Module docstring: `# TODO` stays.\n\nTwo lines."""\r\n\r\n'
        "import os  # why\r\n\n"
    )
    head = "def f(a: int) -> int:\r\n    '''Doc.'''\r\n"
    block = head + "    # BEGIN SOLUTION\r\n    return a\r\n    # END SOLUTION\r\n"
    after = "\n\nVALUE = 'kept'\t \n# a comment without newline at the end"
    stub = generate_stub(before + block + after)
    assert stub == before + head + '    raise NotImplementedError("f")\r\n' + after
    # No markers: nothing changes at all.
    assert generate_stub(before + after) == before + after


def test_tab_indentation_is_kept() -> None:
    source = "def f():\n\t# BEGIN SOLUTION: tabs\n\treturn 1\n\t# END SOLUTION\n"
    assert generate_stub(source) == 'def f():\n\t# TODO: tabs\n\traise NotImplementedError("f")\n'


@pytest.mark.parametrize(
    ("source", "line", "words"),
    [
        ("def f():\n    # BEGIN SOLUTION\n    x = 1\n", 2, "never closed"),
        ("x = 1\n\n# END SOLUTION\n", 3, "without a matching"),
        ("# BEGIN SOLUTION\na = 1\n    # BEGIN SOLUTION\n# END SOLUTION\n", 3, "cannot nest"),
        ("# BEGIN SOLUTION\n# END SOLUTION\n# END SOLUTION\n", 3, "without a matching"),
        ("def f():\n    #BEGIN SOLUTION\n    return 1\n", 2, "looks like a solution marker"),
        (
            "def f():\n    # BEGIN SOLUTION\n    return 1\n    # END SOLUTION: done\n",
            4,
            "looks like",
        ),
    ],
    ids=["unclosed", "stray-end", "nested", "double-end", "misspelled", "end-with-text"],
)
def test_bad_markers_raise_with_the_line_number(source: str, line: int, words: str) -> None:
    with pytest.raises(ExerciseMarkerError, match=rf"^line {line}: .*{words}"):
        generate_stub(source)


def test_header_talks_to_the_student() -> None:
    source = (
        "# -*- coding: utf-8 -*-\n"
        "def f():\n"
        "    # BEGIN SOLUTION\n"
        "    return 1\n"
        "    # END SOLUTION\n"
    )
    stub = generate_stub(source, lesson="02-stdio")
    lines = stub.splitlines()
    assert lines[0] == "# -*- coding: utf-8 -*-"  # an encoding line must stay first
    header = "\n".join(line for line in lines if line.startswith("#"))
    assert "solutions/02-stdio/exercise.py" in header  # where the worked answer is
    assert "python tools/check.py 02" in header  # how to check
    assert "tools/exercises.py" not in header  # nothing about the course's own machinery
    assert stub.endswith('def f():\n    raise NotImplementedError("f")\n')
    assert generate_stub(source) == stub.replace(header.split("\n", 1)[1] + "\n", "")
    compile(stub, "stub.py", "exec")


# --------------------------------------------------------------------------------------------
# Discovery and the generator's command line, on a fake course
# --------------------------------------------------------------------------------------------

DEMO_SOLUTION = dedent(
    '''
    """A tiny exercise: double things, then shout them."""

    import asyncio

    NAME = "demo"


    def double(x: int) -> int:
        """Return twice x."""
        # BEGIN SOLUTION: multiply by two
        return 2 * x
        # END SOLUTION


    async def double_later(x: int) -> int:
        """Yield to the event loop once, then return twice x."""
        # BEGIN SOLUTION
        await asyncio.sleep(0)
        return 2 * x
        # END SOLUTION


    def shout(text: str) -> str:
        """The text in capitals, then an exclamation mark."""
        # BEGIN SOLUTION
        return text.upper() + "!"
        # END SOLUTION
    '''
)

#: The demo's tests, in two parts (as the checker groups them): 5 tests in part 1, 2 in part 2.
DEMO_TESTS = dedent(
    '''
    import pytest

    #: Longer than what pytest shows of a value by default: the checker must show it whole.
    LONG = " ".join(f"word{i}" for i in range(60))


    # -- Exercise 1 · Doubling ---------------------------------------------------------------

    def test_double(exercise):
        """double(x) returns x + x."""
        assert exercise.double(21) == 42


    @pytest.mark.parametrize("x", [1, 2, 3])
    def test_double_small_numbers(exercise, x):
        """double works for small numbers too."""
        assert exercise.double(x) == 2 * x


    async def test_double_later(exercise, request):
        """double_later awaits, then doubles.

        One await is enough.
        """
        assert await exercise.double_later(2) == 4
        # The checker keeps the project's pytest settings, minus the notebooks.
        assert request.config.pluginmanager.hasplugin("timeout")
        assert request.config.getini("asyncio_mode") == "auto"
        assert not request.config.pluginmanager.hasplugin("nbval")


    # -- Exercise 2 · Names and shouting -----------------------------------------------------

    class TestNames:
        def test_name(self, exercise):
            """NAME is set (this test passes on the stub too: it is broken on purpose)."""
            assert exercise.NAME == "demo"


    def test_shout(exercise):
        """shout(text) is the text in capitals, then "!"."""
        assert exercise.shout(LONG) == LONG.upper() + "!"
    '''
)


def lesson_entry(number: str, slug: str, title: str, exercise: bool = True) -> str:
    """One ``[[lesson]]`` of a fake course.toml, with the usual paths; with ``exercise``, its
    exercise.

    Its ``tests`` name a feature test first, as the real manifest does: the exercise's tests are
    the first file under tests/exercises/, not simply the first file.
    """
    folder = f"{number}-{slug}"
    entry = (
        f'[[lesson]]\nnumber = "{number}"\ntitle = "{title}"\npage = "lessons/{folder}/index.md"\n'
    )
    if exercise:
        entry += (
            f'notebook = "notebooks/{folder}.ipynb"\n'
            f'exercise = "lessons/{folder}/exercise.py"\n'
            f'solution = "solutions/{folder}/exercise.py"\n'
            f'tests = ["tests/test_{slug.replace("-", "_")}.py", '
            f'"tests/exercises/test_{number}_{slug.replace("-", "_")}.py"]\n'
        )
    return entry + "\n"


def make_course(root: Path, *entries: str) -> Path:
    """A fake course in ``root``: the real tools (and their catalogues), conftest and pyproject,
    one demo lesson.

    Its course.toml names the demo lesson, then ``entries`` (see :func:`lesson_entry`).
    """
    (root / "tools").mkdir(parents=True)
    for path in (
        TOOLS / "__init__.py",
        TOOLS / "exercises.py",
        TOOLS / "stubs.py",
        TOOLS / "course.py",
        TOOLS / "messages.py",
        *TOOLS.glob("check*.py"),
    ):
        shutil.copy(path, root / "tools" / path.name)
    shutil.copytree(TOOLS / "messages", root / "tools" / "messages")  # the checker's words
    (root / "tests" / "exercises").mkdir(parents=True)
    shutil.copy(
        ROOT / "tests" / "exercises" / "conftest.py", root / "tests" / "exercises" / "conftest.py"
    )
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    (root / "solutions" / "01-demo").mkdir(parents=True)
    (root / "solutions" / "01-demo" / "exercise.py").write_text(DEMO_SOLUTION, encoding="utf-8")
    (root / "tests" / "exercises" / "test_01_demo.py").write_text(DEMO_TESTS, encoding="utf-8")
    manifest = "".join((lesson_entry("01", "demo", "Doubling things"), *entries))
    (root / "course.toml").write_text(manifest, encoding="utf-8")
    return root


def test_discovery_maps_solutions_to_lessons_and_tests(tmp_path: Path) -> None:
    # Listed out of order on purpose: discover() sorts by number.
    root = make_course(
        tmp_path,
        lesson_entry("10", "two-words", "Two words"),
        # a lesson, but no exercise
        lesson_entry("02", "no-exercise", "No exercise", exercise=False),
    )
    (root / "solutions" / "10-two-words").mkdir()
    (root / "solutions" / "10-two-words" / "exercise.py").write_text("x = 1\n")
    (root / "solutions" / "02-no-exercise").mkdir()
    (root / "solutions" / "notes").mkdir()
    # On disk but not in course.toml: not part of the course, so not found.
    (root / "solutions" / "09-forgotten").mkdir()
    (root / "solutions" / "09-forgotten" / "exercise.py").write_text("x = 1\n")

    lessons = exercises.discover(root)
    assert [lesson.name for lesson in lessons] == ["01-demo", "10-two-words"]
    two = lessons[1]
    assert two.number == "10"
    assert two.title == "Two words"
    assert two.solution == root / "solutions" / "10-two-words" / "exercise.py"
    assert two.stub == root / "lessons" / "10-two-words" / "exercise.py"
    assert two.test_file == root / "tests" / "exercises" / "test_10_two_words.py"
    assert two.page == root / "lessons" / "10-two-words" / "index.md"
    assert two.notebook == root / "notebooks" / "10-two-words.ipynb"
    for ident in (
        "10",
        "10-two-words",
        "10_two_words",
        "lessons/10-two-words/exercise.py",
        "tests\\exercises\\test_10_two_words.py",
        "solutions/10-two-words/",
    ):
        assert exercises.find_lesson(ident, root) == two, ident
    assert exercises.find_lesson("1", root).name == "01-demo"
    for ident in ("3", "10-other", "demo", "", "2", "09"):
        with pytest.raises(LookupError, match="01-demo, 10-two-words"):
            exercises.find_lesson(ident, root)
    assert exercises.discover(tmp_path / "nowhere") == []
    (
        root / "course.toml"
    ).unlink()  # the folders are still there, but without a manifest: no course
    assert exercises.discover(root) == []


def test_discovery_takes_every_path_from_the_manifest(tmp_path: Path) -> None:
    """Nothing is rebuilt from the folder name: the manifest may put the files anywhere."""
    odd = dedent(
        """
        [[lesson]]
        number = "3"
        title = "Odd places"
        exercise = "lessons/03-odd/exercise.py"
        solution = "answers/three.py"
        tests = [
            "tests/test_odd.py",
            "tests/exercises/test_03_odd.py",
            "tests/exercises/test_03_more.py",
        ]
        """
    )
    root = make_course(tmp_path, odd)
    lesson = exercises.find_lesson("03-odd", root)
    assert (lesson.name, lesson.number, lesson.title) == ("03-odd", "3", "Odd places")
    assert lesson.solution == root / "answers" / "three.py"
    assert lesson.stub == root / "lessons" / "03-odd" / "exercise.py"
    # the first one there
    assert lesson.test_file == root / "tests" / "exercises" / "test_03_odd.py"
    assert lesson.page is None and lesson.notebook is None
    assert exercises.find_lesson("3", root) == lesson


@pytest.mark.parametrize("missing", ["solution", "tests"])
def test_an_exercise_without_its_solution_or_tests_is_a_manifest_error(
    tmp_path: Path, missing: str, capsys: pytest.CaptureFixture[str]
) -> None:
    entry = "\n".join(
        line
        for line in lesson_entry("02", "half", "Half done").splitlines()
        if not line.startswith(missing)
    )
    root = make_course(tmp_path, entry + "\n")
    with pytest.raises(exercises.ManifestError, match="lesson 02 has an exercise"):
        exercises.discover(root)
    assert exercises.main(["--root", str(root), "list"]) == 2
    assert "course.toml: lesson 02" in capsys.readouterr().err


def test_generate_and_check_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_course(tmp_path)
    lesson = exercises.find_lesson("01", root)
    assert exercises.main(["--root", str(root), "check"]) == 1
    assert "missing: lessons/01-demo/exercise.py" in capsys.readouterr().out

    assert exercises.main(["--root", str(root), "generate"]) == 0
    assert "wrote lessons/01-demo/exercise.py" in capsys.readouterr().out
    assert lesson.stub.read_text(encoding="utf-8") == generate_stub(DEMO_SOLUTION, lesson="01-demo")
    assert exercises.main(["--root", str(root), "generate", "01"]) == 0
    assert "0 of 1" in capsys.readouterr().out  # nothing to rewrite
    assert exercises.main(["--root", str(root), "check"]) == 0
    capsys.readouterr()

    # Inside a block nothing shows in the copy; outside, everything does.
    lesson.solution.write_text(
        DEMO_SOLUTION.replace("return 2 * x", "return x + x"), encoding="utf-8"
    )
    assert exercises.main(["--root", str(root), "check"]) == 0
    capsys.readouterr()
    lesson.solution.write_text(
        DEMO_SOLUTION.replace("Return twice x.", "Twice x."), encoding="utf-8"
    )
    assert exercises.main(["--root", str(root), "check"]) == 1
    out = capsys.readouterr().out
    assert (
        "stale: lessons/01-demo/exercise.py" in out and "python tools/exercises.py generate" in out
    )

    lesson.solution.write_text("def f():\n    # BEGIN SOLUTION\n    return 1\n", encoding="utf-8")
    assert exercises.main(["--root", str(root), "generate"]) == 2
    assert "solutions/01-demo/exercise.py, line 2:" in capsys.readouterr().err

    lesson.solution.write_text("def f():\n    return 1\n", encoding="utf-8")
    assert exercises.main(["--root", str(root), "generate"]) == 2
    assert "no '# BEGIN SOLUTION' block" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# The real lessons (none yet is fine: these are then empty). The checker's own tests, on a fake
# course built by make_course, are in tests/test_checker.py.
# --------------------------------------------------------------------------------------------


def stub_problems(run: Run) -> list[str]:
    """Why a run against the untouched stubs does not prove the tests: empty when it does."""
    problems = []
    if run.timed_out:
        problems.append("the run timed out")
    for error in run.collection_errors:
        problems.append(f"collection error in {error.name}: {' '.join(error.message)}")
    tests = run.tests
    if len(tests) < 2:
        problems.append(
            f"only {len(tests)} test(s) collected (at least 2 expected); pytest said:\n{run.output}"
        )
    passed = [result.name for result in tests if result.outcome == "passed"]
    if passed:
        problems.append(
            f"these tests PASS on the untouched stub, so they check nothing: {', '.join(passed)}"
        )
    skipped = [result.name for result in tests if result.outcome == "skipped"]
    if skipped:
        problems.append(f"these tests were skipped on the stub: {', '.join(skipped)}")
    silent = [result.name for result in tests if not result.hint]
    if silent:
        problems.append(
            "these tests have no docstring, so a student who fails them gets no hint: "
            f"{', '.join(silent)}"
        )
    red = [
        f"{result.name} ({' '.join(result.message[:1])})"
        for result in tests
        if result.outcome in ("failed", "error")
    ]
    if red:
        problems.append(
            "these tests fail on the untouched stub for another reason than its "
            "NotImplementedError, so a student who has not started sees a red failure instead of "
            f"'not started': {', '.join(red)}"
        )
    if tests and not passed and not skipped and run.returncode != 1:
        problems.append(f"pytest exited with {run.returncode}:\n{run.output}")
    return problems


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.name for lesson in LESSONS])
def test_student_copy_is_up_to_date(lesson: exercises.Lesson) -> None:
    assert lesson.stub.is_file(), (
        f"{lesson.relative(lesson.stub)} is missing: run `python tools/exercises.py generate`"
    )
    assert exercises.read_text(lesson.stub) == lesson.render(), (
        f"{lesson.relative(lesson.stub)} is stale (it no longer matches "
        f"{lesson.relative(lesson.solution)}): run `python tools/exercises.py generate`"
    )
    assert count_blocks(exercises.read_text(lesson.solution)) > 0


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.name for lesson in LESSONS])
def test_every_exercise_test_fails_on_the_stub(lesson: exercises.Lesson) -> None:
    assert lesson.test_file.is_file(), (
        f"lesson {lesson.name} has no tests: {lesson.relative(lesson.test_file)}"
    )
    assert lesson.stub.is_file(), (
        f"{lesson.relative(lesson.stub)} is missing: run `python tools/exercises.py generate`"
    )
    run = check.run_lesson_tests(lesson, "lessons", extra_args=("--timeout=60",), timeout=600)
    problems = stub_problems(run)
    assert not problems, f"{lesson.relative(lesson.test_file)} on the stub:\n" + "\n".join(problems)


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.name for lesson in LESSONS])
def test_every_exercise_test_is_in_a_part(lesson: exercises.Lesson) -> None:
    """The checker reports by part: each test file is cut into parts 1, 2, ... and no test is left
    out."""
    known = read_test_file(lesson.test_file)
    where = lesson.relative(lesson.test_file)
    numbers = [part.number for part in known.parts]
    assert numbers and numbers == list(range(1, len(numbers) + 1)), (
        f"{where}: its `# -- Exercise N · title ---` lines number the parts {numbers}, "
        "not 1, 2, ..."
    )
    assert all(part.title for part in known.parts), f"{where}: a part has no title"
    outside = sorted(set(known.node_ids) - set(known.part_of))
    assert not outside, (
        f"{where}: these tests come before the first `# -- Exercise 1 · ...` line: {outside}"
    )
