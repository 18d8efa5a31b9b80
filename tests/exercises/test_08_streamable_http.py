"""Checks for lesson 08's exercise: a resumable SSE stream, a byte-budget event store, and Accept.

Each test's docstring is the hint a student sees when it fails (``python tools/check.py 08``).
"""

from __future__ import annotations

import json

import pytest

PRIMING = b"id: s-0\nretry: 1000\ndata:\n\n"


def progress(n: int) -> str:
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": "t", "progress": n},
        },
        separators=(",", ":"),
    )


def answer(request_id: int = 7, text: str = "done") -> str:
    result = {"content": [{"type": "text", "text": text}]}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}, separators=(",", ":"))


def event(event_id: str | None, data: str) -> bytes:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}data: {data}\n\n".encode()


def feed_all(stream, data: bytes, step: int | None = None) -> list[str]:
    """Feed ``data`` to one connection of ``stream``, whole or ``step`` bytes at a time."""
    step = step or len(data) or 1
    messages: list[str] = []
    for start in range(0, len(data), step):
        messages += stream.feed(data[start : start + step])
    return messages


def expect_error(expected: type[Exception], function, *args, **kwargs) -> Exception:
    """``function(*args)`` must raise ``expected``; NotImplementedError (the stub) goes through as
    it is."""
    try:
        result = function(*args, **kwargs)
    except expected as error:
        return error
    except NotImplementedError:
        raise
    except Exception as error:
        raise AssertionError(
            f"{function.__name__}{args!r} raised {type(error).__name__}: {error}; "
            f"expected {expected.__name__}"
        ) from error
    raise AssertionError(
        f"{function.__name__}{args!r} returned {result!r}; expected {expected.__name__}"
    )


# -- Exercise 1 · A resumable SSE stream, from the client's side -----------------------------------


def test_one_connection_gives_each_message_in_order_and_ends_at_the_response(exercise) -> None:
    """feed returns the data of each complete event, in order; the priming event (empty data) gives
    no message; with a request_id, the stream is done once the response to that id arrived, and then
    connection_ended() returns None (nothing to resume)."""
    stream = exercise.ResumableStream(7)
    data = PRIMING + event("s-1", progress(1)) + event("s-2", progress(2)) + event("s-3", answer())
    assert stream.feed(data) == [progress(1), progress(2), answer()]
    assert stream.done is True
    assert stream.last_event_id == "s-3"
    assert stream.connection_ended() is None


def test_chunks_cut_anywhere_give_the_same_messages(exercise) -> None:
    """Keep the unfinished line between feeds. Lines end with \\r\\n, \\n or a lone \\r, and a \\r
    that ends a chunk may be the first half of \\r\\n (wait for the next byte). Decode UTF-8
    incrementally: a character may be cut in two. Skip a byte order mark at the start of the
    connection."""
    text = answer(7, "caché ✓")
    data = (
        "\ufeffid: s-0\r\nretry: 1000\r\ndata:\r\n\r\n"
        + f"id: s-1\rdata: {progress(1)}\r\r"
        + f"id: s-2\ndata: {text}\n\n"
    ).encode()
    for step in range(1, len(data) + 1):
        stream = exercise.ResumableStream(7)
        assert feed_all(stream, data, step) == [progress(1), text], f"chunks of {step} bytes"
        assert stream.done and stream.last_event_id == "s-2"


def test_the_line_rules_of_the_html_standard(exercise) -> None:
    """ ":" starts a comment; one space after the colon is dropped (only one); "data" alone is an
    empty data line; several data lines join with "\\n"; "event" and unknown fields are ignored; an
    id with a NUL is ignored; a retry that is not all ASCII digits is ignored."""
    stream = exercise.ResumableStream()
    data = (
        b": a comment\n\n"
        b"id: a\nevent: custom\nfoo: bar\ndata:  two spaces\n\n"
        b"id: b\x00c\ndata:x\ndata\ndata: y\n\n"
        b"retry: 1.5\nretry: 12a\ndata: z\n\n"
    )
    assert stream.feed(data) == [" two spaces", "x\n\ny", "z"]
    # the NUL id was ignored; the id carries over from event to event
    assert stream.last_event_id == "a"
    assert stream.connection_ended() == 1000  # the default: neither retry was valid


