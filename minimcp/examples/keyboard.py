"""The person's keyboard, as ``python -m minimcp chat`` reads it: a line, or Ctrl+C, at once.

Ctrl+C is a signal, and the kernel may hand a signal to *any* thread of a process. A chat has
several: on Python 3.11, asyncio keeps one waiting on each server process it started, and a
provider's client may leave a few more. A plain ``input()`` in the main thread wakes up only for a
signal that reached that very thread: when Ctrl+C lands elsewhere, Python notes it and goes on
waiting for a line that never comes.

What Python does for every signal, whichever thread got it, is write a byte to the "wakeup" file
descriptor (``signal.set_wakeup_fd``). So the chat waits for either of two things, the keyboard or
that pipe (``select``), and reads the line only once it is there; a byte on the pipe lets Python
run its Ctrl+C handler, which raises ``KeyboardInterrupt`` in the main thread as usual. The lines
are read from file descriptor 0 into a buffer of our own: Python's ``sys.stdin`` would read ahead
lines the ``select`` could then not see. (The terminal still edits the line as it is typed:
backspace, Ctrl+U, Ctrl+W.) Where ``select`` cannot wait on the keyboard (Windows), ``input()``
is enough: there Ctrl+C interrupts a console read whatever thread handles it.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
from collections.abc import Iterator
from typing import TextIO

#: The bytes read from the keyboard but not yet handed out as lines.
_pending = bytearray()


def read_line(prompt: str, stream: TextIO | None = None) -> str:
    """The next line typed, without its newline; ``EOFError`` at the end of input (Ctrl+D).

    ``prompt`` goes to ``stream`` (stderr unless told), before the wait."""
    print(prompt, end="", file=stream or sys.stderr, flush=True)
    if os.name != "posix":
        return input()
    while b"\n" not in _pending:
        with _signals_to_a_pipe() as woken:
            ready, _, _ = select.select([0, woken], [], [])
            if woken in ready:
                os.read(woken, 64)  # a signal arrived: Python runs its handler right after
        if 0 in ready:
            chunk = os.read(0, 4096)
            if not chunk:  # the end of input
                if not _pending:
                    raise EOFError
                break
            _pending.extend(chunk)
    line, _, rest = bytes(_pending).partition(b"\n")
    _pending[:] = rest
    return line.decode("utf-8", errors="replace")


@contextlib.contextmanager
def _signals_to_a_pipe() -> Iterator[int]:
    """A pipe Python writes a byte to for every signal that arrives; its end to read from."""
    woken, wake = os.pipe()
    os.set_blocking(wake, False)  # set_wakeup_fd wants it: a handler must never block
    previous = signal.set_wakeup_fd(wake, warn_on_full_buffer=False)
    try:
        yield woken
    finally:
        signal.set_wakeup_fd(previous)
        os.close(woken)
        os.close(wake)
