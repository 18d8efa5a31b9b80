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
    # BEGIN SOLUTION: byte i of the result is data[i] ^ key[i % 4]
    return bytes(byte ^ key[index % 4] for index, byte in enumerate(data))
    # END SOLUTION


def encode_frame(frame: Frame, mask_key: bytes | None = None) -> bytes:
    """The bytes of ``frame`` on the wire, masked with ``mask_key`` if one is given.

    Raise ValueError for a frame nobody may send: an unknown opcode, a control frame that is
    fragmented (fin False) or longer than 125 bytes, or a mask key that is not 4 bytes.

    >>> encode_frame(Frame(TEXT, b"Hello")).hex()
    '810548656c6c6f'
    """
    # BEGIN SOLUTION: byte 1 FIN|opcode; byte 2 MASK|length (7 bits; 126 + 2 bytes; 127 + 8 bytes)
    if frame.opcode not in OPCODES:
        raise ValueError(f"unknown opcode {frame.opcode:#x}")
    if frame.opcode in CONTROL and (not frame.fin or len(frame.payload) > 125):
        raise ValueError("a control frame has FIN set and at most 125 bytes")
    if mask_key is not None and len(mask_key) != 4:
        raise ValueError("a masking key is 4 bytes")
    head = bytes([(0x80 if frame.fin else 0) | frame.opcode])
    mask_bit = 0x80 if mask_key is not None else 0
    length = len(frame.payload)
    if length < 126:
        head += bytes([mask_bit | length])
    elif length < 1 << 16:
        head += bytes([mask_bit | 126]) + struct.pack("!H", length)
    else:
        head += bytes([mask_bit | 127]) + struct.pack("!Q", length)
    if mask_key is None:
        return head + frame.payload
    return head + mask_key + apply_mask(frame.payload, mask_key)
    # END SOLUTION


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
    # BEGIN SOLUTION: parse the header step by step (None when short), check each rule, then unmask
    if len(buffer) < 2:
        return None
    first, second = buffer[0], buffer[1]
    fin = bool(first & 0x80)
    opcode = first & 0x0F
    masked = bool(second & 0x80)
    length = second & 0x7F
    if first & 0x70:
        raise ProtocolError("reserved bits set, but no extension was negotiated")
    if opcode not in OPCODES:
        raise ProtocolError(f"unknown opcode {opcode:#x}")
    if opcode in CONTROL and (not fin or length > 125):
        raise ProtocolError("a control frame must not be fragmented or longer than 125 bytes")
    if require_mask is True and not masked:
        raise ProtocolError("a client's frames must be masked")
    if require_mask is False and masked:
        raise ProtocolError("a server's frames must not be masked")
    found = _payload_length(buffer)
    if found is None:
        return None
    length, position = found
    if max_size is not None and length > max_size:
        raise ProtocolError(f"frame of {length} bytes exceeds the limit of {max_size}", code=1009)
    key = b""
    if masked:
        if len(buffer) < position + 4:
            return None
        key = buffer[position : position + 4]
        position += 4
    if len(buffer) < position + length:
        return None
    payload = buffer[position : position + length]
    if masked:
        payload = apply_mask(payload, key)
    return Frame(opcode, bytes(payload), fin), position + length
    # END SOLUTION


def _payload_length(buffer: bytes) -> tuple[int, int] | None:
    """The payload length that the header at the start of ``buffer`` gives, and where the header
    goes on after it (the masking key, or the payload); None while the length's bytes are missing.

    The 7 bits of the second byte are the length, or 126 (then 2 more bytes hold it) or 127 (then
    8 more). Raise ProtocolError for a length not encoded in the fewest bytes, and for a 64-bit
    length whose top bit is set.
    """
    # BEGIN SOLUTION: 126: unpack 2 more bytes ("!H"); 127: 8 more ("!Q"); check each is needed
    length = buffer[1] & 0x7F
    if length == 126:
        if len(buffer) < 4:
            return None
        (length,) = struct.unpack("!H", buffer[2:4])
        if length < 126:
            raise ProtocolError("the length must be encoded in the fewest bytes")
        return length, 4
    if length == 127:
        if len(buffer) < 10:
            return None
        (length,) = struct.unpack("!Q", buffer[2:10])
        if length >> 63:
            raise ProtocolError("the top bit of a 64-bit length must be 0")
        if length < 1 << 16:
            raise ProtocolError("the length must be encoded in the fewest bytes")
        return length, 10
    return length, 2
    # END SOLUTION


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
    # BEGIN SOLUTION: check the code, pack it big-endian, append the reason, check the length
    if not valid_close_code(code):
        raise ValueError(f"{code} may not be sent in a close frame")
    payload = struct.pack("!H", code) + reason.encode("utf-8")
    if len(payload) > 125:
        raise ValueError("a close frame carries at most 125 bytes")
    return payload
    # END SOLUTION