def test_a_cut_event_is_dropped_and_its_id_never_counts(exercise) -> None:
    """An event the connection cut before its blank line is dropped, with its id: resume from the
    last *complete* event, or what was cut is lost. A new connection starts afresh (no half line
    left)."""
    stream = exercise.ResumableStream(7)
    assert stream.feed(
        PRIMING + event("s-1", progress(1)) + b"id: s-2\ndata: " + progress(2)[:20].encode()
    ) == [progress(1)]
    assert stream.connection_ended() == 1000
    assert stream.last_event_id == "s-1"
    assert stream.feed(event("s-2", progress(2)) + event("s-3", answer())) == [
        progress(2),
        answer(),
    ]
    assert stream.done and stream.connection_ended() is None


def test_retry_is_honoured_at_once_and_kept_across_connections(exercise) -> None:
    """A valid retry becomes the wait at once, even inside an event that is later cut, and stays
    until another one comes: the wait after a fruitful connection is the last retry received."""
    stream = exercise.ResumableStream()
    stream.feed(b"id: g-0\nretry: 250\ndata:\n\n")
    assert stream.connection_ended() == 250
    # the server closes: "come back in 40"
    stream.feed(event("g-1", progress(1)) + b"retry: 40\n\n")
    assert stream.connection_ended() == 40
    # cut, but the retry counts
    stream.feed(event("g-2", progress(2)) + b"retry: 60\nid: g-3\ndata: {")
    assert stream.connection_ended() == 60
    stream.feed(event("g-3", progress(3)))
    assert stream.connection_ended() == 60


def test_fruitless_connections_back_off_then_give_up(exercise) -> None:
    """A connection is fruitful when last_event_id moved during it. Each fruitless one in a row
    doubles the wait (retry, 2*retry, 4*retry..., at most max_wait_ms); after more than
    max_fruitless in a row, None. A fruitful connection starts the count again."""
    stream = exercise.ResumableStream(retry_ms=100, max_fruitless=3, max_wait_ms=500)
    stream.feed(b"id: s-0\ndata:\n\n")
    assert stream.connection_ended() == 100
    waits = []
    for _ in range(3):
        stream.feed(b": keep-alive\n\nretry: 100\n\n")  # nothing new
        waits.append(stream.connection_ended())
    assert waits == [200, 400, 500]
    stream.feed(event("s-1", progress(1)))  # fruitful: the count starts again
    assert stream.connection_ended() == 100
    assert [stream.connection_ended() for _ in range(4)] == [200, 400, 500, None]


def test_an_event_replayed_twice_is_delivered_once(exercise) -> None:
    """Remember the ids whose message you returned: an event with its own id line already delivered
    is a duplicate (a server may replay from the id rather than after it). An event without an id
    line of its own is never a duplicate, though it carries the previous id."""
    stream = exercise.ResumableStream()
    first = PRIMING + event("s-1", progress(1)) + event("s-2", progress(2))
    assert stream.feed(first) == [progress(1), progress(2)]
    assert stream.connection_ended() == 1000
    replay = b"".join(
        [
            event("s-1", progress(1)),
            event("s-2", progress(2)),
            event("s-3", progress(3)),
            event(None, "plain"),
        ]
    )
    assert stream.feed(replay) == [progress(3), "plain"]
    assert stream.last_event_id == "s-3"


def test_only_the_answer_to_the_request_completes_the_stream(exercise) -> None:
    """done needs a JSON-RPC response (a "result" or an "error") whose id is request_id; a response
    to another id, a request with that id, or data that is not JSON do not count. After done, feed
    returns nothing more. Without a request_id (the GET stream), never done."""
    stream = exercise.ResumableStream(7)
    request = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "ping"})
    error = json.dumps({"jsonrpc": "2.0", "id": 7, "error": {"code": -32603, "message": "failed"}})
    sent = PRIMING + event("s-1", answer(8)) + event("s-2", request) + event("s-3", "not json {")
    assert stream.feed(sent) == [answer(8), request, "not json {"]
    assert stream.done is False
    assert stream.feed(event("s-4", error) + event("s-5", progress(9))) == [error]
    assert stream.done is True
    assert stream.feed(event("s-6", progress(10))) == []
    get = exercise.ResumableStream()
    get.feed(PRIMING + event("s-1", answer(7)))
    assert get.done is False and get.connection_ended() == 1000


