# ----------------------------------------------------------------------------------------
# Lesson 08-streamable-http: your exercise.
#
# 1. Read the docstrings below: each part says exactly what to build.
# 2. Replace each `raise NotImplementedError(...)`, under its TODO, with your code.
# 3. Check your work, as often as you like:  python tools/check.py 08
#
# Stuck for good? A worked answer is in solutions/08-streamable-http/exercise.py.
# This file is yours: a new version of the course may replace it, so keep a copy of your work.
# ----------------------------------------------------------------------------------------
"""Lesson 08 exercise: three pieces of Streamable HTTP, each a step beyond what minimcp does.

1. **A resumable stream, from the client's side.** ``minimcp.transports.http.client`` reads an SSE
   stream with ``SSEParser`` and, when the connection drops, comes back with ``Last-Event-ID`` after
   ``retry`` milliseconds. Write the bookkeeping of one such stream yourself, over as many
   connections as it takes: the HTML standard's line rules, every message exactly once and in order,
   the id to resume from (the last *complete* event's, never one cut in half), and how long to wait
   before each reconnection (``retry``, then longer and longer while connections bring nothing new).
2. **An event store with a byte budget.** ``minimcp.transports.event_store.MemoryEventStore`` counts
   events. A message may be 50 bytes or 4 MiB, so count bytes instead: per stream, per session and
   in all, forgetting the least recently used session first when memory runs out, with an expiry
   driven by a clock you can pass in, and an exact answer when a replay is impossible.
3. **Accept, to the letter of RFC 9110.** ``minimcp.transports.http`` checks that ``Accept`` lists
   both types (or a wildcard) and ignores the weights: ``application/json;q=0`` slips through. Parse
   the header with its ``q`` values, parameters and quoted strings, and decide between 406, JSON and
   SSE.

Check your work with ``python tools/check.py 08``. Only the standard library is needed.
"""

from __future__ import annotations

import codecs
import json
import re
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

# =================================================================================================
# Part 1 · A resumable SSE stream, from the client's side
# =================================================================================================
#
# One stream (a POST's answer, or the GET announcement channel) may arrive over several
# connections. `ResumableStream` follows it: `feed` gets each connection's bytes, in chunks cut
# anywhere, and returns the JSON-RPC messages they complete; `connection_ended` says what to do when
# a connection ends: wait that many milliseconds, then GET with `Last-Event-ID: <last_event_id>`,
# or stop (None).
#
# The lines (the HTML standard, "Parsing an event stream"):
#
#   * a line ends with "\r\n", "\n" or a lone "\r". A "\r" at the end of one chunk and a "\n" at the
#     start of the next are ONE line end. A UTF-8 character may be cut between two chunks too
#     (decode incrementally); bytes that are never valid UTF-8 become U+FFFD.
#   * a byte order mark (U+FEFF) at the very start of a connection's bytes is skipped;
#   * a line starting with ":" is a comment: ignored;
#   * "name:value" is a field; one space after the colon is dropped ("data: x" and "data:x" are the
#     same); a line without a colon is a field with an empty value ("data" is "data:");
#   * "data": the value is appended to the event's data (several data lines are joined with "\n");
#   * "id": if the value contains no NUL (U+0000), it becomes the *id buffer*; else it is ignored;
#   * "retry": if the value is ASCII digits only, it becomes the reconnection time at once (even if
#     the event is never completed); otherwise it is ignored;
#   * any other field ("event" included: MCP only uses the default type) is ignored;
#   * a blank line *dispatches* the event: `last_event_id` becomes the id buffer (the buffer is not
#     reset: an event without an id line keeps the previous one); then, if the event had at least
#     one data line, its data is complete. Then the data is reset for the next event.
#
# The messages:
#
#   * an event with empty data (the server's *priming* event) carries no message;
#   * an event that has its own "id" line, with an id already delivered, is a duplicate (a server
#     may replay *from* the id rather than after it): skip it;
#   * the others are returned, their data as it is, in order;
#   * with a `request_id`, the stream is complete (`done`) once a JSON-RPC response to that request
#     (an object with that "id" and a "result" or an "error") was returned; from then on `feed`
#     returns nothing. The GET stream (`request_id=None`) is never complete.
#
# The end of a connection (`connection_ended`):
#
#   * an event not completed by a blank line is dropped, with its id (the client never saw it
#     whole: resuming after it would lose it); so is an unfinished line. A new connection starts a
#     new byte stream (a new decoder, a new BOM check), with the id buffer set to `last_event_id`;
#   * done: None. No `last_event_id` (None or ""): None, nothing to resume from;
#   * a connection is *fruitful* if `last_event_id` changed during it. After a fruitful one, wait
#     `retry` milliseconds (the last value received, on any connection; else `retry_ms`). Each
#     fruitless one in a row doubles the wait: retry, 2*retry, 4*retry... never more than
#     `max_wait_ms`. After more than `max_fruitless` fruitless connections in a row: None.
#
# The methods whose names start with "_" are one way to split the work: use them, change them or
# delete them. The tests call only `feed`, `connection_ended`, `last_event_id`, `done` and `follow`.


