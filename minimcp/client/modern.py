"""The complete client, for both eras, over stdio or Streamable HTTP (lesson 12).

Lesson 07's ``stdio_client`` and lesson 08's ``http_client`` speak the handshake era. Lesson 12
plugs its pieces into them, and nothing in those modules changes (lesson 09's cancellation comes
along, as an extension of the session, unless ``extensions=`` says otherwise):

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

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any

from minimcp.client.client import Client
from minimcp.client.connect import stdio_client
from minimcp.client.http_connect import http_client
from minimcp.session.client_cancellation import cancellation
from minimcp.session.eras import Mode, TwoEras
from minimcp.transports.http.modern_client import ModernHeaders


def modern_stdio_client(
    command: Sequence[str], mode: Mode = Mode.AUTO, **options: Any
) -> AbstractAsyncContextManager[Client]:
    """``stdio_client`` in the era ``mode`` says; the verdict is remembered by the command line."""
    options.setdefault("extensions", [cancellation])
    conversation = TwoEras(mode, server_key=" ".join(command))
    return stdio_client(command, conversation=conversation, **options)


def modern_http_client(
    url: str, mode: Mode = Mode.AUTO, **options: Any
) -> AbstractAsyncContextManager[Client]:
    """``http_client`` in the era ``mode`` says, with the 2026-07-28 headers; the verdict is
    remembered by the URL."""
    options.setdefault("extensions", [cancellation])
    return http_client(
        url, conversation=TwoEras(mode, server_key=url), request_headers=ModernHeaders(), **options
    )
