# ----------------------------------------------------------------------------------------
# Lesson 06-prompts: your exercise.
#
# 1. Read the docstrings below: each part says exactly what to build.
# 2. Replace each `raise NotImplementedError(...)`, under its TODO, with your code.
# 3. Check your work, as often as you like:  python tools/check.py 06
#
# Stuck for good? A worked answer is in solutions/06-prompts/exercise.py.
# This file is yours: a new version of the course may replace it, so keep a copy of your work.
# ----------------------------------------------------------------------------------------
"""Lesson 06 exercise: three pieces around prompts that minimcp does more simply, or not at all.

1. **A prompt template renderer.** ``minimcp`` writes each prompt as a Python function. Many servers
   keep their prompts as *text* instead, with ``{{argument}}`` placeholders. Write ``placeholders``
   and ``render``: check the arguments of a ``prompts/get`` the way the spec wants (a missing
   required argument is -32602, and so is one the prompt does not have), fill in the defaults of the
   optional ones, and answer spec-shaped ``messages``, without ever letting a value inject a
   placeholder.
2. **Names in, IDs out, and say what went wrong.** The course server's ``course-similar-by-name``
   finds courses by a plain substring and silently takes every match: "SQL" brings two courses.
   Write ``normalise``, ``resolve`` and ``instruction``: match by ID, by exact name, by word
   prefixes and by near-spelling, and tell the model (and so the user) which names were ambiguous
   and which matched nothing.
3. **The client's side: from a slash command to what the model reads.** The user types
   ``/course-similar-by-name names="SQL Views, Caché"``. Write ``parse_command``, which turns that
   line into the ``params`` of a ``prompts/get`` (checked against the ``prompts/list`` result), and
   ``to_chat``, which turns the server's ``GetPromptResult`` into the plain messages a chat model's
   API takes.

Check your work with ``python tools/check.py 06``. Only the standard library is needed.
"""

from __future__ import annotations

import base64
import binascii
import difflib
import re
import shlex
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: JSON-RPC's "Invalid params": what the spec asks for an unknown prompt or a missing argument.
INVALID_PARAMS = -32602


