# ----------------------------------------------------------------------------------------
# Lesson 02-stdio: your exercise.
#
# 1. Read the docstrings below: each part says exactly what to build.
# 2. Replace each `raise NotImplementedError(...)`, under its TODO, with your code.
# 3. Check your work, as often as you like:  python tools/check.py 02
#
# Stuck for good? A worked answer is in solutions/02-stdio/exercise.py.
# This file is yours: a new version of the course may replace it, so keep a copy of your work.
# ----------------------------------------------------------------------------------------
"""Lesson 02 exercise: frame a byte stream, and drain one without ever blocking.

minimcp cuts MCP's stdio stream into messages with newlines (``minimcp/transports/framing.py``) and
keeps reading a child's stderr so that the child never blocks (``minimcp/transports/process.py``).
You build three variations on those two ideas:

1. **Length-prefixed frames**: a 4-byte big-endian length, then exactly that many bytes. Binary
   safe, and the framing of many binary protocols. What does it do with a frame that is too large,
   and what can it *not* recover from?
2. **JSON text sequences** (RFC 7464): ``RS`` (the byte 0x1E), a JSON text, ``LF``. ``RS`` can
   never occur inside JSON, so a reader that loses its place finds the next text at the next ``RS``.
3. **StderrTail**: read a stream to its end, keep only its last lines, in bounded memory, and never
   stop reading, whatever the stream or a callback does.

MCP's stdio transport uses none of these framings: its rule is one JSON message per line. Each is
here because comparing them shows what a framing must decide.

Check your work with ``python tools/check.py 02``.
"""

from __future__ import annotations

import collections
import json
from collections.abc import Callable
from typing import Any, Protocol

# =============================================================================================
# 1. Length-prefixed frames
# =============================================================================================

#: Bytes of the length header in front of every frame.
HEADER_SIZE = 4


class FrameTooLarge(ValueError):
    """A frame is larger than the agreed limit."""


class TruncatedFrame(ValueError):
    """The stream ended in the middle of a frame."""


def encode_frame(payload: bytes, max_frame: int = 1 << 20) -> bytes:
    """Frame ``payload``: its length as 4 big-endian bytes, then the payload itself.

    ``encode_frame(b"hi") == b"\\x00\\x00\\x00\\x02hi"``. A sender refuses to send what the
    receiver would refuse: raise :class:`FrameTooLarge` when ``len(payload) > max_frame``.
    """
    # TODO: refuse payloads over max_frame, then prepend len(payload).to_bytes(4, "big")
    raise NotImplementedError("encode_frame")


class LengthPrefixDecoder:
    """Cuts a byte stream into length-prefixed frames. Sans-IO: bytes in, whole frames out.

    The rules:

    * A frame is a 4-byte big-endian length ``N`` followed by exactly ``N`` bytes. ``N`` may be 0.
    * Bytes arrive in any chunks: a header may be split across two chunks, one chunk may hold
      several frames and the start of the next.
    * A frame longer than ``max_frame`` is *refused*: report it once, by appending
      ``f"frame of {N} bytes exceeds the limit of {max_frame}"`` to :attr:`errors`, then skip its
      ``N`` bytes as they arrive, without storing them. The frames after it decode normally. (Unlike
      a line, a refused frame is easy to skip: its header says exactly how long it is.)
    * There is no other recovery. Nothing in the bytes marks where a frame starts, so one wrong
      length (a bug, a stray ``print`` in the stream) shifts every frame after it. The limit is
      the only defence: a garbage length is usually huge, and is refused rather than waited for.
    """

    def __init__(self, max_frame: int = 1 << 20) -> None:
        self.max_frame = max_frame
        #: One message per refused frame, in order.
        self.errors: list[str] = []
        self._buffer = bytearray()  # bytes received and not yet returned: keep all state in here
        # TODO: your state (e.g. bytes of a refused frame to skip); then delete this raise
        raise NotImplementedError("__init__")

    @property
    def buffered(self) -> int:
        """How many bytes the decoder is holding right now (never much more than ``max_frame +
        4``)."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[bytes]:
        """Take the next bytes of the stream; return the frames they complete, in order."""
        # TODO: skip a refused frame's rest; then loop: header, limit check, whole body?
        raise NotImplementedError("feed")

    def finish(self) -> None:
        """The stream has ended. Raise :class:`TruncatedFrame` unless it ended between two
        frames."""
        # TODO: anything still buffered, or to skip, means the stream stopped mid-frame
        raise NotImplementedError("finish")


# =============================================================================================
# 2. JSON text sequences (RFC 7464)
# =============================================================================================

#: The record separator: the first byte of every text in a JSON text sequence.
RS = b"\x1e"
LF = b"\n"


def encode_json_seq(value: Any) -> bytes:
    """One JSON text sequence element: ``RS``, ``value`` as compact UTF-8 JSON, ``LF``.

    ``encode_json_seq({"a": 1}) == b'\\x1e{"a":1}\\n'``. Keep non-ASCII characters as UTF-8
    (``ensure_ascii=False``): JSON still escapes every control character, ``RS`` included.
    """
    raise NotImplementedError("encode_json_seq")


class JsonSeqDecoder:
    """Decodes an RFC 7464 JSON text sequence, and recovers from whatever garbage it meets.

    ``RS`` can never appear inside a JSON text: JSON escapes control characters in strings and
    allows only space, tab, CR and LF between tokens. So an ``RS`` always starts a new text, and a
    reader that meets garbage drops bytes up to the next ``RS`` and carries on.

    The rules:

    * A text starts after an ``RS``. Several ``RS`` in a row are fine; an element that is empty or
      only whitespace is ignored.
    * A text is complete as soon as it ends with ``LF`` and its bytes (UTF-8) parse as JSON: return
      its value right then, without waiting for the next ``RS``. A pretty-printed text holds
      several ``LF``: try to parse at each one; if it does not parse yet, keep reading.
    * The ``LF`` is what makes a text complete: ``RS 1 2`` followed by ``RS`` is a *truncated*
      ``123``, not the number 12.
    * When an ``RS`` or the end of the stream comes and the current text is not complete, drop it
      and report ``"truncated"`` if it does not end with ``LF``, ``"invalid"`` if it does (it ends
      with ``LF`` and still does not parse, or is not UTF-8).
    * Bytes before the first ``RS``, and bytes after a complete text and before the next ``RS``
      that are not whitespace, are dropped and reported as ``"garbage"`` (once per run of them).
    * A text that grows past ``max_text`` bytes without completing is reported once as
      ``"too large"`` and skipped up to the next ``RS`` without storing it.

    Each report appends its word (``"garbage"``, ``"truncated"``, ``"invalid"`` or ``"too large"``)
    to :attr:`errors`.
    """

    def __init__(self, max_text: int = 1 << 20) -> None:
        self.max_text = max_text
        #: One word per dropped piece of the stream, in order.
        self.errors: list[str] = []
        self._buffer = bytearray()  # the current text (after its RS), as far as it has arrived
        # TODO: state: before any RS? in a text? after one? skipping? Then drop this raise
        raise NotImplementedError("__init__")

    @property
    def buffered(self) -> int:
        """How many bytes the decoder is holding right now (never much more than ``max_text``)."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[Any]:
        """Take the next bytes of the stream; return the values of the texts they complete."""
        # TODO: split the data at each RS; handle the bytes before each RS by your state
        raise NotImplementedError("feed")

    def finish(self) -> None:
        """The stream has ended: report the unfinished text, if there is one (see the rules)."""
        raise NotImplementedError("finish")


