"""Where a :class:`~minimcp.client.client.Client` meets Streamable HTTP (lesson 08).

Lesson 07's :func:`~minimcp.client.connect.connected` opens any cable and puts a client on it; this
module gives it lesson 08's::

    async with http_client("http://127.0.0.1:8000/mcp") as client: ...

As with the other cables, options named in :data:`~minimcp.client.connect.CLIENT_OPTIONS` go to the
client and the rest to :class:`~minimcp.transports.http.client.HttpClientTransport` (``on_http``,
``listen``, ``max_retries``, ``auth``…).
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any

from minimcp.client.client import Client
from minimcp.client.connect import connected
from minimcp.rpc import Transport
from minimcp.transports.http.client import HttpClientTransport


async def _http_cable(url: str, **options: Any) -> Transport:
    return HttpClientTransport(url, **options)


def http_client(url: str, **options: Any) -> AbstractAsyncContextManager[Client]:
    """An initialized client over Streamable HTTP to ``http://…/mcp`` (lesson 08)."""
    return connected(_http_cable, url, **options)
