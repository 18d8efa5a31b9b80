"""JSON Schema checks that both sides make (lessons 04 and 09).

A server checks a tool's arguments against its ``inputSchema`` (lesson 04) and a user's answer
against the form it asked for (elicitation, lesson 09); a client checks the same answer before it
sends it ("Clients SHOULD validate all responses against the provided schema", spec 2025-11-25,
client/elicitation). One validator, from the ``jsonschema`` library, serves all three; it lives in
the session layer because both :mod:`minimcp.server` and :mod:`minimcp.client` use it.
"""

from __future__ import annotations

import asyncio
import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema.protocols import Validator


_jsonschema_loaded = False  # set once the first import has finished (in a thread: see below)


async def load_jsonschema() -> None:
    """Import jsonschema, on first use, without stopping the event loop.

    The import is slow: jsonschema also imports the optional format checkers it finds installed, and
    one of them (rfc3987-syntax, which Jupyter brings) builds a grammar that takes seconds. On the
    event loop, that would freeze every session of the server, and on HTTP every client; in a
    thread, only the call that needs a validator waits. A server that is never asked to call a tool
    (lessons 02 and 03 start one often) never pays for it.
    """
    global _jsonschema_loaded
    if not _jsonschema_loaded:
        await asyncio.to_thread(importlib.import_module, "jsonschema")
        _jsonschema_loaded = True


def make_validator(schema: dict[str, Any]) -> Validator:
    """A validator for ``schema``: JSON Schema 2020-12 unless the schema names another ``$schema``.

    Call :func:`load_jsonschema` first from async code, so that the import below is instant.
    """
    import jsonschema

    validator_class = jsonschema.validators.validator_for(
        schema, default=jsonschema.Draft202012Validator
    )
    # A broken schema is the server author's bug: say so loudly
    validator_class.check_schema(schema)
    return validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)


def schema_problems(validator: Validator, instance: Any) -> list[str]:
    """Every way ``instance`` breaks the schema, a sentence each: ``date: 5 is not of type
    'string'``."""
    # The usual case, and a quicker question than "every way it fails"
    if validator.is_valid(instance):
        return []
    problems = []
    for error in sorted(validator.iter_errors(instance), key=lambda e: [str(p) for p in e.path]):
        where = "/".join(str(part) for part in error.path)
        problems.append(f"{where}: {error.message}" if where else error.message)
    return problems