class ResumableStream:
    """The client's side of one resumable SSE stream, over as many connections as it takes."""

    def __init__(
        self,
        request_id: int | str | None = None,
        *,
        retry_ms: int = 1000,
        max_fruitless: int = 3,
        max_wait_ms: int = 30_000,
    ) -> None:
        # TODO: settings; last_event_id, done; the ids delivered; the per-connection state
        raise NotImplementedError("__init__")

    def _start_connection(self) -> None:
        """A new connection: new decoder, new BOM check, nothing half-read; the id buffer is
        last_event_id."""
        # TODO: reset the per-connection state; remember last_event_id (was it fruitful?)
        raise NotImplementedError("_start_connection")

    def feed(self, chunk: bytes) -> list[str]:
        """The next bytes of the current connection; the messages they complete, in order."""
        # TODO: decode, skip a first BOM, cut whole lines (a last "\r" waits), handle each
        raise NotImplementedError("feed")

    def _line(self, line: str) -> str | None:
        """One whole line (without its line end); the message it completes, if any."""
        # TODO: blank → dispatch; ":" → comment; else field and value (one space dropped)
        raise NotImplementedError("_line")

    def _dispatch(self) -> str | None:
        """A blank line: the event is complete. Its message, unless it has none or was delivered
        already."""
        # TODO: last_event_id ← id buffer; no data, "" or its id seen → None; else keep it
        raise NotImplementedError("_dispatch")

    def _check_done(self, message: str) -> None:
        """Set done if ``message`` is the JSON-RPC response to request_id."""
        # TODO: a dict with id == request_id and a "result" or an "error"
        raise NotImplementedError("_check_done")

    def connection_ended(self) -> int | None:
        """The connection ended (cut, or closed by the server): milliseconds to wait, or None:
        stop."""
        # TODO: drop the half event; done/no id → None; count fruitless; back off; give up
        raise NotImplementedError("connection_ended")


@dataclass
class Followed:
    """What following a stream over several connections gave."""

    messages: list[str]  # every message, once, in order
    # for each reconnection: (the Last-Event-ID to send, the wait in ms)
    resumptions: list[tuple[str, int]]
    done: bool  # the stream is complete


def follow(
    connections: Iterable[Iterable[bytes]], request_id: int | str | None = None, **options: int
) -> Followed:
    """Follow one stream over successive connections, each given as the chunks it brought.

    After each connection, ask ``connection_ended()``: None means stop (even if connections are
    left); a wait means "reconnect": record ``(last_event_id, wait)`` and read the next connection.
    ``options`` go to ResumableStream.
    """
    # TODO: a ResumableStream; feed the chunks; per connection: stop, or note a resumption
    raise NotImplementedError("follow")