def test_nothing_to_resume_from(exercise) -> None:
    """connection_ended() is None when no complete event ever gave an id (last_event_id None), or
    when the last one was an explicit empty id ("id" or "id:" alone)."""
    stream = exercise.ResumableStream(7)
    assert stream.feed(b"id: s-0\nretry: 10\ndata:") == []  # cut before its blank line
    assert stream.last_event_id is None
    assert stream.connection_ended() is None
    stream = exercise.ResumableStream()
    assert stream.feed(PRIMING + b"id\ndata: x\n\n") == ["x"]
    assert stream.last_event_id == ""
    assert stream.connection_ended() is None


def test_follow_over_connections_cut_mid_event(exercise) -> None:
    """follow feeds each connection's chunks, then asks connection_ended(): None stops (connections
    left are ignored), a wait is recorded as (last_event_id, wait) before the next connection."""
    first = PRIMING + event("s-1", progress(1)) + event("s-2", progress(2))[:-5]
    second = event("s-2", progress(2)) + b"id: s-3\nretry: 50\ndata: " + progress(3).encode()[:9]
    third = event("s-3", progress(3)) + event("s-4", answer())
    connections = [[first[:17], first[17:]], [second[:30], second[30:]], [third], [b"never read"]]
    followed = exercise.follow(connections, 7)
    assert followed.messages == [progress(1), progress(2), progress(3), answer()]
    assert followed.resumptions == [("s-1", 1000), ("s-2", 50)]
    assert followed.done is True
    lost = exercise.follow(
        [[b"id: g-0\ndata:\n\n"], [b""], [b""], [b""]], max_fruitless=1, retry_ms=10
    )
    assert (lost.messages, lost.resumptions, lost.done) == ([], [("g-0", 10), ("g-0", 20)], False)


# -- Exercise 2 · An event store with a byte budget ------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def store(exercise, clock: Clock | None = None, **budgets):
    settings = {"stream_bytes": 10, "session_bytes": 20, "total_bytes": 40, "ttl": 100.0}
    settings.update(budgets)
    return exercise.BudgetEventStore(**settings, clock=clock or Clock())


def reason(exercise, store_, session: str, event_id: str) -> str:
    error = expect_error(exercise.CannotReplay, store_.events_after, session, event_id)
    assert isinstance(error, LookupError)
    return error.reason


def test_the_budgets_are_checked(exercise) -> None:
    """__init__ raises ValueError unless 0 < stream_bytes <= session_bytes <= total_bytes and
    ttl > 0."""
    for bad in ({"stream_bytes": 0}, {"stream_bytes": 21}, {"session_bytes": 41}, {"ttl": 0}):
        settings = {"stream_bytes": 10, "session_bytes": 20, "total_bytes": 40, "ttl": 1.0, **bad}
        expect_error(ValueError, exercise.BudgetEventStore, **settings)
    exercise.BudgetEventStore(stream_bytes=5, session_bytes=5, total_bytes=5, ttl=1.0)


def test_ids_name_their_stream_and_replay_is_exact(exercise) -> None:
    """Ids are "<stream>-<n>", n from 0 in each stream; events_after returns the (id, data) pairs
    after that event on its stream, in order, and [] after the last one."""
    events = store(exercise, stream_bytes=100, session_bytes=100, total_bytes=100)
    ids = [events.append("S", stream, f"{stream}{n}") for n in range(3) for stream in ("a", "b")]
    assert ids == ["a-0", "b-0", "a-1", "b-1", "a-2", "b-2"]
    assert events.events_after("S", "a-0") == [("a-1", "a1"), ("a-2", "a2")]
    assert events.events_after("S", "b-1") == [("b-2", "b2")]
    assert events.events_after("S", "a-2") == []


