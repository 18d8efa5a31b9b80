"""The MCP server as an OAuth 2.1 resource server: what it checks, and how it refuses (lesson 10).

Over stdio a server trusts the process that started it. On a network address anyone can call, so a
protected server lets a request through only with a valid access token (spec 2025-11-25,
basic/authorization):

* **no token**: ``401`` with ``WWW-Authenticate: Bearer resource_metadata="…", scope="…"``: where to
  read how to get one, and which scopes to ask for;
* **the metadata** (RFC 9728, *Protected Resource Metadata*) at the well-known URL: this resource's
  canonical URI, its authorization servers, its scopes;
* **a bad token** (forged, expired, for another server…): ``401``, ``error="invalid_token"``, why;
* **a good token without a scope this request needs**: ``403``, ``error="insufficient_scope"``, and
  the scope to ask for (the client may *step up*: ask the user for more, and try again);
* **a malformed header, or a token in the URL**: ``400``, ``error="invalid_request"``.

This module holds the rules, for any cable: :class:`ProtectedResource` (what the endpoint is, and
its metadata) and :class:`BearerGuard` (the checks, and the refusals). :mod:`minimcp.auth.guards`
puts them in front of each network cable.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from minimcp.auth.bearer import MalformedAuthorization, bearer_token, challenge
from minimcp.auth.tokens import InvalidToken, TokenVerifier, scopes_of
from minimcp.transports.http.asgi import HttpRequest, Refusal

WELL_KNOWN = "/.well-known/oauth-protected-resource"


@dataclass
class ProtectedResource:
    """A protected MCP endpoint, for OAuth: its canonical URI, who issues its tokens, its scopes."""

    resource: str  # the canonical URI of the MCP endpoint: http://127.0.0.1:8000/mcp (RFC 8707)
    issuer: str  # the authorization server (its issuer identifier)
    keys: Mapping[str, Any]  # kid → the public keys the authorization server signs with
    scopes: list[str] = field(default_factory=list)  # needed for every request
    tool_scopes: dict[str, list[str]] = field(default_factory=dict)  # and more for some tools
    name: str | None = None

    def __post_init__(self) -> None:
        self.verifier = TokenVerifier(self.issuer, self.resource, self.keys)
        parts = urlsplit(self.resource)
        self.path = parts.path or "/"
        # The metadata is an HTTP document, even for a ws:// resource (whose server also answers
        # plain GETs).
        scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
        self.origin = f"{scheme}://{parts.netloc}"

    # --8<-- [start:metadata]
    def metadata(self) -> dict[str, Any]:
        """The Protected Resource Metadata document (RFC 9728, section 2)."""
        document: dict[str, Any] = {
            "resource": self.resource,
            "authorization_servers": [self.issuer],
            "scopes_supported": sorted(
                {*self.scopes, *(s for scopes in self.tool_scopes.values() for s in scopes)}
            ),
            "bearer_methods_supported": ["header"],  # never in the body, never in the URL
        }
        if self.name:
            document["resource_name"] = self.name
        return document

    def metadata_paths(self) -> list[str]:
        """Where the document is served: the path's URL (RFC 9728, section 3.1), then the root."""
        specific = WELL_KNOWN + self.path.rstrip("/") if self.path != "/" else WELL_KNOWN
        return [specific, WELL_KNOWN] if specific != WELL_KNOWN else [WELL_KNOWN]

    def metadata_url(self) -> str:
        return self.origin + self.metadata_paths()[0]

    # --8<-- [end:metadata]


class AuthRefusal(Refusal):
    """An OAuth error answer: a status, an RFC 6750 ``error`` code, and the challenge header."""

    def __init__(self, status: int, error: str | None, description: str, header: str) -> None:
        super().__init__(status, description, headers={"www-authenticate": header})
        self.error = error


class BearerGuard:
    """The checks on a request's bearer token, and the refusals the spec prescribes.

    Every cable with an HTTP request to check uses them: each request of Streamable HTTP, the
    upgrade of a WebSocket.
    """

    def __init__(self, resource: ProtectedResource) -> None:
        self.resource = resource

    # --8<-- [start:check_token]
    def check_token(self, request: HttpRequest, query: bytes) -> dict[str, Any]:
        """The token's claims, or the refusal the spec prescribes for what is wrong with it."""
        if "access_token" in parse_qs(query.decode("latin-1")):
            raise self.refuse(
                400,
                "invalid_request",
                "Access tokens go in the Authorization header, never in the URL",
            )
        try:
            token = bearer_token(request.headers.get("authorization"))
        except MalformedAuthorization as error:
            raise self.refuse(
                400, "invalid_request", f"Malformed Authorization header: {error}"
            ) from None
        # No error code: the client simply has not authenticated yet (RFC 6750, 3.1)
        if token is None:
            raise self.refuse(
                401, None, "Authorization required: a Bearer token from the authorization server"
            )
        try:
            claims = self.resource.verifier.verify(token)
        except InvalidToken as error:
            raise self.refuse(401, "invalid_token", str(error)) from None
        self.require(claims, self.resource.scopes)
        return claims

    def require(self, claims: Mapping[str, Any], needed: Iterable[str]) -> None:
        """403 ``insufficient_scope`` (naming all scopes needed) if the token lacks one of them."""
        needed = list(needed)
        missing = [scope for scope in needed if scope not in scopes_of(claims)]
        if missing:
            raise self.refuse(
                403,
                "insufficient_scope",
                f"The token lacks the scope {' '.join(missing)}",
                scope=" ".join(dict.fromkeys([*self.resource.scopes, *needed])),
            )

    def refuse(
        self, status: int, error: str | None, description: str, scope: str | None = None
    ) -> AuthRefusal:
        if scope is None and status == 401:
            scope = " ".join(self.resource.scopes) or None
        header = challenge(
            error=error,
            error_description=description if error else None,
            resource_metadata=self.resource.metadata_url(),
            scope=scope,
        )
        return AuthRefusal(status, error, description, header)

    # --8<-- [end:check_token]
