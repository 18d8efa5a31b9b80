"""The checker's pytest side: the code that runs *inside* the child process of ``tools/check.py``.

    python tools/check_pytest.py REPORT EXERCISE [EXERCISE ...] -- PYTEST_ARGUMENTS ...

It runs pytest on ``PYTEST_ARGUMENTS`` with one plugin more, :class:`Recorder`, which writes one
JSON object per line to the file ``REPORT``:

* ``{"event": "collected", ...}`` for every test found, with its class, function and parameters;
* ``{"event": "result", ...}`` for every test run: its outcome and, when it went wrong, what a
  student needs to see (the assertion's whole message, where it failed in the exercise file and in
  the test, and whether it is only the stub's ``NotImplementedError``);
* ``{"event": "collection error", ...}`` for a test file that could not even be loaded.

``EXERCISE`` names the exercise files under test (the student's copies, or the solutions): a
``NotImplementedError`` raised from one of them is a part the student has not started yet.

Why a plugin and not pytest's JUnit XML report: the report has neither the parameters of a test
nor the exception itself, only text cut to fit, and the checker wants both untouched. The report
is written line by line, so a run that is stopped halfway still tells what it did.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import traceback
from pathlib import Path
from typing import Any, TextIO

import pytest


class Recorder:
    """A pytest plugin: writes what happens to each test, as JSON lines, to ``report``."""

    def __init__(self, report: TextIO, exercise_files: list[Path]) -> None:
        self.report = report
        self.exercise_files = {path.resolve() for path in exercise_files}
        # nodeid -> its result so far (setup, call, teardown)
        self.running: dict[str, dict[str, Any]] = {}
        self.logged_stub: BaseException | None = None  # see _StubLog
        self.root = Path.cwd()

    def write(self, record: dict[str, Any]) -> None:
        self.report.write(json.dumps(record) + "\n")
        self.report.flush()  # a run killed by a timeout still leaves every line written before

    def pytest_configure(self, config: pytest.Config) -> None:
        self.root = config.rootpath
        logging.getLogger().addHandler(_StubLog(self))

    def pytest_runtest_logstart(self) -> None:
        self.logged_stub = None

    def pytest_itemcollected(self, item: pytest.Item) -> None:
        # Recorded before any deselection: tools/check.py deselects the lessons you have not
        # started, and still counts their tests.
        callspec = getattr(item, "callspec", None)
        params = {name: _repr(value) for name, value in callspec.params.items()} if callspec else {}
        cls = getattr(item, "cls", None)
        function = getattr(item, "originalname", item.name)
        self.write(
            {
                "event": "collected",
                "nodeid": item.nodeid,
                "file": self.relative(item.path),
                "cls": cls.__name__ if cls else "",
                "function": function,
                "params": params,
            }
        )

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            # The last `E ...` line of pytest's report is the error itself: `SyntaxError: ...`.
            text = report.longreprtext
            lines = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
            message = lines[-1:] or text.strip().splitlines()[-1:]
            self.write({"event": "collection error", "nodeid": report.nodeid, "message": message})

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
        report = yield
        state = self.running.setdefault(item.nodeid, {"outcome": "passed"})
        if state["outcome"] != "passed":
            return report  # the first thing that went wrong is the one to show
        if report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
            state.update(outcome="skipped", message=[str(reason)])
        elif report.failed and call.excinfo is not None:
            state["outcome"] = "failed" if call.when == "call" else "error"
            state.update(self.describe(call.excinfo.value, item, self.logged_stub))
        return report

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        state = self.running.pop(nodeid, {"outcome": "passed"})
        self.write({"event": "result", "nodeid": nodeid, **state})

    # ----------------------------------------------------------------------------------------
    # What went wrong
    # ----------------------------------------------------------------------------------------

    def describe(
        self, error: BaseException, item: pytest.Item, logged_stub: BaseException | None
    ) -> dict[str, Any]:
        """What the student sees of ``error``: its message in full, and where it happened.

        ``logged_stub`` is a stub's NotImplementedError that a server caught and logged during the
        test: the test then failed only because that part is not written yet.
        """
        stub = self.stub_error(error) or logged_stub
        shown = stub or error
        frames = traceback.extract_tb(shown.__traceback__)
        in_exercise = [frame for frame in frames if self.is_exercise(frame.filename)]
        in_test = [
            frame
            for frame in traceback.extract_tb(error.__traceback__)
            if Path(frame.filename) == item.path
        ]
        details: dict[str, Any] = {"stub": stub is not None, "message": _message(shown)}
        if isinstance(shown, SyntaxError) and shown.filename and self.is_exercise(shown.filename):
            details["exercise_at"] = f"{self.relative(Path(shown.filename))}:{shown.lineno}"
        elif in_exercise:
            details["exercise_at"] = (
                f"{self.relative(Path(in_exercise[-1].filename))}:{in_exercise[-1].lineno}"
            )
        if in_test:
            details["test_at"] = f"{self.relative(item.path)}:{in_test[-1].lineno}"
            details["test_line"] = (in_test[-1].line or "").strip()
        return details

    def stub_error(self, error: BaseException, depth: int = 0) -> BaseException | None:
        """The stub's ``NotImplementedError`` behind ``error``, if that is all that went wrong.

        It is ``error`` itself, or the error it was raised from or while handling (an async test
        often sees it that way), or, for an exception group, the one that every member comes from.
        """
        if depth > 10:
            return None
        if isinstance(error, NotImplementedError):
            frames = traceback.extract_tb(error.__traceback__)
            return error if frames and self.is_exercise(frames[-1].filename) else None
        if isinstance(error, BaseExceptionGroup):
            found = [self.stub_error(member, depth + 1) for member in error.exceptions]
            return found[0] if found and all(found) else None
        cause = error.__cause__ or error.__context__
        return self.stub_error(cause, depth + 1) if cause is not None else None

    def is_exercise(self, filename: str) -> bool:
        return Path(filename).resolve() in self.exercise_files

    def relative(self, path: Path) -> str:
        try:
            return Path(path).resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return str(path)


class _StubLog(logging.Handler):
    """Notes a stub's NotImplementedError that was caught and logged rather than raised.

    A test that runs the student's code inside a real MCP server sees no NotImplementedError: the
    server logs it and answers "Internal error". Its log record still carries the exception.
    """

    def __init__(self, recorder: Recorder) -> None:
        super().__init__()
        self.recorder = recorder

    def emit(self, record: logging.LogRecord) -> None:
        error = record.exc_info[1] if record.exc_info else None
        if error is not None and self.recorder.logged_stub is None:
            self.recorder.logged_stub = self.recorder.stub_error(error)


#: A line of pytest's explanation that only says where a function came from, such as
#: ``+  where <function negotiate at 0x7f...> = <module 'course_exercise_...' ...>.negotiate``.
_WHERE_MODULE_RE = re.compile(r"^\s*\+\s+where <[^>]* at 0x[0-9a-f]+> = <module '")
#: ``<function negotiate at 0x7f24f4150ae0>``, shown as ``negotiate``: the call then reads as code.
_FUNCTION_RE = re.compile(r"<function ([\w.<>]+) at 0x[0-9a-f]+>")


def _message(error: BaseException) -> list[str]:
    """The lines of ``error``'s message, untruncated: ``assert 3 == 4`` and pytest's explanation."""
    if isinstance(error, SyntaxError):
        return [f"SyntaxError: {error.msg}"]
    name = type(error).__name__
    text = str(error)
    if isinstance(error, AssertionError) and text:
        lines = text.splitlines()  # pytest's rewritten assert already says it all: `assert x == y`
    elif name == "Failed":  # pytest.fail() and `DID NOT RAISE`: pytest's words are the message
        lines = text.splitlines() or [name]
    else:
        lines = f"{name}: {text}".splitlines() if text else [name]
    return [
        _FUNCTION_RE.sub(r"\1", line.rstrip()) for line in lines if not _WHERE_MODULE_RE.match(line)
    ]


def _repr(value: object) -> str:
    try:
        return repr(value)
    except Exception as error:  # a parameter whose repr breaks must not break the run
        return f"<{type(value).__name__}: repr failed with {error!r}>"


def main(argv: list[str]) -> int:
    report, *rest = argv
    split = rest.index("--")
    exercise_files = [Path(name) for name in rest[:split]]
    with open(report, "a", encoding="utf-8") as file:
        return int(pytest.main(rest[split + 1 :], plugins=[Recorder(file, exercise_files)]))


if __name__ == "__main__":
    # Run the way `python -m pytest` runs: the working folder first on sys.path, not tools/
    # (whose exercises.py must never be what a test gets from `import exercises`).
    sys.path[0] = os.getcwd()
    sys.exit(main(sys.argv[1:]))
