"""What the client checks before it trusts a document from a server it has never met (lesson 10).

Discovery hands the client JSON from whoever answered. A server that lies in it can steer the
client: get it a token for *another* resource and replay it there (the confused deputy), or send
its code to another authorization server (the mix-up). Each rule that stops it is one plain
function here, with no I/O:

* :func:`expected_resource` and :func:`checked_resource`: the Protected Resource Metadata must
  name the resource the client asked about, or it is not used at all (RFC 9728 §3.3);
* :func:`checked_issuer`: the authorization server's metadata must name the issuer whose
  well-known URL served it, or it is not used at all (RFC 8414 §3.3);
* :func:`check_iss`: the authorization response's ``iss`` must be that checked issuer (RFC 9207
  §2.4, as revision 2026-07-28 applies it).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from minimcp.auth.browser import AuthorizationFailed

WELL_KNOWN_RESOURCE = "/.well-known/oauth-protected-resource"
DEFAULT_PORTS = {"http": 80, "https": 443}


# --8<-- [start:resource]
def expected_resource(server_url: str, metadata_url: str, from_challenge: bool) -> str:
    """The resource a Protected Resource Metadata document must name (RFC 9728 §3.3).

    Found through the ``401``'s ``resource_metadata``: the URL of the request that was refused.
    Found at a well-known URL: the identifier that URL was made from, the well-known part taken
    out again (``/.well-known/oauth-protected-resource/mcp`` describes ``/mcp``, the root one the
    origin).
    """
    if from_challenge:
        return server_url
    parts = urlsplit(metadata_url)
    return f"{parts.scheme}://{parts.netloc}{parts.path.removeprefix(WELL_KNOWN_RESOURCE)}"


def checked_resource(metadata: dict[str, Any], expected: str) -> str:
    """The metadata's ``resource`` if it is ``expected``; otherwise refuse the whole document.

    Identical after the normalisation URIs allow (case of scheme and host, a default port, a
    trailing ``/``); never with a fragment (RFC 8707 §2). The value goes back exactly as published.
    """
    published = metadata.get("resource")
    if not isinstance(published, str) or canonical(published) != canonical(expected):
        raise AuthorizationFailed(
            f"the protected resource metadata is for {published!r}, not {expected!r}: "
            "it is not used, and no token is requested (RFC 9728 §3.3)"
        )
    return published


def canonical(uri: str) -> str | None:
    """``uri`` in the form two resources are compared in; None for one with a fragment."""
    parts = urlsplit(uri)
    if parts.fragment or "#" in uri:
        return None
    port = parts.port if parts.port != DEFAULT_PORTS.get(parts.scheme.lower()) else None
    host = parts.hostname or ""
    host = (f"[{host}]" if ":" in host else host) + (f":{port}" if port is not None else "")
    query = f"?{parts.query}" if parts.query else ""
    return f"{parts.scheme.lower()}://{host}{parts.path.rstrip('/')}{query}"


# --8<-- [end:resource]


# --8<-- [start:issuer]
def checked_issuer(metadata: dict[str, Any], issuer: str) -> dict[str, Any]:
    """The authorization server's metadata, if its ``issuer`` is the one its URL was made from.

    RFC 8414 §3.3: identical, or the document is not used. Otherwise a server could publish the
    endpoints of another, and the ``iss`` check below would compare against a forged value.
    """
    if metadata.get("issuer") != issuer:
        raise AuthorizationFailed(
            f"the authorization server metadata names the issuer {metadata.get('issuer')!r}, "
            f"not {issuer!r} whose well-known URL served it: it is not used (RFC 8414 §3.3)"
        )
    return metadata


def check_iss(answer: dict[str, str], server: dict[str, Any]) -> None:
    """RFC 9207 §2.4: the authorization response comes from the server the client asked.

    A present ``iss`` is compared with the checked issuer, advertised or not, by simple string
    comparison (no normalisation at all: ``…/`` is another issuer); an absent one is refused only
    from a server whose metadata promised it (``authorization_response_iss_parameter_supported``).
    """
    if "iss" in answer:
        if answer["iss"] != server["issuer"]:  # a code meant for another server (mix-up)
            raise AuthorizationFailed(
                f"the authorization response came from {answer['iss']!r}, "
                f"not {server['issuer']!r} (RFC 9207)"
            )
    elif server.get("authorization_response_iss_parameter_supported"):
        raise AuthorizationFailed("the authorization response lacks the iss it promised (RFC 9207)")


# --8<-- [end:issuer]
