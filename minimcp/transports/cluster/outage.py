"""What a worker says when Redis is away: a plain error to clients, one quiet line to the log
(lesson 11).

Redis down is an outage, not a bug: every request, every followed stream and the relay meet it at
once, many times a second. Each of them turns the Redis client's error into a
:class:`StoreUnavailable`, which clients see as ``503 Service unavailable`` with ``Retry-After``,
naming neither Redis nor its client's error (a client can do nothing with them, and they tell a
stranger how the service is built). The reason goes to the log instead, through :func:`report`: one
line, with no traceback, at most every :data:`QUIET_SECONDS`, however many meet the outage.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable
from typing import Any

log = logging.getLogger("minimcp.cluster")

#: What a client hears while Redis is away.
UNAVAILABLE = "the shared store is unavailable; try again shortly"
#: Seconds between two log lines about the same outage.
QUIET_SECONDS = 10.0

_last_report = -QUIET_SECONDS


class StoreUnavailable(ConnectionError):
    """Redis did not answer: the store cannot keep or replay events right now."""

    def __init__(self, message: str = UNAVAILABLE) -> None:
        super().__init__(message)


def report(error: BaseException) -> None:
    """Log that Redis is away, with the reason: one line, at most every ``QUIET_SECONDS``."""
    global _last_report
    now = time.monotonic()
    if now - _last_report >= QUIET_SECONDS:
        _last_report = now
        log.warning(
            "the shared store (Redis) is unavailable: %s", str(error) or type(error).__name__
        )


async def quietly(work: Awaitable[Any]) -> None:
    """Run background ``work`` that nobody waits for: Redis away is already reported (a quiet line),
    and must not end as an exception nobody retrieves (a traceback each time in the log)."""
    try:
        await work
    except StoreUnavailable:
        pass
