"""Framing: where one message ends and the next begins on a byte stream (lesson 02).

A pipe carries bytes, not messages. Reads return whatever happens to be in the pipe: half a
message, three messages and a bit, one byte. *Framing* is the rule that cuts the stream back into
messages. MCP's stdio transport uses the simplest rule there is: **one JSON message per line**
(newline-delimited JSON). JSON encoders escape newlines inside strings, so a raw ``\\n`` can only
mean "end of message".

The Language Server Protocol, which inspired MCP, frames differently: a ``Content-Length`` header,
an empty line, then exactly that many bytes. It is built here too, as the comparison the lesson
makes; MCP itself never uses it.

Both decoders are *sans-IO*: you :meth:`feed` them bytes from anywhere (an asyncio pipe, a thread,
a test) and pull whole frames out with :meth:`next_frame`. A frame that breaks the rules raises
:class:`FrameError` once, and the decoder carries on with the next frame.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from minimcp.rpc.jsonrpc import INVALID_REQUEST, PARSE_ERROR, RpcError

# --8<-- [start:max_frame]
#: The largest message we accept. A peer that sends more is broken or hostile; we answer it with
#: an error instead of buffering without end.
DEFAULT_MAX_FRAME = 4 * 1024 * 1024  # 4 MiB
# --8<-- [end:max_frame]


class FrameError(RpcError):
    """One frame broke the framing rules. The stream goes on; the connection answers the error."""


class Decoder(Protocol):
    """What a transport needs from a framing: bytes in, whole frames out."""

    def feed(self, data: bytes) -> None: ...

    def next_frame(self) -> bytes | None: ...

    def finish(self) -> bytes | None: ...


# --8<-- [start:ndjson]
# --8<-- [start:encode_line]
def encode_line(payload: bytes) -> bytes:
    """Frame one message for newline-delimited JSON: the message, then ``\\n``."""
    if b"\n" in payload:
        raise ValueError("a newline-delimited message must not contain a raw newline")
    return payload + b"\n"


# --8<-- [end:encode_line]


# --8<-- [start:line_decoder]
class LineDecoder:
    """Cuts a byte stream into lines: MCP's stdio framing.

    A line longer than ``max_frame`` is skipped up to its newline and reported once as a
    :class:`FrameError`, so one huge message never fills memory or stops the messages after it.
    """

    def __init__(self, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        self.max_frame = max_frame
        self._buffer = bytearray()
        self._scanned = 0  # bytes of the buffer already searched for a newline
        self._skipping = False  # inside an over-long line, throwing bytes away until its end

    def feed(self, data: bytes) -> None:
        self._buffer += data

    def next_frame(self) -> bytes | None:
        """The next whole line (without its ``\\n``), or None until more bytes arrive."""
        while True:
            end = self._buffer.find(b"\n", self._scanned)
            if end < 0:  # no complete line yet
                self._scanned = len(self._buffer)
                if self._scanned > self.max_frame:  # too long already: drop what we have
                    self._skipping = True
                    self._buffer.clear()
                    self._scanned = 0
                return None
            line = bytes(self._buffer[:end])
            del self._buffer[: end + 1]
            self._scanned = 0
            if self._skipping or len(line) > self.max_frame:
                self._skipping = False
                raise FrameError(INVALID_REQUEST, f"Message larger than {self.max_frame} bytes")
            line = line.rstrip(b"\r")  # tolerate CRLF line ends (Windows)
            if line.strip():  # blank lines carry no message
                return line

    def finish(self) -> bytes | None:
        """At end of stream: a last message that was not followed by a newline, if any."""
        rest = bytes(self._buffer).strip()
        self._buffer.clear()
        if self._skipping or not rest:
            return None
        return rest if len(rest) <= self.max_frame else None


# --8<-- [end:line_decoder]
# --8<-- [end:ndjson]


# --8<-- [start:content_length]
def encode_content_length(payload: bytes) -> bytes:
    """Frame one message the LSP way: a header, an empty line, then exactly that many bytes."""
    return b"Content-Length: %d\r\n\r\n" % len(payload) + payload


class ContentLengthDecoder:
    """Cuts a byte stream into ``Content-Length`` frames (LSP's framing, for comparison)."""

    def __init__(self, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        self.max_frame = max_frame
        self._buffer = bytearray()
        self._length: int | None = None  # body length, once the header has been read
        self._skip = 0  # bytes of an over-long body still to throw away

    def feed(self, data: bytes) -> None:
        self._buffer += data

    def next_frame(self) -> bytes | None:
        while True:
            if self._skip:  # finish throwing away an over-long body
                dropped = min(self._skip, len(self._buffer))
                del self._buffer[:dropped]
                self._skip -= dropped
                if self._skip:
                    return None
            if self._length is None:
                end = self._buffer.find(b"\r\n\r\n")
                if end < 0:
                    if len(self._buffer) > 8192:  # no sane header is this long
                        self._buffer.clear()
                        raise FrameError(PARSE_ERROR, "Header section too long or missing")
                    return None
                header = bytes(self._buffer[:end]).decode("ascii", "replace")
                del self._buffer[: end + 4]
                length = self._content_length(header)
                if length > self.max_frame:
                    self._skip = length
                    raise FrameError(INVALID_REQUEST, f"Message larger than {self.max_frame} bytes")
                self._length = length
            if len(self._buffer) < self._length:
                return None
            body = bytes(self._buffer[: self._length])
            del self._buffer[: self._length]
            self._length = None
            return body

    @staticmethod
    def _content_length(header: str) -> int:
        for line in header.split("\r\n"):
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                value = value.strip()
                if value.isdigit():
                    return int(value)
                raise FrameError(PARSE_ERROR, f"Bad Content-Length: {value!r}")
        raise FrameError(PARSE_ERROR, "Missing Content-Length header")

    def finish(self) -> bytes | None:
        self._buffer.clear()  # a frame cut short by the end of the stream is lost
        return None


# --8<-- [end:content_length]


#: The framings by name, as ``--framing`` and :func:`minimcp.transports.process.spawn` accept them.
FRAMINGS: dict[str, tuple[Callable[[int], Decoder], Callable[[bytes], bytes]]] = {
    "ndjson": (LineDecoder, encode_line),
    "content-length": (ContentLengthDecoder, encode_content_length),
}