# =================================================================================================
# Part 2 · An event store with a byte budget
# =================================================================================================
#
# The server stores every event before it sends it, so that a client can ask for it again. Here the
# memory is counted in bytes: an event costs len(data.encode("utf-8")) (its id is not counted).
#
#   * event ids are "<stream id>-<n>", n = 0, 1, 2... per stream. A stream id is not empty and has
#     no "-" (ValueError otherwise). A stream belongs to the session that first appended to it;
#     another session appending to it is a ValueError.
#   * the budgets, checked in __init__ (ValueError unless 0 < stream_bytes <= session_bytes <=
#     total_bytes and ttl > 0):
#       - one event larger than `stream_bytes` is refused (ValueError), and nothing is stored;
#       - after an append, while its stream holds more than `stream_bytes`, its oldest event goes;
#       - then, while its session holds more than `session_bytes`, the session's oldest event goes
#         (the one appended first, whatever its stream);
#       - then, while the store holds more than `total_bytes`, the least recently used *other*
#         session is forgotten, whole.
#   * a session is *used* by an append, and by an `events_after` that succeeds. A session unused for
#     more than `ttl` seconds (now - last use > ttl, by `clock()`) is forgotten, whole: check that
#     at the start of `append` and of `events_after`.
#   * a stream whose events were all dropped is still known (so that the store can say "forgotten").
#   * `events_after(session, event_id)` returns the (id, data) pairs after that event, in order, or
#     raises CannotReplay with one of three reasons:
#       - "malformed": not "<stream id>-<digits>" (ASCII digits);
#       - "unknown": no such stream in this session (never was, another session's, or forgotten with
#         its session), or a number the stream never reached;
#       - "forgotten": some event after it was dropped: an exact replay is impossible.
#   * `forget_session` drops a session (the client sent DELETE); `size()` is the bytes kept in all,
#     `size(session)` in one session (0 for one the store does not know).
#
# As in part 1, the "_" methods and the small classes after the store are a suggestion, yours to
# change.


class CannotReplay(LookupError):
    """An exact replay after ``event_id`` is impossible, for ``reason``: malformed, unknown or
    forgotten."""

    def __init__(self, reason: str, event_id: str) -> None:
        super().__init__(f"cannot replay after {event_id!r}: {reason}")
        self.reason = reason
        self.event_id = event_id


