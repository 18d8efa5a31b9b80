"""The course authorization server's decisions, with no I/O (lesson 10).

An OAuth 2.1 authorization server small enough to read, for the authorization code grant with PKCE,
which is what MCP clients use. Every rule here is a check that stops an attack:

* **exact redirect URIs**: a code goes only to a ``redirect_uri`` registered for that client,
  compared as strings; an unregistered one is refused *without* redirecting (else: an open
  redirector that hands codes to an attacker);
* **PKCE S256, always**: no challenge, or ``plain``, is refused (a stolen code is useless without
  the verifier only the real client holds; ``plain`` would send the verifier itself);
* **one-time, short-lived codes**, bound to the client, the redirect URI, the challenge and the
  ``resource``;
* **audience-bound tokens**: the access token's ``aud`` is the ``resource`` the client named (RFC
  8707), so a token for one MCP server is refused by every other;
* **refresh tokens rotate**: each is good once; using one again means it leaked, and it fails.

:mod:`minimcp.auth.authorization_server` serves these over HTTP.
"""

from __future__ import annotations

import base64
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

from minimcp.auth.discovery import s256

KID = "course-key-1"


class OAuthError(Exception):
    """An error answer: an RFC 6749 ``error`` code, a description, an HTTP status."""

    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error, self.status = error, status


@dataclass
class Client:
    client_id: str
    redirect_uris: list[str]
    secret: str | None = None  # None: a public client (PKCE alone proves who finishes the flow)
    name: str = ""


@dataclass
class Grant:
    """What a code (or a refresh token) stands for."""

    client_id: str
    redirect_uri: str
    scope: str
    resource: str | None
    subject: str
    code_challenge: str = ""
    expires: float = 0.0


