"""The SSE writer and parser (minimcp.sse), against the HTML standard's rules and its own
examples."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minimcp.transports.sse import Event, SSEParser, format_comment, format_event


def parse_all(data: bytes, step: int | None = None) -> list[Event]:
    """Every event in ``data``, fed whole or ``step`` bytes at a time."""
    parser = SSEParser()
    step = step or len(data) or 1
    events: list[Event] = []
    for start in range(0, len(data), step):
        events += parser.feed(data[start : start + step])
    return events


def test_format_event_writes_fields_then_a_blank_line() -> None:
    assert format_event('{"a":1}', id="s-1") == b'id: s-1\ndata: {"a":1}\n\n'
    # a priming event
    assert format_event("", id="s-0", retry=1000) == b"id: s-0\nretry: 1000\ndata:\n\n"
    assert format_event(retry=500) == b"retry: 500\n\n"
    assert format_event("one\ntwo", event="note") == b"event: note\ndata: one\ndata: two\n\n"
    assert format_comment("keep-alive") == b": keep-alive\n\n"
    with pytest.raises(ValueError, match="line break"):
        format_event("x", id="a\nb")


def test_the_standards_examples() -> None:
    # https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
    stream = b"data: YHOO\ndata: +2\ndata: 10\n\n"
    assert parse_all(stream) == [Event("YHOO\n+2\n10")]
    stream = (
        b": test stream\n\n"
        b"data: first event\nid: 1\n\n"
        b"data:second event\nid\n\n"
        b"data:  third event\n\n"
    )
    assert parse_all(stream) == [
        Event("first event", "1"),
        Event("second event", ""),
        Event(" third event", ""),
    ]
    stream = b"data\n\ndata\ndata\n\ndata:"
    # the unterminated last one is not dispatched
    assert parse_all(stream) == [Event(""), Event("\n")]


def test_every_line_ending_and_every_cut() -> None:
    stream = b"id: 1\r\ndata: a\r\rid: 2\ndata: b\n\ndata: c\r\n\r\n"
    expected = [Event("a", "1"), Event("b", "2"), Event("c", "2")]  # the id carries over
    for step in range(1, len(stream) + 1):
        assert parse_all(stream, step) == expected, step


def test_utf8_cut_in_the_middle_of_a_character_and_a_byte_order_mark() -> None:
    stream = "\ufeffdata: caché ✓\n\n".encode()
    for step in range(1, len(stream) + 1):
        assert parse_all(stream, step) == [Event("caché ✓")]
    assert parse_all(b"data: \xff\n\n") == [Event("\ufffd")]  # never valid UTF-8: replaced


def test_id_retry_and_event_fields() -> None:
    stream = (
        b"id: a\x00b\ndata: x\n\nretry: soon\ndata: y\n\nretry: 250\nevent: custom\ndata: z\n\n"
    )
    parser = SSEParser()
    events = parser.feed(stream)
    assert events == [Event("x", None), Event("y", None), Event("z", None, "custom", 250)]
    assert parser.retry == 250


def test_an_event_without_data_is_not_dispatched_but_its_id_counts() -> None:
    parser = SSEParser()
    assert parser.feed(b"id: 7\n\n") == []
    assert parser.last_event_id == "7"
    assert parser.feed(b"data: after\n\n") == [Event("after", "7")]


def test_an_event_over_the_limit_is_an_error() -> None:
    parser = SSEParser(max_event=10)
    with pytest.raises(ValueError, match="larger than 10"):
        parser.feed(b"data: 0123456789ABC\n\n")
    with pytest.raises(ValueError, match="longer than 10"):
        SSEParser(max_event=10).feed(b"data: 0123456789ABCDEF")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.text(), st.one_of(st.none(), st.text(alphabet="abc-0123", min_size=1)))),
    st.integers(min_value=1, max_value=50),
)
def test_what_is_written_is_read_back(items: list[tuple[str, str | None]], step: int) -> None:
    stream = b"".join(format_event(data, id=event_id) for data, event_id in items)
    events = parse_all(stream, step)
    expected_data = [data.replace("\r\n", "\n").replace("\r", "\n") for data, _ in items]
    assert [event.data for event in events] == expected_data


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300), st.integers(min_value=1, max_value=40))
def test_any_bytes_give_events_or_a_clear_error(data: bytes, step: int) -> None:
    try:
        events = parse_all(data, step)
    except ValueError:
        return
    assert all(isinstance(event.data, str) for event in events)
