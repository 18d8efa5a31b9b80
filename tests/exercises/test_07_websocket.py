"""Checks for lesson 07's exercise: WebSocket frames, the opening handshake, and a fan-out hub.

Each test's docstring is the hint a student sees when it fails (``python tools/check.py 07``). The
frame tests use RFC 6455's own examples (section 5.7) and the handshake tests its example key
(section 1.3).
"""

from __future__ import annotations

import asyncio
import struct

import pytest

MASK = bytes.fromhex("37fa213d")  # the masking key of RFC 6455's examples

# RFC 6455, section 5.7: every example frame, as bytes.
HELLO_UNMASKED = bytes.fromhex("810548656c6c6f")
HELLO_MASKED = bytes.fromhex("818537fa213d7f9f4d5158")
HEL_FRAGMENT, LO_FRAGMENT = bytes.fromhex("010348656c"), bytes.fromhex("80026c6f")
PING_HELLO = bytes.fromhex("890548656c6c6f")
PONG_HELLO_MASKED = bytes.fromhex("8a8537fa213d7f9f4d5158")


def expect_protocol_error(exercise, code: int, function, *args, **kwargs) -> None:
    """``function(...)`` must raise ProtocolError with ``code``; NotImplementedError passes
    through."""
    try:
        result = function(*args, **kwargs)
    except exercise.ProtocolError as error:
        assert error.code == code, f"ProtocolError code {error.code}; expected {code} ({error})"
        return
    raise AssertionError(f"returned {result!r}; expected ProtocolError {code}")


# -- Exercise 1 · Frames (RFC 6455, section 5) -----------------------------------------------------


def test_apply_mask_xors_with_the_key_repeated(exercise) -> None:
    """apply_mask XORs byte i of the data with key[i % 4]; applying it twice gives the data back."""
    assert exercise.apply_mask(b"Hello", MASK) == bytes.fromhex("7f9f4d5158")
    assert exercise.apply_mask(b"", MASK) == b""
    data = bytes(range(11))
    assert exercise.apply_mask(exercise.apply_mask(data, MASK), MASK) == data
    assert exercise.apply_mask(b"\x00" * 6, b"abcd") == b"abcdab"


def test_encode_the_rfc_examples(exercise) -> None:
    """encode_frame: byte 0 is FIN (0x80) | opcode; byte 1 is MASK (0x80) | length; then the masking
    key and the masked payload when a key is given (RFC 6455, section 5.7)."""
    Frame = exercise.Frame
    assert exercise.encode_frame(Frame(exercise.TEXT, b"Hello")) == HELLO_UNMASKED
    assert exercise.encode_frame(Frame(exercise.TEXT, b"Hello"), MASK) == HELLO_MASKED
    assert exercise.encode_frame(Frame(exercise.TEXT, b"Hel", fin=False)) == HEL_FRAGMENT
    assert exercise.encode_frame(Frame(exercise.CONTINUATION, b"lo")) == LO_FRAGMENT
    assert exercise.encode_frame(Frame(exercise.PING, b"Hello")) == PING_HELLO
    assert exercise.encode_frame(Frame(exercise.PONG, b"Hello"), MASK) == PONG_HELLO_MASKED
    assert exercise.encode_frame(Frame(exercise.CLOSE)) == b"\x88\x00"


def test_encode_uses_16_and_64_bit_lengths(exercise) -> None:
    """Length 0–125 fits in byte 1; 126–65535 is 126 then 2 bytes; from 65536 it is 127 then 8
    bytes, big-endian (RFC 6455's examples: 256 bytes and 64 KiB in a binary frame)."""
    Frame, BINARY = exercise.Frame, exercise.BINARY
    assert exercise.encode_frame(Frame(BINARY, b"x" * 125))[:2] == b"\x82\x7d"
    assert (
        exercise.encode_frame(Frame(BINARY, b"\x00" * 256)) == b"\x82\x7e\x01\x00" + b"\x00" * 256
    )
    assert exercise.encode_frame(Frame(BINARY, b"x" * 65535))[:4] == b"\x82\x7e\xff\xff"
    big = exercise.encode_frame(Frame(BINARY, b"\x00" * 65536))
    assert big[:10] == b"\x82\x7f\x00\x00\x00\x00\x00\x01\x00\x00" and len(big) == 10 + 65536
    masked = exercise.encode_frame(Frame(BINARY, b"\x00" * 256), MASK)
    assert masked[:8] == b"\x82\xfe\x01\x00" + MASK and masked[8:12] == MASK


