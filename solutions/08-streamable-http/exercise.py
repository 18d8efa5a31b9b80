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
        # BEGIN SOLUTION: settings; last_event_id, done; the ids delivered; the per-connection state
        self.request_id = request_id
        self.retry_ms = retry_ms  # the reconnection time: the server's `retry` replaces it
        self.max_fruitless = max_fruitless
        self.max_wait_ms = max_wait_ms
        self.last_event_id: str | None = None
        self.done = False
        self._delivered: set[str] = set()  # the ids of the events whose message was returned
        self._fruitless = 0
        self._start_connection()
        # END SOLUTION

    def _start_connection(self) -> None:
        """A new connection: new decoder, new BOM check, nothing half-read; the id buffer is
        last_event_id."""
        # BEGIN SOLUTION: reset the per-connection state; remember last_event_id (was it fruitful?)
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._started = False  # the first character of a connection may be a BOM
        self._text = ""  # decoded, not yet cut into lines
        self._id_buffer = self.last_event_id or ""
        self._own_id = False  # did the event being read have an id line of its own?
        self._data: list[str] = []
        self._id_at_start = self.last_event_id
        # END SOLUTION

    def feed(self, chunk: bytes) -> list[str]:
        """The next bytes of the current connection; the messages they complete, in order."""
        # BEGIN SOLUTION: decode, skip a first BOM, cut whole lines (a last "\r" waits), handle each
        text = self._decoder.decode(chunk)
        if not self._started and text:
            self._started = True
            text = text.removeprefix("\ufeff")
        self._text += text
        messages: list[str] = []
        while True:
            end = re.search(r"\r\n|\r|\n", self._text)
            if end is None or (end.group() == "\r" and end.end() == len(self._text)):
                break  # no whole line yet (a final "\r" may be the first half of "\r\n")
            line, self._text = self._text[: end.start()], self._text[end.end() :]
            message = self._line(line)
            if message is not None and not self.done:
                messages.append(message)
                self._check_done(message)
        return messages
        # END SOLUTION

    def _line(self, line: str) -> str | None:
        """One whole line (without its line end); the message it completes, if any."""
        # BEGIN SOLUTION: blank → dispatch; ":" → comment; else field and value (one space dropped)
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "id" and "\0" not in value:
            self._id_buffer, self._own_id = value, True
        elif name == "retry" and value.isascii() and value.isdigit():
            self.retry_ms = int(value)
        return None
        # END SOLUTION

    def _dispatch(self) -> str | None:
        """A blank line: the event is complete. Its message, unless it has none or was delivered
        already."""
        # BEGIN SOLUTION: last_event_id ← id buffer; no data, "" or its id seen → None; else keep it
        data, own_id = self._data, self._own_id
        self._data, self._own_id = [], False
        self.last_event_id = self._id_buffer
        if not data or data == [""]:
            return None  # no data line, or empty data: a priming event
        if own_id:
            if self.last_event_id in self._delivered:
                return None  # replayed once too often
            self._delivered.add(self.last_event_id)
        return "\n".join(data)
        # END SOLUTION

    def _check_done(self, message: str) -> None:
        """Set done if ``message`` is the JSON-RPC response to request_id."""
        # BEGIN SOLUTION: a dict with id == request_id and a "result" or an "error"
        if self.request_id is None:
            return
        try:
            decoded = json.loads(message)
        except ValueError:
            return
        if (
            isinstance(decoded, dict)
            and decoded.get("id") == self.request_id
            and ("result" in decoded or "error" in decoded)
        ):
            self.done = True
        # END SOLUTION

    def connection_ended(self) -> int | None:
        """The connection ended (cut, or closed by the server): milliseconds to wait, or None:
        stop."""
        # BEGIN SOLUTION: drop the half event; done/no id → None; count fruitless; back off; give up
        fruitful = self.last_event_id != self._id_at_start
        self._start_connection()
        if self.done or not self.last_event_id:
            return None
        self._fruitless = 0 if fruitful else self._fruitless + 1
        if self._fruitless > self.max_fruitless:
            return None
        return min(self.retry_ms * 2**self._fruitless, self.max_wait_ms)
        # END SOLUTION


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
    # BEGIN SOLUTION: a ResumableStream; feed the chunks; per connection: stop, or note a resumption
    stream = ResumableStream(request_id, **options)
    messages: list[str] = []
    resumptions: list[tuple[str, int]] = []
    for connection in connections:
        for chunk in connection:
            messages += stream.feed(chunk)
        wait = stream.connection_ended()
        if wait is None:
            break
        assert stream.last_event_id is not None
        resumptions.append((stream.last_event_id, wait))
    return Followed(messages, resumptions, stream.done)
    # END SOLUTION


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
        # BEGIN SOLUTION: check budgets; keep them, clock, sessions (LRU order), a global counter
        if not 0 < stream_bytes <= session_bytes <= total_bytes or ttl <= 0:
            raise ValueError(
                "budgets must be 0 < stream_bytes <= session_bytes <= total_bytes, and ttl > 0"
            )
        self.stream_bytes = stream_bytes
        self.session_bytes = session_bytes
        self.total_bytes = total_bytes
        self.ttl = ttl
        self._clock = clock
        self._sessions: OrderedDict[str, _Session] = OrderedDict()  # least recently used first
        self._owner: dict[str, str] = {}  # stream id → its session
        self._order = 0  # every event's place in the order of appends, across streams
        # END SOLUTION

    def append(self, session_id: str, stream_id: str, data: str) -> str:
        """Store the next event of ``stream_id`` (in ``session_id``); return its id."""
        # BEGIN SOLUTION: expire; check; store; trim the stream, then the session; evict others
        now = self._clock()
        self._expire(now)
        if not stream_id or "-" in stream_id:
            raise ValueError(f"bad stream id {stream_id!r}: not empty, no '-'")
        owner = self._owner.get(stream_id)
        if owner is not None and owner != session_id:
            raise ValueError(f"stream {stream_id!r} belongs to another session")
        size = len(data.encode("utf-8"))
        if size > self.stream_bytes:
            raise ValueError(
                f"an event of {size} bytes is over the stream budget of {self.stream_bytes}"
            )
        session = self._sessions.setdefault(session_id, _Session())
        stream = session.streams.setdefault(stream_id, _Stream())
        self._owner[stream_id] = session_id
        event_id = f"{stream_id}-{stream.next_number}"
        stream.events.append(_Event(event_id, stream.next_number, data, size, self._order))
        stream.next_number += 1
        stream.bytes += size
        session.bytes += size
        self._order += 1
        while stream.bytes > self.stream_bytes:
            self._drop_oldest(session, stream)
        while session.bytes > self.session_bytes:
            oldest = min(
                (s for s in session.streams.values() if s.events), key=lambda s: s.events[0].order
            )
            self._drop_oldest(session, oldest)
        session.last_used = now
        self._sessions.move_to_end(session_id)
        while self.size() > self.total_bytes:
            # The front is never this session: it was just moved.
            self._forget(next(iter(self._sessions)))
        return event_id
        # END SOLUTION

    def events_after(self, session_id: str, event_id: str) -> list[tuple[str, str]]:
        """The (id, data) of every event after ``event_id`` on its stream, or CannotReplay."""
        # BEGIN SOLUTION: expire; parse; find the stream in this session; nothing after it dropped?
        now = self._clock()
        self._expire(now)
        stream_id, _, number = event_id.rpartition("-")
        if not stream_id or not (number.isascii() and number.isdigit()):
            raise CannotReplay("malformed", event_id)
        after = int(number)
        session = self._sessions.get(session_id)
        stream = session.streams.get(stream_id) if session is not None else None
        if session is None or stream is None or after >= stream.next_number:
            raise CannotReplay("unknown", event_id)
        first_kept = stream.events[0].number if stream.events else stream.next_number
        if after + 1 < first_kept:
            raise CannotReplay("forgotten", event_id)
        session.last_used = now
        self._sessions.move_to_end(session_id)
        return [(event.id, event.data) for event in stream.events if event.number > after]
        # END SOLUTION

    def forget_session(self, session_id: str) -> None:
        """Drop a session and all its streams (the client ended it)."""
        # BEGIN SOLUTION
        if session_id in self._sessions:
            self._forget(session_id)
        # END SOLUTION

    def size(self, session_id: str | None = None) -> int:
        """Bytes kept: in all, or in one session."""
        # BEGIN SOLUTION
        if session_id is None:
            return sum(session.bytes for session in self._sessions.values())
        session = self._sessions.get(session_id)
        return session.bytes if session is not None else 0
        # END SOLUTION

    def _drop_oldest(self, session: _Session, stream: _Stream) -> None:
        """Drop the oldest event of ``stream`` (in ``session``), and its bytes from both counts."""
        # BEGIN SOLUTION
        event = stream.events.popleft()
        stream.bytes -= event.size
        session.bytes -= event.size
        # END SOLUTION

    def _forget(self, session_id: str) -> None:
        """Forget a session, whole: its events, and which streams were its."""
        # BEGIN SOLUTION
        session = self._sessions.pop(session_id)
        for stream_id in session.streams:
            del self._owner[stream_id]
        # END SOLUTION

    def _expire(self, now: float) -> None:
        """Forget every session unused for more than ttl seconds."""
        # BEGIN SOLUTION
        for session_id, session in list(self._sessions.items()):
            if now - session.last_used > self.ttl:
                self._forget(session_id)
        # END SOLUTION


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
    # BEGIN SOLUTION: split on "," outside quotes; each: type/subtype, parameters, the weight last
    if header is None:
        return [MediaRange("*", "*")]
    ranges = []
    for element in _split(header, ","):
        if not element.strip(" \t"):
            continue
        kind, *parameters = _split(element, ";")
        media_type, slash, subtype = kind.strip(" \t").partition("/")
        if not (slash and _is_token(media_type) and _is_token(subtype)) or (
            media_type == "*" != subtype
        ):
            raise ValueError(f"bad media range {kind.strip()!r}")
        params: list[tuple[str, str]] = []
        q: float | None = None
        for parameter in parameters:
            if q is not None:
                raise ValueError(f"a parameter after the weight in {element.strip()!r}")
            name, value = _parameter(parameter)
            if name == "q":
                if not re.fullmatch(r"0(\.\d{0,3})?|1(\.0{0,3})?", value):
                    raise ValueError(f"bad weight q={value!r}")
                q = float(value)
            else:
                params.append((name, value))
        ranges.append(
            MediaRange(media_type.lower(), subtype.lower(), tuple(params), 1.0 if q is None else q)
        )
    return ranges
    # END SOLUTION


