# ----------------------------------------------------------------------------------------
# Lesson 10-authorization: your exercise.
#
# 1. Read the docstrings below: each part says exactly what to build.
# 2. Replace each `raise NotImplementedError(...)`, under its TODO, with your code.
# 3. Check your work, as often as you like:  python tools/check.py 10
#
# Stuck for good? A worked answer is in solutions/10-authorization/exercise.py.
# This file is yours: a new version of the course may replace it, so keep a copy of your work.
# ----------------------------------------------------------------------------------------
"""Lesson 10 exercise: three of the rules that make MCP authorization safe, written by hand.

1. **PKCE, both ends** (RFC 7636). The client makes a secret verifier and sends only its S256 hash
   with the authorization request; the authorization server later checks that the token request's
   verifier hashes to it. Write the verifier's rules, the hash, and the server's check, refusing
   what downgrades the protection (``plain``, or no challenge at all).
2. **What does the client do next?** A protected server answers ``401`` or ``403`` with a
   ``WWW-Authenticate`` challenge. Read it (several challenges, quoted strings, escapes) and decide
   the client's next step: authorize, step up to more scopes, or give up.
3. **Is this token for me?** A resource server must refuse a token issued for another resource (the
   confused deputy). Compare a token's ``aud`` with this server's canonical URI the way RFC 8707 and
   the spec describe: case-insensitive scheme and host, default ports, no trailing slash, never a
   fragment.

Check your work with ``python tools/check.py 10``. Only the standard library is needed.
"""

from __future__ import annotations

import base64
import hashlib
import re
from urllib.parse import urlsplit

# =================================================================================================
# Part 1 · PKCE, both ends (RFC 7636, sections 4.1 to 4.6)
# =================================================================================================
#
#   * a verifier is 43 to 128 characters of [A-Z] [a-z] [0-9] "-" "." "_" "~" (section 4.1)
#   * make_verifier(secret): the base64url encoding of the secret bytes, without "=" padding; at
#     least 32 bytes of secret (else ValueError: the verifier must carry enough randomness)
#   * s256(verifier) = BASE64URL(SHA256(ASCII(verifier))), without padding (section 4.2)
#   * check_pkce(verifier, challenge, method): what the token endpoint decides, raising PkceError
#     with the reason, word for word:
#       - no challenge was sent ..................... "PKCE is required"
#       - method is not "S256" ("plain", "", ...) ... "only S256 is accepted"
#       - the verifier breaks section 4.1 ........... "malformed code_verifier"
#       - s256(verifier) != challenge ............... "code_verifier does not match"

VERIFIER = re.compile(r"[A-Za-z0-9\-._~]{43,128}")


class PkceError(ValueError):
    """The token request fails PKCE; the message says why."""


def make_verifier(secret: bytes) -> str:
    """A code_verifier from at least 32 random bytes."""
    # TODO: refuse short secrets; base64url without padding
    raise NotImplementedError("make_verifier")


def s256(verifier: str) -> str:
    """The S256 code_challenge of a verifier."""
    # TODO: sha256 of the ASCII bytes, base64url without padding
    raise NotImplementedError("s256")


def check_pkce(verifier: str, challenge: str | None, method: str | None) -> None:
    """Raise PkceError unless ``verifier`` proves the request that sent ``challenge`` with
    ``method``."""
    # TODO: the four checks, in the order of the comment above
    raise NotImplementedError("check_pkce")


# =================================================================================================
# Part 2 · What does the client do next? (RFC 6750 section 3, RFC 9110 section 11.6.1)
# =================================================================================================
#
# parse_challenges(header) -> {scheme (lower case): {param (lower case): value}}
#   A header holds one or more challenges: a scheme, then "name=value" parameters separated by
#   commas; a value is a token or a "quoted string" in which \x stands for x. A new scheme starts a
#   new challenge.
#     'Basic realm="x", Bearer scope="a b", error="insufficient_scope"'
#       -> {"basic": {"realm": "x"}, "bearer": {"scope": "a b", "error": "insufficient_scope"}}
#
# next_step(status, header) -> a string:
#   * status 401 ................................. "authorize"  (no token yet, or a bad one:
#                                                                start over)
#   * status 403 with Bearer error insufficient_scope and a scope ... "step-up:" + the scope
#   * anything else (403 for other reasons, 500, 200...) ......... "give-up"

PARAM = re.compile(r'\s*([A-Za-z0-9_\-.]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s,"]+)\s*(?:,|$)')
SCHEME = re.compile(r"\s*,?\s*([A-Za-z0-9_\-.]+)(?=\s|,|$)")


def parse_challenges(header: str) -> dict[str, dict[str, str]]:
    """The challenges of a WWW-Authenticate header."""
    # TODO: alternate: a parameter if one starts here (in an open challenge), or a scheme
    raise NotImplementedError("parse_challenges")


def next_step(status: int, header: str) -> str:
    """What the client does with a protected server's answer."""
    # TODO: 401 authorizes; 403 insufficient_scope with a scope steps up; else give up
    raise NotImplementedError("next_step")


# =================================================================================================
# Part 3 · Is this token for me? (RFC 8707, and the spec's "Canonical Server URI")
# =================================================================================================
#
# canonical(uri): the form two URIs are compared in; ValueError for what is no canonical URI at all
#   * it must have a scheme and a host ("mcp.example.com" alone: ValueError), and no fragment
#     (ValueError)
#   * scheme and host in lower case; the path keeps its case
#   * a default port is dropped (":443" for https, ":80" for http)
#   * a trailing "/" is dropped ("https://x.com/" and "https://x.com" are the same resource)
#   canonical("HTTPS://MCP.Example.com:443/Tools/") == "https://mcp.example.com/Tools"
#
# audience_ok(aud, resource): the token's aud claim (a string, or a list of strings) names this
# resource.
#   Compare canonical forms; an aud that is not a canonical URI simply does not match (no error).

DEFAULT_PORTS = {"https": 443, "http": 80}


def canonical(uri: str) -> str:
    """A URI in the form resources are compared in."""
    # TODO: split; refuse no scheme, no host or a fragment; rebuild in canonical form
    raise NotImplementedError("canonical")


def audience_ok(aud: str | list[str] | None, resource: str) -> bool:
    """Whether a token with this ``aud`` claim is meant for ``resource``."""
    # TODO: canonical aud values against the canonical resource; bad values never match
    raise NotImplementedError("audience_ok")
