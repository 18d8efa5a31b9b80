"""A deadline for the head of every HTTP request: slow clients are dropped (lesson 08).

A *slowloris* client opens a connection and sends its request's headers one byte every few seconds,
never finishing. Each such connection holds a file descriptor, and a process has about a thousand:
a few hundred of them starve every honest client, and the server's log fills with "too many open
files". uvicorn stops waiting for an idle connection between requests (``timeout_keep_alive``), but
not for a request whose head never ends. :func:`with_header_timeout` gives uvicorn its own HTTP
protocol with one rule added: the head of each request must arrive within ``header_timeout`` s.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

log = logging.getLogger("minimcp.http")

#: Seconds a client has to send a request's whole head (the request line and every header).
DEFAULT_HEADER_TIMEOUT = 10.0


def with_header_timeout(seconds: float) -> type:
    """uvicorn's HTTP/1.1 protocol class (on httptools), dropping a connection whose request head is
    later than ``seconds``: what to give uvicorn as ``Config(http=...)``.

    The class is made here, not at import, so that importing this module does not import uvicorn:
    ``python -m minimcp serve`` over stdio starts faster without it.
    """
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    # --8<-- [start:deadline]
    class HeaderDeadline(HttpToolsProtocol):
        """uvicorn's HTTP/1.1 protocol, dropping a connection whose request head is late."""

        header_timeout = seconds

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
    return HeaderDeadline
