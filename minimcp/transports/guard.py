"""The network cables' first defence: who may talk to a server on this machine (lessons 07, 08).

A server bound to 127.0.0.1 is out of reach of other machines, but not of the web pages open in this
machine's browser. Two tricks let a page reach it, and two checks stop them (spec 2025-11-25,
basic/transports, "Security Warning", and basic/security_best_practices, "DNS rebinding"):

* a page may simply open a WebSocket or send a request to ``127.0.0.1``: the browser sends the
  page's ``Origin``, which the page cannot forge, so a foreign ``Origin`` is refused (HTTP 403);
* a page from ``evil.example`` may make ``evil.example`` resolve to ``127.0.0.1`` (DNS rebinding):
  the browser still sends ``Host: evil.example``, so a ``Host`` that is not ours is refused (HTTP
  421).

Programs (not browsers) send no ``Origin``: there is no page to distrust, so they are let in.
WebSocket (lesson 07) and Streamable HTTP (lesson 08) both ask these same functions.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit


# --8<-- [start:guard]
def hostname_of(host_header: str) -> str:
    """The host name of a ``Host`` header, without its port: ``"[::1]:8000"`` → ``"::1"``."""
    return urlsplit("//" + host_header).hostname or ""


#: The names of this machine: pages served from them, and the Host a local client uses.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def is_loopback(host: str | None) -> bool:
    """Is ``host`` this machine (``localhost``, ``127.0.0.0/8``, ``::1``)?"""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host or "").is_loopback
    except ValueError:
        return False


def origin_allowed(origin: str, allowed_origins: Iterable[str] = ()) -> bool:
    """May a browser page from ``origin`` talk to us? Listed origins, and this machine's pages."""
    if origin.lower().rstrip("/") in {allowed.lower().rstrip("/") for allowed in allowed_origins}:
        return True
    parts = urlsplit(origin)  # "http://localhost:5173" → scheme http, hostname localhost
    return parts.scheme in ("http", "https") and (parts.hostname or "") in LOOPBACK_HOSTS


def host_allowed(host_header: str, allowed_hosts: Iterable[str] = ()) -> bool:
    """Is the ``Host`` header one of our names (this machine's, or one listed)? Port ignored."""
    host = hostname_of(host_header)
    return host in LOOPBACK_HOSTS or host in {allowed.lower() for allowed in allowed_hosts}


# --8<-- [end:guard]