def test_a_stream_keeps_at_most_stream_bytes_counted_in_utf8(exercise) -> None:
    """An event costs len(data.encode("utf-8")). After an append, drop the stream's oldest events
    until it holds at most stream_bytes. A replay that needs a dropped event raises
    CannotReplay("forgotten")."""
    events = store(exercise)
    assert [events.append("S", "s", data) for data in ("aaaa", "ééé", "bbbb")] == [
        "s-0",
        "s-1",
        "s-2",
    ]
    assert events.size("S") == 10  # "é" is two bytes: 4 + 6 ... + 4 is 14, so "aaaa" went
    assert events.events_after("S", "s-0") == [("s-1", "ééé"), ("s-2", "bbbb")]
    events.append("S", "s", "cc")  # 6 + 4 + 2 = 12: "ééé" goes
    assert reason(exercise, events, "S", "s-0") == "forgotten"
    assert events.events_after("S", "s-1") == [("s-2", "bbbb"), ("s-3", "cc")]


def test_an_event_over_the_stream_budget_is_refused_and_nothing_stored(exercise) -> None:
    """An event larger than stream_bytes raises ValueError; the store is unchanged (no id used
    up)."""
    events = store(exercise)
    events.append("S", "s", "1234")
    expect_error(ValueError, events.append, "S", "s", "12345678901")
    expect_error(ValueError, events.append, "S", "s", "ééééé" + "x")  # 11 bytes
    assert events.size() == 4
    assert events.append("S", "s", "1234567890") == "s-1"  # exactly the budget is fine
    assert events.events_after("S", "s-0") == [("s-1", "1234567890")]


def test_a_session_drops_its_oldest_event_whatever_its_stream(exercise) -> None:
    """After trimming the stream, while the session holds more than session_bytes, drop the
    session's oldest event (the first appended of all its streams)."""
    events = store(exercise, stream_bytes=10, session_bytes=12)
    events.append("S", "a", "aaaa")  # a-0
    events.append("S", "b", "bbbb")  # b-0
    events.append("S", "b", "cccc")  # b-1: 12 bytes, fine
    events.append("S", "b", "dd")  # b-2: 14 > 12: a-0 (the oldest) goes, not b-0
    assert events.size("S") == 10
    assert events.events_after("S", "a-0") == []  # a-0 itself went, but nothing after it is missing
    assert events.events_after("S", "b-0") == [("b-1", "cccc"), ("b-2", "dd")]
    events.append("S", "a", "eeeeee")  # a-1: 16 > 12: b-0, now the oldest, goes
    assert events.size("S") == 12
    assert events.events_after("S", "b-0") == [("b-1", "cccc"), ("b-2", "dd")]
    events.append("S", "a", "ff")  # a-2: 14 > 12: b-1 goes
    assert events.size("S") == 10
    assert reason(exercise, events, "S", "b-0") == "forgotten"
    assert events.events_after("S", "b-1") == [("b-2", "dd")]
    assert events.events_after("S", "a-0") == [("a-1", "eeeeee"), ("a-2", "ff")]


def test_over_the_total_the_least_recently_used_other_session_goes_whole(exercise) -> None:
    """While the store holds more than total_bytes, forget the least recently used session other
    than the one appended to. Using a session (append, or events_after that succeeds) makes it the
    most recently used. A forgotten session's streams are "unknown"."""
    events = store(exercise, stream_bytes=10, session_bytes=10, total_bytes=25)
    events.append("A", "a", "aaaaaaaa")
    events.append("B", "b", "bbbbbbbb")
    events.append("C", "c", "cccc")  # 20 bytes
    events.events_after("A", "a-0")  # A is used again: B is now the least recently used
    # 30 > 25 (C itself: 12 > 10, so "cccc" went first: 24): all kept
    events.append("C", "c", "dddddddd")
    assert events.size() == 24
    events.append("C", "x", "ee")  # C: 10 ... 26 > 25: B goes, whole
    assert reason(exercise, events, "B", "b-0") == "unknown"
    assert events.size("B") == 0
    assert events.events_after("A", "a-0") == []
    assert events.size() == 18


