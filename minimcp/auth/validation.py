"""What a request to the authorization server must look like: its checks, with no state (lesson 10).

Each function here looks at one request alone and says what is wrong with it, as an
:class:`OAuthError` with the RFC's error code, or a plain answer. What the server *remembers*
(clients, codes, refresh tokens) and decides with it is :mod:`minimcp.auth.grants`'.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode, urlsplit

from minimcp.auth.discovery import s256

#: What one registration may hold (RFC 7591 sets no limit: each server sets its own).
MAX_REDIRECT_URIS = 10
MAX_URI_LENGTH = 2_000
MAX_NAME_LENGTH = 200
AUTH_METHODS = ("client_secret_basic", "client_secret_post", "none")
#: A PKCE code_verifier: 43 to 128 of RFC 3986's unreserved characters (RFC 7636, section 4.1).
MIN_VERIFIER, MAX_VERIFIER = 43, 128
VERIFIER = re.compile(r"[A-Za-z0-9\-._~]+")
#: The names of this machine a redirect URI may use over plain http.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


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


def check_verifier(verifier: str, challenge: str) -> None:
    """The PKCE proof: ``verifier`` is the one ``challenge`` was made from (S256), or
    ``invalid_grant``.

    A verifier outside RFC 7636's form (section 4.1) is refused with the same code as one that does
    not match (RFC 7636, section 4.6; RFC 6749, section 5.2): either way it does not prove that the
    code is this client's. A short one is named as such: the challenge travels in a URL, and a
    one-character verifier, 66 possible values, is found from it at once.
    """
    if not MIN_VERIFIER <= len(verifier) <= MAX_VERIFIER:
        raise OAuthError(
            "invalid_grant",
            f"the code_verifier must be {MIN_VERIFIER} to {MAX_VERIFIER} characters "
            "(RFC 7636, section 4.1)",
        )
    if not VERIFIER.fullmatch(verifier) or s256(verifier) != challenge:
        raise OAuthError("invalid_grant", "the code_verifier does not match the code_challenge")


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
    """An absolute https URL with a host, or http on this machine only (a native client's loopback
    listener): RFC 6749, section 3.1.2 and RFC 8252, section 7.3.

    The URL is parsed, not matched as a string: ``https:`` and ``https:/\\evil.example`` have no
    host, and a browser reads a backslash as a slash. No fragment, no user name (``https://a@b``
    leads to ``b``, whatever a person reads first), nothing but printable ASCII.
    """
    if not (uri.isascii() and uri.isprintable()) or " " in uri or "\\" in uri:
        return False
    try:
        parts = urlsplit(uri)
        host, _ = parts.hostname, parts.port  # a port that is not a number raises ValueError
    except ValueError:  # not a URL at all (an unclosed IPv6 bracket, a port "x", ...)
        return False
    if not host or "@" in parts.netloc or parts.fragment:
        return False
    return parts.scheme == "https" or on_this_machine(uri)


def on_this_machine(uri: str) -> bool:
    """An http URL of the loopback interface: a native client's listener (RFC 8252, section 7.3).
    A phishing site cannot be there, so an error may be sent back to it unasked."""
    try:
        parts = urlsplit(uri)
        return parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS
    except ValueError:
        return False


def same_redirect(registered: str, requested: str) -> bool:
    """Is ``requested`` the registered redirect URI? Compared as strings, exactly, except the port
    of a loopback one: a native client listens on whatever port is free (RFC 8252, section 7.3)."""
    if requested == registered:
        return True
    if not (allowed_redirect(requested) and on_this_machine(requested)):
        return False
    return without_port(requested) == without_port(registered)


def without_port(uri: str) -> tuple[str, str | None, str, str]:
    parts = urlsplit(uri)
    return parts.scheme, parts.hostname, parts.path, parts.query


def back(redirect_uri: str, params: Mapping[str, str]) -> str:
    return f"{redirect_uri}{'&' if '?' in redirect_uri else '?'}{urlencode(params)}"
