"""Property tests (hypothesis): whatever arrives, minimcp answers with a message or an error, never
a crash.

Bounded on purpose (200 examples each, no deadline) so the whole file stays well under ten seconds.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from minimcp.rpc import (
    Connection,
    ErrorResponse,
    Notification,
    Request,
    Response,
    RpcError,
    encode,
    memory_pair,
    parse,
)
from minimcp.transports.framing import (
    ContentLengthDecoder,
    FrameError,
    LineDecoder,
    encode_content_length,
    encode_line,
)

BOUNDED = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ERROR = "FrameError"

# -- strategies -----------------------------------------------------------------------------------
finite_floats = st.floats(allow_nan=False, allow_infinity=False)
scalars = st.none() | st.booleans() | st.integers() | finite_floats | st.text(max_size=8)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
json_objects = st.dictionaries(st.text(max_size=4), json_values, max_size=3)
ids = st.integers(-(2**53), 2**53) | st.text(max_size=3)

#: JSON objects built from JSON-RPC's own members, each present or not, each right or wrong.
rpc_like = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "2.0", "2.0", "1.0", 2.0, None]),
        "id": ids | st.none() | st.booleans() | finite_floats | json_objects,
        "method": st.sampled_from(["ping", "echo", "boom", "nope", "notifications/x"])
        | json_values,
        "params": json_objects | json_values,
        "result": json_values,
        "error": st.fixed_dictionaries(
            {"code": st.integers(-40000, 40000), "message": st.text(max_size=5)},
            optional={"data": json_values},
        )
        | json_values,
    },
)

valid_messages = st.one_of(
    st.builds(Request, ids, st.text(max_size=10), st.none() | json_objects),
    st.builds(Notification, st.text(max_size=10), st.none() | json_objects),
    st.builds(Response, ids, json_values),
    st.builds(
        ErrorResponse,
        ids | st.none(),
        st.integers(-40000, 40000),
        st.text(max_size=10),
        st.none() | json_objects,
    ),
)


junk_lines = st.binary(max_size=300).map(lambda b: b.replace(b"\n", b""))


def chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


def decode(decoder: Any, chunks: list[bytes]) -> list[Any]:
    """Feed every chunk, pull every frame; bounded, so a decoder that loops fails instead of
    hanging."""
    events: list[Any] = []
    for chunk in chunks:
        decoder.feed(chunk)
        for _ in range(10 * len(chunk) + 10):
            try:
                frame = decoder.next_frame()
            except FrameError as err:
                assert err.code in (-32700, -32600)
                events.append(ERROR)
                continue
            if frame is None:
                break
            assert isinstance(frame, bytes)
            events.append(frame)
        else:
            raise AssertionError("the decoder kept producing without being fed")
    last = decoder.finish()
    if last is not None:
        events.append(last)
    return events


# -- jsonrpc.parse ---------------------------------------------------------------------------------
@BOUNDED
@given(st.binary(max_size=200))
def test_parse_any_bytes(data: bytes) -> None:
    try:
        message = parse(data)
    except RpcError as err:
        assert err.code in (-32700, -32600, -32602)
    else:
        assert isinstance(message, (Request, Notification, Response, ErrorResponse))


@BOUNDED
@given(st.text(max_size=200))
def test_parse_any_text(text: str) -> None:
    try:
        parse(text)
    except RpcError as err:
        assert err.code in (-32700, -32600, -32602)


@BOUNDED
@given(rpc_like)
def test_parse_rpc_like_objects(obj: dict[str, Any]) -> None:
    structurally_a_notification = (
        obj.get("jsonrpc") == "2.0" and isinstance(obj.get("method"), str) and "id" not in obj
    )
    structurally_a_response = "method" not in obj and ("result" in obj or "error" in obj)
    try:
        message = parse(json.dumps(obj))
    except RpcError as err:
        assert err.code in (-32600, -32602)
        if structurally_a_notification or structurally_a_response:
            assert not err.answerable  # never answer a notification or a response
        if err.answerable:
            answer = parse(encode(err.to_response()))
            assert isinstance(answer, ErrorResponse) and answer.code == err.code
    else:
        assert parse(encode(message)) == message


@BOUNDED
@given(valid_messages)
def test_encode_parse_round_trip(message: Any) -> None:
    text = encode(message)
    assert "\n" not in text
    assert parse(text) == message
    assert parse(text.encode("utf-8")) == message


# -- framing --------------------------------------------------------------------------------------
def ndjson_model(stream: bytes, max_frame: int) -> list[Any]:
    """What LineDecoder must produce for ``stream``, however the stream is cut."""
    *lines, last = stream.split(b"\n")
    events: list[Any] = []
    for line in lines:
        if len(line) > max_frame:
            events.append(ERROR)
        elif line.rstrip(b"\r").strip():
            events.append(line.rstrip(b"\r"))
    if len(last) <= max_frame and last.strip():
        events.append(last.strip())
    return events


@BOUNDED
@given(st.binary(max_size=400), st.lists(st.integers(0, 400), max_size=20), st.integers(1, 64))
def test_line_decoder_any_bytes_any_chunking(data: bytes, cuts: list[int], max_frame: int) -> None:
    events = decode(LineDecoder(max_frame), chunked(data, cuts))
    assert events == ndjson_model(data, max_frame)
    for event in events:
        if event != ERROR:
            assert b"\n" not in event and len(event) <= max_frame and event.strip()


@BOUNDED
@given(
    st.lists(
        st.one_of(
            valid_messages.map(lambda m: ("valid", encode(m).encode())),
            junk_lines.map(lambda b: ("junk", b)),
        ),
        max_size=12,
    ),
    st.lists(st.integers(0, 5000), max_size=30),
)
def test_valid_lines_survive_garbage_between_them(
    items: list[tuple[str, bytes]], cuts: list[int]
) -> None:
    stream = b"".join(encode_line(payload) for _, payload in items)
    events = decode(LineDecoder(max_frame=200), chunked(stream, cuts))
    assert events == ndjson_model(stream, 200)
    frames = [e for e in events if e != ERROR]
    valid = [payload for kind, payload in items if kind == "valid" and len(payload) <= 200]
    it = iter(frames)
    assert all(any(frame == v for frame in it) for v in valid)  # every valid line, in order


@BOUNDED
@given(st.binary(max_size=400), st.lists(st.integers(0, 400), max_size=20), st.integers(1, 64))
def test_content_length_decoder_any_bytes_any_chunking(
    data: bytes, cuts: list[int], max_frame: int
) -> None:
    for event in decode(ContentLengthDecoder(max_frame), chunked(data, cuts)):
        assert event == ERROR or len(event) <= max_frame


@BOUNDED
@given(st.lists(st.binary(max_size=300), max_size=8), st.lists(st.integers(0, 3000), max_size=30))
def test_content_length_frames_any_chunking(bodies: list[bytes], cuts: list[int]) -> None:
    stream = b"".join(encode_content_length(body) for body in bodies)
    events = decode(ContentLengthDecoder(max_frame=200), chunked(stream, cuts))
    assert events == [body if len(body) <= 200 else ERROR for body in bodies]


@BOUNDED
@given(
    st.lists(st.binary(max_size=50), max_size=6),
    st.lists(st.binary(max_size=40), max_size=6),
    st.lists(st.integers(0, 1000), max_size=20),
)
def test_content_length_garbage_never_crashes_and_decoding_recovers(
    bodies: list[bytes], junk: list[bytes], cuts: list[int]
) -> None:
    stream = b"".join(
        part + encode_content_length(body) for part, body in zip(junk, bodies, strict=False)
    )
    decoder = ContentLengthDecoder(max_frame=100)
    decode(decoder, chunked(stream, cuts))
    # Whatever the garbage did, a clean frame on a clean boundary decodes.
    decoder = ContentLengthDecoder(max_frame=100)
    assert decode(decoder, [encode_content_length(b'{"ok":1}')]) == [b'{"ok":1}']


# -- a Connection fed anything --------------------------------------------------------------------
FINAL = "final-ping-id"
lines = st.one_of(
    st.text(max_size=40),
    rpc_like.map(json.dumps),
    json_values.map(json.dumps),
    st.builds(
        lambda i, m, p: json.dumps({"jsonrpc": "2.0", "id": i, "method": m, "params": p}),
        ids,
        st.sampled_from(["ping", "echo", "boom", "nope"]),
        json_objects,
    ),
)


async def handler(request: Request) -> Any:
    if request.method == "boom":
        raise ValueError("boom")
    if request.method == "nope":
        raise RpcError(-32601, "Method not found: nope")
    return request.params


def expected_answer_ids(texts: list[str]) -> Counter:
    """The id of every answer JSON-RPC requires: one per request, one per answerable error."""
    expected: Counter = Counter()
    for text in texts:
        try:
            message = parse(text)
        except RpcError as err:
            if err.answerable:
                expected[err.id] += 1
        else:
            if isinstance(message, Request):
                expected[message.id] += 1
    return expected


async def exchange(texts: list[str]) -> tuple[Counter, Counter]:
    peer, transport = memory_pair()
    connection = Connection(transport, handler)
    connection.start()
    for text in texts:
        await peer.send_text(text)
    await peer.send_text(json.dumps({"jsonrpc": "2.0", "id": FINAL, "method": "ping"}))
    expected = expected_answer_ids(texts)
    expected[FINAL] += 1
    got: Counter = Counter()
    for _ in range(sum(expected.values())):
        answer = json.loads(await asyncio.wait_for(peer.receive_text(), 5))
        assert answer["jsonrpc"] == "2.0" and ("result" in answer) != ("error" in answer)
        got[answer["id"]] += 1
    for _ in range(20):  # let anything left over run: nothing more may come
        await asyncio.sleep(0)
    assert peer._inbox.empty(), f"an extra answer: {peer._inbox.get_nowait()}"
    await connection.close()
    return got, expected


@BOUNDED
@given(st.lists(lines, max_size=15))
def test_a_connection_answers_every_answerable_line_exactly_once(texts: list[str]) -> None:
    logger = logging.getLogger("minimcp.connection")
    level = logger.level
    logger.setLevel(logging.CRITICAL)  # the dropped messages and failing handlers would log a lot
    try:
        got, expected = asyncio.run(exchange(texts))
    finally:
        logger.setLevel(level)
    assert got == expected
    assert got[FINAL] == 1  # and it still answers a ping after all that
