"""The course authorization server's decisions, with no I/O (lesson 10).

An OAuth 2.1 authorization server small enough to read, for the authorization code grant with PKCE,
which is what MCP clients use. Every rule here is a check that stops an attack:

* **exact redirect URIs**: a code goes only to a ``redirect_uri`` registered for that client,
  compared as strings (a loopback one on any port, RFC 8252, section 7.3); an unregistered one is
  refused *without* redirecting (else: an open redirector that hands codes to an attacker);
* **PKCE S256, always**: no challenge, or ``plain``, is refused (a stolen code is useless without
  the verifier only the real client holds; ``plain`` would send the verifier itself);
* **one-time, short-lived codes**, bound to the client, the redirect URI, the challenge and the
  ``resource``;
* **audience-bound tokens**: the access token's ``aud`` is the ``resource`` the client named (RFC
  8707), so a token for one MCP server is refused by every other;
* **refresh tokens rotate**: each is good once; using one again means it leaked: it fails, and
  the grant's newer refresh token is revoked too (RFC 9700, section 4.14.2); a code used twice
  revokes the refresh token of its first use in the same way (RFC 6749, section 4.1.2);
* **bounded memory**: codes, refresh tokens and registrations are capped in number and size, and
  what is pending expires (:mod:`minimcp.auth.expiring`): anyone may call these endpoints.

:mod:`minimcp.auth.authorization_server` serves these over HTTP.
"""

from __future__ import annotations

import base64
import secrets
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

from minimcp.auth.expiring import Expiring
from minimcp.auth.validation import (
    AUTH_METHODS,
    OAuthError,
    authorization_problem,
    back,
    check_resource,
    check_verifier,
    checked_name,
    checked_redirect_uris,
    same_redirect,
)

KID = "course-key-1"
#: An access token says what it is in its header (RFC 9068, section 2.1): no other JWT passes
ACCESS_HEADER = {"kid": KID, "typ": "at+jwt"}
#: How many of each a server keeps, at most: enough for a class, not for an attacker's script.
MAX_CODES = 1_000
MAX_REFRESH_TOKENS = 5_000
MAX_REGISTERED = 1_000


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
    #: One id for a code and every refresh token that descends from it: revoked together.
    family: str = field(default_factory=lambda: secrets.token_hex(8))


