"""A deadline for the head of every HTTP request: slow clients are dropped (lesson 08).

A *slowloris* client opens a connection and sends its request's headers one byte every few seconds,
never finishing. Each such connection holds a file descriptor, and a process has about a thousand:
a few hundred of them starve every honest client, and the server's log fills with "too many open
files". uvicorn stops waiting for an idle connection between requests (``timeout_keep_alive``), but
not for a request whose head never ends. :func:`with_header_timeout` gives uvicorn its own HTTP
protocol with one rule added: the head of each request must arrive within ``header_timeout`` s.
(The same protocol bounds the head's size too: :mod:`~minimcp.transports.http.head_size`.)
"""

from __future__ import annotations

import logging
from typing import Any

from minimcp.transports.http.tally import Tally

#: Seconds a client has to send a request's whole head (the request line and every header).
DEFAULT_HEADER_TIMEOUT = 10.0
#: Connections the kernel keeps waiting for the server to accept them, and so (asyncio uses the one
#: number for both) the most it accepts at one wake. uvicorn's 2,048 let a burst of connections,
#: queued while the server was busy, be accepted all at once, before any could be refused over the
#: cap: past 1,024 files, accept() fails, and asyncio logs each failure. 100 is asyncio's own.
ACCEPT_BACKLOG = 100


def with_header_timeout(seconds: float) -> type:
    """uvicorn's HTTP/1.1 protocol class (on httptools), dropping a connection whose request head is
    later than ``seconds`` (and answering 431 to one larger than 64 KiB): what to give uvicorn as
    ``Config(http=...)``.

    The class (:class:`~minimcp.transports.http.head_size.BoundedHead`) is imported here, not at
    import, so that importing this module does not import uvicorn: ``python -m minimcp serve`` over
    stdio starts faster without it.
    """
    from minimcp.transports.http.head_deadline import DROPPED, REFUSED, log
    from minimcp.transports.http.head_size import BoundedHead

    class TimedHeaderDeadline(BoundedHead):
        header_timeout = seconds
        refused = Tally(log, REFUSED)
        dropped = Tally(log, DROPPED, seconds, level=logging.INFO)

    return TimedHeaderDeadline


def slow_client_limits(header_timeout: float, max_connections: int) -> dict[str, Any]:
    """The limits, as uvicorn's configuration: what every HTTP server of the process passes to
    :func:`~minimcp.transports.http.server.launch`. A route left without them (lesson 10's
    authorization server, say) would let slow clients take the whole process's files."""
    return {
        "http": with_header_timeout(header_timeout),
        "limit_concurrency": max_connections,
        "backlog": ACCEPT_BACKLOG,
    }