def parse_close(payload: bytes) -> tuple[int, str]:
    """The code and reason of a close frame's payload: ``(1005, "")`` when it is empty.

    Raise ProtocolError 1002 for a 1-byte payload or a code nobody may send, and ProtocolError
    1007 for a reason that is not UTF-8.

    >>> parse_close(bytes.fromhex("03e8627965"))
    (1000, 'bye')
    """
    # BEGIN SOLUTION: empty → 1005; one byte → error; else unpack, check the code; decode the reason
    if not payload:
        return 1005, ""
    if len(payload) == 1:
        raise ProtocolError("a close payload has a 2-byte code")
    (code,) = struct.unpack("!H", payload[:2])
    if not valid_close_code(code):
        raise ProtocolError(f"invalid close code {code}")
    try:
        return code, payload[2:].decode("utf-8")
    except UnicodeDecodeError:
        raise ProtocolError("the close reason is not UTF-8", code=1007) from None
    # END SOLUTION


def fragment(opcode: int, payload: bytes, size: int) -> list[Frame]:
    """One message as frames of at most ``size`` payload bytes: the first frame has ``opcode``, the
    others CONTINUATION, and only the last has FIN. An empty payload is one frame.

    Raise ValueError for a control opcode (control frames are never fragmented) or a size below 1.

    >>> fragment(TEXT, b"Hello", 3)
    [Frame(opcode=1, payload=b'Hel', fin=False), Frame(opcode=0, payload=b'lo', fin=True)]
    """
    # BEGIN SOLUTION: slice the payload every `size` bytes; opcode on the first, FIN on the last
    if opcode not in (TEXT, BINARY):
        raise ValueError("only TEXT and BINARY messages are fragmented")
    if size < 1:
        raise ValueError("a fragment holds at least one byte")
    pieces = [payload[start : start + size] for start in range(0, len(payload), size)] or [b""]
    return [
        Frame(opcode if index == 0 else CONTINUATION, piece, fin=index == len(pieces) - 1)
        for index, piece in enumerate(pieces)
    ]
    # END SOLUTION


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
        # BEGIN SOLUTION: remember the limit, the opcode of the unfinished message, and its pieces
        self.max_size = max_size
        self._opcode: int | None = None  # the unfinished message's opcode, or None
        self._pieces: list[bytes] = []
        self._size = 0
        # END SOLUTION

    def feed(self, frame: Frame) -> tuple[int, bytes] | None:
        # BEGIN SOLUTION: control frames pass; data frames start, continue and finish a message
        if frame.opcode in CONTROL:
            return frame.opcode, frame.payload
        if frame.opcode == CONTINUATION:
            if self._opcode is None:
                raise ProtocolError("a continuation frame, but no message was started")
        elif self._opcode is not None:
            raise ProtocolError("a new message started before the last one finished")
        else:
            self._opcode, self._pieces, self._size = frame.opcode, [], 0
        self._size += len(frame.payload)
        if self.max_size is not None and self._size > self.max_size:
            raise ProtocolError(f"message exceeds the limit of {self.max_size} bytes", code=1009)
        self._pieces.append(frame.payload)
        if not frame.fin:
            return None
        opcode, payload = self._opcode, b"".join(self._pieces)
        self._opcode, self._pieces, self._size = None, [], 0
        if opcode == TEXT:
            try:
                payload.decode("utf-8")
            except UnicodeDecodeError:
                raise ProtocolError("a text message that is not UTF-8", code=1007) from None
        return opcode, payload
        # END SOLUTION


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
    # BEGIN SOLUTION: sha1((key + GUID) as ASCII), then base64 of the 20-byte digest
    return base64.b64encode(hashlib.sha1((key + GUID).encode("ascii")).digest()).decode("ascii")
    # END SOLUTION


