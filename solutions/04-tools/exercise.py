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
    # BEGIN SOLUTION: test each rule in the order of the docstring; recurse for the inner types
    origin, args = get_origin(annotation), get_args(annotation)
    if annotation is inspect.Parameter.empty or annotation is Any:
        return {}
    if origin is Annotated:
        schema = type_schema(args[0])
        for extra in args[1:]:
            if isinstance(extra, str):
                schema["description"] = extra
            elif isinstance(extra, dict):
                schema.update(extra)
        return schema
    if _REQUIRED_MARKERS and origin in _REQUIRED_MARKERS:  # NotRequired[T] inside a TypedDict
        return type_schema(args[0])
    if annotation in SIMPLE_TYPES:
        return {"type": SIMPLE_TYPES[annotation]}
    if origin is Literal:
        return _enum_schema(list(args))
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return _enum_schema([member.value for member in annotation])
    # Bare `list` and `dict` have no origin; bare `tuple` is not a container here (its length and
    # item types are unknown), so it falls through to the TypeError.
    if (
        annotation is list
        or annotation is dict
        or origin in (Union, types.UnionType, list, tuple, dict)
    ):
        return container_schema(annotation)
    is_dataclass = dataclasses.is_dataclass(annotation) and isinstance(annotation, type)
    if is_dataclass or typing.is_typeddict(annotation):
        return object_schema(annotation)
    raise TypeError(f"no JSON Schema for {annotation!r}")
    # END SOLUTION


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
    # BEGIN SOLUTION: get_origin and get_args tell the four apart; one branch each
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Union or origin is types.UnionType:
        options = [type_schema(arg) for arg in args]
        if all(list(option) == ["type"] and isinstance(option["type"], str) for option in options):
            names: list[str] = []
            for option in options:
                if option["type"] not in names:
                    names.append(option["type"])
            return {"type": names}
        return {"anyOf": options}
    if annotation is list or origin is list:
        return {"type": "array", "items": type_schema(args[0])} if args else {"type": "array"}
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": type_schema(args[0])}
        return {
            "type": "array",
            "prefixItems": [type_schema(arg) for arg in args],
            "minItems": len(args),
            "maxItems": len(args),
        }
    if annotation is dict or origin is dict:
        if not args:
            return {"type": "object"}
        if args[0] is not str:
            raise TypeError(f"JSON object keys are strings, not {args[0]!r}")
        return {"type": "object", "additionalProperties": type_schema(args[1])}
    raise TypeError(f"no JSON Schema for {annotation!r}")  # type_schema never sends anything else
    # END SOLUTION


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
    # BEGIN SOLUTION: a property per field from get_type_hints; required and defaults differ by kind
    hints = get_type_hints(cls, include_extras=True)
    properties: dict[str, Any] = {}
    required: list[str] = []
    if dataclasses.is_dataclass(cls):
        for field in dataclasses.fields(cls):
            properties[field.name] = type_schema(hints.get(field.name, Any))
            if (
                field.default is dataclasses.MISSING
                and field.default_factory is dataclasses.MISSING
            ):
                required.append(field.name)
            elif field.default is not dataclasses.MISSING:
                default = json_value(field.default)
                if is_json_scalar(default):
                    properties[field.name]["default"] = default
    else:
        required_keys: frozenset[str] = getattr(cls, "__required_keys__", frozenset())
        for name, hint in hints.items():
            properties[name] = type_schema(hint)
            if name in required_keys:
                required.append(name)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema
    # END SOLUTION


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
    # BEGIN SOLUTION: learn the entries' indentation from the first one, then collect
    entry_indent: int | None = None
    descriptions: dict[str, str] = {}
    current: str | None = None
    for line in _args_section(docstring):
        indent = len(line) - len(line.lstrip())
        if entry_indent is None:
            entry_indent = indent
        if indent <= entry_indent:
            match = re.match(r"\s*(\w+)\s*(?:\([^)]*\))?\s*:(.*)$", line)
            if match is None:  # not an entry: nothing to attach it to
                current = None
                continue
            current = match.group(1)
            descriptions[current] = match.group(2).strip()
        elif current is not None:
            descriptions[current] = f"{descriptions[current]} {line.strip()}".strip()
    return descriptions
    # END SOLUTION


