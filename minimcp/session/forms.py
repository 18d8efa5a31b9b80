"""Elicitation forms: the rules a server's question and a user's answer must keep (lesson 09).

In form mode a server sends ``elicitation/create`` with a ``requestedSchema``: a deliberately small
JSON Schema, one flat object whose properties are primitives (spec 2025-11-25, client/elicitation,
"Requested Schema"):

* ``string`` (optionally with a ``format``: email, uri, date, date-time), ``number``, ``integer``,
  ``boolean``;
* a single choice: a string with ``enum``, or with ``oneOf`` of ``{"const", "title"}``;
* several choices: an ``array`` whose ``items`` carry ``enum`` or ``anyOf``.

Each property may carry a ``default``. Both sides use this module: the server checks its own schema
before it asks (a nested object is its bug) and checks the answer it gets back; the client refuses a
schema it cannot show as a form, fills in the defaults the user left alone, and checks the answer
before it sends it.
"""

from __future__ import annotations

from typing import Any

from minimcp.session.schemas import make_validator, schema_problems

#: The property types a form may ask for (an "array" only as a multi-select enum).
FORM_TYPES = {"string", "number", "integer", "boolean", "array"}

#: What the user may do with a form (or a URL): submit it, say no, or close it.
ACTIONS = ("accept", "decline", "cancel")


# --8<-- [start:modes]
def supports_mode(capability: dict[str, Any], mode: str) -> bool:
    """Whether an ``elicitation`` capability covers ``mode`` ("form" or "url").

    ``{}`` is form mode only: that is what clients declared before URL mode existed.
    """
    if mode == "url":
        return "url" in capability
    return "form" in capability or "url" not in capability


# --8<-- [end:modes]


# --8<-- [start:check_form_schema]
def check_form_schema(schema: Any) -> None:
    """Raise :class:`ValueError` saying why ``schema`` is not a form's ``requestedSchema``."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if (
        not isinstance(schema, dict)
        or schema.get("type") != "object"
        or not isinstance(properties, dict)
    ):
        raise ValueError('a form\'s requestedSchema is {"type": "object", "properties": {...}}')
    for name, prop in properties.items():
        kind = prop.get("type") if isinstance(prop, dict) else None
        if kind not in FORM_TYPES:
            raise ValueError(
                f"form field {name!r}: the type must be one of {', '.join(sorted(FORM_TYPES))}"
            )
        if kind == "array":
            items = prop.get("items")
            if not (isinstance(items, dict) and ("enum" in items or "anyOf" in items)):
                raise ValueError(
                    f"form field {name!r}: an array is a multi-select, its items need "
                    '"enum" or "anyOf"'
                )
    try:
        make_validator(schema)  # and it must be a valid JSON Schema at all
    except Exception as error:  # jsonschema's SchemaError, in one sentence
        raise ValueError(
            f"the requestedSchema is not a valid JSON Schema: {getattr(error, 'message', error)}"
        ) from None


# --8<-- [end:check_form_schema]


# --8<-- [start:defaults]
def with_defaults(schema: dict[str, Any], content: dict[str, Any]) -> dict[str, Any]:
    """``content`` with every field the user left empty filled from the schema's ``default``.

    What a form pre-filled with the defaults would send if the user just pressed "Submit" (the spec:
    "Clients that support defaults SHOULD pre-populate form fields with these values").
    """
    filled = dict(content)
    for name, prop in schema.get("properties", {}).items():
        if name not in filled and isinstance(prop, dict) and "default" in prop:
            filled[name] = prop["default"]
    return filled


def form_problems(schema: dict[str, Any], content: dict[str, Any]) -> list[str]:
    """Every way an accepted answer's ``content`` breaks the form, a sentence each; [] if none."""
    return schema_problems(make_validator(schema), content)


# --8<-- [end:defaults]
