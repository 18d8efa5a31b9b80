# ----------------------------------------------------------------------------------------
# Lesson 04-tools: your exercise.
#
# 1. Read the docstrings below: each part says exactly what to build.
# 2. Replace each `raise NotImplementedError(...)`, under its TODO, with your code.
# 3. Check your work, as often as you like:  python tools/check.py 04
#
# Stuck for good? A worked answer is in solutions/04-tools/exercise.py.
# This file is yours: a new version of the course may replace it, so keep a copy of your work.
# ----------------------------------------------------------------------------------------
"""Lesson 04 exercise: describe a tool, check its arguments, and route the tools of many servers.

minimcp derives a tool's ``inputSchema`` from its Python signature, validates arguments with the
``jsonschema`` library, and its host prefixes every tool with its server's name
(``minimcp/server/schema.py``, ``minimcp/server/tools.py``, ``minimcp/host/host.py``). You build
three variations that go further:

1. **A schema from a signature**, for more of Python's types than minimcp knows: enums,
   dataclasses and ``TypedDict`` parameters, tuples (with JSON Schema 2020-12's ``prefixItems``),
   ``str | None`` as a list of types, and parameter descriptions read from the docstring.
2. **An argument checker** for a small part of JSON Schema, whose messages are written for a model:
   each names the argument, says what was expected, and suggests the property it probably meant.
3. **A tool router** for a host with several servers: it gives every tool a name a model API
   accepts (``calendar__read_events``), keeps those names stable when a server's list changes, and
   maps a model's call back to the server and the tool's real name.

Each part is independent: the tests check them one by one.

Check your work with ``python tools/check.py 04``.
"""

from __future__ import annotations

import dataclasses
import difflib
import enum
import hashlib
import inspect
import json
import re
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

# =============================================================================================
# 1. A JSON Schema from a function's signature
# =============================================================================================

#: The Python types that map to one JSON type.
SIMPLE_TYPES: dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
    None: "null",
}

#: ``typing.Required`` / ``typing.NotRequired`` exist from Python 3.11: unwrap them if present.
_REQUIRED_MARKERS = tuple(
    m
    for m in (getattr(typing, "Required", None), getattr(typing, "NotRequired", None))
    if m is not None
)


def json_value(value: Any) -> Any:
    """An enum member becomes its value; anything else is returned as it is."""
    return value.value if isinstance(value, enum.Enum) else value


def is_json_scalar(value: Any) -> bool:
    """True for the values a schema may carry as a ``default``: str, int, float, bool, None."""
    return value is None or isinstance(value, (str, int, float, bool))


def _enum_schema(values: list[Any]) -> dict[str, Any]:
    """``{"enum": values}``, plus ``"type"`` when every value has the same JSON type."""
    schema: dict[str, Any] = {"enum": values}
    kinds = {SIMPLE_TYPES.get(type(value)) for value in values}
    if len(kinds) == 1 and None not in kinds:
        schema["type"] = kinds.pop()
    return schema


