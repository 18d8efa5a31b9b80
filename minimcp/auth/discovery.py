"""The client's first questions: where the metadata is, which scopes to ask for, PKCE (lesson 10).

Everything here is a plain function with no I/O, so that each rule of the spec (2025-11-25,
basic/authorization) is one small thing to read and test:

* :func:`resource_metadata_urls`: where to look for the Protected Resource Metadata (RFC 9728):
  the URL the ``401``'s challenge names, else the well-known URL with the endpoint's path, else
  the root one;
* :func:`authorization_server_metadata_urls`: where to look for the authorization server's metadata,
  in the spec's order: OAuth (RFC 8414) and OpenID Connect discovery, with the issuer's path
  *inserted* after ``/.well-known/…`` or, for OpenID, *appended*;
* :func:`select_scope`: the challenge's ``scope`` if it gave one, else all the resource supports,
  with the scopes asked for before;
* :func:`pkce_pair`: PKCE's secret verifier and its S256 challenge (RFC 7636).
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from urllib.parse import urlsplit


# --8<-- [start:urls]
def resource_metadata_urls(server_url: str, from_challenge: str | None = None) -> list[str]:
    """Where to fetch the Protected Resource Metadata, in the order to try."""
    if from_challenge:
        return [from_challenge]  # the server said where: use that, and only that
    parts = urlsplit(server_url)
    origin, path = f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/")
    root = f"{origin}/.well-known/oauth-protected-resource"
    return [root + path, root] if path else [root]


def authorization_server_metadata_urls(issuer: str) -> list[str]:
    """Where to fetch an authorization server's metadata, in the order the spec gives."""
    parts = urlsplit(issuer)
    origin, path = f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/")
    if not path:
        return [
            f"{origin}/.well-known/oauth-authorization-server",
            f"{origin}/.well-known/openid-configuration",
        ]
    return [
        f"{origin}/.well-known/oauth-authorization-server{path}",  # RFC 8414: path inserted
        f"{origin}/.well-known/openid-configuration{path}",  # OpenID, path inserted
        f"{origin}{path}/.well-known/openid-configuration",
    ]  # OpenID, path appended


# --8<-- [end:urls]


# --8<-- [start:scope]
def select_scope(
    challenged: str | None, scopes_supported: list[str] | None, asked_before: str | None = None
) -> str | None:
    """The ``scope`` to ask for: the challenge's, else all the resource supports, else none; and
    with it every scope asked for before, so that re-authorizing loses nothing (SEP-2350)."""
    if challenged:
        scope = challenged  # authoritative for the request that was refused
    elif scopes_supported:
        scope = " ".join(scopes_supported)
    else:
        scope = None  # leave the parameter out: the authorization server decides
    if asked_before:
        return " ".join(dict.fromkeys([*asked_before.split(), *(scope or "").split()]))
    return scope


# --8<-- [end:scope]


# --8<-- [start:pkce]
def pkce_pair() -> tuple[str, str]:
    """A fresh PKCE ``code_verifier`` (32 random bytes) and its S256 ``code_challenge``.

    The client sends the challenge with the authorization request and the verifier with the token
    request: only who started the flow can finish it, even if the code is stolen on its way back.
    """
    verifier = secrets.token_urlsafe(32)  # 43 characters of [A-Za-z0-9_-]: within RFC 7636's 43-128
    return verifier, s256(verifier)


def s256(verifier: str) -> str:
    """``BASE64URL(SHA256(verifier))`` without padding (RFC 7636, section 4.2)."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


# --8<-- [end:pkce]