def test_sessions_expire_after_ttl_by_the_clock(exercise) -> None:
    """At the start of append and of events_after, forget every session unused for more than ttl
    seconds (now - last use > ttl, with the clock you were given). Exactly ttl is not more."""
    clock = Clock()
    events = store(exercise, clock, ttl=10.0)
    events.append("A", "a", "old")
    clock.now = 8
    events.append("B", "b", "new")
    clock.now = 10.5
    assert reason(exercise, events, "A", "a-0") == "unknown"
    assert events.events_after("B", "b-0") == []  # used at 8, and now again at 10.5
    clock.now = 20.5
    assert events.events_after("B", "b-0") == []  # idle exactly 10: still there
    clock.now = 30.6
    events.append("C", "c", "x")
    assert events.size("B") == 0 and events.size() == 1


def test_cannot_replay_says_exactly_why(exercise) -> None:
    """CannotReplay (a LookupError) has a reason: "malformed" (not <stream>-<ASCII digits>),
    "unknown" (not a stream of this session, or a number it never reached), "forgotten" (a successor
    dropped)."""
    events = store(exercise)
    events.append("A", "a", "1")
    events.append("B", "b", "2")
    for bad in ("", "a", "a-", "-0", "a-x", "a-1.0", "a-\u0663"):
        assert reason(exercise, events, "A", bad) == "malformed", bad
    for unknown in ("b-0", "a-1", "a-5", "zz-0"):
        assert reason(exercise, events, "A", unknown) == "unknown", unknown
    assert reason(exercise, events, "nobody", "a-0") == "unknown"
    error = expect_error(exercise.CannotReplay, events.events_after, "A", "a-9")
    assert (error.reason, error.event_id) == ("unknown", "a-9")


def test_streams_belong_to_one_session_and_sessions_can_be_forgotten(exercise) -> None:
    """A stream id is not empty and has no "-"; it belongs to the session that first used it
    (another session appending to it: ValueError). forget_session drops a session; size() counts
    what is left."""
    events = store(exercise)
    for bad in ("", "a-b"):
        expect_error(ValueError, events.append, "A", bad, "x")
    events.append("A", "a", "xyz")
    events.append("B", "b", "uvw")
    expect_error(ValueError, events.append, "B", "a", "no")
    events.forget_session("A")
    events.forget_session("never")  # nothing to do
    assert (events.size(), events.size("A"), events.size("B")) == (3, 0, 3)
    assert reason(exercise, events, "A", "a-0") == "unknown"
    assert events.append("B", "a", "now B's") == "a-0"  # a forgotten stream id is free again


# -- Exercise 3 · Accept, to the letter of RFC 9110 ------------------------------------------------


def test_parse_accept_reads_ranges_and_weights(exercise) -> None:
    """Split on commas; each range is type/subtype (lower case) with ;name=value parameters; q is
    the weight (default 1.0) and is not kept among the parameters. No header at all means */*."""
    MediaRange = exercise.MediaRange
    assert exercise.parse_accept("application/json, text/event-stream") == [
        MediaRange("application", "json"),
        MediaRange("text", "event-stream"),
    ]
    assert exercise.parse_accept(" Text/Event-Stream ;Q=0.5 ,, application/*;q=0\t") == [
        MediaRange("text", "event-stream", (), 0.5),
        MediaRange("application", "*", (), 0.0),
    ]
    assert exercise.parse_accept(None) == [MediaRange("*", "*", (), 1.0)]
    assert exercise.parse_accept("") == []


def test_parse_accept_parameters_and_quoted_strings(exercise) -> None:
    """Parameter names in lower case, values as written; a quoted value may hold "," and ";" and
    backslash escapes, and is stored unquoted."""
    (first, second) = exercise.parse_accept(
        'text/plain;Format=Flowed;q=0.7, text/x;note="a, b; \\"c\\"";q=1'
    )
    assert first == exercise.MediaRange("text", "plain", (("format", "Flowed"),), 0.7)
    assert second == exercise.MediaRange("text", "x", (("note", 'a, b; "c"'),), 1.0)


@pytest.mark.parametrize("weight", ["0", "0.", "0.5", "0.125", "1", "1.", "1.000"])
def test_valid_weights(exercise, weight: str) -> None:
    """A weight is 0 with up to three decimals, or 1 with up to three zeros."""
    (media,) = exercise.parse_accept(f"text/event-stream;q={weight}")
    assert media.q == float(weight)


