"""minimcp as of one lesson: the package cut at lesson NN runs lessons 01 to NN's tests and
notebooks.

``python tools/course.py snapshot NN DIR`` copies only the modules of lessons up to NN (and their
packages' ``__init__`` files). If lesson 04's code stood on lesson 09's, a student reading "minimcp
as of lesson 04" would meet an ``ImportError``; here a fresh ``pytest`` runs, with ``PYTHONPATH``
pointing at the copy, every test file and notebook of those lessons, so it would fail first.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tools import course

ROOT = Path(__file__).resolve().parents[1]

#: The lessons whose snapshot is run (each takes the time of its lessons' tests and notebooks).
SNAPSHOTS = ["01", "02", "03", "04", "08"]


def files_up_to(number: str) -> list[str]:
    """Every test file and notebook of the lessons up to ``number``, once each, in lesson order."""
    found: list[str] = []
    for entry in course.lessons():
        if entry["number"] <= number:
            found += [path for path in [*entry.get("tests", []), entry.get("notebook")] if path]
    return list(dict.fromkeys(found))


def without_the_editable_hook(folder: Path) -> None:
    """``pip install -e .`` installs an import hook (a ``__editable___minimcp_…_finder`` module that
    a ``.pth`` file runs at start-up) which finds any ``minimcp`` module missing from the path in
    the repository, and would quietly fill the copy's gaps with the later lessons. A module of the
    same name in the copy, found first, replaces it with a hook that does nothing."""
    for hook in Path(sysconfig.get_paths()["purelib"]).glob("__editable___minimcp_*_finder.py"):
        (folder / hook.name).write_text("def install() -> None:\n    pass\n")


def run_on_snapshot(folder: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    # The copy comes first on the path. Python would otherwise put the working directory (the
    # repository, with the whole package) before it: PYTHONSAFEPATH stops that, in this process and
    # in every child a test starts (the repository stays on the path, after the copy, for tests/).
    environment = {**os.environ, "PYTHONPATH": f"{folder}{os.pathsep}{ROOT}", "PYTHONSAFEPATH": "1"}
    return subprocess.run(
        [sys.executable, *arguments],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=1200,
    )


@pytest.mark.timeout(1200)  # a lesson's tests and notebooks, run again: minutes on a loaded machine
@pytest.mark.parametrize("number", SNAPSHOTS)
def test_a_lesson_runs_on_the_code_of_the_lessons_up_to_it(number: str, tmp_path: Path) -> None:
    left_out = course.snapshot(number, tmp_path)
    without_the_editable_hook(tmp_path)
    assert left_out, "a snapshot leaves the later lessons out"
    where = run_on_snapshot(tmp_path, "-c", "import minimcp; print(minimcp.__file__)")
    # the copy, not the tree
    assert where.stdout.strip() == str(tmp_path / "minimcp" / "__init__.py")
    tests = run_on_snapshot(tmp_path, "-m", "pytest", "-q", "-x", *files_up_to(number))
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]


def test_a_snapshot_leaves_out_what_comes_later(tmp_path: Path) -> None:
    """The check can fail: lesson 03's handshake is not in lesson 02's copy, so importing it
    fails."""
    course.snapshot("02", tmp_path)
    without_the_editable_hook(tmp_path)
    missing = run_on_snapshot(tmp_path, "-c", "import minimcp.session.lifecycle")
    assert missing.returncode != 0 and "No module named 'minimcp.session'" in missing.stderr
    assert (tmp_path / "minimcp" / "transports" / "stdio.py").exists()


def test_an_example_comes_with_the_lesson_that_has_all_it_imports(tmp_path: Path) -> None:
    """The course server (lessons 03-06's features, no lesson's module) is in lesson 06's copy,
    with its data, and not in lesson 05's; the command line, which imports every lesson, is in
    neither."""
    course.snapshot("05", tmp_path / "05")
    course.snapshot("06", tmp_path / "06")
    examples = Path("minimcp") / "examples"
    assert not (tmp_path / "05" / examples / "course.py").exists()
    assert (tmp_path / "06" / examples / "course.py").exists()
    assert (tmp_path / "06" / examples / "course_data.json").exists()
    assert not (tmp_path / "06" / "minimcp" / "cli.py").exists()