class BudgetEventStore:
    """Events kept per session and per stream, within byte budgets, least recently used session
    first out."""

    def __init__(
        self,
        *,
        stream_bytes: int,
        session_bytes: int,
        total_bytes: int,
        ttl: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        # TODO: check budgets; keep them, clock, sessions (LRU order), a global counter
        raise NotImplementedError("__init__")

    def append(self, session_id: str, stream_id: str, data: str) -> str:
        """Store the next event of ``stream_id`` (in ``session_id``); return its id."""
        # TODO: expire; check; store; trim the stream, then the session; evict others
        raise NotImplementedError("append")

    def events_after(self, session_id: str, event_id: str) -> list[tuple[str, str]]:
        """The (id, data) of every event after ``event_id`` on its stream, or CannotReplay."""
        # TODO: expire; parse; find the stream in this session; nothing after it dropped?
        raise NotImplementedError("events_after")

    def forget_session(self, session_id: str) -> None:
        """Drop a session and all its streams (the client ended it)."""
        raise NotImplementedError("forget_session")

    def size(self, session_id: str | None = None) -> int:
        """Bytes kept: in all, or in one session."""
        raise NotImplementedError("size")

    def _drop_oldest(self, session: _Session, stream: _Stream) -> None:
        """Drop the oldest event of ``stream`` (in ``session``), and its bytes from both counts."""
        raise NotImplementedError("_drop_oldest")

    def _forget(self, session_id: str) -> None:
        """Forget a session, whole: its events, and which streams were its."""
        raise NotImplementedError("_forget")

    def _expire(self, now: float) -> None:
        """Forget every session unused for more than ttl seconds."""
        raise NotImplementedError("_expire")


# Helpers for the store, yours to change (the tests use only the class above).
@dataclass
class _Event:
    id: str
    number: int  # its place in its stream
    data: str
    size: int  # bytes of data, in UTF-8
    order: int  # its place among all the appends


@dataclass
class _Stream:
    events: deque[_Event] = field(default_factory=deque)
    next_number: int = 0
    bytes: int = 0


@dataclass
class _Session:
    streams: dict[str, _Stream] = field(default_factory=dict)
    bytes: int = 0
    last_used: float = 0.0


# =================================================================================================
# Part 3 · Accept, to the letter of RFC 9110 (section 12.5.1)
# =================================================================================================
#
#   Accept: application/json;q=0.9, text/event-stream, */*;q=0
#
# The header is a list of media ranges, separated by commas; each may have parameters, separated
# by semicolons; the parameter "q" is its *weight*, from 0 to 1, where 0 means "not acceptable".
#
# `parse_accept(header)`:
#   * None (no Accept header at all) means "anything": [MediaRange("*", "*", (), 1.0)];
#   * split on "," (but never inside a quoted string); skip elements that are empty or only spaces
#     and tabs ("a/b,,c/d" is two ranges; "" is none);
#   * each element is "type/subtype" followed by parameters ";name=value"; spaces and tabs are
#     allowed around ";" and at both ends. type, subtype and parameter names are *tokens* (one or
#     more of the characters in TCHAR), compared case-insensitively: store them in lower case.
#     "*/*" and "type/*" are wildcards; "*/subtype" is not allowed;
#   * a value is a token or a quoted string: "..." in which a backslash escapes the next character
#     ('"a\"b"' is a"b); store it unquoted, as it is (case kept). A parameter without "=" or with an
#     empty value is an error;
#   * the first parameter named "q" (any case) is the weight: "0", "0." and up to three decimals
#     ("0.5", "0.125"), or "1", "1." and up to three zeros ("1.000"). Anything else ("1.5",
#     "0.1234", ".5", "-1") is an error, and so is any parameter after the weight. No weight means
#     1.0;
#   * errors raise ValueError.
#
# `quality(ranges, media_type)`: how much the client wants `media_type` ("type/subtype", perhaps
# with parameters, never a weight). A range *matches* it if its type and subtype are equal or "*",
# and each of the range's parameters is among the media type's, with an equal value (names without
# case, values exactly). Of the matching ranges, the most specific decides: "type/subtype" beats
# "type/*", which beats "*/*"; between two of the same kind, more parameters beats fewer; between
# two equally specific ones, the first listed. None matches: 0.0.
#
# `negotiate(method, accept, streaming)`: what minimcp should answer.
#   * "POST": a client must accept both application/json and text/event-stream (a weight above 0 for
#     each): else 406. Then `streaming` decides: True (the answer will stream) →
#     "text/event-stream"; False → "application/json"; None (either will do) → the one with the
#     higher weight, and "application/json" on a tie;
#   * "GET": text/event-stream with a weight above 0 → "text/event-stream"; else 406;
#   * an Accept header that does not parse: 400 (for POST and GET);
#   * any other method: None (nothing is negotiated: DELETE's answer has no body).
#
# The "_" functions after parse_accept are, again, one way to split the work.

TCHAR = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class MediaRange:
    type: str
    subtype: str
    # (name, value) pairs, names in lower case, the weight left out
    params: tuple[tuple[str, str], ...] = ()
    q: float = 1.0


def parse_accept(header: str | None) -> list[MediaRange]:
    """The media ranges of an ``Accept`` header, in order (rules above); ValueError if malformed.

    >>> parse_accept('text/event-stream;q=0.5')
    [MediaRange(type='text', subtype='event-stream', params=(), q=0.5)]
    """
    # TODO: split on "," outside quotes; each: type/subtype, parameters, the weight last
    raise NotImplementedError("parse_accept")


def _split(text: str, separator: str) -> list[str]:
    """``text`` cut at every ``separator`` outside quoted strings (ValueError if one is left
    open)."""
    # TODO: walk the characters, remembering "inside quotes" and "after a backslash"
    raise NotImplementedError("_split")


def _is_token(text: str) -> bool:
    """One or more characters, all in TCHAR."""
    raise NotImplementedError("_is_token")


def _parameter(text: str) -> tuple[str, str]:
    """``' Name="v"'`` → ``("name", "v")``: a token, "=", a token or a quoted string; ValueError
    otherwise."""
    raise NotImplementedError("_parameter")


def _unquote(value: str) -> str:
    """'"a\\"b"' → 'a"b': the quotes off, each backslash escape replaced by the character it
    escapes."""
    # TODO: a closing quote, no bare quote inside, no backslash left dangling
    raise NotImplementedError("_unquote")


def quality(ranges: list[MediaRange], media_type: str) -> float:
    """The weight the client gives ``media_type``: that of the most specific matching range, else
    0.0.

    >>> ranges = parse_accept("text/*;q=0.3, text/event-stream;q=0.8, */*;q=0.1")
    >>> quality(ranges, "text/event-stream")
    0.8
    """
    # TODO: parse the type; of matching ranges, the most specific (first on a tie) wins
    raise NotImplementedError("quality")


def negotiate(method: str, accept: str | None, streaming: bool | None = None) -> str | int | None:
    """The content type to answer with, or the HTTP error status (406, 400), or None (rules above).

    >>> negotiate("POST", "application/json, text/event-stream", streaming=True)
    'text/event-stream'
    >>> negotiate("POST", "application/json;q=0, text/event-stream")
    406
    """
    # TODO: only POST and GET; parse (400); both types' weights; 406; then the choice
    raise NotImplementedError("negotiate")
