"""A log line that comes at most once per interval, and says how many times it happened (lesson 08).

A server under a flood refuses thousands of connections a second. A line for each would bury every
other line of the log and fill the disk: the flood would win a second time. A :class:`Tally` writes
the first line at once (something began), then counts, and writes at most one line per interval with
the count; when an interval passes with nothing to count, it falls quiet until the next one.
"""

from __future__ import annotations

import asyncio
import logging

#: Seconds between two lines of one tally.
DEFAULT_INTERVAL = 10.0


class Tally:
    """Counts one kind of event, and logs ``message % (count, *args)`` at most once per interval."""

    def __init__(
        self,
        log: logging.Logger,
        message: str,
        *args: object,
        level: int = logging.WARNING,
        interval: float = DEFAULT_INTERVAL,
    ) -> None:
        self.log, self.message, self.args = log, message, args
        self.level, self.interval = level, interval
        self.count = 0  # events not yet in a line
        self.timer: asyncio.TimerHandle | None = None  # while an interval runs

    def add(self, loop: asyncio.AbstractEventLoop) -> None:
        """One more event: a line now if the tally was quiet, else counted for the next line."""
        self.count += 1
        if self.timer is None:
            self.write(loop)

    def write(self, loop: asyncio.AbstractEventLoop) -> None:
        """The line for what was counted (if anything was), and the next interval's timer."""
        if self.count == 0:  # a quiet interval: no line, and the next event is written at once
            self.timer = None
            return
        self.log.log(self.level, self.message, self.count, *self.args)
        self.count = 0
        self.timer = loop.call_later(self.interval, self.write, loop)
