"""Bearer tokens on the wire: the ``Authorization`` and ``WWW-Authenticate`` headers (lesson 10).

A client shows its access token in every request (RFC 6750, section 2.1)::

    Authorization: Bearer eyJhbGciOiJSUzI1NiIs...

and never in the URL: a token in a query string ends up in logs, browser history and ``Referer``
headers, so MCP forbids it (spec 2025-11-25, basic/authorization, "Token Requirements").

A server that refuses a request says why, and where to get a token, in a challenge (RFC 6750,
section 3; RFC 9728, section 5.1)::

    WWW-Authenticate: Bearer
        resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource",
        scope="files:read", error="invalid_token", error_description="The token expired"

Both sides need both headers, so the reading and the writing live here, side by side, with no I/O.
"""

from __future__ import annotations

import re

#: RFC 6750's token characters (``b64token``): letters, digits, ``-._~+/``; then ``=`` padding.
TOKEN = re.compile(r"[A-Za-z0-9\-._~+/]+=*")


class MalformedAuthorization(ValueError):
    """The ``Authorization`` header is there but is not ``Bearer <token>``: a 400, not a 401."""


# --8<-- [start:authorization]
def bearer_token(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header; None when there is no header.

    The scheme's name is case-insensitive (RFC 9110, section 11.1); the token must be one RFC 6750
    ``b64token``. Anything else raises :class:`MalformedAuthorization`.
    """
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        raise MalformedAuthorization(f"the Authorization scheme must be Bearer, not {scheme!r}")
    token = token.strip()
    if not TOKEN.fullmatch(token):
        raise MalformedAuthorization(
            "the bearer token is missing or has characters a token may not have"
        )
    return token


# --8<-- [end:authorization]


# --8<-- [start:challenge]
def challenge(**params: str | None) -> str:
    """A ``WWW-Authenticate`` value: ``Bearer`` and its parameters as quoted strings, skipping None.

    ``challenge(resource_metadata="https://x/.well-known/...", scope="a b")`` →
    ``Bearer resource_metadata="https://x/.well-known/...", scope="a b"``.
    """
    parts = [f'{name}="{quoted(value)}"' for name, value in params.items() if value is not None]
    return "Bearer " + ", ".join(parts) if parts else "Bearer"


def quoted(value: str) -> str:
    """A quoted-string's content (RFC 9110, section 5.6.4): a backslash before ``"`` and ``\\``."""
    return value.replace("\\", "\\\\").replace('"', '\\"')


# --8<-- [end:challenge]


# --8<-- [start:parse_challenges]
#: One auth-param of a challenge: ``name=token`` or ``name="quoted string"`` (RFC 9110, 11.2).
PARAM = re.compile(
    r'\s*([!#$%&\'*+\-.^_`|~0-9A-Za-z]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s,"=][^\s,"]*|)\s*(?:,|$)'
)
SCHEME = re.compile(r"\s*,?\s*([!#$%&'*+\-.^_`|~0-9A-Za-z]+)(?=\s|,|$)")
TOKEN68 = re.compile(r"\s*[A-Za-z0-9\-._~+/]+=*\s*(?:,|$)")


def parse_challenges(header: str) -> dict[str, dict[str, str]]:
    """The challenges of a ``WWW-Authenticate`` header: scheme (lower case) → its parameters.

    ``Bearer resource_metadata="https://x/.well-known/...", scope="a b"`` →
    ``{"bearer": {"resource_metadata": "https://x/.well-known/...", "scope": "a b"}}``. A header may
    hold several challenges (``Basic realm="x", Bearer scope="y"``), each a scheme followed by its
    parameters; a challenge written as one token68 (``Negotiate abc==``) keeps no parameters.
    """
    challenges: dict[str, dict[str, str]] = {}
    position, current = 0, None
    while position < len(header):
        param = PARAM.match(header, position)
        if param is not None and current is not None:
            name, value = param.group(1).lower(), param.group(2)
            if value.startswith('"'):
                value = re.sub(r"\\(.)", r"\1", value[1:-1])
            current.setdefault(name, value)
            position = param.end()
            continue
        scheme = SCHEME.match(header, position)
        if scheme is None:
            token68 = TOKEN68.match(header, position)
            if token68 is None or current is None:
                break  # the rest cannot be read: keep what was
            position = token68.end()  # a challenge's token68 (Negotiate abc==): nothing we use
            continue
        current = challenges.setdefault(scheme.group(1).lower(), {})
        position = scheme.end()
    return challenges


# --8<-- [end:parse_challenges]