@pytest.mark.parametrize(
    ("opcode", "payload", "fin", "key"),
    [
        ("PING", b"x" * 126, True, None),  # a control frame over 125 bytes
        ("CLOSE", b"", False, None),  # a fragmented control frame
        ("PONG", b"", False, None),
        (0x3, b"", True, None),  # a reserved opcode
        ("TEXT", b"hi", True, b"abc"),  # a masking key of 3 bytes
        ("TEXT", b"hi", True, b"abcde"),  # and of 5
    ],
)
def test_encode_refuses_frames_nobody_may_send(
    exercise, opcode, payload: bytes, fin: bool, key: bytes | None
) -> None:
    """ValueError for an unknown opcode, a control frame (CLOSE, PING, PONG) that is fragmented or
    longer than 125 bytes, or a masking key that is not exactly 4 bytes."""
    frame = exercise.Frame(
        getattr(exercise, opcode) if isinstance(opcode, str) else opcode, payload, fin
    )
    with pytest.raises(ValueError):
        exercise.encode_frame(frame, key)


def test_decode_the_rfc_examples(exercise) -> None:
    """decode_frame returns (Frame with the payload unmasked, bytes used); it reads only the first
    frame of the buffer."""
    Frame, decode = exercise.Frame, exercise.decode_frame
    assert decode(HELLO_UNMASKED) == (Frame(exercise.TEXT, b"Hello"), 7)
    assert decode(HELLO_MASKED) == (Frame(exercise.TEXT, b"Hello"), 11)
    assert decode(HEL_FRAGMENT + LO_FRAGMENT) == (Frame(exercise.TEXT, b"Hel", fin=False), 5)
    assert decode(LO_FRAGMENT) == (Frame(exercise.CONTINUATION, b"lo"), 4)
    assert decode(PING_HELLO) == (Frame(exercise.PING, b"Hello"), 7)
    assert decode(PONG_HELLO_MASKED) == (Frame(exercise.PONG, b"Hello"), 11)
    assert decode(b"\x82\x7e\x01\x00" + b"\xab" * 256 + b"next") == (
        Frame(exercise.BINARY, b"\xab" * 256),
        260,
    )
    assert decode(b"\x82\x7f" + struct.pack("!Q", 65536) + b"\x01" * 65536) == (
        Frame(exercise.BINARY, b"\x01" * 65536),
        65546,
    )


def test_decode_waits_for_a_whole_frame(exercise) -> None:
    """Every prefix of a frame (the header cut anywhere, or the payload incomplete) returns None."""
    frames = [
        HELLO_UNMASKED,
        HELLO_MASKED,
        b"\x82\x7e\x01\x00" + b"\x00" * 256,
        b"\x82\xff" + struct.pack("!Q", 70000) + MASK + b"\x00" * 70000,
    ]
    for frame in frames:
        for cut in [*range(min(16, len(frame))), len(frame) - 1]:
            assert exercise.decode_frame(frame[:cut]) is None, (
                f"a frame cut at {cut} bytes is incomplete"
            )


def test_decode_enforces_the_masking_direction(exercise) -> None:
    """require_mask=True (a server reading a client) refuses an unmasked frame with 1002;
    require_mask=False (a client reading a server) refuses a masked one; None accepts both."""
    assert exercise.decode_frame(HELLO_MASKED, require_mask=True)[0].payload == b"Hello"
    assert exercise.decode_frame(HELLO_UNMASKED, require_mask=False)[0].payload == b"Hello"
    expect_protocol_error(exercise, 1002, exercise.decode_frame, HELLO_UNMASKED, require_mask=True)
    expect_protocol_error(exercise, 1002, exercise.decode_frame, HELLO_MASKED, require_mask=False)
    # The header alone is enough to refuse: no need to wait for the payload.
    expect_protocol_error(
        exercise, 1002, exercise.decode_frame, HELLO_UNMASKED[:2], require_mask=True
    )


