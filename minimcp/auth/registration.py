"""Who the client is to each authorization server: its ``client_id``, kept by issuer (lesson 10).

An authorization server knows a client by the ``client_id`` it was given, in the spec's order of
preference: pre-registered credentials, a Client ID Metadata Document URL (if the server supports
them), or dynamic registration (RFC 7591). Each is good at one server only, except the metadata
document's URL, which any server fetches for itself. So :class:`Identities` keeps them by the
server's ``issuer``, and never shows one server another's (SEP-2352): when a resource moves to a
new authorization server, the client registers there again.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import httpx2

from minimcp.auth.browser import AuthorizationFailed

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")

#: A ``client_id`` and its secret (None for a public client).
Credentials = tuple[str, str | None]


# --8<-- [start:identities]
class Identities:
    """The client's credentials at each authorization server, by issuer (SEP-2352)."""

    def __init__(
        self,
        http: httpx2.AsyncClient,
        redirect_uri: str,
        client_name: str,
        preregistered: Credentials | None = None,
        preregistered_issuer: str | None = None,
        client_metadata_url: str | None = None,
    ) -> None:
        self.http, self.redirect_uri, self.client_name = http, redirect_uri, client_name
        # Pre-registered credentials are for one server: the one named, else the first met.
        self.preregistered, self.preregistered_issuer = preregistered, preregistered_issuer
        self.client_metadata_url = client_metadata_url  # an https URL serving our metadata (CIMD)
        self.known: dict[str, Credentials] = {}

    async def at(self, server: dict[str, Any]) -> Credentials:
        """Our credentials at ``server`` (its checked metadata): known, or obtained now."""
        issuer = server["issuer"]
        if issuer not in self.known:
            self.known[issuer] = await self.new(server)
        return self.known[issuer]

    async def new(self, server: dict[str, Any]) -> Credentials:
        """Pre-registered, a CIMD URL, or registered now: the spec's order of preference."""
        if self.preregistered is not None:
            self.preregistered_issuer = self.preregistered_issuer or server["issuer"]
            if server["issuer"] != self.preregistered_issuer:  # a SHOULD: say so, never reuse
                raise AuthorizationFailed(
                    f"the pre-registered client is for {self.preregistered_issuer}, and the "
                    f"resource now names {server['issuer']}: register the client there"
                )
            return self.preregistered
        if self.client_metadata_url and server.get("client_id_metadata_document_supported"):
            return self.client_metadata_url, None
        if not server.get("registration_endpoint"):
            raise AuthorizationFailed(
                "no client_id: not pre-registered, no metadata document, no registration"
            )
        return await self.register(server["registration_endpoint"])

    # --8<-- [end:identities]

    # --8<-- [start:register]
    async def register(self, endpoint: str) -> Credentials:
        """Dynamic Client Registration (RFC 7591): a public client, with its redirect URI, saying
        what kind of application it is (SEP-837)."""
        response = await self.http.post(
            endpoint,
            json={
                "client_name": self.client_name,
                "redirect_uris": [self.redirect_uri],
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": "none",
                "application_type": application_type(self.redirect_uri),
            },
        )
        if response.status_code not in (200, 201):
            raise AuthorizationFailed(
                f"dynamic registration refused: HTTP {response.status_code} {response.text}"
            )
        registered = response.json()
        return registered["client_id"], registered.get("client_secret")


def application_type(redirect_uri: str) -> str:
    """SEP-837: ``native`` for a client whose browser comes back to this machine (a loopback or
    private-scheme redirect URI), ``web`` for one served from a remote host."""
    parts = urlsplit(redirect_uri)
    remote = parts.scheme in ("http", "https") and parts.hostname not in LOOPBACK_HOSTS
    return "web" if remote else "native"


# --8<-- [end:register]
