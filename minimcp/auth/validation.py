"""What a request to the authorization server must look like: its checks, with no state (lesson 10).

Each function here looks at one request alone and says what is wrong with it, as an
:class:`OAuthError` with the RFC's error code, or a plain answer. What the server *remembers*
(clients, codes, refresh tokens) and decides with it is :mod:`minimcp.auth.grants`'.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode, urlsplit

#: What one registration may hold (RFC 7591 sets no limit: each server sets its own).
MAX_REDIRECT_URIS = 10
MAX_URI_LENGTH = 2_000
MAX_NAME_LENGTH = 200
AUTH_METHODS = ("client_secret_basic", "client_secret_post", "none")


class OAuthError(Exception):
    """An error answer: an RFC 6749 ``error`` code, a description, an HTTP status."""

    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error, self.status = error, status


def authorization_problem(query: Mapping[str, str]) -> tuple[str, str] | None:
    """What is wrong with an authorization request from a known client, as (error, description)."""
    if query.get("response_type") != "code":
        return "unsupported_response_type", "only response_type=code is supported"
    if not query.get("code_challenge"):
        return "invalid_request", "PKCE is required: send code_challenge"
    if query.get("code_challenge_method") != "S256":
        return "invalid_request", "code_challenge_method must be S256 (plain is not accepted)"
    return None


def check_resource(form: Mapping[str, str], authorized: str | None) -> None:
    """A token request may repeat the ``resource`` it was authorized for, and no other
    (RFC 8707)."""
    if form.get("resource", authorized) != authorized:
        raise OAuthError("invalid_target", "resource differs from the one authorized")


def checked_redirect_uris(uris: Any) -> list[str]:
    """A client's ``redirect_uris``: a short list of https or loopback URLs (RFC 7591, 3.2.2)."""
    if not (
        isinstance(uris, list)
        and 0 < len(uris) <= MAX_REDIRECT_URIS
        and all(
            isinstance(u, str) and len(u) <= MAX_URI_LENGTH and allowed_redirect(u) for u in uris
        )
    ):
        raise OAuthError(
            "invalid_redirect_uri",
            f"redirect_uris must be a list of 1 to {MAX_REDIRECT_URIS} https or loopback URLs "
            f"of at most {MAX_URI_LENGTH} characters",
        )
    return list(uris)


def checked_name(name: Any) -> str:
    """A client's ``client_name``: what the consent page shows, so a short string."""
    if not isinstance(name, str) or len(name) > MAX_NAME_LENGTH:
        raise OAuthError(
            "invalid_client_metadata",
            f"client_name must be a string of at most {MAX_NAME_LENGTH} characters",
        )
    return name


def allowed_redirect(uri: str) -> bool:
    """https, or http on this machine only (a native client's loopback listener); no fragment."""
    try:
        parts = urlsplit(uri)
        host = parts.hostname
    except ValueError:  # not a URL at all (an unclosed IPv6 bracket, ...)
        return False
    loopback = parts.scheme == "http" and host in ("127.0.0.1", "localhost", "::1")
    return (parts.scheme == "https" or loopback) and not parts.fragment


def back(redirect_uri: str, params: Mapping[str, str]) -> str:
    return f"{redirect_uri}{'&' if '?' in redirect_uri else '?'}{urlencode(params)}"
