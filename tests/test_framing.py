"""Framing (minimcp.framing): NDJSON lines and Content-Length frames, cut at every possible
place."""

from __future__ import annotations

import pytest

from minimcp.rpc.jsonrpc import INVALID_REQUEST, PARSE_ERROR
from minimcp.transports.framing import (
    DEFAULT_MAX_FRAME,
    FRAMINGS,
    ContentLengthDecoder,
    FrameError,
    LineDecoder,
    encode_content_length,
    encode_line,
)

MESSAGES = [
    b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
    b'{"a":"caf\xc3\xa9 \\n \xe2\x9c\x93"}',
    b"{}",
]


def drain(decoder, events: list) -> None:
    """Pull every frame (or FrameError) the decoder can give now. Bounded: never loops forever."""
    for _ in range(10_000):
        try:
            frame = decoder.next_frame()
        except FrameError as err:
            events.append(("error", err.code))
            continue
        if frame is None:
            return
        events.append(frame)
    raise AssertionError("the decoder never said 'need more bytes'")


def decode(decoder, *chunks: bytes, finish: bool = True) -> list:
    events: list = []
    for chunk in chunks:
        decoder.feed(chunk)
        drain(decoder, events)
    if finish:
        last = decoder.finish()
        if last is not None:
            events.append(last)
    return events


def splits(data: bytes):
    """Every way to cut ``data`` in two, then byte by byte."""
    for i in range(len(data) + 1):
        yield data[:i], data[i:]
    yield tuple(data[i : i + 1] for i in range(len(data)))


# -- NDJSON ----------------------------------------------------------------------------------------
def test_encode_line() -> None:
    assert encode_line(b"{}") == b"{}\n"
    with pytest.raises(ValueError):
        encode_line(b'{"a":\n1}')


def test_lines_split_at_every_byte_boundary() -> None:
    stream = b"".join(encode_line(m) for m in MESSAGES)
    for chunks in splits(stream):
        assert decode(LineDecoder(), *chunks) == MESSAGES


def test_lines_split_at_every_pair_of_boundaries() -> None:
    stream = b"".join(encode_line(m) for m in MESSAGES)
    for i in range(len(stream) + 1):
        for j in range(i, len(stream) + 1):
            assert decode(LineDecoder(), stream[:i], stream[i:j], stream[j:]) == MESSAGES


def test_crlf_line_ends() -> None:
    for chunks in splits(b'{"a":1}\r\n{"b":2}\r\n'):
        assert decode(LineDecoder(), *chunks) == [b'{"a":1}', b'{"b":2}']


def test_blank_lines_are_skipped() -> None:
    assert decode(LineDecoder(), b'\n\n   \n\r\n{"a":1}\n\t\n\n{"b":2}\n\n') == [
        b'{"a":1}',
        b'{"b":2}',
    ]


def test_last_line_without_newline_counts_at_end_of_stream() -> None:
    decoder = LineDecoder()
    decoder.feed(b'{"a":1}\n{"b":2}')
    assert decoder.next_frame() == b'{"a":1}'
    assert decoder.next_frame() is None  # not yet: more bytes may come
    assert decoder.finish() == b'{"b":2}'
    for chunks in splits(b'{"a":1}\n{"b":2}'):
        assert decode(LineDecoder(), *chunks) == [b'{"a":1}', b'{"b":2}']


def test_finish_with_nothing_left() -> None:
    assert LineDecoder().finish() is None
    assert decode(LineDecoder(), b'{"a":1}\n  \r') == [b'{"a":1}']


def test_oversize_line_is_one_error_then_the_next_line_decodes() -> None:
    stream = b'{"first":1}\n' + b"x" * 50 + b'\n{"next":2}\n'
    for chunks in splits(stream):
        assert decode(LineDecoder(max_frame=16), *chunks) == [
            b'{"first":1}',
            ("error", INVALID_REQUEST),
            b'{"next":2}',
        ], chunks


def test_oversize_line_is_dropped_while_it_streams_in() -> None:
    decoder = LineDecoder(max_frame=1024)
    events: list = []
    for _ in range(100):  # 100 KiB of one line, arriving a KiB at a time
        decoder.feed(b"y" * 1024)
        drain(decoder, events)
        assert len(decoder._buffer) <= 2 * 1024  # memory stays bounded while we skip
    decoder.feed(b'tail\n{"next":2}\n')
    drain(decoder, events)
    assert events == [("error", INVALID_REQUEST), b'{"next":2}']


def test_frame_error_carries_the_limit() -> None:
    decoder = LineDecoder(max_frame=8)
    decoder.feed(b"123456789\n")
    with pytest.raises(FrameError) as caught:
        decoder.next_frame()
    assert caught.value.code == INVALID_REQUEST
    assert caught.value.message == "Message larger than 8 bytes"
    assert caught.value.answerable and caught.value.id is None


