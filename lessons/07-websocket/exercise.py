# ----------------------------------------------------------------------------------------
# Lesson 07-websocket: your exercise.
#
# 1. Read the docstrings below: each part says exactly what to build.
# 2. Replace each `raise NotImplementedError(...)`, under its TODO, with your code.
# 3. Check your work, as often as you like:  python tools/check.py 07
#
# Stuck for good? A worked answer is in solutions/07-websocket/exercise.py.
# This file is yours: a new version of the course may replace it, so keep a copy of your work.
# ----------------------------------------------------------------------------------------
"""Lesson 07 exercise: the WebSocket machinery that minimcp leaves to the websockets library.

1. **Frames** (RFC 6455, section 5). minimcp hands a string to websockets and gets a string back;
   in between, every message is cut into frames: a header of 2 to 14 bytes (FIN, opcode, mask bit,
   a 7-, 16- or 64-bit length, the masking key) and the payload. Write the frame codec, sans-I/O
   (bytes in, bytes out, no sockets): encode, decode, masking, close frames, fragmentation, and the
   rules whose violation closes a connection with 1002, 1007 or 1009.
2. **The opening handshake** (RFC 6455, section 4). Compute ``Sec-WebSocket-Accept`` and check an
   upgrade request the way minimcp's server does before any session exists: the path (404), the
   ``Origin`` (403), the upgrade headers (426), the key (400), and the subprotocol ``mcp`` (400).
3. **Push to every session, without waiting for the slowest.** ``Server.broadcast`` sends a
   notification to one session after another and waits for each. A client that stopped reading
   makes everyone behind it wait. Write a hub that gives each client a bounded queue and drops a
   client whose queue is full, instead of blocking the others.

Check your work with ``python tools/check.py 07``. Only the standard library is needed.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import struct
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

# =================================================================================================
# Part 1 · Frames (RFC 6455, section 5)
# =================================================================================================
#
# The base framing protocol, bit by bit:
#
#   byte 0:  FIN (0x80) | RSV1 (0x40) | RSV2 (0x20) | RSV3 (0x10) | opcode (0x0F)
#   byte 1:  MASK (0x80) | payload length (0x7F): 0–125 is the length itself;
#            126 means "the length is in the next 2 bytes" (big-endian, unsigned);
#            127 means "the length is in the next 8 bytes" (big-endian; the top bit must be 0)
#   then:    the 4-byte masking key, if MASK is set
#   then:    the payload, XORed with the key (byte i with key[i % 4]) if MASK is set
#
# Rules that `decode_frame` enforces, raising ProtocolError with the close code it deserves:
#   * RSV1, RSV2 and RSV3 must be 0 (no extension is negotiated) ............................ 1002
#   * the opcode must be one of the six below .............................................. 1002
#   * a control frame (CLOSE, PING, PONG) must have FIN set and at most 125 bytes of payload . 1002
#   * the length must use the shortest form: 126 only for 126–65535, 127 only from 65536 ..... 1002
#   * the top bit of a 64-bit length must be 0 ............................................... 1002
#   * require_mask=True (a server reading a client): an unmasked frame is refused ........... 1002
#     require_mask=False (a client reading a server): a masked frame is refused .............. 1002
#     require_mask=None: both are accepted
#   * a payload longer than max_size is refused as soon as the header says so, before its
#     bytes arrive (never buffer what you will refuse) ....................................... 1009

CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
OPCODES = {CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG}
CONTROL = {CLOSE, PING, PONG}


class ProtocolError(Exception):
    """The peer broke the protocol; ``code`` is the close code to send it (1002, 1007 or 1009)."""

    def __init__(self, message: str, code: int = 1002) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Frame:
    """One frame, its payload unmasked."""

    opcode: int
    payload: bytes = b""
    fin: bool = True


def apply_mask(data: bytes, key: bytes) -> bytes:
    """XOR ``data`` with the 4-byte ``key``, repeated: masking and unmasking are the same operation.

    >>> apply_mask(b"Hello", bytes.fromhex("37fa213d")).hex()
    '7f9f4d5158'
    """
    # TODO: byte i of the result is data[i] ^ key[i % 4]
    raise NotImplementedError("apply_mask")


def encode_frame(frame: Frame, mask_key: bytes | None = None) -> bytes:
    """The bytes of ``frame`` on the wire, masked with ``mask_key`` if one is given.

    Raise ValueError for a frame nobody may send: an unknown opcode, a control frame that is
    fragmented (fin False) or longer than 125 bytes, or a mask key that is not 4 bytes.

    >>> encode_frame(Frame(TEXT, b"Hello")).hex()
    '810548656c6c6f'
    """
    # TODO: byte 1 FIN|opcode; byte 2 MASK|length (7 bits; 126 + 2 bytes; 127 + 8 bytes)
    raise NotImplementedError("encode_frame")


def decode_frame(
    buffer: bytes, *, require_mask: bool | None = None, max_size: int | None = None
) -> tuple[Frame, int] | None:
    """The first frame in ``buffer`` and how many bytes it took, or None if it is not all there
    yet.

    Raise ProtocolError (with its close code) for everything the rules above refuse; a frame that
    breaks a rule is refused as soon as its header shows it, even before its payload has arrived.

    >>> decode_frame(bytes.fromhex("810548656c6c6f"))
    (Frame(opcode=1, payload=b'Hello', fin=True), 7)
    >>> decode_frame(bytes.fromhex("8105486c")) is None
    True
    """
    # TODO: parse the header step by step (None when short), check each rule, then unmask
    raise NotImplementedError("decode_frame")


def _payload_length(buffer: bytes) -> tuple[int, int] | None:
    """The payload length that the header at the start of ``buffer`` gives, and where the header
    goes on after it (the masking key, or the payload); None while the length's bytes are missing.

    The 7 bits of the second byte are the length, or 126 (then 2 more bytes hold it) or 127 (then
    8 more). Raise ProtocolError for a length not encoded in the fewest bytes, and for a 64-bit
    length whose top bit is set.
    """
    # TODO: 126: unpack 2 more bytes ("!H"); 127: 8 more ("!Q"); check each is needed
    raise NotImplementedError("_payload_length")


# A close frame's payload is empty, or a 2-byte code (big-endian) followed by a UTF-8 reason.
# The codes a peer may put in a close frame (RFC 6455 section 7.4, and IANA's registry):
# 1000–1003 and 1007–1014 (1004 is reserved; 1005, 1006 and 1015 are only for reporting, never
# sent), and 3000–4999 (registered and private use). 1005 means "the close frame had no code".


def valid_close_code(code: int) -> bool:
    return 1000 <= code <= 1003 or 1007 <= code <= 1014 or 3000 <= code <= 4999


def close_payload(code: int, reason: str = "") -> bytes:
    """The payload of a close frame: the code in 2 bytes, then the reason in UTF-8.

    Raise ValueError for a code nobody may send, or a payload longer than 125 bytes.

    >>> close_payload(1000, "bye").hex()
    '03e8627965'
    """
    # TODO: check the code, pack it big-endian, append the reason, check the length
    raise NotImplementedError("close_payload")


def parse_close(payload: bytes) -> tuple[int, str]:
    """The code and reason of a close frame's payload: ``(1005, "")`` when it is empty.

    Raise ProtocolError 1002 for a 1-byte payload or a code nobody may send, and ProtocolError
    1007 for a reason that is not UTF-8.

    >>> parse_close(bytes.fromhex("03e8627965"))
    (1000, 'bye')
    """
    # TODO: empty → 1005; one byte → error; else unpack, check the code; decode the reason
    raise NotImplementedError("parse_close")


def fragment(opcode: int, payload: bytes, size: int) -> list[Frame]:
    """One message as frames of at most ``size`` payload bytes: the first frame has ``opcode``, the
    others CONTINUATION, and only the last has FIN. An empty payload is one frame.

    Raise ValueError for a control opcode (control frames are never fragmented) or a size below 1.

    >>> fragment(TEXT, b"Hello", 3)
    [Frame(opcode=1, payload=b'Hel', fin=False), Frame(opcode=0, payload=b'lo', fin=True)]
    """
    # TODO: slice the payload every `size` bytes; opcode on the first, FIN on the last
    raise NotImplementedError("fragment")


class Reassembler:
    """Frames in, whole messages out: what ``websocket.recv()`` does under the hood.

    ``feed(frame)`` returns ``(opcode, payload)`` when a message is complete, else None:

    * a control frame (CLOSE, PING, PONG) is returned at once, even between the fragments of a
      message (that is how a ping gets through during a long upload);
    * a TEXT or BINARY frame starts a message; CONTINUATION frames add to it; the frame with FIN
      completes it, returned with the first frame's opcode;
    * a CONTINUATION with no message started, or a TEXT or BINARY while one is unfinished, is a
      ProtocolError 1002; a message growing past ``max_size`` bytes, 1009; a complete TEXT message
      that is not UTF-8, 1007.
    """

    def __init__(self, max_size: int | None = None) -> None:
        # TODO: remember the limit, the opcode of the unfinished message, and its pieces
        raise NotImplementedError("__init__")

    def feed(self, frame: Frame) -> tuple[int, bytes] | None:
        # TODO: control frames pass; data frames start, continue and finish a message
        raise NotImplementedError("feed")


# =================================================================================================
# Part 2 · The opening handshake (RFC 6455, section 4)
# =================================================================================================
#
# The client sends an HTTP/1.1 GET with these headers (names are case-insensitive, and a header may
# appear several times; a comma-separated value is a list):
#
#   Upgrade: websocket                  Connection: Upgrade           Sec-WebSocket-Version: 13
#   Sec-WebSocket-Key: <16 random bytes, base64>                      Sec-WebSocket-Protocol: mcp
#   Origin: <the page's origin>  (browsers only)
#
# `check_upgrade` checks them in this order, and raises HandshakeError with the first failure:
#
#   1. the method is GET ....................................... 405, with ("Allow", "GET")
#   2. the path, without any query string, is the endpoint ..... 404
#   3. at most one Origin header ............................... 400
#      and if there is one, it is allowed ...................... 403
#        allowed: an origin listed in `allowed_origins` (letter case and a trailing "/" aside), or
#        http:// or https:// with the host localhost, 127.0.0.1 or [::1], on any port
#   4. the Upgrade values include "websocket" (any case) ....... 426, with ("Upgrade", "websocket")
#   5. the Connection values include "upgrade" (any case) ...... 426, with ("Upgrade", "websocket")
#   6. exactly one Sec-WebSocket-Version, and it is "13" ....... 426,
#                                                    with ("Sec-WebSocket-Version", "13")
#   7. exactly one Sec-WebSocket-Key, and it is base64 for 16 bytes ... 400
#   8. the Sec-WebSocket-Protocol values include the subprotocol ....... 400
#
# On success it returns the headers of the "101 Switching Protocols" answer, in this order:
#   [("Upgrade", "websocket"), ("Connection", "Upgrade"),
#    ("Sec-WebSocket-Accept", accept_key(key)), ("Sec-WebSocket-Protocol", subprotocol)]

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455's fixed string, the same for everyone
Headers = Sequence[tuple[str, str]]


class HandshakeError(Exception):
    """An upgrade refused: the HTTP ``status`` to answer, and any ``headers`` that go with it."""

    def __init__(self, status: int, message: str, headers: Sequence[tuple[str, str]] = ()) -> None:
        super().__init__(message)
        self.status = status
        self.headers = list(headers)


def accept_key(key: str) -> str:
    """``Sec-WebSocket-Accept``: base64 of the SHA-1 of the key followed by the GUID.

    It proves the server read *this* request as a WebSocket handshake (a cache or a plain HTTP
    server could not produce it); it is not a secret and not security.

    >>> accept_key("dGhlIHNhbXBsZSBub25jZQ==")
    's3pPLMBiTxaQ9kYGzzhZRbK+xOo='
    """
    # TODO: sha1((key + GUID) as ASCII), then base64 of the 20-byte digest
    raise NotImplementedError("accept_key")


def header_values(headers: Headers, name: str) -> list[str]:
    """Every value of header ``name`` (any letter case), each comma-separated list split, stripped,
    empty items dropped, in order.

    >>> header_values([("Connection", "keep-alive, Upgrade"), ("connection", " x ,")], "CONNECTION")
    ['keep-alive', 'Upgrade', 'x']
    """
    # TODO: pick the headers with that name (casefold), split each value on ",", strip
    raise NotImplementedError("header_values")


def check_upgrade(
    method: str,
    path: str,
    headers: Headers,
    *,
    endpoint: str = "/mcp",
    subprotocol: str = "mcp",
    allowed_origins: Iterable[str] = (),
) -> list[tuple[str, str]]:
    """The headers of the 101 answer to a valid upgrade request, or HandshakeError (rules above)."""
    # TODO: the eight checks, in order; then the four answer headers
    raise NotImplementedError("check_upgrade")


def _origin_allowed(origin: str, allowed_origins: Iterable[str]) -> bool:
    # TODO: listed (normalised), or http(s) on a loopback host
    raise NotImplementedError("_origin_allowed")


# =================================================================================================
# Part 3 · Push to every session, without waiting for the slowest
# =================================================================================================
#
# A Hub fans messages out to its members. Each member has its own queue of at most `limit`
# messages, and a reader (the task that writes to that client's socket) takes them with `next()`.
#
#   * `publish(message)` is plain, not async: it never waits. It puts the message on the queue of
#     every member in the hub, in the order members joined. A member whose queue is already full is
#     *dropped* instead (the others still get the message): it leaves the hub, its queued messages
#     are thrown away, and `publish` returns the names dropped this time, in joining order.
#     (A server would now close that client's socket; what it had not read is lost. WebSocket has
#     no way to resume: that is the next lesson.)
#   * `join(name)` adds a member (ValueError if the name is taken); `leave(name)` removes one
#     (KeyError if there is none) and throws its queue away too.
#   * `await member.next()` returns the member's next message, in order, waiting for one if the
#     queue is empty; once the member is dropped or has left, it returns None (at once, and every
#     time after), and a `next()` already waiting wakes up with None.
#   * `member.dropped` is True once the hub dropped it (not when it left on its own);
#     `member.pending` is how many messages wait in its queue; `hub.members` lists the names in the
#     hub, in joining order.


class Member:
    """One client of a Hub: its queue and the state the hub keeps about it."""

    def __init__(self, name: str, limit: int) -> None:
        # TODO: a name, a deque, flags for "dropped" and "gone", a way to wake a reader
        raise NotImplementedError("__init__")

    @property
    def pending(self) -> int:
        raise NotImplementedError("pending")

    async def next(self) -> str | None:
        """The next message, waiting for one; None once this member is dropped or has left."""
        # TODO: loop: a message → return it; gone → None; else wait for a wake-up
        raise NotImplementedError("next")


class Hub:
    """Fan-out with a bounded queue per member: a slow member is dropped, never waited for."""

    def __init__(self, limit: int = 8) -> None:
        # TODO: the limit, and the members in joining order (a dict keeps insertion order)
        raise NotImplementedError("__init__")

    @property
    def members(self) -> list[str]:
        raise NotImplementedError("members")

    def join(self, name: str) -> Member:
        # TODO: refuse a taken name; add a Member with this hub's limit
        raise NotImplementedError("join")

    def leave(self, name: str) -> None:
        # TODO: remove the member and end it (queue cleared, readers woken)
        raise NotImplementedError("leave")

    def publish(self, message: str) -> list[str]:
        """Queue ``message`` for every member; drop the full ones. Returns the names dropped."""
        # TODO: for each member: full → drop it (and remember its name), else append
        raise NotImplementedError("publish")

    def _end(self, member: Member) -> None:
        raise NotImplementedError("_end")
