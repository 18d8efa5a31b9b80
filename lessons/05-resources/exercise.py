# ----------------------------------------------------------------------------------------
# Lesson 05-resources: your exercise.
#
# 1. Read the docstrings below: each part says exactly what to build.
# 2. Replace each `raise NotImplementedError(...)`, under its TODO, with your code.
# 3. Check your work, as often as you like:  python tools/check.py 05
#
# Stuck for good? A worked answer is in solutions/05-resources/exercise.py.
# This file is yours: a new version of the course may replace it, so keep a copy of your work.
# ----------------------------------------------------------------------------------------
"""Lesson 05 exercise: three things a resource server and its host need beyond what minimcp does.

1. **URI templates beyond level 1.** ``minimcp.server.uri_templates`` matches only ``{id}``. Real
   servers want ``file:///{+path}`` (a value that may contain ``/``) and
   ``search://courses{?q,level}`` (optional query parameters). Write ``expand`` (values → URI, as
   RFC 6570 says) and ``match`` (URI → values, the same rules run backwards).
2. **A safe resolver for a virtual ``file://`` tree.** The spec says ``file://`` resources "do not
   need to map to an actual physical filesystem". Here ``file:///notes/a.txt`` means
   ``<root>/notes/a.txt``: the URI's path is *relative to a root folder*. Write ``safe_join`` so
   that no URI, however encoded, ever reaches a file outside that root.
3. **A router that scores.** The host's keyword "if" pastes ``courses://all`` whenever a message
   *contains* "curso", so "what is a cursor?" gets the whole catalogue. Write a router that compares
   whole words with each resource's metadata (name, title, description), scores them, and picks the
   best few, always in the same order.

Check your work with ``python tools/check.py 05``. Only the standard library is needed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

# =================================================================================================
# Part 1 · URI templates: {var}, {+var} and {?a,b} (RFC 6570, levels 1 to 3, in part)
# =================================================================================================
#
# A template is literal text with *expressions* in braces. Three kinds of expression are supported:
#
#   {name}      simple expansion: the value with every character outside UNRESERVED percent-encoded
#               (UTF-8 bytes, upper-case hex: "Hello World!" -> "Hello%20World%21").
#   {+name}     reserved expansion: like {name}, but the RESERVED characters (such as "/" and ":")
#               are kept as they are, and so is any "%XX" triplet already in the value
#               ("/foo/bar" -> "/foo/bar", "50%" -> "50%25", "a%20b" -> "a%20b").
#   {?a,b,...}  form-style query: "?a=1&b=2" with the names in the template's order; each value is
#               encoded as in {name}; a variable with no value is left out, an empty string gives
#               "a="; and if no variable has a value, the whole expression is "" (no "?").
#
# In `expand`, a variable is *undefined* when it is missing from `values` or is None. An undefined
# {name} or {+name} expands to "".
#
# `match` runs expansion backwards and returns the variables, percent-decoded (as UTF-8), or None:
#
#   * a {name} matches one or more UNRESERVED characters or "%XX" triplets;
#   * a {+name} matches one or more path characters: UNRESERVED, "/", ":", "@", the SUB_DELIMS, or
#     "%XX" triplets. Not "?" or "#": a path variable stops where the query or fragment begins;
#   * a {?a,b} matches "" (then no query variable is in the result), or "?" followed by one or more
#     "name=value" pairs joined by "&": every name is one of the expression's, none twice, in any
#     order; each value is zero or more UNRESERVED characters or "%XX" triplets. Anything else in
#     the query ("?", "?a", "?a=1&&b=2", "?zzz=1", "?a=1&a=2", a space) means no match;
#   * literal text must match exactly; a value whose "%XX" bytes are not valid UTF-8 means no match.
#
# Templates `expand` and `match` refuse with ValueError: a "{" or "}" outside an expression, an
# empty expression, any other operator ("{#x}", "{/x}", "{.x}", "{;x}", "{&x}"), a modifier ("{x*}",
# "{x:3}"), a name that is not a Python-style identifier, the same name twice in a template, more
# than one name in {name} or {+name}, and a {?...} that is not the very end of the template.

UNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
GEN_DELIMS = ":/?#[]@"
SUB_DELIMS = "!$&'()*+,;="
RESERVED = GEN_DELIMS + SUB_DELIMS

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TRIPLET = re.compile(r"%[0-9A-Fa-f]{2}")
_SIMPLE_VALUE = r"(?:[A-Za-z0-9\-._~]|%[0-9A-Fa-f]{2})"
_PATH_VALUE = r"(?:[A-Za-z0-9\-._~/:@!$&'()*+,;=]|%[0-9A-Fa-f]{2})"


def parse_template(template: str) -> list[str | tuple[str, list[str]]]:
    """The template as a list of parts: literal strings, and ``(operator, names)`` for expressions.

    ``operator`` is ``""`` for {name}, ``"+"`` for {+name} and ``"?"`` for {?a,b}. Raise ValueError
    for everything the rules above refuse.

    >>> parse_template("courses://{id}{?level}")
    ['courses://', ('', ['id']), ('?', ['level'])]
    """
    # TODO: split on {...}; check literals, operator, names, and where {?...} stands
    raise NotImplementedError("parse_template")


def expand(template: str, values: Mapping[str, str | None]) -> str:
    """The URI ``template`` expands to with ``values`` (RFC 6570 rules above).

    >>> expand("courses://{id}", {"id": "AI 101"})
    'courses://AI%20101'
    >>> expand("file:///{+path}", {"path": "docs/intro.md"})
    'file:///docs/intro.md'
    >>> expand("search://courses{?q,level}", {"q": "sql", "level": None})
    'search://courses?q=sql'
    """
    # TODO: literals as is; {x} quotes all but UNRESERVED; {+x} keeps RESERVED and %XX
    raise NotImplementedError("expand")


def match(template: str, uri: str) -> dict[str, str] | None:
    """The variables of ``uri`` (percent-decoded), or None if ``template`` cannot expand to it.

    >>> match("courses://{id}", "courses://AI%20101")
    {'id': 'AI 101'}
    >>> match("file:///{+path}", "file:///docs/intro.md")
    {'path': 'docs/intro.md'}
    >>> match("search://courses{?q,level}", "search://courses?q=sql&level=Advanced")
    {'q': 'sql', 'level': 'Advanced'}
    >>> match("courses://{id}", "courses://a/b") is None
    True
    """
    # TODO: a group per {x}/{+x}, one for the whole query; then check and decode the pairs
    raise NotImplementedError("match")


# =================================================================================================
# Part 2 · safe_join: a file:// URI, relative to a root folder, that can never leave it
# =================================================================================================
#
# ``safe_join(root, uri)`` returns the real (fully resolved) path of the regular file the URI names
# inside ``root``. The URI's path is read *relative to the root*: ``file:///notes/a.txt`` is
# ``<root>/notes/a.txt`` and ``file:///`` is the root itself.
#
# It raises ValueError (a URI this server refuses) when:
#   * the scheme is not "file" (any letter case is fine: "FILE" is "file"), or the URI has a host
#     other than "localhost", a query ("?...") or a fragment ("#...");
#   * the path, split on "/" *before* percent-decoding, has an empty segment (other than the
#     leading "/" and an optional trailing "/"): "file:////etc/passwd", "file:///a//b";
#   * a decoded segment is "..", contains "/", "\\" or a NUL character, or looks like a Windows
#     drive ("C:", "c:foo"); or a segment is not valid UTF-8 once decoded;
#   * the raw path contains a backslash;
#   * the file it finally names, after following every symlink, is outside the root.
# A "." segment is simply skipped. Each segment is percent-decoded exactly once: "%252e%252e" is the
# harmless file name "%2e%2e", not "..".
#
# It raises FileNotFoundError when the URI is acceptable but no regular file is there (nothing at
# all, a folder, a dangling symlink that stays inside, or a symlink loop).

_DRIVE = re.compile(r"^[A-Za-z]:")


def safe_join(root: str | Path, uri: str) -> Path:
    """The real path of the regular file ``uri`` names under ``root``; ValueError or
    FileNotFoundError."""
    # TODO: vet the URI; decode and vet each segment once; resolve; compare with the root
    raise NotImplementedError("safe_join")


# =================================================================================================
# Part 3 · A router that scores resources against the user's message
# =================================================================================================
#
# words(text): the distinct content words of ``text``, in order of first appearance:
#   1. case-fold, then drop accents (NFKD normalisation, without the combining marks);
#   2. take the runs of ASCII letters and digits ([a-z0-9]+); everything else separates words;
#   3. drop the words in STOPWORDS (checked before step 4);
#   4. fold a plural: a word longer than 3 characters that ends in "s" but not in "ss" loses
#      that "s" ("courses" -> "course", "users" -> "user", "class" stays, "bus" stays).
#
# score(message, resource): for every word of the message, the highest WEIGHTS[field] among the
# resource's fields (name, title, description; a missing or None field counts as "") whose words
# include it, or 0; the score is the sum over the message's words. Each distinct word counts once.
#
# route(message, resources, limit=2, threshold=2, exclude=()): the URIs of the resources whose score
# is at least ``threshold`` and whose URI is not in ``exclude``, best score first, equal scores in
# URI order (plain string order), at most ``limit`` of them. A URI listed twice is considered once
# (its first entry). ``limit`` below 0 is a ValueError.

STOPWORDS = frozenset(
    "a about all an and any are as at be can do does for from get give how i in is it list me my "
    "of on or please show tell that the there this to what which who with you your".split()
)

WEIGHTS = {"name": 3, "title": 2, "description": 1}


def words(text: str) -> list[str]:
    """The distinct content words of ``text`` (see the rules above).

    >>> words("Which COURSES are there? Courses, please!")
    ['course']
    """
    # TODO: casefold, strip accents, [a-z0-9]+, drop stopwords, fold plurals, no repeats
    raise NotImplementedError("words")


def score(message: str, resource: Mapping[str, Any]) -> int:
    """How well ``resource`` (a ``resources/list`` entry) fits ``message``.

    >>> courses = {"uri": "courses://all", "name": "courses", "title": "All Courses"}
    >>> score("Which courses are there?", courses)
    3
    """
    # TODO: each field's words; per message word, the best weight of a field holding it
    raise NotImplementedError("score")


def route(
    message: str,
    resources: Iterable[Mapping[str, Any]],
    *,
    limit: int = 2,
    threshold: int = 2,
    exclude: Iterable[str] = (),
) -> list[str]:
    """The URIs of the resources worth pasting before ``message``: best first, at most ``limit``.

    >>> catalogue = [
    ...     {"uri": "courses://all", "name": "courses"},
    ...     {"uri": "users://all", "name": "users"},
    ... ]
    >>> route("Which courses are there?", catalogue)
    ['courses://all']
    >>> route("What is a cursor?", catalogue)
    []
    """
    # TODO: score each new URI once, keep those at threshold, sort by (-score, uri), cut
    raise NotImplementedError("route")
