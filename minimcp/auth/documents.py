"""Client ID Metadata Documents, fetched with care (lesson 10).

A client may name itself by a URL: ``client_id=https://app.example/client.json``. The authorization
server fetches that document to learn the client's name and redirect URIs
(draft-ietf-oauth-client-id-metadata-document-00, the "CIMD draft" below). That is a server fetching
**wherever a stranger tells it to**: a server-side request forgery (SSRF, CIMD draft section 6.5)
waiting to happen, so every step is checked:

* the URL is **parsed**, never compared as a string: ``http://127.0.0.1.evil.example/`` and
  ``http://127.0.0.1@evil.example/`` are not this machine. It must be https, with a host and a path
  without dot segments, no user name or password, no fragment (CIMD draft section 3);
* its host is **resolved first**, and every address must be a public one: not loopback, private,
  link-local (a cloud's metadata service is at 169.254.169.254) or unique-local. The connection then
  goes to the address that was checked, so a second DNS answer cannot differ (*DNS rebinding*);
* the whole fetch has a **deadline**, not each read (a byte every few seconds would pass those), and
  the document a **size limit**: 5 KB (CIMD draft section 6.6); redirects are not followed;
* a document that is not a JSON object naming itself and its redirect URIs is **refused with the
  reason**, and not kept (CIMD draft sections 4.3 and 4.4);
* a good one is **kept a while**, in a cache with a limit: its ``Cache-Control: max-age``, at most
  five minutes.

**Development switch**: ``ClientDocuments(loopback=True)`` also fetches from this machine
(127.0.0.1, ``localhost``, ``::1``), over http too. The course's authorization server turns it on:
it listens on 127.0.0.1 only, and its examples serve their documents there. A server others can
reach keeps it off, or any web page could make it call this machine's other services.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket
from typing import Any
from urllib.parse import SplitResult, urlsplit

import httpx2

from minimcp.auth.expiring import Expiring
from minimcp.auth.grants import Client
from minimcp.auth.validation import OAuthError, checked_name, checked_redirect_uris
from minimcp.transports.guard import LOOPBACK_HOSTS

MAX_DOCUMENT_BYTES = 5 * 1024  # CIMD draft, section 6.6
DEADLINE = 5.0  # seconds for the whole fetch: resolution, connection, every byte
MAX_CACHED = 256
CACHE_LIFETIME = 300.0  # seconds, at most, whatever the document's max-age says
MAX_FETCHES = 8  # at once; more wait their turn (within their deadline)


def refused(url: str, reason: str) -> OAuthError:
    """``invalid_client`` with the reason: a 400, never a redirect (RFC 6749, section 4.1.2.1)."""
    return OAuthError("invalid_client", f"the client_id {url!r} was refused: {reason}")


class ClientDocuments:
    """The clients described by metadata documents: fetched when named, kept a while."""

    def __init__(self, loopback: bool = False) -> None:
        self.loopback = loopback  # the development switch (see the module's documentation)
        self.deadline = DEADLINE
        self.cache: Expiring[str, Client] = Expiring(CACHE_LIFETIME, MAX_CACHED)
        self.fetching = asyncio.Semaphore(MAX_FETCHES)

    async def client(self, url: str) -> Client:
        """The client ``url`` names, from the cache or fetched; :class:`OAuthError` if refused."""
        cached = self.cache.get(url)
        if cached is not None:
            return cached
        parts = checked_url(url, self.loopback)
        try:
            async with asyncio.timeout(self.deadline), self.fetching:
                address = await checked_address(url, parts, self.loopback)
                document, lifetime = await fetch(url, parts, address)
        except TimeoutError:
            raise refused(url, f"its document did not arrive within {self.deadline:g} s") from None
        client = client_of(url, document)
        if lifetime > 0:  # only a good document is kept (CIMD draft, section 4.4)
            self.cache.put(url, client, lifetime)
        return client


def checked_url(url: str, loopback: bool) -> SplitResult:
    """The URL's parts, once it is one the server may fetch at all (CIMD draft, section 3)."""
    try:
        parts = urlsplit(url)
        host, _ = parts.hostname, parts.port  # each raises ValueError when malformed
    except ValueError:
        raise refused(url, "it is not a URL") from None
    on_this_machine = loopback and parts.scheme == "http" and host in LOOPBACK_HOSTS
    if parts.scheme != "https" and not on_this_machine:
        raise refused(url, "a client_id URL must be https")
    if not host:
        raise refused(url, "it names no host")
    if parts.username is not None or parts.password is not None:
        raise refused(url, "it must not hold a user name or password")
    segments = parts.path.split("/")
    if parts.path in ("", "/") or "." in segments or ".." in segments:
        raise refused(url, "it needs a path, without . or .. segments")
    if "#" in url:
        raise refused(url, "it must not have a fragment")
    return parts