def test_a_line_of_exactly_max_frame_is_accepted() -> None:
    assert decode(LineDecoder(max_frame=8), b"12345678\n123456789\n8") == [
        b"12345678",
        ("error", INVALID_REQUEST),
        b"8",
    ]


def test_oversize_last_line_at_end_of_stream_is_dropped() -> None:
    assert decode(LineDecoder(max_frame=4), b"{}\n", b"0123456789") == [b"{}"]


def test_default_limit_is_4_mib() -> None:
    assert DEFAULT_MAX_FRAME == 4 * 1024 * 1024
    assert LineDecoder().max_frame == ContentLengthDecoder().max_frame == DEFAULT_MAX_FRAME
    assert FRAMINGS == {
        "ndjson": (LineDecoder, encode_line),
        "content-length": (ContentLengthDecoder, encode_content_length),
    }


# -- Content-Length -----------------------------------------------------------------------------
def test_encode_content_length() -> None:
    assert encode_content_length(b"{}") == b"Content-Length: 2\r\n\r\n{}"
    # bytes, not chars
    assert encode_content_length("é".encode()) == b"Content-Length: 2\r\n\r\n\xc3\xa9"


def test_content_length_split_anywhere() -> None:
    stream = b"".join(encode_content_length(m) for m in MESSAGES)
    for chunks in splits(stream):
        assert decode(ContentLengthDecoder(), *chunks) == MESSAGES


def test_content_length_body_may_hold_anything() -> None:
    body = b'{"text":"a\r\n\r\nContent-Length: 9\r\n\r\n"}\n'
    for chunks in splits(encode_content_length(body) + encode_content_length(b"{}")):
        assert decode(ContentLengthDecoder(), *chunks) == [body, b"{}"]


def test_content_length_header_name_is_case_insensitive_and_other_headers_are_ignored() -> None:
    stream = (
        b"content-type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length:  2 \r\n\r\n{}"
        b"CONTENT-LENGTH: 3\r\n\r\n[1]"
    )
    assert decode(ContentLengthDecoder(), stream) == [b"{}", b"[1]"]


@pytest.mark.parametrize(
    "header, message",
    [
        (b"Content-Length: abc", "Bad Content-Length: 'abc'"),
        (b"Content-Length: -5", "Bad Content-Length: '-5'"),
        (b"Content-Length: ", "Bad Content-Length: ''"),
        (b"Content-Length: 1.5", "Bad Content-Length: '1.5'"),
        (b"Content-Type: application/json", "Missing Content-Length header"),
        (b"garbage", "Missing Content-Length header"),
    ],
)
def test_bad_or_missing_header_is_one_error_then_the_next_frame_decodes(
    header: bytes, message: str
) -> None:
    stream = header + b"\r\n\r\n" + encode_content_length(b'{"next":1}')
    for chunks in splits(stream):
        assert decode(ContentLengthDecoder(), *chunks) == [("error", PARSE_ERROR), b'{"next":1}']
    decoder = ContentLengthDecoder()
    decoder.feed(stream)
    with pytest.raises(FrameError) as caught:
        decoder.next_frame()
    assert caught.value.message == message


def test_oversize_body_is_skipped_then_the_next_frame_decodes() -> None:
    stream = (
        encode_content_length(b"{}")
        + encode_content_length(b"z" * 100)
        + encode_content_length(b"[2]")
    )
    for chunks in splits(stream):
        assert decode(ContentLengthDecoder(max_frame=16), *chunks) == [
            b"{}",
            ("error", INVALID_REQUEST),
            b"[2]",
        ]
    decoder = ContentLengthDecoder(max_frame=16)
    decoder.feed(encode_content_length(b"z" * 100))
    with pytest.raises(FrameError) as caught:
        decoder.next_frame()
    assert caught.value.message == "Message larger than 16 bytes"


def test_oversize_body_streams_past_without_buffering() -> None:
    decoder = ContentLengthDecoder(max_frame=1024)
    events: list = []
    decoder.feed(b"Content-Length: 102400\r\n\r\n")
    drain(decoder, events)
    for _ in range(100):
        decoder.feed(b"w" * 1024)
        drain(decoder, events)
        assert len(decoder._buffer) == 0
    decoder.feed(encode_content_length(b"{}"))
    drain(decoder, events)
    assert events == [("error", INVALID_REQUEST), b"{}"]


def test_header_that_never_ends_is_an_error_then_decoding_resumes() -> None:
    decoder = ContentLengthDecoder()
    events: list = []
    decoder.feed(b"X" * 9000)
    drain(decoder, events)
    assert events == [("error", PARSE_ERROR)]
    decoder.feed(encode_content_length(b"{}"))
    drain(decoder, events)
    assert events == [("error", PARSE_ERROR), b"{}"]


def test_content_length_frame_cut_short_by_end_of_stream_is_lost() -> None:
    cut_short = b"Content-Length: 10\r\n\r\n{"
    assert decode(ContentLengthDecoder(), encode_content_length(b"{}"), cut_short) == [b"{}"]
    assert ContentLengthDecoder().finish() is None