def type_schema(annotation: Any) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one type hint.

    The rules, checked in this order:

    * no hint (``inspect.Parameter.empty``) or ``Any`` → ``{}`` (any JSON value);
    * ``Annotated[T, *extras]`` → the schema of ``T``, then each extra in order: a ``str`` sets
      ``"description"``, a ``dict`` is merged in (``{"minimum": 1}``); other extras are ignored;
    * ``str``, ``int``, ``float``, ``bool``, ``None`` → ``{"type": "string"}``, ``"integer"``,
      ``"number"``, ``"boolean"``, ``"null"``;
    * ``Literal[a, b, ...]`` → ``{"enum": [a, b, ...]}``, plus ``"type"`` when all the values have
      the same JSON type (``Literal["a", "b"]`` → ``{"enum": ["a", "b"], "type": "string"}``);
    * a subclass of ``enum.Enum`` → the same, with the members' *values*, in definition order;
    * a union (``Optional[T]``, ``T | None``, ``int | str``), a ``list``, a ``tuple`` or a ``dict``,
      bare or with parameters → the schema :func:`container_schema` (below) makes;
    * a dataclass or a ``TypedDict`` → an object schema made by :func:`object_schema` (below);
    * anything else → ``TypeError`` naming the annotation.
    """
    # TODO: test each rule in the order of the docstring; recurse for the inner types
    raise NotImplementedError("type_schema")


def container_schema(annotation: Any) -> dict[str, Any]:
    """The JSON Schema of a union, a ``list``, a ``tuple`` or a ``dict`` hint.

    :func:`type_schema` sends only these here; the schemas of the types inside come from
    :func:`type_schema` again. The rules:

    * a union (``Optional[T]``, ``T | None``, ``int | str``) → the schemas of its members, in order.
      If every one of them is exactly ``{"type": <name>}``, merge them into one list of types, each
      name once: ``str | None`` → ``{"type": ["string", "null"]}``. Otherwise
      ``{"anyOf": [<schema>, <schema>, ...]}``;
    * ``list[T]`` → ``{"type": "array", "items": <schema of T>}``; bare ``list`` →
      ``{"type": "array"}``; ``tuple[T, ...]`` is a ``list[T]``;
    * ``tuple[A, B, ...]`` (fixed length n) → ``{"type": "array", "prefixItems": [<A>, <B>, ...],
      "minItems": n, "maxItems": n}`` (``prefixItems`` is how draft 2020-12 describes a tuple);
    * ``dict[str, T]`` → ``{"type": "object", "additionalProperties": <schema of T>}``; bare
      ``dict`` → ``{"type": "object"}``. JSON object keys are strings: another key type is a
      ``TypeError``.
    """
    # TODO: get_origin and get_args tell the four apart; one branch each
    raise NotImplementedError("container_schema")


def object_schema(cls: type) -> dict[str, Any]:
    """The schema of a dataclass or a ``TypedDict``: a JSON object with one property per field.

    ``{"type": "object", "properties": {...}, "required": [...], "additionalProperties": False}``:

    * ``properties``: each field's :func:`type_schema`, in the order the class declares them (use
      ``get_type_hints(cls, include_extras=True)`` so that ``Annotated`` descriptions survive);
    * ``required``: for a dataclass, the fields with neither a default nor a ``default_factory``;
      for a ``TypedDict``, the keys in ``cls.__required_keys__`` (none when ``total=False``), in
      declaration order. Leave the ``"required"`` key out when nothing is required;
    * a dataclass field whose default is a JSON scalar (str, int, float, bool, None) or an enum
      member gets ``"default"`` (an enum member's value) in its property.
    """
    # TODO: a property per field from get_type_hints; required and defaults differ by kind
    raise NotImplementedError("object_schema")


SECTION_HEADER = re.compile(r"^(Args|Arguments|Parameters):\s*$")


def param_descriptions(docstring: str | None) -> dict[str, str]:
    """The parameter descriptions of a Google-style docstring's ``Args:`` section.

    ::

        Read calendar events.

        Args:
            date: The day to read,
                as YYYY-MM-DD.
            limit (int): At most this many events.

    gives ``{"date": "The day to read, as YYYY-MM-DD.", "limit": "At most this many events."}``.

    The rules, for the lines of the section (:func:`_args_section` finds them):

    * a line indented like the section's first entry starts an entry: ``name: text`` or
      ``name (type): text``; the type is ignored;
    * a line indented deeper continues the current entry: add it with a single space between;
    * descriptions are stripped; an entry with no text after the colon maps to ``""``;
    * no docstring or no section → ``{}``.
    """
    # TODO: learn the entries' indentation from the first one, then collect
    raise NotImplementedError("param_descriptions")


def _args_section(docstring: str | None) -> list[str]:
    """The lines of a docstring's ``Args:`` section after its header, blank ones left out; ``[]``
    when there is no docstring or no such section.

    * clean the docstring first with ``inspect.cleandoc`` (it removes the common indentation);
    * the section starts at a line that is exactly ``Args:``, ``Arguments:`` or ``Parameters:``
      (surrounding white space aside) and ends at the first non-blank line indented no deeper than
      that header.
    """
    # TODO: cleandoc; find the header; keep the lines indented deeper, up to the first not
    raise NotImplementedError("_args_section")


def schema_from_signature(function: Callable[..., Any]) -> dict[str, Any]:
    """The ``inputSchema`` of a tool written as a Python function.

    ``{"type": "object", "properties": {...}, "required": [...], "additionalProperties": False}``:

    * one property per parameter, in signature order, made by :func:`type_schema` from the type
      hints (``get_type_hints(function, include_extras=True)``);
    * a parameter named ``context`` is skipped: the server fills it in, the model never sees it;
    * ``*args`` or ``**kwargs`` → ``TypeError`` (a tool's arguments are named, one by one);
    * a property without a ``"description"`` gets the one :func:`param_descriptions` finds in the
      function's docstring, if any (a description from ``Annotated`` wins);
    * a parameter without a default is required (``"required"`` lists them in signature order and
      is left out when there are none); a default that is a JSON scalar (str, int, float, bool,
      None) or an enum member becomes ``"default"`` (an enum member's value); other defaults are
      not shown.
    """
    # TODO: walk the signature's parameters; reuse type_schema and param_descriptions
    raise NotImplementedError("schema_from_signature")


# =============================================================================================
# 2. Checking arguments, with messages a model can act on
# =============================================================================================


def json_type(value: Any) -> str:
    """The JSON type name of a Python value: "null", "boolean", "integer", "number", "string",
    "array" (list or tuple), "object" (dict); for anything else, the Python type's name."""
    # TODO: bool before int (True is an int in Python, not in JSON)
    raise NotImplementedError("json_type")


def is_type(value: Any, name: str) -> bool:
    """Does ``value`` have the JSON type ``name``, as JSON Schema counts?

    Like :func:`json_type`, with two differences JSON Schema makes: a float with no fractional
    part *is* an ``"integer"`` (``3.0``), and every integer is also a ``"number"``. A boolean is
    never a number. An unknown type name → False.
    """
    # TODO: start from json_type, then widen integer and number
    raise NotImplementedError("is_type")


def same_json_value(a: Any, b: Any) -> bool:
    """Equality as JSON sees it: ``1 == 1.0``, but ``1 != True`` and ``0 != False``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_json_value(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json_value(a[k], b[k]) for k in a)
    return a == b


def check_arguments(schema: dict[str, Any], value: Any, path: str = "arguments") -> list[str]:
    """Every way ``value`` breaks ``schema``, as messages a model can act on. ``[]`` means valid.

    Supported keywords: ``type`` (a name, or a list of names: any one will do), ``enum``,
    ``minimum``, ``maximum``, ``minLength``, ``maxLength``, ``pattern``, ``required``,
    ``properties``, ``additionalProperties`` (``False`` or a schema) and ``items`` (one schema for
    every element). Every other keyword (``description``, ``default``, ``$schema``…) is ignored.

    ``path`` names the value in the messages: properties are joined with dots and array indexes
    written in brackets: ``arguments.ids[2]``. The checks, in this order, and their exact messages:

    1. ``type`` (see :func:`is_type`): ``"{path}: expected {names}, got {json_type(value)}"``
       where ``names`` is the name, or the names joined with ``" or "`` (``expected string or
       null``). If the type is wrong, stop here: no other message for this value;
    2. the keywords that judge the value itself, ``enum``, ``minimum``, ``maximum``,
       ``minLength``, ``maxLength`` and ``pattern``: the messages :func:`value_problems` gives;
    3. objects (dicts) only, the keywords that judge what is inside, ``required``, ``properties``
       and ``additionalProperties``: the messages :func:`object_problems` gives;
    4. arrays (lists) only: with ``items``, each element at ``{path}[{index}]``.
    """
    # TODO: type first (stop if wrong), then the keyword groups in the docstring's order
    raise NotImplementedError("check_arguments")


def value_problems(schema: dict[str, Any], value: Any, path: str) -> list[str]:
    """What ``enum``, ``minimum``, ``maximum``, ``minLength``, ``maxLength`` and ``pattern`` say
    about ``value`` (whose type :func:`check_arguments` has checked already), in this order:

    1. ``enum`` (compare with :func:`same_json_value`): ``"{path}: must be one of {options}"``,
       the options written as JSON and joined with ``", "``: ``must be one of "celsius",
       "fahrenheit"``;
    2. numbers only (integers and floats, never booleans): ``minimum`` → ``"{path}: must be >=
       {minimum}"``, ``maximum`` → ``"{path}: must be <= {maximum}"``;
    3. strings only: ``minLength`` → ``"{path}: must be at least {n} characters long"``,
       ``maxLength`` → ``"{path}: must be at most {n} characters long"``, ``pattern`` (found
       anywhere in the string, as ``re.search``) → ``"{path}: must match the pattern {pattern}"``.

    A keyword that does not apply to the value's type is skipped: ``minimum`` says nothing about
    a string. ``[]`` when every keyword is satisfied.
    """
    # TODO: enum for any value; then the number keywords, then the string keywords
    raise NotImplementedError("value_problems")


def object_problems(schema: dict[str, Any], value: dict[str, Any], path: str) -> list[str]:
    """What ``required``, ``properties`` and ``additionalProperties`` say about the object
    ``value``, in this order:

    1. each name of ``required`` missing from the object, in the schema's order:
       ``'{path}: missing required property "{name}"'``;
    2. then each key of the object, in the object's order: a key in ``properties`` is checked
       against its schema with :func:`check_arguments` at ``{path}.{key}``; otherwise, if
       ``additionalProperties`` is ``False``: ``'{path}: unexpected property "{key}"'``, followed by
       ``' (did you mean "{name}"?)'`` when ``difflib.get_close_matches(key, <the names in
       properties>, n=1, cutoff=0.6)`` finds a name; if it is a schema, the value is checked
       against it at ``{path}.{key}``. Without ``additionalProperties``, any other key is allowed.
    """
    # TODO: required first; then one pass over the keys, recursing with check_arguments
    raise NotImplementedError("object_problems")


# =============================================================================================
# 3. Routing the tools of several servers
# =============================================================================================

#: What many model APIs accept in a tool (function) name: letters, digits, "_" and "-".
SAFE_NAME = re.compile(r"[A-Za-z0-9_-]+")


def sanitize(name: str) -> str:
    """``name`` with every character other than a letter, digit, ``_`` or ``-`` replaced by ``_``.

    ``sanitize("admin.tools.list") == "admin_tools_list"``. MCP allows dots in tool names; many
    model APIs do not.
    """
    # TODO: one re.sub
    raise NotImplementedError("sanitize")


class ToolRouter:
    """The tools of several servers under one set of names a model can use, and the way back.

    ``router.set_tools("calendar", tools)`` takes a server's ``tools/list`` (a list of tool dicts);
    ``router.tools()`` gives every tool, renamed; ``router.resolve("calendar__read_events")`` gives
    ``("calendar", "read_events")`` back, the server to ask and the tool's real name.

    Naming a tool (the *exposed* name):

    * the base is ``sanitize(server) + separator + sanitize(tool name)``;
    * if the base is longer than ``max_length``, keep its first ``max_length - 9`` characters and
      add ``"_"`` and the first 8 hex digits of ``hashlib.sha256(f"{server}/{tool}".encode())``
      (the *real* names), so that long names stay unique and always come out the same;
    * if that name is already taken by another tool (of any server), try ``_2``, ``_3``, … in
      turn: the name (after the length rule) with the suffix added, cut first if needed so that
      name + suffix fits in ``max_length``; take the first free one.

    Stability: a name, once given, stays with its tool for as long as the tool exists. Calling
    ``set_tools`` again for a server (its ``list_changed`` arrived) keeps the exposed names of the
    tools still listed, frees the names of the tools gone, and names the new tools, in list order.

    Errors: a ``separator`` that is empty or not made of letters, digits, ``_``, ``-`` →
    ``ValueError``; an empty server name → ``ValueError``; two tools with the same name in one
    list → ``ValueError``; :meth:`resolve` of a name the router did not give → ``KeyError``;
    :meth:`remove_server` of an unknown server → ``KeyError``.
    """

    def __init__(self, separator: str = "__", max_length: int = 64) -> None:
        # TODO: check the separator; your state: which server owns which names, in order
        raise NotImplementedError("__init__")

    def set_tools(self, server: str, tools: list[dict[str, Any]]) -> None:
        """Add ``server`` with its ``tools``, or replace its tools (names of the tools kept
        stay)."""
        # TODO: check, free the names of the tools gone, keep the rest, name the new ones
        raise NotImplementedError("set_tools")

    def _new_name(self, server: str, tool: str) -> str:
        # TODO: base name, length rule, then the first free suffix
        raise NotImplementedError("_new_name")

    def remove_server(self, server: str) -> None:
        """Forget ``server`` and free the names of its tools."""
        raise NotImplementedError("remove_server")

    def tools(self) -> list[dict[str, Any]]:
        """Every tool, servers in the order they were first added, each server's tools in list
        order: a copy of each tool dict with ``"name"`` replaced by the exposed name (the originals
        are never changed)."""
        raise NotImplementedError("tools")

    def resolve(self, exposed: str) -> tuple[str, str]:
        """``(server, real tool name)`` for an exposed name; ``KeyError`` if the router never gave
        it."""
        raise NotImplementedError("resolve")
