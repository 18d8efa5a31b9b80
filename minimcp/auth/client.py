"""The client's side of MCP authorization, on httpx's ``Auth`` hook (lesson 10).

``httpx2.AsyncClient(auth=OAuth(server_url, ...))`` (or ``http_client(url, auth=...)``) sends every
request with the current access token and, when the MCP server answers ``401`` or
``403 insufficient_scope``, runs the flow of spec 2025-11-25, basic/authorization, then sends the
request again:

1. read the challenge (``WWW-Authenticate``): ``resource_metadata``, ``scope``, ``error``;
2. fetch the Protected Resource Metadata (the challenge's URL, else the well-known ones): the
   resource's canonical URI and its authorization server; a document about another resource is
   refused (RFC 9728 §3.3, :mod:`minimcp.auth.trust`);
3. fetch the authorization server's metadata (RFC 8414 and OpenID discovery, in the spec's order),
   refused unless it names the issuer it was fetched for (RFC 8414 §3.3);
4. identify the client to that issuer: pre-registered credentials, else a Client ID Metadata
   Document URL (if the server supports them), else dynamic registration (RFC 7591); whatever it
   registered, it keeps per issuer and never shows another (SEP-2352);
5. authorize with PKCE (S256), ``state`` and ``resource`` (RFC 8707), the scope chosen as the spec
   says; ``authorize(url)`` returns the redirect the user's browser lands on:
   :mod:`minimcp.auth.browser` has one for a person (their browser) and one for a script; the
   answer's ``state`` and ``iss`` (RFC 9207) must be the ones expected;
6. exchange the code for tokens, with the verifier and ``resource`` again; later, refresh them.

A ``403 insufficient_scope`` starts the flow again with the scopes the challenge names, and those
asked for before (*step-up*, SEP-2350), a bounded number of times: a server that keeps asking gets
the last ``403`` back.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import AsyncGenerator
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2

from minimcp.auth.bearer import parse_challenges
from minimcp.auth.browser import AuthorizationFailed, Authorize, follow_without_a_browser
from minimcp.auth.discovery import (
    authorization_server_metadata_urls,
    pkce_pair,
    resource_metadata_urls,
    select_scope,
)
from minimcp.auth.registration import Identities
from minimcp.auth.trust import check_iss, checked_issuer, checked_resource, expected_resource
from minimcp.transports.http.asgi import VERSION_HEADER


class OAuth(httpx2.Auth):
    """httpx's auth hook: bearer tokens for one MCP server, and the flow that gets them."""

    def __init__(
        self,
        server_url: str,
        *,
        redirect_uri: str = "http://127.0.0.1:33418/callback",
        client_id: str | None = None,
        client_secret: str | None = None,
        client_issuer: str | None = None,
        client_metadata_url: str | None = None,
        client_name: str = "minimcp",
        authorize: Authorize = follow_without_a_browser,
        max_step_ups: int = 2,
        http: httpx2.AsyncClient | None = None,
    ) -> None:
        self.server_url = server_url
        self.redirect_uri = redirect_uri
        self.authorize = authorize
        self.max_step_ups = max_step_ups
        self.asked: str | None = None  # the scope of the last authorization request
        self.tokens: dict[str, Any] = {}  # access_token, refresh_token, scope
        self.server: dict[str, Any] = {}  # the authorization server's metadata, once discovered
        self.resource = server_url  # the canonical URI tokens are requested for (from the metadata)
        # Its own HTTP client for metadata, registration and tokens (never the MCP server's
        # credentials, which it must not see).
        self.http = http or httpx2.AsyncClient(timeout=30, follow_redirects=False)
        # Pre-registered credentials are for ``client_issuer`` (else the first server met).
        preregistered = (client_id, client_secret) if client_id is not None else None
        self.identities = Identities(
            self.http, redirect_uri, client_name, preregistered, client_issuer, client_metadata_url
        )
        self.client_id: str | None = None  # who we are to the current authorization server
        self.client_secret: str | None = None

    # --8<-- [start:flow]
    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        self.sign(request)
        response = yield request
        for attempt in range(1 + self.max_step_ups):
            challenge = parse_challenges(response.headers.get("www-authenticate", "")).get(
                "bearer", {}
            )
            if response.status_code == 401:
                if not (attempt == 0 and await self.refresh()):
                    await self.run_flow(challenge)
            elif response.status_code == 403 and challenge.get("error") == "insufficient_scope":
                # Step-up: ask again, for the scopes the server named
                await self.run_flow(challenge)
            else:
                return
            self.sign(request)
            response = yield request

    # --8<-- [end:flow]

    async def aclose(self) -> None:
        await self.http.aclose()

    def sign(self, request: httpx2.Request) -> None:
        if "access_token" in self.tokens:
            request.headers["authorization"] = f"Bearer {self.tokens['access_token']}"

    # --8<-- [start:run_flow]
    async def run_flow(self, challenge: dict[str, str]) -> None:
        """Discovery, registration, authorization with PKCE, and the token exchange."""
        resource_metadata, issuer = await self.discover_resource(challenge)
        server = await self.discover_server(issuer, legacy=not resource_metadata)
        if server["issuer"] != self.server.get("issuer"):
            self.tokens = {}  # another authorization server: the old one's tokens are not for it
        self.server = server
        await self.identify()
        supported = resource_metadata.get("scopes_supported")
        scope = self.asked = select_scope(challenge.get("scope"), supported, self.asked)
        code, verifier = await self.authorization_code(scope)
        await self.token_request(
            {
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": self.redirect_uri,
                "code_verifier": verifier,
            }
        )

    async def discover_resource(self, challenge: dict[str, str]) -> tuple[dict[str, Any], str]:
        """The Protected Resource Metadata, checked, and the issuer of its authorization server."""
        named = challenge.get("resource_metadata")
        found = await self.first_json(resource_metadata_urls(self.server_url, named))
        if found is None or not found[1].get("authorization_servers"):
            # 2025-03-26 servers had no resource metadata: the MCP server's origin is the
            # authorization server.
            parts = urlsplit(self.server_url)
            return {}, f"{parts.scheme}://{parts.netloc}"
        url, metadata = found
        # RFC 9728 §3.3: about another resource, the document is not used at all.
        expected = expected_resource(self.server_url, url, from_challenge=named is not None)
        self.resource = checked_resource(metadata, expected)
        return metadata, str(metadata["authorization_servers"][0])

    async def discover_server(self, issuer: str, legacy: bool) -> dict[str, Any]:
        """The authorization server's metadata, refused unless it names ``issuer`` (RFC 8414)."""
        found = await self.first_json(authorization_server_metadata_urls(issuer))
        if found is not None:
            return checked_issuer(found[1], issuer)
        if legacy:  # 2025-03-26 again: the default endpoints
            return {
                "issuer": issuer,
                "authorization_endpoint": f"{issuer}/authorize",
                "token_endpoint": f"{issuer}/token",
                "registration_endpoint": f"{issuer}/register",
            }
        raise AuthorizationFailed(f"no authorization server metadata found for {issuer}")

    # --8<-- [end:run_flow]

    async def first_json(self, urls: list[str]) -> tuple[str, dict[str, Any]] | None:
        """The first of ``urls`` to answer 200 with a JSON object (the spec's discovery order),
        and that URL."""
        for url in urls:
            response = await self.http.get(url, headers={VERSION_HEADER: "2025-11-25"})
            if response.status_code == 200:
                try:
                    document = response.json()
                except ValueError:
                    continue
                if isinstance(document, dict):
                    return url, document
        return None

    async def identify(self) -> None:
        """Who we are to the current authorization server (:mod:`minimcp.auth.registration`)."""
        self.client_id, self.client_secret = await self.identities.at(self.server)

    # --8<-- [start:authorization_code]
    async def authorization_code(self, scope: str | None) -> tuple[str, str]:
        """Send the user to the authorization endpoint; return the code and the PKCE verifier."""
        verifier, code_challenge = pkce_pair()
        state = secrets.token_urlsafe(16)
        query = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": self.redirect_uri,
            "code_challenge": code_challenge,
            "code_challenge_method": "S256",
            "state": state,
            "resource": self.resource,
        }
        if scope:
            query["scope"] = scope
        landed = await self.authorize(f"{self.server['authorization_endpoint']}?{urlencode(query)}")
        answer = {name: values[0] for name, values in parse_qs(urlsplit(landed).query).items()}
        if answer.get("state") != state:  # not the answer to our request: a forged redirect
            raise AuthorizationFailed("the authorization response's state does not match")
        check_iss(answer, self.server)  # RFC 9207: a code meant for another server (mix-up)
        if "code" not in answer:
            raise AuthorizationFailed(f"authorization refused: {answer.get('error', 'no code')}")
        return answer["code"], verifier

    # --8<-- [end:authorization_code]

    # --8<-- [start:token_request]
    async def token_request(self, form: dict[str, str]) -> None:
        """POST to the token endpoint, authenticating as the server supports; keep the tokens."""
        form = {**form, "resource": self.resource}
        headers = {}
        methods = self.server.get("token_endpoint_auth_methods_supported", ["client_secret_basic"])
        if self.client_secret and "client_secret_basic" in methods:
            pair = f"{self.client_id}:{self.client_secret}".encode()
            headers["authorization"] = "Basic " + base64.b64encode(pair).decode()
        elif self.client_secret:
            form.update(client_id=str(self.client_id), client_secret=self.client_secret)
        else:  # a public client: it only says who it is
            form["client_id"] = str(self.client_id)
        response = await self.http.post(self.server["token_endpoint"], data=form, headers=headers)
        if response.status_code != 200:
            raise AuthorizationFailed(
                f"the token request was refused: HTTP {response.status_code} {response.text}"
            )
        self.tokens = {**self.tokens, **response.json()}

    async def refresh(self) -> bool:
        """A new access token from the refresh token; False if there is none or it failed."""
        if "refresh_token" not in self.tokens or not self.server:
            return False
        try:
            await self.token_request(
                {"grant_type": "refresh_token", "refresh_token": self.tokens["refresh_token"]}
            )
        except AuthorizationFailed:
            self.tokens.pop("refresh_token", None)
            return False
        return True

    # --8<-- [end:token_request]