@pytest.mark.parametrize(
    "header",
    [
        "c10548656c6c6f",  # RSV1 set
        "a10548656c6c6f",  # RSV2 set
        "910548656c6c6f",  # RSV3 set
        "830548656c6c6f",  # opcode 0x3: reserved
        "8b0548656c6c6f",  # opcode 0xB: reserved
        "0900",  # a PING without FIN: control frames are never fragmented
        "887e0080",  # a CLOSE of 128 bytes: control frames carry at most 125
        "827e007d",  # 125 bytes in the 16-bit form: not the shortest
        "827f000000000000ffff",  # 65535 bytes in the 64-bit form: not the shortest
        "827f8000000000000000",  # a 64-bit length with its top bit set
    ],
)
def test_decode_refuses_protocol_violations_with_1002(exercise, header: str) -> None:
    """ProtocolError 1002 for reserved bits, unknown opcodes, fragmented or oversized control
    frames, a length not in its shortest form, and a 64-bit length with the top bit set. Decide from
    the header: these buffers hold no payload at all."""
    expect_protocol_error(exercise, 1002, exercise.decode_frame, bytes.fromhex(header))


def test_decode_refuses_an_oversized_frame_from_its_header(exercise) -> None:
    """A payload longer than max_size is ProtocolError 1009, raised as soon as the length is read
    (here the payload has not arrived: never buffer what you will refuse)."""
    assert exercise.decode_frame(HELLO_UNMASKED, max_size=5)[0].payload == b"Hello"
    expect_protocol_error(exercise, 1009, exercise.decode_frame, HELLO_UNMASKED[:2], max_size=4)
    expect_protocol_error(
        exercise,
        1009,
        exercise.decode_frame,
        b"\x81\x7f" + struct.pack("!Q", 2**40),
        max_size=2**20,
    )


def test_close_payload_and_parse_close(exercise) -> None:
    """A close payload is the code in 2 big-endian bytes, then the reason in UTF-8. Empty means 1005
    ("no code"). Codes you may send: 1000–1003, 1007–1014, 3000–4999."""
    assert exercise.close_payload(1000) == b"\x03\xe8"
    assert (
        exercise.close_payload(1003, "MCP messages are JSON text")
        == b"\x03\xebMCP messages are JSON text"
    )
    assert exercise.close_payload(4000, "ñ") == b"\x0f\xa0\xc3\xb1"
    assert exercise.parse_close(b"\x03\xe8") == (1000, "")
    assert exercise.parse_close(b"\x03\xf1message too big") == (1009, "message too big")
    assert exercise.parse_close(b"") == (1005, "")
    for code in (1000, 1001, 1002, 1003, 1007, 1011, 1014, 3000, 4999):
        assert exercise.parse_close(exercise.close_payload(code, "why")) == (code, "why")


def test_close_codes_nobody_may_send_are_refused(exercise) -> None:
    """close_payload: ValueError for 0–999, 1004, 1005, 1006, 1015, 1016–2999, 5000+, or a payload
    over 125 bytes. parse_close: ProtocolError 1002 for those codes or a 1-byte payload, 1007 for a
    reason that is not UTF-8."""
    for code in (0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000):
        with pytest.raises(ValueError):
            exercise.close_payload(code)
        expect_protocol_error(exercise, 1002, exercise.parse_close, struct.pack("!H", code))
    with pytest.raises(ValueError):
        exercise.close_payload(1000, "x" * 124)
    assert len(exercise.close_payload(1000, "x" * 123)) == 125
    expect_protocol_error(exercise, 1002, exercise.parse_close, b"\x03")
    expect_protocol_error(exercise, 1007, exercise.parse_close, b"\x03\xe8\xff\xfe")