def _split(text: str, separator: str) -> list[str]:
    """``text`` cut at every ``separator`` outside quoted strings (ValueError if one is left
    open)."""
    # BEGIN SOLUTION: walk the characters, remembering "inside quotes" and "after a backslash"
    pieces: list[str] = []
    current: list[str] = []
    quoted, escaped = False, False
    for char in text:
        if escaped:
            escaped = False
        elif quoted and char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char == separator and not quoted:
            pieces.append("".join(current))
            current = []
            continue
        current.append(char)
    if quoted:
        raise ValueError(f"an unterminated quoted string in {text!r}")
    pieces.append("".join(current))
    return pieces
    # END SOLUTION


def _is_token(text: str) -> bool:
    """One or more characters, all in TCHAR."""
    # BEGIN SOLUTION
    return bool(text) and all(char in TCHAR for char in text)
    # END SOLUTION


def _parameter(text: str) -> tuple[str, str]:
    """``' Name="v"'`` → ``("name", "v")``: a token, "=", a token or a quoted string; ValueError
    otherwise."""
    # BEGIN SOLUTION
    name, equals, value = text.strip(" \t").partition("=")
    if not equals or not _is_token(name):
        raise ValueError(f"bad parameter {text.strip()!r}")
    if value.startswith('"'):
        return name.lower(), _unquote(value)
    if not _is_token(value):
        raise ValueError(f"bad parameter value {value!r}")
    return name.lower(), value
    # END SOLUTION