def _args_section(docstring: str | None) -> list[str]:
    """The lines of a docstring's ``Args:`` section after its header, blank ones left out; ``[]``
    when there is no docstring or no such section.

    * clean the docstring first with ``inspect.cleandoc`` (it removes the common indentation);
    * the section starts at a line that is exactly ``Args:``, ``Arguments:`` or ``Parameters:``
      (surrounding white space aside) and ends at the first non-blank line indented no deeper than
      that header.
    """
    # BEGIN SOLUTION: cleandoc; find the header; keep the lines indented deeper, up to the first not
    if not docstring:
        return []
    lines = inspect.cleandoc(docstring).splitlines()
    start = next((i for i, line in enumerate(lines) if SECTION_HEADER.match(line.strip())), None)
    if start is None:
        return []
    header_indent = len(lines[start]) - len(lines[start].lstrip())
    section: list[str] = []
    for line in lines[start + 1 :]:
        if not line.strip():
            continue
        if len(line) - len(line.lstrip()) <= header_indent:
            break
        section.append(line)
    return section
    # END SOLUTION


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
    # BEGIN SOLUTION: walk the signature's parameters; reuse type_schema and param_descriptions
    hints = get_type_hints(function, include_extras=True)
    documented = param_descriptions(inspect.getdoc(function))
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, parameter in inspect.signature(function).parameters.items():
        if name == "context":
            continue
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise TypeError(f"*{name} cannot be a tool argument: name every argument")
        schema = type_schema(hints.get(name, inspect.Parameter.empty))
        if "description" not in schema and name in documented:
            schema["description"] = documented[name]
        if parameter.default is parameter.empty:
            required.append(name)
        else:
            default = json_value(parameter.default)
            if is_json_scalar(default):
                schema["default"] = default
        properties[name] = schema
    result: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        result["required"] = required
    result["additionalProperties"] = False
    return result
    # END SOLUTION


# =============================================================================================
# 2. Checking arguments, with messages a model can act on
# =============================================================================================


def json_type(value: Any) -> str:
    """The JSON type name of a Python value: "null", "boolean", "integer", "number", "string",
    "array" (list or tuple), "object" (dict); for anything else, the Python type's name."""
    # BEGIN SOLUTION: bool before int (True is an int in Python, not in JSON)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__
    # END SOLUTION


