"""Checks for lesson 10's exercise: PKCE at both ends, the client's next step, and the token's
audience.

Each test's docstring is the hint a student sees when it fails (``python tools/check.py 10``).
"""

from __future__ import annotations

from typing import Any

import pytest

# -- Exercise 1 · PKCE, both ends ------------------------------------------------------------------

RFC_VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
RFC_CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"


def test_s256_reproduces_the_rfcs_example(exercise: Any) -> None:
    """s256: SHA-256 of the verifier's ASCII bytes, then base64url (urlsafe_b64encode) without the
    "=" padding."""
    assert exercise.s256(RFC_VERIFIER) == RFC_CHALLENGE


def test_a_verifier_from_32_bytes_is_43_characters(exercise: Any) -> None:
    """make_verifier: base64url of the bytes, "=" stripped; 32 bytes give 43 characters of
    [A-Za-z0-9_-]."""
    verifier = exercise.make_verifier(bytes(range(32)))
    assert verifier == "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
    assert len(exercise.make_verifier(b"\xff" * 96)) == 128


def test_too_little_randomness_is_refused(exercise: Any) -> None:
    """make_verifier: fewer than 32 bytes of secret raises ValueError."""
    with pytest.raises(ValueError):
        exercise.make_verifier(b"short")


def test_the_right_verifier_passes(exercise: Any) -> None:
    """check_pkce returns (None) when S256(verifier) equals the challenge."""
    assert exercise.check_pkce(RFC_VERIFIER, RFC_CHALLENGE, "S256") is None


@pytest.mark.parametrize(
    ("verifier", "challenge", "method", "reason"),
    [
        (RFC_VERIFIER, None, "S256", "PKCE is required"),
        (RFC_VERIFIER, "", "S256", "PKCE is required"),
        (RFC_VERIFIER, RFC_VERIFIER, "plain", "only S256 is accepted"),
        (RFC_VERIFIER, RFC_CHALLENGE, None, "only S256 is accepted"),
        ("too-short", RFC_CHALLENGE, "S256", "malformed code_verifier"),
        (RFC_VERIFIER[:-1] + "!", RFC_CHALLENGE, "S256", "malformed code_verifier"),
        ("a" * 129, RFC_CHALLENGE, "S256", "malformed code_verifier"),
        ("a" * 43, RFC_CHALLENGE, "S256", "code_verifier does not match"),
    ],
)
def test_each_downgrade_or_mismatch_is_refused_with_its_reason(
    exercise: Any, verifier: str, challenge: str | None, method: str | None, reason: str
) -> None:
    """check_pkce raises PkceError, in this order: no challenge, a method other than S256, a
    verifier outside 43-128 characters of [A-Za-z0-9-._~], a verifier that does not hash to the
    challenge."""
    with pytest.raises(exercise.PkceError) as refused:
        exercise.check_pkce(verifier, challenge, method)
    assert str(refused.value) == reason


# -- Exercise 2 · What does the client do next? ----------------------------------------------------


@pytest.mark.parametrize(
    ("header", "parsed"),
    [
        (
            'Bearer resource_metadata="https://x/.well-known/oauth-protected-resource", '
            'scope="a b"',
            {
                "bearer": {
                    "resource_metadata": "https://x/.well-known/oauth-protected-resource",
                    "scope": "a b",
                }
            },
        ),
        (
            'Basic realm="x", Bearer error="insufficient_scope", scope="read write"',
            {
                "basic": {"realm": "x"},
                "bearer": {"error": "insufficient_scope", "scope": "read write"},
            },
        ),
        (
            'BEARER Error=invalid_token, error_description="say \\"no\\""',
            {"bearer": {"error": "invalid_token", "error_description": 'say "no"'}},
        ),
        ("Bearer", {"bearer": {}}),
        ("", {}),
    ],
)
def test_challenges_are_read(exercise: Any, header: str, parsed: dict[str, dict[str, str]]) -> None:
    """parse_challenges: scheme and parameter names in lower case; quoted values lose their quotes,
    and \\x becomes x; a second scheme starts a second challenge."""
    assert exercise.parse_challenges(header) == parsed


@pytest.mark.parametrize(
    ("status", "header", "step"),
    [
        (401, 'Bearer resource_metadata="https://x/m"', "authorize"),
        (401, 'Bearer error="invalid_token"', "authorize"),
        (
            403,
            'Bearer error="insufficient_scope", scope="files:read files:write"',
            "step-up:files:read files:write",
        ),
        (403, 'Bearer error="insufficient_scope"', "give-up"),  # no scope to ask for
        (403, 'Bearer error="invalid_request"', "give-up"),
        (500, "", "give-up"),
    ],
)
def test_the_next_step(exercise: Any, status: int, header: str, step: str) -> None:
    """next_step: 401 → "authorize"; 403 insufficient_scope with a scope → "step-up:<scope>"; else
    "give-up"."""
    assert exercise.next_step(status, header) == step


# -- Exercise 3 · Is this token for me? ------------------------------------------------------------


@pytest.mark.parametrize(
    ("uri", "canonical"),
    [
        ("HTTPS://MCP.Example.com:443/Tools/", "https://mcp.example.com/Tools"),
        ("https://mcp.example.com/", "https://mcp.example.com"),
        ("https://mcp.example.com:8443", "https://mcp.example.com:8443"),
        ("http://127.0.0.1:80/mcp", "http://127.0.0.1/mcp"),
        ("http://127.0.0.1:8000/mcp", "http://127.0.0.1:8000/mcp"),
    ],
)
def test_canonical_forms(exercise: Any, uri: str, canonical: str) -> None:
    """canonical: lower-case scheme and host, default ports dropped, trailing "/" dropped, path case
    kept."""
    assert exercise.canonical(uri) == canonical


@pytest.mark.parametrize(
    "uri", ["mcp.example.com", "https://mcp.example.com#fragment", "/just/a/path"]
)
def test_what_is_no_canonical_uri(exercise: Any, uri: str) -> None:
    """canonical raises ValueError without a scheme and host, or with a fragment."""
    with pytest.raises(ValueError):
        exercise.canonical(uri)


@pytest.mark.parametrize(
    ("aud", "ok"),
    [
        ("https://mcp.example.com/mcp", True),
        ("HTTPS://mcp.EXAMPLE.com:443/mcp/", True),
        (["https://other.example.com", "https://mcp.example.com/mcp"], True),
        ("https://mcp.example.com/MCP", False),  # the path's case matters
        ("https://mcp.example.com/mcp/other", False),
        ("https://mcp.example.com", False),  # a prefix is another resource
        ("not a uri", False),
        ([], False),
        (None, False),
    ],
)
def test_the_audience_names_this_resource(exercise: Any, aud: Any, ok: bool) -> None:
    """audience_ok: true when any aud value, in canonical form, equals the resource's canonical
    form; values that are no URI never match (and raise nothing)."""
    assert exercise.audience_ok(aud, "https://mcp.example.com/mcp") is ok
