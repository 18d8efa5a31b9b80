"""URI templates, level 1 of RFC 6570: ``courses://{id}`` names a family of resources (lesson 05).

A template is served by matching a URI against it: :func:`compile_template` turns the template into
a regular expression, :func:`match_template` gives the variables of a URI that fits.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

# --8<-- [start:template]
# Level 1 of RFC 6570 is "simple string expansion": {id} is replaced by the value with every
# character outside the unreserved set percent-encoded. So a value in a real URI is a run of
# unreserved characters and %XX escapes, and never contains "/", "?" or "#". Matching is the
# expansion run backwards: find such runs where the {names} stand, then percent-decode them.
VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
EXPANDED_VALUE = r"(?:[A-Za-z0-9\-._~]|%[0-9A-Fa-f]{2})+"


def compile_template(template: str) -> re.Pattern[str]:
    """A regular expression matching the URIs ``template`` expands to, one group per variable."""
    leftover = VARIABLE.sub("", template)
    if "{" in leftover or "}" in leftover:  # {+path}, {?query}…: levels 2-4, which we do not need
        raise ValueError(
            f"URI template {template!r}: only level-1 variables such as {{id}} are supported"
        )
    pattern, position, seen = "", 0, set()
    for variable in VARIABLE.finditer(template):
        name = variable.group(1)
        if name in seen:
            raise ValueError(f"URI template {template!r} uses {{{name}}} twice")
        seen.add(name)
        pattern += (
            re.escape(template[position : variable.start()]) + f"(?P<{name}>{EXPANDED_VALUE})"
        )
        position = variable.end()
    return re.compile(pattern + re.escape(template[position:]))


def match_template(pattern: re.Pattern[str], uri: str) -> dict[str, str] | None:
    """The variables of ``uri`` (decoded, always strings); None if the template does not match."""
    found = pattern.fullmatch(uri)
    if found is None:
        return None
    return {name: unquote(value) for name, value in found.groupdict().items()}


# --8<-- [end:template]