def is_type(value: Any, name: str) -> bool:
    """Does ``value`` have the JSON type ``name``, as JSON Schema counts?

    Like :func:`json_type`, with two differences JSON Schema makes: a float with no fractional
    part *is* an ``"integer"`` (``3.0``), and every integer is also a ``"number"``. A boolean is
    never a number. An unknown type name → False.
    """
    # BEGIN SOLUTION: start from json_type, then widen integer and number
    kind = json_type(value)
    if name == "integer":
        return kind == "integer" or (kind == "number" and float(value).is_integer())
    if name == "number":
        return kind in ("integer", "number")
    return kind == name
    # END SOLUTION


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
    # BEGIN SOLUTION: type first (stop if wrong), then the keyword groups in the docstring's order
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(is_type(value, name) for name in names):
            # One message is enough: "must be >= 1" means nothing to a value of the wrong type.
            return [f"{path}: expected {' or '.join(names)}, got {json_type(value)}"]
    problems = value_problems(schema, value, path)
    if isinstance(value, dict):
        problems += object_problems(schema, value, path)
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            problems += check_arguments(schema["items"], item, f"{path}[{index}]")
    return problems
    # END SOLUTION


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
    # BEGIN SOLUTION: enum for any value; then the number keywords, then the string keywords
    problems: list[str] = []
    if "enum" in schema and not any(same_json_value(value, option) for option in schema["enum"]):
        options = ", ".join(json.dumps(option, ensure_ascii=False) for option in schema["enum"])
        problems.append(f"{path}: must be one of {options}")
    if json_type(value) in ("integer", "number"):  # json_type, so that True is no number
        if "minimum" in schema and value < schema["minimum"]:
            problems.append(f"{path}: must be >= {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            problems.append(f"{path}: must be <= {schema['maximum']}")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            problems.append(f"{path}: must be at least {schema['minLength']} characters long")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            problems.append(f"{path}: must be at most {schema['maxLength']} characters long")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            problems.append(f"{path}: must match the pattern {schema['pattern']}")
    return problems
    # END SOLUTION


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
    # BEGIN SOLUTION: required first; then one pass over the keys, recursing with check_arguments
    problems: list[str] = []
    properties = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in value:
            problems.append(f'{path}: missing required property "{name}"')
    extra = schema.get("additionalProperties", True)  # JSON Schema's default: anything goes
    for key, item in value.items():
        if key in properties:
            problems += check_arguments(properties[key], item, f"{path}.{key}")
        elif extra is False:
            message = f'{path}: unexpected property "{key}"'
            close = difflib.get_close_matches(key, list(properties), n=1, cutoff=0.6)
            if close:
                message += f' (did you mean "{close[0]}"?)'
            problems.append(message)
        elif isinstance(extra, dict):
            problems += check_arguments(extra, item, f"{path}.{key}")
    return problems
    # END SOLUTION


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
    # BEGIN SOLUTION: one re.sub
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)
    # END SOLUTION


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
        # BEGIN SOLUTION: check the separator; your state: which server owns which names, in order
        if not SAFE_NAME.fullmatch(separator):
            raise ValueError(f"separator {separator!r}: use letters, digits, '_' or '-'")
        self.separator = separator
        self.max_length = max_length
        # server → [(exposed, tool)]
        self._servers: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        self._routes: dict[str, tuple[str, str]] = {}  # exposed → (server, real name)
        # END SOLUTION

    def set_tools(self, server: str, tools: list[dict[str, Any]]) -> None:
        """Add ``server`` with its ``tools``, or replace its tools (names of the tools kept
        stay)."""
        # BEGIN SOLUTION: check, free the names of the tools gone, keep the rest, name the new ones
        if not server:
            raise ValueError("a server name must not be empty")
        names = [tool["name"] for tool in tools]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ValueError(
                f"server {server!r} lists the same tool twice: {', '.join(duplicates)}"
            )
        kept = {self._routes[exposed][1]: exposed for exposed, _ in self._servers.get(server, [])}
        for real, exposed in kept.items():
            if real not in names:
                del self._routes[exposed]
        entries = []
        for tool in tools:
            exposed = kept.get(tool["name"]) or self._new_name(server, tool["name"])
            self._routes[exposed] = (server, tool["name"])
            entries.append((exposed, tool))
        self._servers[server] = entries
        # END SOLUTION

    def _new_name(self, server: str, tool: str) -> str:
        # BEGIN SOLUTION: base name, length rule, then the first free suffix
        base = sanitize(server) + self.separator + sanitize(tool)
        if len(base) > self.max_length:
            digest = hashlib.sha256(f"{server}/{tool}".encode()).hexdigest()[:8]
            base = f"{base[: self.max_length - 9]}_{digest}"
        if base not in self._routes:
            return base
        number = 2
        while True:
            suffix = f"_{number}"
            candidate = base[: self.max_length - len(suffix)] + suffix
            if candidate not in self._routes:
                return candidate
            number += 1
        # END SOLUTION

    def remove_server(self, server: str) -> None:
        """Forget ``server`` and free the names of its tools."""
        # BEGIN SOLUTION
        for exposed, _ in self._servers.pop(server):
            del self._routes[exposed]
        # END SOLUTION

    def tools(self) -> list[dict[str, Any]]:
        """Every tool, servers in the order they were first added, each server's tools in list
        order: a copy of each tool dict with ``"name"`` replaced by the exposed name (the originals
        are never changed)."""
        # BEGIN SOLUTION
        return [
            {**tool, "name": exposed}
            for entries in self._servers.values()
            for exposed, tool in entries
        ]
        # END SOLUTION

    def resolve(self, exposed: str) -> tuple[str, str]:
        """``(server, real tool name)`` for an exposed name; ``KeyError`` if the router never gave
        it."""
        # BEGIN SOLUTION
        return self._routes[exposed]
        # END SOLUTION
