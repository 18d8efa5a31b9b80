"""uvicorn's HTTP/1.1 protocol, with a deadline for the head of every request (lesson 08).

Importing this module imports uvicorn, so only
:func:`~minimcp.transports.http.slow_clients.with_header_timeout` imports it, when an HTTP server
starts: ``python -m minimcp serve`` over stdio does without uvicorn, and starts faster.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = logging.getLogger("minimcp.http")


# --8<-- [start:deadline]
class HeaderDeadline(HttpToolsProtocol):
    """uvicorn's HTTP/1.1 protocol, dropping a connection whose request head is late."""

    header_timeout: float  # seconds; with_header_timeout sets it in a subclass

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        limit = self.limit_concurrency
        if limit is not None and len(self.connections) > limit:
            # uvicorn answers 503 only once a request's head is complete, and a slow client
            # never completes one: refuse the connection itself, before the process runs out of
            # files.
            transport.close()
            return
        self._arm()  # the first request's head is due now

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm()  # a later request on the same connection: its head is due now

    def on_headers_complete(self) -> None:
        self._disarm()  # the head arrived: the body and the answer have limits of their own
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._deadline is None:
            self._deadline = self.loop.call_later(self.header_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        log.info("dropping a connection whose request head took over %g s", self.header_timeout)
        self.transport.close()


# --8<-- [end:deadline]