def test_fragment_cuts_a_message_into_continuation_frames(exercise) -> None:
    """The first frame has the message's opcode, the others CONTINUATION; only the last has FIN.
    Encoded without a mask, "Hello" in 3-byte pieces is RFC 6455's fragmented example."""
    Frame, TEXT, CONT = exercise.Frame, exercise.TEXT, exercise.CONTINUATION
    frames = exercise.fragment(TEXT, b"Hello", 3)
    assert frames == [Frame(TEXT, b"Hel", fin=False), Frame(CONT, b"lo", fin=True)]
    assert b"".join(exercise.encode_frame(frame) for frame in frames) == HEL_FRAGMENT + LO_FRAGMENT
    assert exercise.fragment(exercise.BINARY, b"abcdef", 2) == [
        Frame(exercise.BINARY, b"ab", fin=False),
        Frame(CONT, b"cd", fin=False),
        Frame(CONT, b"ef"),
    ]
    assert exercise.fragment(TEXT, b"Hello", 5) == [Frame(TEXT, b"Hello")]
    assert exercise.fragment(TEXT, b"", 3) == [Frame(TEXT, b"")]
    for opcode, size in ((exercise.PING, 3), (exercise.CLOSE, 3), (CONT, 3), (TEXT, 0)):
        with pytest.raises(ValueError):
            exercise.fragment(opcode, b"Hello", size)


def test_reassembler_joins_fragments_and_lets_control_frames_through(exercise) -> None:
    """feed() returns None until the frame with FIN, then (first opcode, joined payload). A PING in
    the middle of a fragmented message comes out at once, and the message goes on."""
    Frame = exercise.Frame
    assembler = exercise.Reassembler()
    assert assembler.feed(Frame(exercise.TEXT, b'{"jsonrpc":', fin=False)) is None
    assert assembler.feed(Frame(exercise.PING, b"are you there")) == (
        exercise.PING,
        b"are you there",
    )
    assert assembler.feed(Frame(exercise.CONTINUATION, b'"2.0",', fin=False)) is None
    assert assembler.feed(Frame(exercise.CONTINUATION, b'"method":"ping","id":1}')) == (
        exercise.TEXT,
        b'{"jsonrpc":"2.0","method":"ping","id":1}',
    )
    assert assembler.feed(Frame(exercise.BINARY, b"\x00\x01")) == (exercise.BINARY, b"\x00\x01")
    # Round trip: fragment, encode, decode, reassemble.
    message = "ünïcödé ".encode() * 50
    buffer = b"".join(
        exercise.encode_frame(f, MASK) for f in exercise.fragment(exercise.TEXT, message, 7)
    )
    assembler, got = exercise.Reassembler(), None
    while buffer:
        frame, used = exercise.decode_frame(buffer, require_mask=True)
        buffer = buffer[used:]
        got = assembler.feed(frame)
    assert got == (exercise.TEXT, message)


def test_reassembler_refuses_broken_sequences(exercise) -> None:
    """ProtocolError 1002 for a CONTINUATION with nothing started or a new TEXT/BINARY before the
    last message finished; 1009 when a message grows past max_size; 1007 for text that is not UTF-8
    (judged on the whole message: a UTF-8 character may be split across two frames)."""
    Frame, TEXT, CONT = exercise.Frame, exercise.TEXT, exercise.CONTINUATION
    expect_protocol_error(exercise, 1002, exercise.Reassembler().feed, Frame(CONT, b"x"))
    assembler = exercise.Reassembler()
    assembler.feed(Frame(TEXT, b"a", fin=False))
    expect_protocol_error(exercise, 1002, assembler.feed, Frame(exercise.BINARY, b"b"))
    assembler = exercise.Reassembler(max_size=10)
    assert assembler.feed(Frame(TEXT, b"0123456789")) == (TEXT, b"0123456789")
    assert assembler.feed(Frame(TEXT, b"01234", fin=False)) is None
    expect_protocol_error(exercise, 1009, assembler.feed, Frame(CONT, b"567890", fin=False))
    expect_protocol_error(exercise, 1007, exercise.Reassembler().feed, Frame(TEXT, b"\xff"))
    assembler = exercise.Reassembler()
    euro = "€".encode()  # three bytes, split across two frames
    assert assembler.feed(Frame(TEXT, euro[:1], fin=False)) is None
    assert assembler.feed(Frame(CONT, euro[1:])) == (TEXT, euro)


# -- Exercise 2 · The opening handshake (RFC 6455, section 4) --------------------------------------

