"""Checking an access token: whose it is, who issued it, for which server, until when (lesson 10).

The course's tokens are JWTs (RFC 9068's profile for OAuth access tokens): a signed JSON object of
*claims*. The signature is cryptography, and cryptography is never written by hand: the PyJWT
library checks it. What *this* module decides is the protocol, the list of questions a resource
server must ask of every token before it believes it (spec 2025-11-25, basic/authorization, "Token
Validation"):

* is it an access token at all? Its header's ``typ`` is ``at+jwt`` (RFC 9068, section 4): an ID
  token, or any other JWT the same key signs, is not a key to this server;
* is it signed, with an algorithm we accept (never ``none``), by a key of our authorization server?
* was it issued by that server (``iss``)?
* is it **for us** (``aud`` names this server's canonical URI, RFC 8707)? A token issued for another
  service must be refused, or any service could replay its tokens here (the *confused deputy*);
* is it valid now (``exp`` in the future, ``nbf`` in the past, with a little leeway for clocks)?
* whose is it (``sub``), and what may it do (``scope``)?

Each "no" becomes :class:`InvalidToken` with a sentence that says which question failed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric.ec import EllipticCurvePublicKey
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey

#: Asymmetric algorithms only: a resource server holds public keys, and can never mint a token.
ALGORITHMS = ("RS256", "ES256")
#: The header ``typ`` of an access token (RFC 9068, section 2.1); media types ignore case.
ACCESS_TOKEN_TYPES = ("at+jwt", "application/at+jwt")


class InvalidToken(Exception):
    """The token does not prove what it claims; the message (its ``error_description``) says why."""


# --8<-- [start:verify]
class TokenVerifier:
    """The checks a resource server makes on every access token."""

    def __init__(
        self, issuer: str, audience: str, keys: Mapping[str, Any], *, leeway: float = 30.0
    ) -> None:
        self.issuer = issuer
        self.audience = audience  # this server's canonical URI
        # kid → (a public key, the one algorithm it signs with). A key is a key object, or a JWK
        # (a dict), as authorization servers publish it.
        self.keys = {kid: with_algorithm(key) for kid, key in keys.items()}
        self.leeway = leeway  # seconds of clock difference forgiven around exp and nbf

    def verify(self, token: str) -> dict[str, Any]:
        """The token's claims, once every check passed; otherwise :class:`InvalidToken`."""
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise InvalidToken("The token is not a JWT") from None
        # An ID token or another JWT signed by the same key would pass every check below
        if str(header.get("typ", "")).lower() not in ACCESS_TOKEN_TYPES:
            raise InvalidToken(
                "The token is not an access token (its header's typ must be at+jwt, RFC 9068)"
            )
        if header.get("alg") not in ALGORITHMS:
            raise InvalidToken(f"The token's algorithm {header.get('alg')!r} is not accepted")
        if header.get("kid") not in self.keys:
            raise InvalidToken("The token is signed with a key this server does not know")
        key, algorithm = self.keys[header["kid"]]
        # A key signs with one algorithm: an RSA key named by an ES256 token is a forgery
        if header["alg"] != algorithm:
            raise InvalidToken(f"The token's algorithm {header['alg']!r} is not its key's")
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=[algorithm],
                audience=self.audience,
                issuer=self.issuer,
                leeway=self.leeway,
                options={"require": ["exp", "iss", "aud", "sub"]},
            )
        except jwt.ExpiredSignatureError:
            raise InvalidToken("The token expired") from None
        except jwt.ImmatureSignatureError:
            raise InvalidToken("The token is not valid yet") from None
        except jwt.InvalidAudienceError:
            raise InvalidToken(
                f"The token is not meant for this server ({self.audience})"
            ) from None
        except jwt.InvalidIssuerError:
            raise InvalidToken(f"The token was not issued by {self.issuer}") from None
        except jwt.InvalidSignatureError:
            raise InvalidToken("The token's signature does not match") from None
        except jwt.MissingRequiredClaimError as missing:
            raise InvalidToken(f"The token has no {missing.claim!r} claim") from None
        except jwt.PyJWTError as error:
            raise InvalidToken(f"The token is malformed: {error}") from None
        return claims


# --8<-- [end:verify]


def with_algorithm(key: Any) -> tuple[Any, str]:
    """A public key (an object, or a JWK) and the algorithm of :data:`ALGORITHMS` it verifies."""
    if isinstance(key, dict):
        key = jwt.PyJWK(key).key
    if isinstance(key, RSAPublicKey):
        return key, "RS256"
    if isinstance(key, EllipticCurvePublicKey) and key.curve.name == "secp256r1":
        return key, "ES256"
    raise ValueError(f"a {type(key).__name__} is not a key this server verifies with")


def scopes_of(claims: Mapping[str, Any]) -> set[str]:
    """The scopes a token grants: its ``scope`` claim, space-separated (RFC 9068, section 2.2.3)."""
    scope = claims.get("scope", "")
    return set(scope.split()) if isinstance(scope, str) else set()