# =============================================================================================
# 3. StderrTail: drain a stream without ever blocking it
# =============================================================================================


class ByteReader(Protocol):
    """Anything with ``await read(n)`` returning up to ``n`` bytes, and ``b""`` at the end.

    ``asyncio.StreamReader`` (a child's ``process.stderr``) is one.
    """

    async def read(self, n: int) -> bytes: ...


class StderrTail:
    """Reads a stream (a child's stderr) to its very end, keeping only its last lines.

    A child that writes to a pipe nobody reads blocks as soon as the pipe's buffer is full (64 KiB
    on Linux). So the reader must keep reading *whatever* happens, in memory that stays bounded
    *whatever* the child writes. The rules:

    * :meth:`drain` reads with ``await reader.read(chunk_size)`` until it returns ``b""``. Never
      ``readline()``: on an ``asyncio.StreamReader`` it raises ``ValueError`` for a line longer than
      the reader's limit, and that would stop the drain.
    * A line ends with ``LF``; a ``CR`` just before it is dropped. At the end of the stream, a last
      line without ``LF`` still counts (if it is not empty).
    * Decode each *line* as UTF-8 with ``errors="replace"``, not each chunk: a character whose
      bytes are split across two reads must come out whole.
    * Keep only the last ``max_lines`` lines (:attr:`lines`).
    * A line longer than ``max_line_bytes`` bytes is kept cut: its first ``max_line_bytes`` bytes,
      decoded, followed by ``"…"``. The rest of that line is read and thrown away, never stored.
    * ``on_line(line)`` is called for every line, in order, with the same text :attr:`lines` gets.
      If it raises, add one to :attr:`callback_errors` and carry on: a broken callback must never
      stop the drain (the child would block).
    """

    def __init__(
        self,
        max_lines: int = 20,
        max_line_bytes: int = 1000,
        on_line: Callable[[str], None] | None = None,
        chunk_size: int = 64 * 1024,
    ) -> None:
        self.max_lines = max_lines
        self.max_line_bytes = max_line_bytes
        self.on_line = on_line
        self.chunk_size = chunk_size
        #: How many times ``on_line`` raised.
        self.callback_errors = 0
        # TODO: your state: kept lines (a deque with maxlen), the partial line, cut or not
        raise NotImplementedError("__init__")

    @property
    def lines(self) -> list[str]:
        """The last ``max_lines`` lines, oldest first."""
        raise NotImplementedError("lines")

    async def drain(self, reader: ByteReader) -> None:
        """Read ``reader`` to its end, line by line, following the rules above."""
        # TODO: read(chunk_size) until b""; split each chunk at LF; cap the partial line
        raise NotImplementedError("drain")