@dataclass
class Grants:
    """Clients, codes, refresh tokens and the signing key of one authorization server."""

    issuer: str
    subject: str = "ada"  # who is signed in: the course's one user
    code_lifetime: float = 60.0
    token_lifetime: float = 300.0
    refresh_lifetime: float = 24 * 3600.0
    clients: dict[str, Client] = field(default_factory=dict)  # pre-registered, and registered

    def __post_init__(self) -> None:
        # The signing key: in memory, a new one each run
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.codes: Expiring[str, Grant] = Expiring(self.code_lifetime, MAX_CODES)
        self.refresh_tokens: Expiring[str, Grant] = Expiring(
            self.refresh_lifetime, MAX_REFRESH_TOKENS
        )
        # Codes and refresh tokens already used → their family: to know a replay when it comes
        self.spent: Expiring[str, str] = Expiring(self.refresh_lifetime, MAX_REFRESH_TOKENS)
        self.registered: deque[str] = deque()  # the registered clients' ids, oldest first
        self.max_registered = MAX_REGISTERED

    def public_keys(self) -> dict[str, Any]:
        """kid → public key: what a resource server verifies tokens with."""
        return {KID: self.key.public_key()}

    def jwks(self) -> dict[str, Any]:
        jwk = jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        return {"keys": [{**jwk, "kid": KID, "use": "sig", "alg": "RS256"}]}

    # --8<-- [start:register]
    def register(self, metadata: Mapping[str, Any]) -> Client:
        """Dynamic client registration (RFC 7591): a public client (``token_endpoint_auth_method``
        ``none``) or a confidential one (it gets a secret), with https or loopback redirect URIs.

        Anyone may register, so a registration is bounded in size, and the oldest registered client
        is forgotten past :data:`MAX_REGISTERED` (it registers again).
        """
        uris = checked_redirect_uris(metadata.get("redirect_uris"))
        method = metadata.get("token_endpoint_auth_method", "client_secret_basic")
        if method not in AUTH_METHODS:  # RFC 7591, section 3.2.2
            raise OAuthError(
                "invalid_client_metadata",
                f"token_endpoint_auth_method must be one of {', '.join(AUTH_METHODS)}",
            )
        client = Client(
            f"client-{secrets.token_hex(8)}",
            uris,
            secrets.token_urlsafe(24) if method != "none" else None,
            checked_name(metadata.get("client_name", "")),
        )
        self.clients[client.client_id] = client
        self.registered.append(client.client_id)
        while len(self.registered) > self.max_registered:
            self.clients.pop(self.registered.popleft(), None)
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
        # An exact string match (no prefixes, no patterns), but for a loopback URI's port
        if not any(same_redirect(registered, redirect_uri) for registered in client.redirect_uris):
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
        self.codes.put(
            code,
            Grant(
                client.client_id,
                redirect_uri,
                query.get("scope", ""),
                query.get("resource"),
                self.subject,
                query["code_challenge"],
            ),
        )  # forgotten unused after code_lifetime
        return back(redirect_uri, {"code": code, **answer, "iss": self.issuer})

    # --8<-- [end:authorize]

    # --8<-- [start:token]
    def token(self, form: Mapping[str, str], client: Client) -> dict[str, Any]:
        """The token endpoint, for an authenticated client: a code or a refresh token for tokens."""
        if form.get("grant_type") == "authorization_code":
            grant = self.redeem(form, client)
        elif form.get("grant_type") == "refresh_token":
            grant = self.rotate(form, client)
        else:
            raise OAuthError(
                "unsupported_grant_type", f"grant_type {form.get('grant_type')!r} is not supported"
            )
        return self.issue(grant)

    def redeem(self, form: Mapping[str, str], client: Client) -> Grant:
        """The grant a code stands for. A code is good once, whatever happens next; one used again
        revokes the tokens of its first use (RFC 6749, section 4.1.2): it was stolen."""
        code = form.get("code", "")
        grant = self.codes.pop(code)
        if grant is not None:
            self.spent.put(code, grant.family)
        else:
            self.revoke(self.spent.get(code))  # None for a code never issued: nothing to revoke
        if grant is None or grant.client_id != client.client_id:
            raise OAuthError(
                "invalid_grant", "the code is unknown, used, expired, or not this client's"
            )
        if form.get("redirect_uri") != grant.redirect_uri:
            raise OAuthError(
                "invalid_grant", "redirect_uri differs from the authorization request's"
            )
        check_verifier(form.get("code_verifier", ""), grant.code_challenge)
        check_resource(form, grant.resource)
        return grant

    def rotate(self, form: Mapping[str, str], client: Client) -> Grant:
        """The grant a refresh token stands for; the token is spent only once every check passed.

        A spent one coming back means it leaked: the attacker and the client both hold it, and the
        server cannot tell which is which, so the grant's newer refresh token is revoked too
        (RFC 9700, section 4.14.2). Both must ask the person again.
        """
        token = form.get("refresh_token", "")
        grant = self.refresh_tokens.get(token)
        if grant is None or grant.client_id != client.client_id:
            self.revoke(self.spent.get(token))
            raise OAuthError(
                "invalid_grant", "the refresh token is unknown, used, or not this client's"
            )
        check_resource(form, grant.resource)  # a refusal does not spend the token
        self.refresh_tokens.pop(token)
        self.spent.put(token, grant.family)
        return grant

    def revoke(self, family: str | None) -> None:
        """Forget every refresh token of a family. Its access tokens cannot be recalled: a resource
        server checks them on its own, so they live on until they expire (``token_lifetime``)."""
        for token, grant in list(self.refresh_tokens.items()):
            if grant.family == family:
                self.refresh_tokens.pop(token)

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
        self.refresh_tokens.put(refresh, grant)
        answer = {
            "access_token": jwt.encode(claims, self.key, algorithm="RS256", headers=ACCESS_HEADER),
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
            client.secret is not None
            # As bytes: compare_digest refuses a str with non-ASCII characters (a TypeError)
            and not secrets.compare_digest((secret or "").encode(), client.secret.encode())
        ):
            raise OAuthError("invalid_client", "unknown client, or wrong secret", 401)
        return client
