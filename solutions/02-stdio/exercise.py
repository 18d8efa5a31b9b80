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
    # BEGIN SOLUTION: refuse payloads over max_frame, then prepend len(payload).to_bytes(4, "big")
    if len(payload) > max_frame:
        raise FrameTooLarge(f"a frame of {len(payload)} bytes exceeds the limit of {max_frame}")
    return len(payload).to_bytes(HEADER_SIZE, "big") + payload
    # END SOLUTION


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
        # BEGIN SOLUTION: your state (e.g. bytes of a refused frame to skip); then delete this raise
        self._skip = 0  # bytes of a refused frame still to throw away
        # END SOLUTION

    @property
    def buffered(self) -> int:
        """How many bytes the decoder is holding right now (never much more than ``max_frame +
        4``)."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[bytes]:
        """Take the next bytes of the stream; return the frames they complete, in order."""
        # BEGIN SOLUTION: skip a refused frame's rest; then loop: header, limit check, whole body?
        self._buffer += data
        frames: list[bytes] = []
        while True:
            if self._skip:  # throw away the rest of a refused frame, as it arrives
                dropped = min(self._skip, len(self._buffer))
                del self._buffer[:dropped]
                self._skip -= dropped
                if self._skip:
                    return frames
            if len(self._buffer) < HEADER_SIZE:
                return frames
            length = int.from_bytes(self._buffer[:HEADER_SIZE], "big")
            if length > self.max_frame:
                del self._buffer[:HEADER_SIZE]
                self._skip = length
                self.errors.append(f"frame of {length} bytes exceeds the limit of {self.max_frame}")
                continue
            if len(self._buffer) < HEADER_SIZE + length:
                return frames  # the body has not all arrived yet
            frames.append(bytes(self._buffer[HEADER_SIZE : HEADER_SIZE + length]))
            del self._buffer[: HEADER_SIZE + length]
        # END SOLUTION

    def finish(self) -> None:
        """The stream has ended. Raise :class:`TruncatedFrame` unless it ended between two
        frames."""
        # BEGIN SOLUTION: anything still buffered, or to skip, means the stream stopped mid-frame
        if self._buffer or self._skip:
            raise TruncatedFrame(
                f"the stream ended inside a frame ({len(self._buffer)} bytes pending)"
            )
        # END SOLUTION


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
    # BEGIN SOLUTION
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return RS + text.encode("utf-8") + LF
    # END SOLUTION


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
        # BEGIN SOLUTION: state: before any RS? in a text? after one? skipping? Then drop this raise
        # Where we are: "start" (no RS seen yet), "text" (inside a text), "after" (the text was
        # complete; only whitespace may follow), "skip" (dropping a text that is too large).
        self._state = "start"
        self._reported = False  # the current run of garbage has been reported
        self._scanned = 0  # bytes of the current text already searched for LF
        # END SOLUTION

    @property
    def buffered(self) -> int:
        """How many bytes the decoder is holding right now (never much more than ``max_text``)."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[Any]:
        """Take the next bytes of the stream; return the values of the texts they complete."""
        # BEGIN SOLUTION: split the data at each RS; handle the bytes before each RS by your state
        values: list[Any] = []
        pieces = bytes(data).split(RS)
        for index, piece in enumerate(pieces):
            if index > 0:  # an RS came before this piece: whatever was going on ends here
                self._end_element()
                self._state, self._reported = "text", False
            self._take(piece, values)
        return values

    def _take(self, piece: bytes, values: list[Any]) -> None:
        """Bytes that contain no RS, in the current state."""
        if self._state == "skip" or not piece:
            return
        if self._state in ("start", "after"):
            if piece.strip() and not self._reported:  # whitespace between texts is harmless
                self.errors.append("garbage")
                self._reported = True
            return
        self._buffer += piece
        while True:  # inside a text: is it complete at one of the new LFs?
            end = self._buffer.find(LF, self._scanned)
            if end < 0:
                self._scanned = len(self._buffer)
                if len(self._buffer) > self.max_text:
                    self.errors.append("too large")
                    self._buffer.clear()
                    self._scanned = 0
                    self._state = "skip"
                return
            self._scanned = end + 1
            if end + 1 > self.max_text:
                self.errors.append("too large")
                self._buffer.clear()
                self._scanned = 0
                self._state = "skip"
                return
            candidate = bytes(self._buffer[: end + 1])
            if not candidate.strip():
                continue  # only whitespace so far
            try:
                value = json.loads(candidate.decode("utf-8"))
            except ValueError:  # not complete yet (or never will be: the next RS decides)
                continue
            values.append(value)
            rest = bytes(self._buffer[end + 1 :])
            self._buffer.clear()
            self._scanned = 0
            self._state, self._reported = "after", False
            self._take(rest, values)  # only whitespace may follow, up to the next RS
            return

    def _end_element(self) -> None:
        """An RS or the end of the stream: an unfinished text is reported and dropped."""
        if self._state == "text" and self._buffer.strip():
            self.errors.append("invalid" if self._buffer.endswith(LF) else "truncated")
        self._buffer.clear()
        self._scanned = 0
        # END SOLUTION

    def finish(self) -> None:
        """The stream has ended: report the unfinished text, if there is one (see the rules)."""
        # BEGIN SOLUTION
        self._end_element()
        self._state, self._reported = "start", False
        # END SOLUTION


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
        # BEGIN SOLUTION: your state: kept lines (a deque with maxlen), the partial line, cut or not
        self._lines: collections.deque[str] = collections.deque(maxlen=max_lines)
        self._partial = bytearray()  # the current line so far, at most max_line_bytes of it
        self._cut = False  # the current line was longer than max_line_bytes
        # END SOLUTION

    @property
    def lines(self) -> list[str]:
        """The last ``max_lines`` lines, oldest first."""
        # BEGIN SOLUTION
        return list(self._lines)
        # END SOLUTION

    async def drain(self, reader: ByteReader) -> None:
        """Read ``reader`` to its end, line by line, following the rules above."""
        # BEGIN SOLUTION: read(chunk_size) until b""; split each chunk at LF; cap the partial line
        while True:
            chunk = await reader.read(self.chunk_size)
            if not chunk:
                break
            start = 0
            while True:
                end = chunk.find(LF, start)
                if end < 0:
                    self._append(chunk[start:])
                    break
                self._append(chunk[start:end])
                self._end_line()
                start = end + 1
        if self._partial or self._cut:  # the last line had no LF: it counts all the same
            self._end_line()

    def _append(self, data: bytes) -> None:
        """Add bytes to the current line, keeping at most max_line_bytes (+1, for a CR) of it."""
        room = self.max_line_bytes + 1 - len(self._partial)
        if len(data) > room:
            self._cut = True
        self._partial += data[: max(room, 0)]

    def _end_line(self) -> None:
        raw = bytes(self._partial)
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        cut = self._cut or len(raw) > self.max_line_bytes
        line = raw[: self.max_line_bytes].decode("utf-8", "replace") + ("…" if cut else "")
        self._partial.clear()
        self._cut = False
        self._lines.append(line)
        if self.on_line is not None:
            try:
                self.on_line(line)
            except Exception:  # never let a callback stop the drain
                self.callback_errors += 1
        # END SOLUTION
