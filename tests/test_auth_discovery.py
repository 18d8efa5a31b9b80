"""The client's discovery rules (minimcp.auth.discovery, minimcp.auth.bearer): URLs in the spec's
order, scope selection, PKCE, and reading a WWW-Authenticate challenge."""

from __future__ import annotations

import pytest

from minimcp.auth.bearer import challenge, parse_challenges
from minimcp.auth.discovery import (
    authorization_server_metadata_urls,
    pkce_pair,
    resource_metadata_urls,
    s256,
    select_scope,
)


def test_the_challenge_names_the_metadata_url_first_and_only() -> None:
    named = "https://mcp.example.com/.well-known/oauth-protected-resource/custom"
    assert resource_metadata_urls("https://mcp.example.com/public/mcp", named) == [named]


@pytest.mark.parametrize(
    ("server", "urls"),
    [
        (
            "https://example.com/public/mcp",
            [
                "https://example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://example.com/.well-known/oauth-protected-resource",
            ],
        ),
        ("https://example.com/", ["https://example.com/.well-known/oauth-protected-resource"]),
        (
            "http://127.0.0.1:8000/mcp",
            [
                "http://127.0.0.1:8000/.well-known/oauth-protected-resource/mcp",
                "http://127.0.0.1:8000/.well-known/oauth-protected-resource",
            ],
        ),
    ],
)
def test_without_a_challenge_the_well_known_urls_path_first(server: str, urls: list[str]) -> None:
    assert resource_metadata_urls(server) == urls


@pytest.mark.parametrize(
    ("issuer", "urls"),
    [
        (
            "https://auth.example.com/tenant1",
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ],
        ),
        (
            "https://auth.example.com",
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ],
        ),
        (
            "https://auth.example.com/",
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ],
        ),
    ],
)
def test_authorization_server_metadata_in_the_spec_order(issuer: str, urls: list[str]) -> None:
    assert authorization_server_metadata_urls(issuer) == urls


@pytest.mark.parametrize(
    ("challenged", "supported", "scope"),
    [
        # the challenge is authoritative
        ("files:read", ["files:read", "files:write"], "files:read"),
        (None, ["files:read", "files:write"], "files:read files:write"),
        (None, None, None),
        ("", [], None),
    ],
)
def test_scope_selection(
    challenged: str | None, supported: list[str] | None, scope: str | None
) -> None:
    assert select_scope(challenged, supported) == scope


def test_re_authorizing_asks_for_what_was_asked_before_too() -> None:
    # SEP-2350: a step-up for mcp:write keeps mcp:basic, asked for the first time
    assert select_scope("mcp:write", None, "mcp:basic") == "mcp:basic mcp:write"
    assert select_scope("mcp mcp:admin", None, "mcp") == "mcp mcp:admin"
    assert select_scope(None, None, "mcp") == "mcp"


def test_pkce_s256_is_rfc_7636s_example() -> None:
    # RFC 7636, appendix B: the verifier and challenge of its worked example.
    assert (
        s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    )
    verifier, challenge_ = pkce_pair()
    assert len(verifier) == 43 and set(verifier) <= set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    )
    assert challenge_ == s256(verifier) and pkce_pair()[0] != verifier


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
        ("Negotiate abc==, Bearer scope=x", {"negotiate": {}, "bearer": {"scope": "x"}}),
        (
            "bearer REALM=example,error=invalid_token",
            {"bearer": {"realm": "example", "error": "invalid_token"}},
        ),
        ("Bearer", {"bearer": {}}),
    ],
)
def test_reading_a_challenge(header: str, parsed: dict[str, dict[str, str]]) -> None:
    assert parse_challenges(header) == parsed


def test_what_the_server_writes_the_client_reads_back() -> None:
    written = challenge(error="invalid_token", error_description='a "quoted" \\ word', scope="mcp")
    assert parse_challenges(written) == {
        "bearer": {
            "error": "invalid_token",
            "error_description": 'a "quoted" \\ word',
            "scope": "mcp",
        }
    }