def header_values(headers: Headers, name: str) -> list[str]:
    """Every value of header ``name`` (any letter case), each comma-separated list split, stripped,
    empty items dropped, in order.

    >>> header_values([("Connection", "keep-alive, Upgrade"), ("connection", " x ,")], "CONNECTION")
    ['keep-alive', 'Upgrade', 'x']
    """
    # BEGIN SOLUTION: pick the headers with that name (casefold), split each value on ",", strip
    values = []
    for header, value in headers:
        if header.lower() == name.lower():
            values += [item.strip() for item in value.split(",") if item.strip()]
    return values
    # END SOLUTION


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
    # BEGIN SOLUTION: the eight checks, in order; then the four answer headers
    if method != "GET":
        raise HandshakeError(405, f"method {method} is not allowed", [("Allow", "GET")])
    if urlsplit(path).path != endpoint:
        raise HandshakeError(404, f"the endpoint is {endpoint}")
    origins = [value for header, value in headers if header.lower() == "origin"]
    if len(origins) > 1:
        raise HandshakeError(400, "more than one Origin header")
    if origins and not _origin_allowed(origins[0], allowed_origins):
        raise HandshakeError(403, f"origin {origins[0]!r} is not allowed")
    upgrade = [("Upgrade", "websocket")]
    if "websocket" not in [value.lower() for value in header_values(headers, "Upgrade")]:
        raise HandshakeError(426, "Upgrade must be websocket", upgrade)
    if "upgrade" not in [value.lower() for value in header_values(headers, "Connection")]:
        raise HandshakeError(426, "Connection must include Upgrade", upgrade)
    if header_values(headers, "Sec-WebSocket-Version") != ["13"]:
        raise HandshakeError(
            426, "only WebSocket version 13 is spoken", [("Sec-WebSocket-Version", "13")]
        )
    keys = [value for header, value in headers if header.lower() == "sec-websocket-key"]
    if len(keys) != 1:
        raise HandshakeError(400, "exactly one Sec-WebSocket-Key is needed")
    try:
        if len(base64.b64decode(keys[0].strip(), validate=True)) != 16:
            raise ValueError
    except (binascii.Error, ValueError):
        raise HandshakeError(400, "Sec-WebSocket-Key must be 16 bytes in base64") from None
    if subprotocol not in header_values(headers, "Sec-WebSocket-Protocol"):
        raise HandshakeError(400, f"the subprotocol {subprotocol!r} was not offered")
    return [
        ("Upgrade", "websocket"),
        ("Connection", "Upgrade"),
        ("Sec-WebSocket-Accept", accept_key(keys[0].strip())),
        ("Sec-WebSocket-Protocol", subprotocol),
    ]
    # END SOLUTION


def _origin_allowed(origin: str, allowed_origins: Iterable[str]) -> bool:
    # BEGIN SOLUTION: listed (normalised), or http(s) on a loopback host
    normal = origin.lower().rstrip("/")
    if normal in {allowed.lower().rstrip("/") for allowed in allowed_origins}:
        return True
    parts = urlsplit(origin)
    loopback = ("localhost", "127.0.0.1", "::1")
    return parts.scheme.lower() in ("http", "https") and (parts.hostname or "") in loopback
    # END SOLUTION


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
        # BEGIN SOLUTION: a name, a deque, flags for "dropped" and "gone", a way to wake a reader
        self.name = name
        self.limit = limit
        self.dropped = False
        self.gone = False  # dropped, or left
        self._queue: deque[str] = deque()
        self._wakeup = asyncio.Event()
        # END SOLUTION

    @property
    def pending(self) -> int:
        # BEGIN SOLUTION
        return len(self._queue)
        # END SOLUTION

    async def next(self) -> str | None:
        """The next message, waiting for one; None once this member is dropped or has left."""
        # BEGIN SOLUTION: loop: a message → return it; gone → None; else wait for a wake-up
        while True:
            if self._queue:
                return self._queue.popleft()
            if self.gone:
                return None
            self._wakeup.clear()
            await self._wakeup.wait()
        # END SOLUTION


class Hub:
    """Fan-out with a bounded queue per member: a slow member is dropped, never waited for."""

    def __init__(self, limit: int = 8) -> None:
        # BEGIN SOLUTION: the limit, and the members in joining order (a dict keeps insertion order)
        if limit < 1:
            raise ValueError("a queue holds at least one message")
        self.limit = limit
        self._members: dict[str, Member] = {}
        # END SOLUTION

    @property
    def members(self) -> list[str]:
        # BEGIN SOLUTION
        return list(self._members)
        # END SOLUTION

    def join(self, name: str) -> Member:
        # BEGIN SOLUTION: refuse a taken name; add a Member with this hub's limit
        if name in self._members:
            raise ValueError(f"{name!r} is already a member")
        member = Member(name, self.limit)
        self._members[name] = member
        return member
        # END SOLUTION

    def leave(self, name: str) -> None:
        # BEGIN SOLUTION: remove the member and end it (queue cleared, readers woken)
        member = self._members.pop(name)
        self._end(member)
        # END SOLUTION

    def publish(self, message: str) -> list[str]:
        """Queue ``message`` for every member; drop the full ones. Returns the names dropped."""
        # BEGIN SOLUTION: for each member: full → drop it (and remember its name), else append
        dropped = []
        for member in list(self._members.values()):
            if len(member._queue) >= self.limit:
                del self._members[member.name]
                member.dropped = True
                self._end(member)
                dropped.append(member.name)
            else:
                member._queue.append(message)
                member._wakeup.set()
        return dropped
        # END SOLUTION

    def _end(self, member: Member) -> None:
        # BEGIN SOLUTION
        member.gone = True
        member._queue.clear()
        member._wakeup.set()
        # END SOLUTION
