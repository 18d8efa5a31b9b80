"""The complete client, for both eras, over stdio or Streamable HTTP (lesson 12).

Lesson 07's ``stdio_client`` and lesson 08's ``http_client`` speak the handshake era. Lesson 12
plugs its pieces into them, and nothing in those modules changes (lesson 09's cancellation comes
along, as an extension of the session, unless ``extensions=`` says otherwise; over HTTP, as
:func:`cancellation_by_era`, since a 2026-07-28 request is cancelled by closing its stream):

* the session's conversation: :class:`~minimcp.session.eras.TwoEras`, which probes with
  ``server/discover`` in ``Mode.AUTO`` and remembers the verdict by the command line or the URL;
* over HTTP, the transport's ``request_headers``:
  :class:`~minimcp.transports.http.modern_client.ModernHeaders`, the 2026-07-28 headers.

::

    async with modern_http_client("http://127.0.0.1:8000/mcp") as client: ...      # Mode.AUTO
    async with modern_stdio_client(["python", "-m", "minimcp", "serve"], Mode.MODERN) as client:
        ...
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any

from minimcp.client.client import Client
from minimcp.client.connect import stdio_client
from minimcp.client.http_connect import http_client
from minimcp.rpc.jsonrpc import Request
from minimcp.rpc.mcp import has_envelope
from minimcp.session.client import ClientSession
from minimcp.session.client_cancellation import cancellation
from minimcp.session.eras import Mode, TwoEras
from minimcp.transports.http.client import HttpClientTransport
from minimcp.transports.http.modern_client import ModernHeaders


# --8<-- [start:cancellation_by_era]
def cancellation_by_era(session: ClientSession) -> None:
    """Lesson 09's cancellation, as each era does it over HTTP (a ``SessionExtension``).

    A request of the handshake era is cancelled with ``notifications/cancelled``, in its session.
    A 2026-07-28 request has no session to post that notice in: "Closing the SSE response stream is
    the cancellation signal. [...] No ``notifications/cancelled`` message is required or expected"
    (spec 2026-07-28, basic/patterns/cancellation). Its envelope says which era it belongs to.
    """
    cancellation(session)
    transport, tell = session.connection.transport, session.connection.on_abandon
    if not isinstance(transport, HttpClientTransport) or tell is None:
        return  # stdio: the notice, in both eras

    async def abandon(request: Request, reason: str) -> None:
        if has_envelope(request.params):
            transport.stop_reading(request.id)  # (an answer in one JSON body has no stream)
        else:
            await tell(request, reason)

    session.connection.on_abandon = abandon


# --8<-- [end:cancellation_by_era]


#: How a helper below builds its conversation, ``(mode, server_key=...)``: lesson 12's ``TwoEras``,
#: or a later lesson's kind of it (lesson 13's ``TasksConversation``, which takes task handles).
Conversations = Callable[..., TwoEras]


def modern_stdio_client(
    command: Sequence[str],
    mode: Mode = Mode.AUTO,
    *,
    conversation: Conversations = TwoEras,
    **options: Any,
) -> AbstractAsyncContextManager[Client]:
    """``stdio_client`` in the era ``mode`` says; the verdict is remembered by the command line."""
    options.setdefault("extensions", [cancellation])
    talk = conversation(mode, server_key=" ".join(command))
    return stdio_client(command, conversation=talk, **options)


def modern_http_client(
    url: str, mode: Mode = Mode.AUTO, *, conversation: Conversations = TwoEras, **options: Any
) -> AbstractAsyncContextManager[Client]:
    """``http_client`` in the era ``mode`` says, with the 2026-07-28 headers; the verdict is
    remembered by the URL."""
    options.setdefault("extensions", [cancellation_by_era])
    talk = conversation(mode, server_key=url)
    return http_client(url, conversation=talk, request_headers=ModernHeaders(), **options)