async def checked_address(url: str, parts: SplitResult, loopback: bool) -> str:
    """The address to connect to: the host resolved, and every address it has checked.

    All of them, not the first: a name may answer with a public and a private address, and the
    connection may go to either.
    """
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        answers = await asyncio.get_running_loop().getaddrinfo(
            parts.hostname, port, type=socket.SOCK_STREAM
        )
    except (OSError, ValueError):  # ValueError: a name no DNS can carry (IDNA's UnicodeError)
        raise refused(url, "its host name does not resolve") from None
    addresses = [ipaddress.ip_address(answer[4][0]) for answer in answers]
    for address in addresses:
        public = address.is_global and not address.is_multicast
        if not (public or (loopback and address.is_loopback)):
            raise refused(url, f"its host is at {address}, not a public address")
    return str(addresses[0])


async def fetch(url: str, parts: SplitResult, address: str) -> tuple[Any, float]:
    """The document, read as JSON, and how long it may be kept: fetched from ``address``.

    The request goes to the address checked, with the URL's host in the ``Host`` header and in TLS
    (its server name, and the certificate's check), as if DNS had been asked again.
    """
    # identity: a compressed body could inflate far past the size limit
    headers = {"host": parts.netloc, "accept": "application/json", "accept-encoding": "identity"}
    try:
        target = httpx2.URL(url).copy_with(host=address)
        async with httpx2.AsyncClient(trust_env=False, follow_redirects=False) as http:
            async with http.stream(
                "GET", target, headers=headers, extensions={"sni_hostname": parts.hostname}
            ) as response:
                if response.status_code != 200:  # a redirect too: it is not followed
                    raise refused(url, f"its document answered HTTP {response.status_code}")
                body = await read_limited(url, response)
    except (httpx2.HTTPError, httpx2.InvalidURL):
        raise refused(url, "its document could not be fetched") from None
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        raise refused(url, "its document is not JSON") from None
    return document, lifetime_of(response.headers.get("cache-control"))


async def read_limited(url: str, response: httpx2.Response) -> bytes:
    """The body, or a refusal as soon as it passes :data:`MAX_DOCUMENT_BYTES`."""
    chunks, size = [], 0
    async for chunk in response.aiter_raw():
        size += len(chunk)
        if size > MAX_DOCUMENT_BYTES:
            raise refused(url, f"its document is larger than {MAX_DOCUMENT_BYTES} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def lifetime_of(cache_control: str | None) -> float:
    """How long a document may be kept: its ``max-age``, at most :data:`CACHE_LIFETIME`;
    ``no-store`` or ``no-cache``: not at all (RFC 9111, section 5.2.2)."""
    directives = [directive.strip().lower() for directive in (cache_control or "").split(",")]
    if "no-store" in directives or "no-cache" in directives:
        return 0.0
    for directive in directives:
        if directive.startswith("max-age="):
            seconds = directive.removeprefix("max-age=")
            return min(float(seconds), CACHE_LIFETIME) if seconds.isdigit() else 0.0
    return CACHE_LIFETIME


def client_of(url: str, document: Any) -> Client:
    """The client a document describes, once it is one (CIMD draft, section 4.1)."""
    if not isinstance(document, dict):
        raise refused(url, "its document is not a JSON object")
    if document.get("client_id") != url:
        raise refused(url, "its document's client_id is not its own URL")
    if document.get("token_endpoint_auth_method", "none") != "none" or "client_secret" in document:
        # Nothing can be shared with a client nobody registered: it has no secret
        raise refused(url, "its document's token_endpoint_auth_method must be none")
    try:
        uris = checked_redirect_uris(document.get("redirect_uris"))
        name = checked_name(document.get("client_name", ""))
    except OAuthError as error:
        raise refused(url, f"its document's {error}") from None
    return Client(url, uris, None, name)
