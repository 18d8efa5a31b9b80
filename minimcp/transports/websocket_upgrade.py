"""A WebSocket's HTTP upgrade, checked before any session exists (lesson 07).

A WebSocket begins as one HTTP request that asks to be upgraded. websockets lets a server look at
that request first (its ``process_request`` hook) and answer it with a plain HTTP response instead
of a socket. :func:`handshake_guard` is that hook: a wrong ``Host`` gets 421, a foreign ``Origin``
403, another path 404, by the rules of :mod:`minimcp.transports.guard` that lesson 08's HTTP server
shares. Lesson 10 adds a bearer token, checked here too (``authorize``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from urllib.parse import urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import MultipleValuesError
from websockets.http11 import Request
from websockets.http11 import Response as HttpResponse

from minimcp.transports.guard import host_allowed, hostname_of, origin_allowed

Guard = Callable[[ServerConnection, Request], "HttpResponse | None"]
#: ``authorize(url, path, headers, query)``: None to let the request go on, or the answer to send
#: instead: (status, headers, body). Lesson 10's ``minimcp.auth.websocket_guard`` checks a bearer
#: token, and answers the metadata's plain GETs.
Authorize = Callable[[str, str, Mapping[str, str], bytes], "tuple[int, dict[str, str], str] | None"]


# --8<-- [start:guard]
def handshake_guard(
    path: str,
    allowed_origins: Iterable[str] = (),
    allowed_hosts: Iterable[str] = (),
    authorize: Authorize | None = None,
) -> Guard:
    """websockets' ``process_request`` hook: refuse an upgrade before any session exists.

    It runs on the HTTP request of the handshake. Returning a response refuses the upgrade with it;
    returning None lets websockets go on (and negotiate the subprotocol: no ``mcp``, HTTP 400).
    """
    allowed = tuple(allowed_origins)
    hosts = tuple(allowed_hosts)

    def check(connection: ServerConnection, request: Request) -> HttpResponse | None:
        # Browsers let any web page open a WebSocket to any address, 127.0.0.1 included: no
        # same-origin policy protects it. What the browser does send, and a page cannot forge, is
        # the Origin header. Programs send none: there is no page to distrust.
        try:
            origin = request.headers.get("Origin")
        except MultipleValuesError:
            return connection.respond(400, "Bad Request: more than one Origin header\n")
        try:
            host = request.headers.get("Host", "")
        except MultipleValuesError:
            return connection.respond(400, "Bad Request: more than one Host header\n")
        if not host_allowed(host, hosts):  # DNS rebinding: the same rule as Streamable HTTP's
            refused = hostname_of(host)[:60]
            return connection.respond(
                421, f"Misdirected Request: host {refused!r} is not served here\n"
            )
        if origin is not None and not origin_allowed(origin, allowed):
            return connection.respond(403, f"Forbidden: origin {origin!r} is not allowed\n")
        # Lesson 10: a token, checked once, on the upgrade (and the metadata)
        if authorize is not None:
            answer = check_authorization(authorize, connection, request, path)
            if answer is not None:
                return answer
        if urlsplit(request.path).path != path:
            return connection.respond(404, f"Not Found: the MCP endpoint is {path}\n")
        return None

    return check


# --8<-- [end:guard]


def check_authorization(
    authorize: Authorize, connection: ServerConnection, request: Request, path: str
) -> HttpResponse | None:
    """Ask ``authorize`` about the upgrade (lesson 10): None, or its refusal as an HTTP response."""
    host, port = connection.local_address[:2]
    url = f"ws://{f'[{host}]' if ':' in host else host}:{port}{path}"
    headers = {name.lower(): value for name, value in request.headers.raw_items()}
    target = urlsplit(request.path)
    refused = authorize(url, target.path, headers, target.query.encode())
    if refused is None:
        return None
    status, extra, body = refused
    response = connection.respond(status, body)
    for name, value in extra.items():
        response.headers[name] = value
    return response
