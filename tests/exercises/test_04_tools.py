"""Checks for lesson 04's exercise: schemas from signatures, an argument checker, a tool router.

Each test's docstring is the hint ``python tools/check.py 04`` shows when the test fails.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import hashlib
import inspect
from typing import Annotated, Any, Literal, Optional, TypedDict, Union

import jsonschema
import pytest

# =============================================================================================
# Types used by the tests (module level, so that get_type_hints can resolve them)
# =============================================================================================


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Mixed(enum.Enum):
    ONE = 1
    TWO = "two"


class Priority(enum.IntEnum):
    LOW = 1
    HIGH = 2


@dataclasses.dataclass
class Slot:
    start: str
    minutes: Annotated[int, "Length of the slot", {"minimum": 5}] = 30


@dataclasses.dataclass
class Meeting:
    title: str
    slots: list[Slot]
    attendees: list[str] = dataclasses.field(default_factory=list)
    unit: Unit = Unit.CELSIUS
    room: Optional[str] = None  # noqa: UP045 (Optional on purpose: it must work too)
    tags: tuple[str, ...] = ()


class Person(TypedDict):
    name: str
    email: str


class Filters(TypedDict, total=False):
    level: Literal["Beginner", "Intermediate", "Advanced"]
    max_hours: int


SLOT_SCHEMA = {
    "type": "object",
    "properties": {
        "start": {"type": "string"},
        "minutes": {
            "type": "integer",
            "description": "Length of the slot",
            "minimum": 5,
            "default": 30,
        },
    },
    "required": ["start"],
    "additionalProperties": False,
}


# -- Exercise 1 · A JSON Schema from a function's signature ----------------------------------------


def test_simple_types(exercise):
    """str, int, float, bool and None map to one JSON type each; no hint (or Any) is {}."""
    assert exercise.type_schema(str) == {"type": "string"}
    assert exercise.type_schema(int) == {"type": "integer"}
    assert exercise.type_schema(float) == {"type": "number"}
    assert exercise.type_schema(bool) == {"type": "boolean"}
    assert exercise.type_schema(type(None)) == {"type": "null"}
    assert exercise.type_schema(None) == {"type": "null"}
    assert exercise.type_schema(Any) == {}
    assert exercise.type_schema(inspect.Parameter.empty) == {}


def test_annotated_adds_description_and_keywords(exercise):
    """Annotated[T, ...]: a str extra is the description, a dict extra is merged in; others are
    ignored."""
    assert exercise.type_schema(Annotated[str, "The day, as YYYY-MM-DD"]) == {
        "type": "string",
        "description": "The day, as YYYY-MM-DD",
    }
    assert exercise.type_schema(Annotated[int, "How many", {"minimum": 1, "maximum": 20}, 42]) == {
        "type": "integer",
        "description": "How many",
        "minimum": 1,
        "maximum": 20,
    }
    assert exercise.type_schema(Annotated[list[str], {"minItems": 1}]) == {
        "type": "array",
        "items": {"type": "string"},
        "minItems": 1,
    }


def test_literal_and_enum(exercise):
    """Literal and Enum become "enum" (an Enum's member values), plus "type" if all values share one
    type."""
    assert exercise.type_schema(Literal["celsius", "fahrenheit"]) == {
        "enum": ["celsius", "fahrenheit"],
        "type": "string",
    }
    assert exercise.type_schema(Literal[1, 2, 3]) == {"enum": [1, 2, 3], "type": "integer"}
    assert exercise.type_schema(Literal["a", 1]) == {"enum": ["a", 1]}
    assert exercise.type_schema(Unit) == {"enum": ["celsius", "fahrenheit"], "type": "string"}
    assert exercise.type_schema(Mixed) == {"enum": [1, "two"]}
    assert exercise.type_schema(Priority) == {"enum": [1, 2], "type": "integer"}


def test_unions(exercise):
    """A union of simple types is one "type" list (str | None -> ["string", "null"]); else
    "anyOf"."""
    assert exercise.type_schema(Optional[str]) == {"type": ["string", "null"]}  # noqa: UP045
    assert exercise.type_schema(int | None) == {"type": ["integer", "null"]}
    assert exercise.type_schema(Union[int, str, None]) == {  # noqa: UP007
        "type": ["integer", "string", "null"]
    }
    assert exercise.type_schema(list[int] | None) == {
        "anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}]
    }
    assert exercise.type_schema(Literal["a"] | None) == {
        "anyOf": [{"enum": ["a"], "type": "string"}, {"type": "null"}]
    }
    assert exercise.type_schema(Annotated[str, "x"] | int) == {
        "anyOf": [{"type": "string", "description": "x"}, {"type": "integer"}]
    }


def test_arrays_tuples_and_dicts(exercise):
    """list[T] has "items"; a fixed tuple "prefixItems" and min/maxItems; dict has
    additionalProperties."""
    assert exercise.type_schema(list[int]) == {"type": "array", "items": {"type": "integer"}}
    assert exercise.type_schema(list) == {"type": "array"}
    assert exercise.type_schema(list[list[str]]) == {
        "type": "array",
        "items": {"type": "array", "items": {"type": "string"}},
    }
    assert exercise.type_schema(tuple[float, ...]) == {"type": "array", "items": {"type": "number"}}
    assert exercise.type_schema(tuple[float, float, str]) == {
        "type": "array",
        "prefixItems": [{"type": "number"}, {"type": "number"}, {"type": "string"}],
        "minItems": 3,
        "maxItems": 3,
    }
    assert exercise.type_schema(dict[str, int]) == {
        "type": "object",
        "additionalProperties": {"type": "integer"},
    }
    assert exercise.type_schema(dict) == {"type": "object"}
    with pytest.raises(TypeError):
        exercise.type_schema(dict[int, str])


def test_dataclass(exercise):
    """A dataclass is an object: one property per field, required = no default and no
    default_factory."""
    assert exercise.type_schema(Slot) == SLOT_SCHEMA
    assert exercise.object_schema(Meeting) == {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "slots": {"type": "array", "items": SLOT_SCHEMA},
            "attendees": {"type": "array", "items": {"type": "string"}},
            "unit": {"enum": ["celsius", "fahrenheit"], "type": "string", "default": "celsius"},
            "room": {"type": ["string", "null"], "default": None},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["title", "slots"],
        "additionalProperties": False,
    }


def test_typeddict(exercise):
    """A TypedDict is an object; its required keys come from __required_keys__ (none when
    total=False)."""
    assert exercise.type_schema(Person) == {
        "type": "object",
        "properties": {"name": {"type": "string"}, "email": {"type": "string"}},
        "required": ["name", "email"],
        "additionalProperties": False,
    }
    assert exercise.type_schema(list[Filters]) == {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "level": {"enum": ["Beginner", "Intermediate", "Advanced"], "type": "string"},
                "max_hours": {"type": "integer"},
            },
            "additionalProperties": False,
        },
    }


def test_unsupported_types_raise(exercise):
    """Types JSON cannot carry (bytes, set, an ordinary class) raise TypeError."""

    class Plain:
        pass

    for annotation in (bytes, set[int], Plain, complex):
        with pytest.raises(TypeError):
            exercise.type_schema(annotation)


DOCSTRING = """Read calendar events.

    Longer explanation that mentions nothing.

    Args:
        date: The day to read,
            as YYYY-MM-DD.
        limit (int): At most this many events.

        verbose:
        tz (str, optional):   The time zone.
    Returns:
        The events, one per line.
    """


def test_param_descriptions(exercise):
    """Read the Args: section: "name: text" or "name (type): text"; deeper lines continue the
    entry."""
    assert exercise.param_descriptions(DOCSTRING) == {
        "date": "The day to read, as YYYY-MM-DD.",
        "limit": "At most this many events.",
        "verbose": "",
        "tz": "The time zone.",
    }
    assert exercise.param_descriptions("Parameters:\n    x: the x\nMore text\n") == {"x": "the x"}
    assert exercise.param_descriptions("No sections here.\n\nx: not an entry") == {}
    assert exercise.param_descriptions("") == {}
    assert exercise.param_descriptions(None) == {}


def test_schema_from_signature(exercise):
    """One property per parameter; "context" skipped; no default -> required; JSON defaults
    shown."""

    def plan(
        title: Annotated[str, "What the meeting is about"],
        day: str,
        slot: Slot,
        context: object,
        people: list[Person] | None = None,
        unit: Unit = Unit.FAHRENHEIT,
        size: tuple[int, int] = (2, 3),
        note=None,
    ) -> str:
        """Plan a meeting.

        Args:
            title: Ignored: Annotated wins.
            day: The day, as YYYY-MM-DD.
            people: Who comes.
        """
        return ""

    assert exercise.schema_from_signature(plan) == {
        "type": "object",
        "properties": {
            "title": {"type": "string", "description": "What the meeting is about"},
            "day": {"type": "string", "description": "The day, as YYYY-MM-DD."},
            "slot": SLOT_SCHEMA,
            "people": {
                "anyOf": [
                    {"type": "array", "items": exercise.type_schema(Person)},
                    {"type": "null"},
                ],
                "description": "Who comes.",
                "default": None,
            },
            "unit": {"enum": ["celsius", "fahrenheit"], "type": "string", "default": "fahrenheit"},
            "size": {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "integer"}],
                "minItems": 2,
                "maxItems": 2,
            },
            "note": {"default": None},
        },
        "required": ["title", "day", "slot"],
        "additionalProperties": False,
    }


def test_schema_from_signature_without_parameters(exercise):
    """A tool with no parameters accepts only the empty object: no "required" key at all."""

    def now() -> str:
        return "12:00"

    assert exercise.schema_from_signature(now) == {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }


def test_schema_from_signature_refuses_varargs(exercise):
    """*args and **kwargs cannot be described one by one: raise TypeError."""

    def spread(*days: str) -> None: ...

    def loose(day: str, **options: int) -> None: ...

    for function in (spread, loose):
        with pytest.raises(TypeError):
            exercise.schema_from_signature(function)


def test_the_schemas_are_valid_json_schema_2020_12(exercise):
    """Every schema must be valid draft 2020-12 and accept/refuse what the Python types would."""

    def book(meeting: Meeting, who: Person, filters: Filters | None = None) -> None: ...

    schema = exercise.schema_from_signature(book)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    good = {
        "meeting": {"title": "Sync", "slots": [{"start": "09:00"}], "unit": "celsius"},
        "who": {"name": "Ana", "email": "ana@example.com"},
        "filters": {"level": "Beginner"},
    }
    assert validator.is_valid(good)
    for bad in (
        {**good, "extra": 1},
        {**good, "meeting": {"title": "Sync", "slots": [{"start": "09:00", "minutes": 2}]}},
        {**good, "who": {"name": "Ana"}},
        {**good, "filters": {"level": "Expert"}},
    ):
        assert not validator.is_valid(bad)


# -- Exercise 2 · Checking arguments, with messages a model can act on -----------------------------

READ_EVENTS = {
    "type": "object",
    "properties": {
        "date": {"type": "string", "description": "Date to read events.\nFormat: YYYY-MM-DD"}
    },
    "required": ["date"],
    "additionalProperties": False,
}

SIMILAR = {
    "type": "object",
    "properties": {
        "ids": {"type": "array", "items": {"type": "string", "pattern": "^[a-z0-9]{4}$"}},
        "limit": {"type": "integer", "minimum": 1, "maximum": 20, "default": 5},
    },
    "required": ["ids"],
    "additionalProperties": False,
}


def test_json_type_and_is_type(exercise):
    """json_type: a bool is "boolean", not "integer"; is_type: 3.0 is an integer, an integer is a
    number."""
    table = [
        (None, "null"),
        (True, "boolean"),
        (0, "integer"),
        (2.5, "number"),
        (3.0, "number"),
        ("x", "string"),
        ([1], "array"),
        ((1,), "array"),
        ({"a": 1}, "object"),
        (b"x", "bytes"),
    ]
    for value, name in table:
        assert exercise.json_type(value) == name, value
    assert exercise.is_type(3.0, "integer") and exercise.is_type(3, "number")
    assert not exercise.is_type(3.5, "integer")
    assert not exercise.is_type(True, "integer") and not exercise.is_type(False, "number")
    assert (
        exercise.is_type([], "array")
        and exercise.is_type({}, "object")
        and exercise.is_type(None, "null")
    )
    assert not exercise.is_type("1", "integer") and not exercise.is_type(1, "string")
    assert not exercise.is_type(1, "whatever")


def test_valid_arguments_have_no_problems(exercise):
    """Arguments that follow the schema give an empty list."""
    assert exercise.check_arguments(READ_EVENTS, {"date": "2025-03-21"}) == []
    assert exercise.check_arguments(SIMILAR, {"ids": ["c4ch", "v1ws"], "limit": 3}) == []
    assert exercise.check_arguments(SIMILAR, {"ids": []}) == []
    assert exercise.check_arguments({}, {"anything": [1, {"goes": None}]}) == []


def test_wrong_type(exercise):
    """'{path}: expected {names}, got {json_type}'; several names joined with ' or '; then stop."""
    assert exercise.check_arguments(READ_EVENTS, {"date": 20250321}) == [
        "arguments.date: expected string, got integer"
    ]
    assert exercise.check_arguments(READ_EVENTS, ["2025-03-21"]) == [
        "arguments: expected object, got array"
    ]
    assert exercise.check_arguments({"type": ["string", "null"]}, 1.5, "note") == [
        "note: expected string or null, got number"
    ]
    assert exercise.check_arguments({"type": ["string", "null"]}, None, "note") == []
    # a wrong type ends the checks of that value: no enum message as well
    assert exercise.check_arguments({"type": "string", "enum": ["a", "b"]}, 7) == [
        "arguments: expected string, got integer"
    ]


def test_integers_as_json_schema_counts_them(exercise):
    """3.0 is an integer; 3.5 is not; True is a boolean, never an integer or a number."""
    schema = {
        "type": "object",
        "properties": {"steps": {"type": "integer"}, "ratio": {"type": "number"}},
    }
    assert exercise.check_arguments(schema, {"steps": 3.0, "ratio": 1}) == []
    assert exercise.check_arguments(schema, {"steps": 3.5, "ratio": True}) == [
        "arguments.steps: expected integer, got number",
        "arguments.ratio: expected number, got boolean",
    ]


def test_enum(exercise):
    """'{path}: must be one of "a", "b"': options as JSON; 1 equals 1.0 but not True."""
    schema = {"enum": ["celsius", "fahrenheit"]}
    assert exercise.check_arguments(schema, "kelvin", "arguments.unit") == [
        'arguments.unit: must be one of "celsius", "fahrenheit"'
    ]
    assert exercise.check_arguments({"enum": [1, None, "x"]}, True) == [
        'arguments: must be one of 1, null, "x"'
    ]
    assert exercise.check_arguments({"enum": [1, 2]}, 1.0) == []
    assert exercise.check_arguments({"enum": [False]}, 0) == ["arguments: must be one of false"]


def test_bounds(exercise):
    """'{path}: must be >= {minimum}' and '<= {maximum}', for numbers only (never booleans)."""
    assert exercise.check_arguments(SIMILAR, {"ids": [], "limit": 0}) == [
        "arguments.limit: must be >= 1"
    ]
    assert exercise.check_arguments(SIMILAR, {"ids": [], "limit": 21}) == [
        "arguments.limit: must be <= 20"
    ]
    assert exercise.check_arguments({"minimum": 0.5, "maximum": 0.5}, 0.5) == []
    assert exercise.check_arguments({"minimum": 2, "maximum": 1}, 1.5) == [
        "arguments: must be >= 2",
        "arguments: must be <= 1",
    ]
    assert exercise.check_arguments({"minimum": 5}, True) == []
    assert exercise.check_arguments({"minimum": 5}, "abc") == []


def test_strings(exercise):
    """minLength / maxLength count characters; pattern is searched anywhere (re.search), not
    matched."""
    schema = {"type": "string", "minLength": 2, "maxLength": 4, "pattern": r"\d"}
    assert exercise.check_arguments(schema, "a1") == []
    assert exercise.check_arguments(schema, "a") == [
        "arguments: must be at least 2 characters long",
        r"arguments: must match the pattern \d",
    ]
    assert exercise.check_arguments(schema, "abcdé") == [
        "arguments: must be at most 4 characters long",
        r"arguments: must match the pattern \d",
    ]
    assert exercise.check_arguments({"maxLength": 1}, 12345) == []


def test_required_and_unexpected_properties(exercise):
    """Missing required names first; then unexpected keys, with '(did you mean "x"?)' when one is
    close."""
    assert exercise.check_arguments(READ_EVENTS, {"dat": "2025-03-21"}) == [
        'arguments: missing required property "date"',
        'arguments: unexpected property "dat" (did you mean "date"?)',
    ]
    assert exercise.check_arguments(READ_EVENTS, {"date": "2025-03-21", "timezone": "UTC"}) == [
        'arguments: unexpected property "timezone"'
    ]
    schema = {"type": "object", "required": ["b", "a"]}
    assert exercise.check_arguments(schema, {}) == [
        'arguments: missing required property "b"',
        'arguments: missing required property "a"',
    ]


def test_nested_paths_in_object_order(exercise):
    """Properties are joined with dots, array items in brackets; keys are checked in the object's
    order."""
    arguments = {"limit": 0, "ids": ["c4ch", 5, "TOO-LONG"], "lmit": 3}
    assert exercise.check_arguments(SIMILAR, arguments, "find_similar_courses") == [
        "find_similar_courses.limit: must be >= 1",
        "find_similar_courses.ids[1]: expected string, got integer",
        "find_similar_courses.ids[2]: must match the pattern ^[a-z0-9]{4}$",
        'find_similar_courses: unexpected property "lmit" (did you mean "limit"?)',
    ]


def test_additional_properties_schema(exercise):
    """additionalProperties: a schema checks every extra key; absent (or true) lets any extra key
    through."""
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "additionalProperties": {"type": "integer", "minimum": 0},
    }
    assert exercise.check_arguments(schema, {"name": "x", "a": 1, "b": -1, "c": "no"}) == [
        "arguments.b: must be >= 0",
        "arguments.c: expected integer, got string",
    ]
    assert exercise.check_arguments({"type": "object", "properties": {}}, {"z": 1}) == []
    assert (
        exercise.check_arguments({"type": "object", "additionalProperties": True}, {"z": 1}) == []
    )


def test_agrees_with_jsonschema_on_validity(exercise):
    """Where both apply, the verdict (valid or not) must agree with the jsonschema library."""
    cases = [
        (SIMILAR, {"ids": ["c4ch"], "limit": 20.0}),
        (SIMILAR, {"ids": ["c4ch"], "limit": 20.5}),
        (SIMILAR, {"ids": "c4ch"}),
        (SIMILAR, {"ids": [], "limit": False}),
        (READ_EVENTS, {"date": None}),
        (READ_EVENTS, {}),
        ({"type": "array", "items": {"enum": [1, 2]}}, [1, 2.0, 2]),
        ({"type": "array", "items": {"enum": [1, 2]}}, [1, True]),
        ({"type": ["integer", "string"], "minimum": 3, "pattern": "^a"}, "abc"),
        ({"type": ["integer", "string"], "minimum": 3, "pattern": "^a"}, 2),
    ]
    for schema, value in cases:
        expected = jsonschema.Draft202012Validator(schema).is_valid(value)
        assert (exercise.check_arguments(schema, value) == []) == expected, (schema, value)


# -- Exercise 3 · Routing the tools of several servers ---------------------------------------------

CALENDAR_TOOLS = [
    {
        "name": "read_events",
        "description": "Read calendar events for a given day",
        "inputSchema": {
            "type": "object",
            "properties": {"date": {"type": "string"}},
            "required": ["date"],
        },
    },
    {"name": "create_event", "description": "Create an event", "inputSchema": {"type": "object"}},
]
NOTION_TOOLS = [
    {
        "name": "read_events",
        "description": "Read the events page",
        "inputSchema": {"type": "object"},
    },
]


def test_sanitize(exercise):
    """Letters, digits, '_' and '-' stay; every other character becomes '_'."""
    assert exercise.sanitize("read_events") == "read_events"
    assert exercise.sanitize("admin.tools.list") == "admin_tools_list"
    assert exercise.sanitize("DATA-export v2/ñ") == "DATA-export_v2__"


def test_prefixes_names_and_resolves_them(exercise):
    """Exposed name = server + separator + tool; resolve() gives (server, real name) back."""
    router = exercise.ToolRouter()
    originals = copy.deepcopy([CALENDAR_TOOLS, NOTION_TOOLS])
    router.set_tools("calendar", CALENDAR_TOOLS)
    router.set_tools("notion", NOTION_TOOLS)
    tools = router.tools()
    assert [tool["name"] for tool in tools] == [
        "calendar__read_events",
        "calendar__create_event",
        "notion__read_events",
    ]
    assert tools[0] == {**CALENDAR_TOOLS[0], "name": "calendar__read_events"}
    assert [CALENDAR_TOOLS, NOTION_TOOLS] == originals  # the servers' own dicts are left alone
    assert router.resolve("calendar__read_events") == ("calendar", "read_events")
    assert router.resolve("notion__read_events") == ("notion", "read_events")
    with pytest.raises(KeyError):
        router.resolve("read_events")


def test_unsafe_characters_and_separator(exercise):
    """Server and tool names are sanitized; a separator may only use letters, digits, '_' or '-'."""
    router = exercise.ToolRouter(separator="-")
    router.set_tools("my calendar", [{"name": "admin.tools.list"}])
    assert [tool["name"] for tool in router.tools()] == ["my_calendar-admin_tools_list"]
    assert router.resolve("my_calendar-admin_tools_list") == ("my calendar", "admin.tools.list")
    for separator in ("", "/", "."):
        with pytest.raises(ValueError):
            exercise.ToolRouter(separator=separator)


def test_collisions_get_numbered(exercise):
    """A name already taken gets _2, _3, ...: 'a.b', 'a_b' and 'a b' all sanitize to 'a_b'."""
    router = exercise.ToolRouter()
    router.set_tools("s", [{"name": "a.b"}, {"name": "a_b"}, {"name": "a b"}])
    router.set_tools("s.", [{"name": "x"}])
    router.set_tools("s_", [{"name": "x"}])
    assert [tool["name"] for tool in router.tools()] == [
        "s__a_b",
        "s__a_b_2",
        "s__a_b_3",
        "s___x",
        "s___x_2",
    ]
    assert router.resolve("s__a_b_3") == ("s", "a b")
    assert router.resolve("s___x_2") == ("s_", "x")


def test_long_names_are_cut_and_hashed(exercise):
    """Over max_length: keep max_length - 9 characters, then '_' and 8 hex digits of
    sha256('server/tool')."""
    router = exercise.ToolRouter(max_length=20)
    router.set_tools("calendar", [{"name": "read_all_the_events_of_the_year"}, {"name": "read"}])
    digest = hashlib.sha256(b"calendar/read_all_the_events_of_the_year").hexdigest()[:8]
    long_name = "calendar__read_all_the_events_of_the_year"[:11] + "_" + digest
    assert [tool["name"] for tool in router.tools()] == [long_name, "calendar__read"]
    assert all(len(tool["name"]) <= 20 for tool in router.tools())
    assert router.resolve(long_name) == ("calendar", "read_all_the_events_of_the_year")


def test_numbered_names_still_fit(exercise):
    """When name + suffix would be too long, cut the name so that name + suffix fits in
    max_length."""
    router = exercise.ToolRouter(max_length=10)
    router.set_tools("s", [{"name": "abcdef."}, {"name": "abcdef "}, {"name": "abcdef!"}])
    assert [tool["name"] for tool in router.tools()] == ["s__abcdef_", "s__abcde_2", "s__abcde_3"]


def test_names_are_stable_when_a_list_changes(exercise):
    """set_tools again: listed tools keep their names, names of tools gone are freed, new tools are
    named."""
    router = exercise.ToolRouter()
    router.set_tools("s", [{"name": "a.b"}, {"name": "a_b"}])
    router.set_tools("t", [{"name": "x"}])
    assert [tool["name"] for tool in router.tools()] == ["s__a_b", "s__a_b_2", "t__x"]
    router.set_tools("s", [{"name": "c"}, {"name": "a_b", "description": "new"}])  # "a.b" is gone
    assert [tool["name"] for tool in router.tools()] == ["s__c", "s__a_b_2", "t__x"]
    assert router.tools()[1] == {"name": "s__a_b_2", "description": "new"}
    assert router.resolve("s__a_b_2") == ("s", "a_b")
    with pytest.raises(KeyError):
        router.resolve("s__a_b")
    # back again: the free name
    router.set_tools("s", [{"name": "c"}, {"name": "a_b"}, {"name": "a.b"}])
    assert [tool["name"] for tool in router.tools()] == ["s__c", "s__a_b_2", "s__a_b", "t__x"]


def test_remove_server(exercise):
    """remove_server frees its names; the other servers keep theirs; an unknown server is a
    KeyError."""
    router = exercise.ToolRouter()
    router.set_tools("calendar", CALENDAR_TOOLS)
    router.set_tools("notion", NOTION_TOOLS)
    router.remove_server("calendar")
    assert [tool["name"] for tool in router.tools()] == ["notion__read_events"]
    with pytest.raises(KeyError):
        router.resolve("calendar__read_events")
    with pytest.raises(KeyError):
        router.remove_server("calendar")
    router.set_tools("calendar", CALENDAR_TOOLS[:1])
    assert [tool["name"] for tool in router.tools()] == [
        "notion__read_events",
        "calendar__read_events",
    ]


def test_bad_input(exercise):
    """An empty server name, or one list naming a tool twice, is a ValueError."""
    router = exercise.ToolRouter()
    with pytest.raises(ValueError):
        router.set_tools("", NOTION_TOOLS)
    with pytest.raises(ValueError):
        router.set_tools("s", [{"name": "x"}, {"name": "y"}, {"name": "x"}])
    assert router.tools() == []
