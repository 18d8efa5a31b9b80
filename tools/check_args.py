"""The command line of ``python tools/check.py``, in the student's language.

The help is written in the language of the run, and that language may be given on the same command
line (``--lang es``) or remembered in the course's folder (``--root``). So the command line is read
twice: first for those two options alone, by a parser that leaves the rest alone; then whole, by a
parser whose every word -- the help of each option, its headings, its errors -- comes from the
catalogue (``tools/messages.py``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NoReturn

from tools import messages
from tools.messages import text

#: The course's folder when neither --root nor MCP_COURSE_ROOT names another: this checkout.
HOME = Path(__file__).resolve().parent.parent


class Formatter(argparse.HelpFormatter):
    """argparse's help, with the word before the usage line from the catalogue."""

    def add_usage(
        self,
        usage: str | None,
        actions: Iterable[argparse.Action],
        groups: Iterable[Any],
        prefix: str | None = None,
    ) -> None:
        super().add_usage(usage, actions, groups, text("args.usage") if prefix is None else prefix)


class Parser(argparse.ArgumentParser):
    """argparse's parser, with its error line from the catalogue."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, text("args.error", prog=self.prog, message=message) + "\n")


def default_root() -> Path:
    return Path(os.environ.get("MCP_COURSE_ROOT") or HOME)


def language_of(argv: list[str] | None) -> str:
    """The language this run speaks: ``--lang``, else the environment's or the remembered one."""
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("--lang")
    first.add_argument("--root", type=Path, default=default_root())
    known, _rest = first.parse_known_args(argv)
    return messages.choose(Path(known.root).resolve(), known.lang)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The options of the command line, after the run's language is chosen and in use."""
    messages.use(language_of(argv))
    parser = Parser(
        prog="python tools/check.py",
        description=text("args.description"),
        formatter_class=Formatter,
        add_help=False,
    )
    positionals = parser.add_argument_group(text("args.positionals"))
    positionals.add_argument("lesson", nargs="?", help=text("args.lesson"))
    options = parser.add_argument_group(text("args.options"))
    options.add_argument("-h", "--help", action="help", help=text("args.help"))
    options.add_argument("--part", type=int, metavar="N", help=text("args.part"))
    options.add_argument("--watch", action="store_true", help=text("args.watch"))
    options.add_argument("--solutions", action="store_true", help=text("args.solutions"))
    options.add_argument("-v", "--verbose", action="store_true", help=text("args.verbose"))
    options.add_argument("--root", type=Path, default=default_root(), help=text("args.root"))
    options.add_argument("--lang", choices=messages.languages(), help=text("args.lang"))
    args = parser.parse_args(argv)
    if args.lesson is None and (args.part is not None or args.watch):
        parser.error(text("args.part_needs_lesson"))
    return args