RFC_KEY = "dGhlIHNhbXBsZSBub25jZQ=="
GOOD = [
    ("Host", "127.0.0.1:8765"),
    ("Upgrade", "websocket"),
    ("Connection", "Upgrade"),
    ("Sec-WebSocket-Key", RFC_KEY),
    ("Sec-WebSocket-Version", "13"),
    ("Sec-WebSocket-Protocol", "mcp"),
]


def replaced(name: str, *values: str) -> list[tuple[str, str]]:
    """GOOD with every ``name`` header replaced by ``values`` (none: removed)."""
    return [(h, v) for h, v in GOOD if h.lower() != name.lower()] + [
        (name, value) for value in values
    ]


def refusal(
    exercise, method: str, path: str, headers, **options
) -> tuple[int, list[tuple[str, str]]]:
    try:
        answer = exercise.check_upgrade(method, path, headers, **options)
    except exercise.HandshakeError as error:
        return error.status, error.headers
    raise AssertionError(f"accepted, with {answer!r}; expected a HandshakeError")


def test_accept_key_is_the_rfc_example(exercise) -> None:
    """Sec-WebSocket-Accept = base64(SHA-1(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")). RFC
    6455's example key dGhlIHNhbXBsZSBub25jZQ== gives s3pPLMBiTxaQ9kYGzzhZRbK+xOo=."""
    assert exercise.accept_key(RFC_KEY) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
    assert exercise.accept_key("x3JJHMbDL1EzLkh9GBhXDw==") == "HSmrc0sMlYUkAGmm5OPpG2HaGWk="


def test_header_values_are_case_insensitive_lists(exercise) -> None:
    """Every value of the header, any letter case in its name, comma lists split and stripped,
    empty items dropped, in order."""
    headers = [
        ("Connection", "keep-alive, Upgrade"),
        ("connection", " x ,"),
        ("Upgrade", "websocket"),
    ]
    assert exercise.header_values(headers, "CONNECTION") == ["keep-alive", "Upgrade", "x"]
    assert exercise.header_values(headers, "upgrade") == ["websocket"]
    assert exercise.header_values(headers, "Origin") == []


def test_a_valid_upgrade_gets_the_101_headers(exercise) -> None:
    """Return [Upgrade: websocket, Connection: Upgrade, Sec-WebSocket-Accept,
    Sec-WebSocket-Protocol] in that order. Header names and the Upgrade/Connection values may be in
    any letter case, and Connection may be a list; the subprotocol may be one of several offered."""
    expected = [
        ("Upgrade", "websocket"),
        ("Connection", "Upgrade"),
        ("Sec-WebSocket-Accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="),
        ("Sec-WebSocket-Protocol", "mcp"),
    ]
    assert exercise.check_upgrade("GET", "/mcp", GOOD) == expected
    shouty = [(name.upper(), value) for name, value in GOOD if name != "Connection"]
    shouty += [("CONNECTION", "keep-alive, UPGRADE"), ("UPGRADE", "WebSocket")]
    shouty = [(n, v) for n, v in shouty if n != "UPGRADE" or v == "WebSocket"]
    assert exercise.check_upgrade("GET", "/mcp?x=1", shouty) == expected
    several = replaced("Sec-WebSocket-Protocol", "chat, mcp", "other")
    assert exercise.check_upgrade("GET", "/mcp", several) == expected
    assert exercise.check_upgrade(
        "GET",
        "/ws",
        replaced("Sec-WebSocket-Protocol", "v2.mcp"),
        endpoint="/ws",
        subprotocol="v2.mcp",
    )[-1] == ("Sec-WebSocket-Protocol", "v2.mcp")


def test_method_and_path_come_first(exercise) -> None:
    """405 (with Allow: GET) for another method, then 404 for another path (the query string aside),
    before any other header is even looked at."""
    assert refusal(exercise, "POST", "/mcp", GOOD) == (405, [("Allow", "GET")])
    assert refusal(exercise, "POST", "/elsewhere", []) == (405, [("Allow", "GET")])
    assert refusal(exercise, "GET", "/", GOOD) == (404, [])
    assert refusal(exercise, "GET", "/mcp/", GOOD) == (404, [])
    assert refusal(exercise, "GET", "/other?p=/mcp", []) == (404, [])