@pytest.mark.parametrize(
    "header",
    [
        "text/event-stream;q=1.5",
        "text/event-stream;q=0.1234",
        "text/event-stream;q=.5",
        "text/event-stream;q=-1",
        "text/event-stream;q=1.001",
        "text/event-stream;q=high",
        "text/event-stream;q=",
        "text",
        "text/",
        "/json",
        "*/json",
        "te xt/plain",
        "text/pl@in",
        "text/plain;charset",
        "text/plain;=x",
        'text/plain;a="b',
        'text/plain;a="b"c',
        "text/plain;q=0.5;charset=utf-8",
    ],
)
def test_malformed_headers_are_refused(exercise, header: str) -> None:
    """ValueError for: a bad weight, a range that is not token/token (or is */subtype), a parameter
    without "=" or a name or value, an unterminated or badly quoted string, a parameter after q."""
    expect_error(ValueError, exercise.parse_accept, header)


def test_quality_the_most_specific_range_decides(exercise) -> None:
    """Matching ranges: type and subtype equal or "*", the range's parameters all among the media
    type's. type/subtype beats type/*, beats */*; then more parameters beat fewer; then the first
    listed."""
    ranges = exercise.parse_accept(
        "text/*;q=0.3, text/plain;q=0.7, text/plain;format=flowed, "
        "text/plain;format=fixed;q=0.4, */*;q=0.5"
    )
    assert exercise.quality(ranges, "text/plain;format=flowed") == 1.0
    assert exercise.quality(ranges, "text/plain") == 0.7
    assert exercise.quality(ranges, "text/html") == 0.3
    assert exercise.quality(ranges, "image/jpeg") == 0.5
    assert exercise.quality(ranges, "text/plain;format=fixed") == 0.4
    assert exercise.quality(ranges, "text/html;level=3") == 0.3
    assert (
        exercise.quality(exercise.parse_accept("text/*;q=0.2, */*;foo=bar"), "text/x;foo=bar")
        == 0.2
    )
    assert exercise.quality(exercise.parse_accept("a/b;q=0.1, a/b;q=0.9"), "a/b") == 0.1
    assert exercise.quality(exercise.parse_accept("application/json"), "text/event-stream") == 0.0


def test_negotiate_post(exercise) -> None:
    """POST: 406 unless both application/json and text/event-stream have a weight above 0; then
    streaming True → SSE, False → JSON, None → the higher weight (JSON on a tie). A header that does
    not parse: 400."""
    both = "application/json, text/event-stream"
    assert exercise.negotiate("POST", both, True) == "text/event-stream"
    assert exercise.negotiate("POST", both, False) == "application/json"
    assert exercise.negotiate("POST", both, None) == "application/json"
    sse_first = "application/json;q=0.5, text/event-stream"
    assert exercise.negotiate("POST", sse_first, None) == "text/event-stream"
    assert exercise.negotiate("POST", "*/*", True) == "text/event-stream"
    assert exercise.negotiate("POST", None, False) == "application/json"
    for refused in (
        "application/json",
        "text/event-stream",
        "application/json;q=0, text/event-stream",
        "*/*, text/event-stream;q=0",
        "text/html",
        "",
    ):
        assert exercise.negotiate("POST", refused, True) == 406, refused
    assert exercise.negotiate("POST", "application/json;q=2, text/event-stream", True) == 400


def test_negotiate_get_and_the_other_methods(exercise) -> None:
    """GET: text/event-stream with a weight above 0, else 406 (400 if the header does not parse).
    Any other method: None."""
    assert exercise.negotiate("GET", "text/event-stream") == "text/event-stream"
    assert exercise.negotiate("GET", "text/*;q=0.1") == "text/event-stream"
    assert exercise.negotiate("GET", "application/json") == 406
    assert exercise.negotiate("GET", "text/event-stream;q=0, */*") == 406
    assert exercise.negotiate("GET", "text/event-stream;q=x") == 400
    assert exercise.negotiate("DELETE", "application/json") is None
    assert exercise.negotiate("PUT", "*/*") is None
