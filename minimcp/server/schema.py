"""JSON Schema for tools: written from a function's signature, checked with jsonschema (lesson 04).

A tool's ``inputSchema`` tells the model which arguments exist, of which type, and which are
required. Writing it by hand for every tool is tedious and drifts from the code, so the server reads
the function's type hints (:func:`input_schema_for`); the arguments a client sends are then checked
against it with the ``jsonschema`` library before the tool runs
(:func:`~minimcp.session.schemas.schema_problems`, shared with the client, which checks the forms it
fills in lesson 09).
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from minimcp.server.handlers import model_parameters

# --8<-- [start:schema]
JSON_TYPES: dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
}


def schema_for(annotation: Any) -> dict[str, Any]:
    """The JSON Schema of one Python type hint: the few types a tool's arguments need."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:  # Annotated[int, "description"] or Annotated[int, {"minimum": 1}]
        schema = schema_for(args[0])
        for extra in args[1:]:
            if isinstance(extra, str):
                schema["description"] = extra
            elif isinstance(extra, dict):
                schema.update(extra)
        return schema
    if annotation is Any or annotation is inspect.Parameter.empty:
        return {}  # no hint: any JSON value
    if annotation in JSON_TYPES:
        return {"type": JSON_TYPES[annotation]}
    if origin is Literal:  # Literal["celsius", "fahrenheit"]
        schema = {"enum": list(args)}
        kinds = {JSON_TYPES.get(type(value)) for value in args}
        if len(kinds) == 1 and None not in kinds:
            schema["type"] = kinds.pop()
        return schema
    if origin in (Union, types.UnionType):  # Optional[str], str | None, int | str
        options = [schema_for(arg) for arg in args]
        return options[0] if len(options) == 1 else {"anyOf": options}
    if annotation is list or origin is list:
        return {"type": "array", "items": schema_for(args[0])} if args else {"type": "array"}
    if annotation is dict or origin is dict:
        if len(args) == 2:
            return {"type": "object", "additionalProperties": schema_for(args[1])}
        return {"type": "object"}
    raise TypeError(
        f"no JSON Schema for {annotation!r}: pass input_schema= to describe it yourself"
    )


def input_schema_for(function: Callable[..., Any]) -> dict[str, Any]:
    """The ``inputSchema`` of a function: one property per parameter; no default means required.

    A parameter named ``context`` is left out: it is not for the model, the server fills it in.
    """
    properties: dict[str, Any] = {}
    required: list[str] = []
    for parameter in model_parameters(function):
        properties[parameter.name] = schema_for(parameter.hint)
        if parameter.required:
            required.append(parameter.name)
        elif isinstance(parameter.default, (str, int, float, bool, type(None))):
            properties[parameter.name]["default"] = parameter.default
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False  # a misspelt argument is an error the model can fix
    return schema


# --8<-- [end:schema]