@pytest.mark.parametrize(
    "origin",
    [
        "http://evil.example",
        "https://evil.example:8765",
        "null",
        "http://localhost.evil.example",
        "http://127.0.0.1@evil.example",
        "file://",
        "ftp://localhost",
    ],
)
def test_a_foreign_origin_is_403(exercise, origin: str) -> None:
    """An Origin that is not listed in allowed_origins and is not http(s) on localhost, 127.0.0.1
    or [::1] is 403: the browser threat of DNS rebinding. Check it before the WebSocket headers."""
    assert refusal(exercise, "GET", "/mcp", GOOD + [("Origin", origin)]) == (403, [])
    assert refusal(exercise, "GET", "/mcp", [("Origin", origin)]) == (403, [])


def test_local_and_listed_origins_are_let_in(exercise) -> None:
    """No Origin (a program, not a browser), http(s) on a loopback host with any port, and the
    origins in allowed_origins (letter case and a trailing slash aside). Two Origin headers: 400."""
    for origin in (
        "http://localhost:5173",
        "https://127.0.0.1",
        "http://[::1]:8080",
        "HTTP://LOCALHOST",
    ):
        assert exercise.check_upgrade("GET", "/mcp", GOOD + [("Origin", origin)])
    listed = GOOD + [("Origin", "https://App.example")]
    assert exercise.check_upgrade("GET", "/mcp", listed, allowed_origins=["https://app.example/"])
    assert refusal(exercise, "GET", "/mcp", listed) == (403, [])
    two = GOOD + [("Origin", "http://localhost"), ("Origin", "http://localhost")]
    assert refusal(exercise, "GET", "/mcp", two) == (400, [])


def test_the_upgrade_headers_are_426(exercise) -> None:
    """426 Upgrade Required, with ("Upgrade", "websocket"), when Upgrade is not websocket or
    Connection has no "upgrade"; with ("Sec-WebSocket-Version", "13") unless exactly one version
    13."""
    upgrade, version = [("Upgrade", "websocket")], [("Sec-WebSocket-Version", "13")]
    assert refusal(exercise, "GET", "/mcp", replaced("Upgrade")) == (426, upgrade)
    assert refusal(exercise, "GET", "/mcp", replaced("Upgrade", "h2c")) == (426, upgrade)
    assert refusal(exercise, "GET", "/mcp", replaced("Connection", "keep-alive")) == (426, upgrade)
    assert refusal(exercise, "GET", "/mcp", replaced("Connection", "upgrades")) == (426, upgrade)
    assert refusal(exercise, "GET", "/mcp", replaced("Sec-WebSocket-Version")) == (426, version)
    assert refusal(exercise, "GET", "/mcp", replaced("Sec-WebSocket-Version", "8")) == (
        426,
        version,
    )
    assert refusal(exercise, "GET", "/mcp", replaced("Sec-WebSocket-Version", "13", "13")) == (
        426,
        version,
    )


def test_the_key_and_the_subprotocol_are_400(exercise) -> None:
    """400 unless exactly one Sec-WebSocket-Key that is base64 for 16 bytes; 400 unless the
    subprotocol is among those offered in Sec-WebSocket-Protocol (no offer at all is a 400 too)."""
    for keys in (
        (),
        ("c2hvcnQ=",),
        ("not base64!!",),
        (RFC_KEY, RFC_KEY),
        ("AAAAAAAAAAAAAAAAAAAAAAA=",),
    ):
        assert refusal(exercise, "GET", "/mcp", replaced("Sec-WebSocket-Key", *keys)) == (
            400,
            [],
        ), keys
    assert refusal(exercise, "GET", "/mcp", replaced("Sec-WebSocket-Protocol")) == (400, [])
    assert refusal(
        exercise, "GET", "/mcp", replaced("Sec-WebSocket-Protocol", "jsonrpc, mcp2")
    ) == (400, [])


# -- Exercise 3 · Push to every session, without waiting for the slowest ---------------------------


async def drain(member) -> list[str]:
    """Every message waiting for ``member`` now (next() with a tiny timeout)."""
    got = []
    while member.pending:
        got.append(await asyncio.wait_for(member.next(), 1))
    return got


