"""uvicorn's HTTP/1.1 protocol, with a deadline for the head of every request (lesson 08).

Importing this module imports uvicorn, so only
:func:`~minimcp.transports.http.slow_clients.with_header_timeout` imports it, when an HTTP server
starts: ``python -m minimcp serve`` over stdio does without uvicorn, and starts faster.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, ClassVar

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from minimcp.transports.http.tally import Tally

log = logging.getLogger("minimcp.http")
#: What the log says, at most once per interval (:mod:`minimcp.transports.http.tally`)
REFUSED = "refused %d connection(s) over the cap (a process has only so many files)"
DROPPED = "dropped %d connection(s) whose request head took over %g s"


# --8<-- [start:deadline]
class HeaderDeadline(HttpToolsProtocol):
    """uvicorn's HTTP/1.1 protocol, dropping a connection whose request head is late.

    Each connection notes when the head it waits for began (``head_since``), and one watch per
    server walks the open connections a few times per deadline and closes the late ones. A timer
    per request would do the same, at the cost of arming and cancelling it for every request.
    """

    header_timeout: float  # seconds; with_header_timeout sets it in a subclass, one per server
    watch: asyncio.TimerHandle | None = None  # the server's one watch, while it has connections
    # What the log says of refused and dropped connections: a line per interval, not one each
    refused: ClassVar[Tally]  # set with header_timeout
    dropped: ClassVar[Tally]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.head_since: float | None = None  # None: not waiting for a head (between requests)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        limit = self.limit_concurrency
        if limit is not None and len(self.connections) > limit:
            # uvicorn answers 503 only once a request's head is complete, and a slow client
            # never completes one: refuse the connection itself, before the process runs out of
            # files.
            transport.close()
            self.refused.add(self.loop)
            return
        self.head_since = self.loop.time()  # the first request's head is due now
        self.start_watch()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self.head_since is None:  # a later request on the same connection: its head is due
            self.head_since = self.loop.time()

    def on_headers_complete(self) -> None:
        self.head_since = None  # the head arrived: the body and the answer have limits of their own
        super().on_headers_complete()

    def start_watch(self) -> None:
        cls = type(self)
        if cls.watch is None:
            cls.watch = self.loop.call_later(cls.period(), cls.walk, self.connections, self.loop)

    @classmethod
    def period(cls) -> float:
        """How often the watch walks: a late head is dropped at most a quarter of its time late."""
        return min(1.0, cls.header_timeout / 4)

    @classmethod
    def walk(cls, connections: set[Any], loop: asyncio.AbstractEventLoop) -> None:
        """Close every connection whose head is late; walk again while any connection is open."""
        now = loop.time()
        for connection in list(connections):
            since = getattr(connection, "head_since", None)
            if since is not None and now - since > cls.header_timeout:
                connection.too_slow()
        cls.watch = (
            loop.call_later(cls.period(), cls.walk, connections, loop) if connections else None
        )

    def too_slow(self) -> None:
        self.head_since = None
        self.dropped.add(self.loop)
        self.transport.close()


# --8<-- [end:deadline]