def _unquote(value: str) -> str:
    """'"a\\"b"' → 'a"b': the quotes off, each backslash escape replaced by the character it
    escapes."""
    # BEGIN SOLUTION: a closing quote, no bare quote inside, no backslash left dangling
    if len(value) < 2 or not value.endswith('"'):
        raise ValueError(f"bad quoted string {value!r}")
    out, escaped = [], False
    for char in value[1:-1]:
        if escaped:
            out.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            raise ValueError(f"bad quoted string {value!r}")
        else:
            out.append(char)
    if escaped:
        raise ValueError(f"bad quoted string {value!r}")
    return "".join(out)
    # END SOLUTION


def quality(ranges: list[MediaRange], media_type: str) -> float:
    """The weight the client gives ``media_type``: that of the most specific matching range, else
    0.0.

    >>> ranges = parse_accept("text/*;q=0.3, text/event-stream;q=0.8, */*;q=0.1")
    >>> quality(ranges, "text/event-stream")
    0.8
    """
    # BEGIN SOLUTION: parse the type; of matching ranges, the most specific (first on a tie) wins
    (wanted,) = parse_accept(media_type)
    offered = dict(wanted.params)
    best: tuple[tuple[int, int, int], MediaRange] | None = None
    for candidate in ranges:
        if candidate.type not in ("*", wanted.type) or candidate.subtype not in (
            "*",
            wanted.subtype,
        ):
            continue
        if any(offered.get(name) != value for name, value in candidate.params):
            continue
        rank = (candidate.type != "*", candidate.subtype != "*", len(candidate.params))
        if best is None or rank > best[0]:
            best = (rank, candidate)
    return best[1].q if best is not None else 0.0
    # END SOLUTION


def negotiate(method: str, accept: str | None, streaming: bool | None = None) -> str | int | None:
    """The content type to answer with, or the HTTP error status (406, 400), or None (rules above).

    >>> negotiate("POST", "application/json, text/event-stream", streaming=True)
    'text/event-stream'
    >>> negotiate("POST", "application/json;q=0, text/event-stream")
    406
    """
    # BEGIN SOLUTION: only POST and GET; parse (400); both types' weights; 406; then the choice
    if method not in ("POST", "GET"):
        return None
    try:
        ranges = parse_accept(accept)
    except ValueError:
        return 400
    sse = quality(ranges, "text/event-stream")
    if method == "GET":
        return "text/event-stream" if sse > 0 else 406
    json_q = quality(ranges, "application/json")
    if json_q == 0 or sse == 0:
        return 406
    if streaming is None:
        return "text/event-stream" if sse > json_q else "application/json"
    return "text/event-stream" if streaming else "application/json"
    # END SOLUTION