async def test_publish_reaches_every_member_in_order(exercise) -> None:
    """join() returns a Member; publish() queues the message for every member; next() returns them
    in order. members lists the names in joining order."""
    hub = exercise.Hub(limit=4)
    alice, bob = hub.join("alice"), hub.join("bob")
    assert hub.members == ["alice", "bob"]
    assert hub.publish("tools/list_changed") == []
    assert hub.publish("resources/list_changed") == []
    assert alice.pending == bob.pending == 2
    assert await drain(alice) == ["tools/list_changed", "resources/list_changed"]
    assert await drain(bob) == ["tools/list_changed", "resources/list_changed"]
    with pytest.raises(ValueError):
        hub.join("alice")


async def test_a_full_member_is_dropped_and_the_others_go_on(exercise) -> None:
    """publish never waits: a member whose queue already holds `limit` messages is dropped (out
    of the hub, its queue thrown away, dropped=True, next() gives None) and publish returns its
    name."""
    hub = exercise.Hub(limit=3)
    slow, fast, late = hub.join("slow"), hub.join("fast"), hub.join("late")
    seen = []
    for number in range(1, 6):
        dropped = hub.publish(f"m{number}")
        assert dropped == (["slow", "late"] if number == 4 else []), number
        seen += await drain(fast)
    assert seen == ["m1", "m2", "m3", "m4", "m5"]
    assert hub.members == ["fast"]
    assert slow.dropped and late.dropped and not fast.dropped
    assert slow.pending == 0
    assert await asyncio.wait_for(slow.next(), 1) is None
    assert await asyncio.wait_for(slow.next(), 1) is None
    assert hub.publish("m6") == [] and await drain(fast) == ["m6"]


async def test_next_waits_for_a_message(exercise) -> None:
    """next() on an empty queue waits (it must not return None, nor spin) until publish() puts
    one."""
    hub = exercise.Hub()
    member = hub.join("waiting")
    waiting = asyncio.ensure_future(member.next())
    await asyncio.sleep(0.05)
    assert not waiting.done(), "next() returned with nothing published"
    hub.publish("hello")
    assert await asyncio.wait_for(waiting, 1) == "hello"


async def test_leave_ends_a_member_and_wakes_its_reader(exercise) -> None:
    """leave(name) removes the member (KeyError for a name not in the hub): its queue is thrown
    away, a next() already waiting returns None, and so does every later one. Leaving is not
    dropped."""
    hub = exercise.Hub()
    reader, other = hub.join("reader"), hub.join("other")
    waiting = asyncio.ensure_future(reader.next())
    await asyncio.sleep(0.05)
    hub.leave("reader")
    assert await asyncio.wait_for(waiting, 1) is None
    assert not reader.dropped
    other_messages = hub.publish("after")
    assert other_messages == [] and hub.members == ["other"]
    assert await asyncio.wait_for(reader.next(), 1) is None
    hub.publish("queued")
    hub.leave("other")
    assert other.pending == 0 and await asyncio.wait_for(other.next(), 1) is None
    with pytest.raises(KeyError):
        hub.leave("nobody")


async def test_a_stalled_member_never_holds_up_a_busy_hub(exercise) -> None:
    """1000 publishes to one reader that never reads and two that do: the stalled one is dropped
    exactly once, at message limit+1; the readers get all 1000, in order."""
    hub = exercise.Hub(limit=8)
    hub.join("stalled")
    readers = [hub.join("r1"), hub.join("r2")]
    got: dict[str, list[str]] = {"r1": [], "r2": []}

    async def read(member) -> None:
        while (message := await member.next()) is not None:
            got[member.name].append(message)

    tasks = [asyncio.ensure_future(read(member)) for member in readers]
    drops = []
    for number in range(1000):
        drops += [(number, name) for name in hub.publish(str(number))]
        if number % 5 == 4:
            await asyncio.sleep(0)  # let the readers catch up, as a server's loop would
    assert drops == [(8, "stalled")]
    for member in readers:
        await asyncio.wait_for(_until_empty(member), 5)
        hub.leave(member.name)
    await asyncio.wait_for(asyncio.gather(*tasks), 5)
    assert got["r1"] == got["r2"] == [str(number) for number in range(1000)]


async def _until_empty(member) -> None:
    while member.pending:
        await asyncio.sleep(0)