class PromptError(Exception):
    """A ``prompts/get`` the server refuses. A real server sends it as a JSON-RPC error:
    ``{"code": self.code, "message": self.message}``."""

    def __init__(self, message: str, code: int = INVALID_PARAMS) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def or_list(items: Sequence[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``: a short list in a sentence (given: used by parts 2 and 3).

    >>> or_list(["SQL Views (v1ws)", "SQL from Scratch (sq1x)"])
    'SQL Views (v1ws) or SQL from Scratch (sq1x)'
    """
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " or " + items[-1]


# =================================================================================================
# Part 1 · A prompt template renderer
# =================================================================================================
#
# A *template* is a list of ``(role, text)`` pairs. Each text may hold placeholders:
#
#   "{{" + optional spaces + a name + optional spaces + "}}"       e.g. "{{names}}", "{{ names }}"
#
# where a name starts with a letter or "_" and goes on with letters, digits, "_" or "-" (prompt
# argument names such as "course-id" are common). A "{{" that does not start such a placeholder is a
# ValueError ("{{ 1x }}", "{{names}", "{{}}"); a "}}" on its own is plain text (JSON has plenty).
#
# ``render(prompt, template, arguments, defaults)`` answers a ``prompts/get``:
#
#   * ``prompt`` is the prompt's definition, exactly as ``prompts/list`` shows it: a "name", maybe a
#     "description", maybe "arguments", a list of {"name", "description"?, "required"?}. An argument
#     without "required" is optional (the spec gives no default; absent is read as false, as the
#     official Python SDK does).
#   * First the *template* is checked, because a broken template is the server author's bug,
#     whatever the client sent. ValueError when: a role is not "user" or "assistant" (the only roles
#     of a PromptMessage; there is no "system"), a placeholder names an argument the prompt does not
#     declare, or ``defaults`` names an argument the prompt does not declare.
#   * Then the client's *arguments* (None means none). PromptError (-32602), in this order:
#       - not a dict whose keys and values are all strings:
#                                              '"arguments" must be an object of strings'
#       - names the prompt does not declare:   "Unknown argument(s) for prompt NAME: a, b"  (sorted)
#       - required ones that are absent, or only white space ("" counts as not given):
#                                              "Missing required argument(s) for prompt NAME: a, b"
#                                              (in the order the prompt declares them)
#   * An optional argument that was not given takes its value from ``defaults``, or "" without one.
#   * Every placeholder is replaced by its argument's value, in ONE pass: a value is inserted as it
#     is, and a "{{x}}" inside a value stays literally "{{x}}" (no injection of other arguments).
#   * The result is a GetPromptResult: {"description": ..., "messages": [...]} ("description" only
#     if the prompt has one), each message {"role": role, "content": {"type": "text", "text":
#     text}}: ONE content block per message, not a list of them.

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}")


def placeholders(text: str) -> list[str]:
    """The argument names ``text``'s placeholders use, in order of first appearance, each once.

    >>> placeholders("Compare {{ a }} with {{b}}, then {{a}} again.")
    ['a', 'b']
    """
    # TODO: find the placeholders; a "{{" left over once they are removed is a ValueError
    raise NotImplementedError("placeholders")


def render(
    prompt: Mapping[str, Any],
    template: Sequence[tuple[str, str]],
    arguments: Any = None,
    defaults: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The ``GetPromptResult`` of ``prompt`` filled with ``arguments`` (see the rules above).

    >>> summary = {"name": "summary", "arguments": [{"name": "topic", "required": True}]}
    >>> render(summary, [("user", "Summarize {{topic}}.")], {"topic": "MCP"})
    {'messages': [{'role': 'user', 'content': {'type': 'text', 'text': 'Summarize MCP.'}}]}
    """
    # TODO: the template (ValueError), the arguments (PromptError), then fill in one pass
    raise NotImplementedError("render")


def _check_template(
    name: str, template: Sequence[tuple[str, str]], declared: list[str], defaults: Mapping[str, str]
) -> None:
    """Raise ValueError for a broken template of the prompt ``name`` (see the rules above): a role
    that is neither "user" nor "assistant", a placeholder or a default for an argument that is not
    in ``declared``."""
    # TODO: each role, each placeholder of each text, then each default
    raise NotImplementedError("_check_template")


def _checked_arguments(prompt: Mapping[str, Any], arguments: Any) -> dict[str, str]:
    """The client's ``arguments`` for ``prompt`` (None: none), or PromptError (see the rules
    above): not an object of strings, an argument the prompt does not have, a required one
    missing."""
    # TODO: the type, then unknown names (sorted), then the required ones not given
    raise NotImplementedError("_checked_arguments")


# =================================================================================================
# Part 2 · Names in, IDs out: resolving course names the way a server should
# =================================================================================================
#
# normalise(text): case-fold; drop accents (NFKD normalisation, without the combining marks); every
# run of characters that are neither letters nor digits becomes one space; strip the ends.
#     "Infrastructure Design: Transactions" -> "infrastructure design transactions"
#     "  Caché!! " -> "cache"          "Test-Driven Development" -> "test driven development"
#
# resolve(names, catalogue): ``names`` is the prompt's argument, a comma-separated string; the
# catalogue is a list of {"id", "name"} (what courses://all holds). Split on ",", strip each name,
# skip empty ones and names whose normalised form was already seen. For each name, the candidates
# are found by the FIRST of these rules that finds any (everything compared after normalise):
#   1. by ID: the name is a course's ID ("c4ch", "AI101", "ai101");
#   2. by exact name: the name is a course's name ("sql views");
#   3. by word prefixes: every word of the name is the beginning of some word of the course's name
#      ("sql" -> SQL Views and SQL from Scratch; "cache" -> Cache Strategies; "test dev" -> tdd1);
#   4. by spelling: difflib.SequenceMatcher(None, name, course name).ratio() >= FUZZY_CUTOFF
#      ("chache strategies" -> Cache Strategies; "clen code" -> Clean Code).
# A name that normalises to "" matches nothing. Then:
#   * no candidate: the name (stripped, as written) goes to ``unknown``;
#   * one candidate: its ID goes to ``ids`` (once: two names for the same course give one ID);
#   * several: ``ambiguous[name] = [their IDs, in catalogue order]``, nothing goes to ``ids``.
#
# instruction(resolution, catalogue, tool): the text of the prompt's user message, made of these
# sentences in this order, joined by one space:
#   * if there are ids:
#       'Find similar courses using the tool TOOL with these course IDs: v1ws, c4ch
#       (SQL Views, Cache Strategies).'   (one line: the IDs, then the names in brackets, both
#       joined by ", ")
#   * for each ambiguous name, in order:
#       '"SQL" is ambiguous: ask the user whether they meant SQL Views (v1ws)
#       or SQL from Scratch (sq1x).'
#   * if some names are unknown:
#       'No course matched "vistas" or "quantum"; say so.'      (or_list of the quoted names)
# If there are neither ids nor ambiguous names, it is the client's error, not a prompt:
#   PromptError('No course matches "vistas" or "quantum": '
#               'the catalogue is the resource courses://all')

FUZZY_CUTOFF = 0.8


@dataclass
class Resolution:
    """What ``resolve`` found: IDs for sure, names that could mean several courses, and names nobody
    knows."""

    ids: list[str] = field(default_factory=list)
    ambiguous: dict[str, list[str]] = field(default_factory=dict)
    unknown: list[str] = field(default_factory=list)


def normalise(text: str) -> str:
    """``text`` case-folded, without accents, its words separated by single spaces.

    >>> normalise("Infrastructure Design: Transactions")
    'infrastructure design transactions'
    """
    # TODO: casefold, NFKD without combining marks, runs of non-alphanumerics to one space
    raise NotImplementedError("normalise")


def resolve(names: str, catalogue: Iterable[Mapping[str, str]]) -> Resolution:
    """Each comma-separated name of ``names`` resolved against ``catalogue`` (rules above).

    >>> catalogue = [
    ...     {"id": "v1ws", "name": "SQL Views"},
    ...     {"id": "sq1x", "name": "SQL from Scratch"},
    ...     {"id": "c4ch", "name": "Cache Strategies"},
    ... ]
    >>> resolve("Caché, SQL, vistas", catalogue)
    Resolution(ids=['c4ch'], ambiguous={'SQL': ['v1ws', 'sq1x']}, unknown=['vistas'])
    """
    # TODO: split, strip, skip repeats; the rules in order; then ids, ambiguous or unknown
    raise NotImplementedError("resolve")


def _candidates(key: str, courses: list[tuple[str, str, str]]) -> list[str]:
    """The IDs that the first rule that finds anything finds for ``key`` (already normalised), in
    catalogue order; each course is ``(id, normalised id, normalised name)``."""
    # TODO: by ID, by exact name, by word prefixes, by spelling: the first that finds any
    raise NotImplementedError("_candidates")


def instruction(
    resolution: Resolution,
    catalogue: Iterable[Mapping[str, str]],
    tool: str = "find_similar_courses",
) -> str:
    """The prompt's text for the model, or PromptError when there is nothing to search for.

    >>> catalogue = [{"id": "c4ch", "name": "Cache Strategies"}]
    >>> instruction(Resolution(ids=["c4ch"]), catalogue, tool="similar")
    'Find similar courses using the tool similar with these course IDs: c4ch (Cache Strategies).'
    """
    # TODO: no ids, nothing ambiguous: PromptError; else a sentence per finding, in order
    raise NotImplementedError("instruction")


# =================================================================================================
# Part 3 · The client's side: a slash command in, chat messages out
# =================================================================================================
#
# parse_command(line, prompts): ``prompts`` is a ``prompts/list`` result's list. The line, once
# stripped, must start with "/" (else SlashError). The rest is split with POSIX shell quoting
# (shlex.split: "..." and '...' group words, a backslash escapes); an unclosed quote is a
# SlashError, and so is an empty command ("/"). The first word is the prompt's name; the others are
# its arguments, each one either
#   * named, ``key=value`` (split at the first "="): ``names="SQL Views, Caché"`` gives the value
#     ``SQL Views, Caché``; or
#   * positional, a word without "=": the i-th positional word is the value of the prompt's i-th
#     argument (in the order prompts/list gives them).
# SlashError, with exactly these messages, checked in this order:
#   * "Unknown prompt: /NAME", followed by " (did you mean /OTHER?)" when difflib.get_close_matches
#     (NAME, the prompts' names, n=1, cutoff=0.6) finds one;
#   * "Unknown argument for /NAME: KEY" for a key the prompt does not have (the first such key);
#   * "/NAME takes at most N argument(s)" for more positional words than the prompt has arguments;
#   * "Argument given twice: KEY" (named twice, or positionally and by name);
#   * "Missing required argument(s) for /NAME: a, b" for required arguments that are absent or only
#     white space, in the order the prompt declares them.
# The result is the ``params`` of the ``prompts/get``: {"name": NAME}, plus "arguments" (a dict, in
# the order given) when at least one argument was given.
#
# to_chat(result): a GetPromptResult's messages as the messages of a chat model's API,
# [{"role": "user" | "assistant", "content": "text"}]. ValueError for a message whose role is not
# "user" or "assistant" (never let a server write a "system" message), or whose "content" is not ONE
# block (a dict). Each block becomes text:
#   text            its "text"
#   resource        an embedded resource: it MUST have "uri", "mimeType", and "text" or "blob"
#                   (ValueError otherwise). Text:  "[resource URI (MIME)]\n" + its text
#                   blob: "[resource URI (MIME), N bytes]" (N: the length of the decoded base64)
#   image, audio    "[image MIME, N bytes]", "[audio MIME, N bytes]" (N as above, from "data")
#   resource_link   "[resource link URI]"
# Any other type, and base64 that does not decode (binascii.Error), is a ValueError. Consecutive
# messages with the same role become one, their texts joined by a blank line ("\n\n"): many chat
# APIs want user and assistant to take turns.


class SlashError(ValueError):
    """A slash command the client cannot turn into a ``prompts/get``: show it to the user."""


def parse_command(line: str, prompts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The ``params`` of the ``prompts/get`` that ``line`` asks for (rules above).

    >>> catalogue = [{"name": "course-overview", "arguments": [{"name": "id", "required": True}]}]
    >>> parse_command("/course-overview c4ch", catalogue)
    {'name': 'course-overview', 'arguments': {'id': 'c4ch'}}
    """
    # TODO: check the "/", shlex.split, find the prompt, named vs positional words, check
    raise NotImplementedError("parse_command")


def to_chat(result: Mapping[str, Any]) -> list[dict[str, str]]:
    """A ``GetPromptResult`` as chat messages: roles checked, blocks as text, same roles merged.

    >>> to_chat({"messages": [{"role": "user", "content": {"type": "text", "text": "Hi."}}]})
    [{'role': 'user', 'content': 'Hi.'}]
    """
    # TODO: check roles and blocks, make text, merge into that role's previous message
    raise NotImplementedError("to_chat")


def _block_text(block: Mapping[str, Any]) -> str:
    """One content block as text (see the table above), or ValueError."""
    # TODO: one branch per type; an embedded resource needs uri, mimeType, text or blob
    raise NotImplementedError("_block_text")


def _size(data: Any) -> int:
    """How many bytes the base64 text ``data`` decodes to; ValueError if it is not base64."""
    # TODO: base64.b64decode with validate=True; binascii.Error (or TypeError) is bad
    raise NotImplementedError("_size")