@dataclass
class Grants:
    """Clients, codes, refresh tokens and the signing key of one authorization server."""

    issuer: str
    subject: str = "ada"  # who is signed in: the course's one user
    code_lifetime: float = 60.0
    token_lifetime: float = 300.0
    clients: dict[str, Client] = field(default_factory=dict)
    codes: dict[str, Grant] = field(default_factory=dict)
    refresh_tokens: dict[str, Grant] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # The signing key: in memory, a new one each run
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)

    def public_keys(self) -> dict[str, Any]:
        """kid → public key: what a resource server verifies tokens with."""
        return {KID: self.key.public_key()}

    def jwks(self) -> dict[str, Any]:
        jwk = jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        return {"keys": [{**jwk, "kid": KID, "use": "sig", "alg": "RS256"}]}

    # --8<-- [start:register]
    def register(self, metadata: Mapping[str, Any]) -> Client:
        """Dynamic client registration (RFC 7591): a public client (``token_endpoint_auth_method``
        ``none``) or a confidential one (it gets a secret), with https or loopback redirect URIs."""
        uris = metadata.get("redirect_uris")
        if not (
            isinstance(uris, list)
            and uris
            and all(isinstance(u, str) and allowed_redirect(u) for u in uris)
        ):
            raise OAuthError(
                "invalid_redirect_uri", "redirect_uris must be a list of https or loopback URLs"
            )
        confidential = metadata.get("token_endpoint_auth_method", "client_secret_basic") != "none"
        client = Client(
            f"client-{secrets.token_hex(8)}",
            list(uris),
            secrets.token_urlsafe(24) if confidential else None,
            str(metadata.get("client_name", "")),
        )
        self.clients[client.client_id] = client
        return client

    # --8<-- [end:register]

    # --8<-- [start:authorize]
    def redirect_uri(self, query: Mapping[str, str], client: Client | None) -> str:
        """The request's ``redirect_uri``, once known to be the client's.

        :class:`OAuthError` for what must not redirect at all: an unknown client, or a
        ``redirect_uri`` it never registered.
        """
        if client is None:
            raise OAuthError("invalid_client", f"unknown client_id {query.get('client_id')!r}")
        redirect_uri = query.get("redirect_uri", "")
        if redirect_uri not in client.redirect_uris:  # exact string match: no prefixes, no patterns
            raise OAuthError(
                "invalid_request",
                f"redirect_uri {redirect_uri!r} is not registered for this client",
            )
        return redirect_uri

    def authorize(
        self, query: Mapping[str, str], client: Client | None, consented: bool = True
    ) -> str:
        """The URL to send the browser back to: with a ``code``, or with an ``error``
        (``access_denied`` when the person said no)."""
        redirect_uri = self.redirect_uri(query, client)
        assert client is not None  # redirect_uri() refused an unknown one
        answer = {"state": query["state"]} if "state" in query else {}
        problem = authorization_problem(query) or (
            None if consented else ("access_denied", "the user refused")
        )
        if problem is not None:
            return back(
                redirect_uri,
                {
                    "error": problem[0],
                    "error_description": problem[1],
                    **answer,
                    "iss": self.issuer,
                },
            )
        code = secrets.token_urlsafe(24)
        self.codes[code] = Grant(
            client.client_id,
            redirect_uri,
            query.get("scope", ""),
            query.get("resource"),
            self.subject,
            query["code_challenge"],
            time.time() + self.code_lifetime,
        )
        return back(redirect_uri, {"code": code, **answer, "iss": self.issuer})

    # --8<-- [end:authorize]

    # --8<-- [start:token]
    def token(self, form: Mapping[str, str], client: Client) -> dict[str, Any]:
        """The token endpoint, for an authenticated client: a code or a refresh token for tokens."""
        if form.get("grant_type") == "authorization_code":
            grant = self.codes.pop(form.get("code", ""), None)  # popped: a code is good once
            if grant is None or grant.expires < time.time() or grant.client_id != client.client_id:
                raise OAuthError(
                    "invalid_grant", "the code is unknown, used, expired, or not this client's"
                )
            if form.get("redirect_uri") != grant.redirect_uri:
                raise OAuthError(
                    "invalid_grant", "redirect_uri differs from the authorization request's"
                )
            if s256(form.get("code_verifier", "")) != grant.code_challenge:
                raise OAuthError(
                    "invalid_grant", "the code_verifier does not match the code_challenge"
                )
        elif form.get("grant_type") == "refresh_token":
            # Popped: a refresh token is good once (rotation)
            grant = self.refresh_tokens.pop(form.get("refresh_token", ""), None)
            if grant is None or grant.client_id != client.client_id:
                raise OAuthError(
                    "invalid_grant", "the refresh token is unknown, used, or not this client's"
                )
        else:
            raise OAuthError(
                "unsupported_grant_type", f"grant_type {form.get('grant_type')!r} is not supported"
            )
        if form.get("resource", grant.resource) != grant.resource:
            raise OAuthError("invalid_target", "resource differs from the one authorized")
        return self.issue(grant)

    def issue(self, grant: Grant) -> dict[str, Any]:
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "sub": grant.subject,
            "client_id": grant.client_id,
            "scope": grant.scope,
            "iat": now,
            "exp": now + int(self.token_lifetime),
            "jti": secrets.token_hex(8),
        }
        if grant.resource:
            claims["aud"] = grant.resource
        refresh = secrets.token_urlsafe(32)
        self.refresh_tokens[refresh] = grant
        answer = {
            "access_token": jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": KID}),
            "token_type": "Bearer",
            "expires_in": int(self.token_lifetime),
            "refresh_token": refresh,
        }
        return {**answer, "scope": grant.scope} if grant.scope else answer

    # --8<-- [end:token]

    def authenticate(self, form: Mapping[str, str], authorization: str | None) -> Client:
        """Who a token request comes from: HTTP Basic, a secret in the form, or (public) its id."""
        client_id, secret = form.get("client_id"), form.get("client_secret")
        if authorization and authorization.lower().startswith("basic "):
            try:
                client_id, _, secret = base64.b64decode(authorization[6:]).decode().partition(":")
            except ValueError:
                raise OAuthError("invalid_client", "malformed Basic credentials", 401) from None
        client = self.clients.get(client_id or "")
        if client is None or (
            client.secret is not None and not secrets.compare_digest(secret or "", client.secret)
        ):
            raise OAuthError("invalid_client", "unknown client, or wrong secret", 401)
        return client


def authorization_problem(query: Mapping[str, str]) -> tuple[str, str] | None:
    """What is wrong with an authorization request from a known client, as (error, description)."""
    if query.get("response_type") != "code":
        return "unsupported_response_type", "only response_type=code is supported"
    if not query.get("code_challenge"):
        return "invalid_request", "PKCE is required: send code_challenge"
    if query.get("code_challenge_method") != "S256":
        return "invalid_request", "code_challenge_method must be S256 (plain is not accepted)"
    return None


def allowed_redirect(uri: str) -> bool:
    """https, or http on this machine only (a native client's loopback listener); no fragment."""
    parts = urlsplit(uri)
    loopback = parts.scheme == "http" and parts.hostname in ("127.0.0.1", "localhost", "::1")
    return (parts.scheme == "https" or loopback) and not parts.fragment


def back(redirect_uri: str, params: Mapping[str, str]) -> str:
    return f"{redirect_uri}{'&' if '?' in redirect_uri else '?'}{urlencode(params)}"
