"""Server-Sent Events: many messages down one HTTP response (lesson 08).

An HTTP response normally carries one body and ends. SSE (the HTML standard's "event stream",
``Content-Type: text/event-stream``) keeps the response open and writes *events* into it, one after
another, as they happen. The format is plain text, one ``field: value`` per line, and a blank line
ends each event::

    id: 7f3a-1
    retry: 1000
    data: {"jsonrpc":"2.0","method":"notifications/progress","params":{...}}

Four fields matter:

* ``data`` — the payload. MCP puts exactly one JSON-RPC message in it. A value with line breaks is
  sent as several ``data:`` lines, which the reader joins with ``\\n``.
* ``id`` — the event's id. The reader remembers the last one it saw, and after a dropped connection
  sends it back in the ``Last-Event-ID`` header so the server can replay what was missed.
* ``retry`` — how many milliseconds to wait before reconnecting.
* ``event`` — the event's type; absent means ``message``, which is all MCP uses.

A line starting with ``:`` is a comment (servers send one now and then to keep proxies from closing
an idle connection). :func:`format_event` writes events; :class:`SSEParser` reads them, following
the standard's parsing rules to the letter
(https://html.spec.whatwg.org/multipage/server-sent-events.html). Both are *sans-IO*, like the
framing of lesson 02: bytes in, events out, no sockets.

Run ``python -m minimcp demo sse`` to see an event written and read back, cut at awkward places.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

LINE_END = re.compile(r"\r\n|\r|\n")


# --8<-- [start:format]
def format_event(
    data: str | None = None,
    *,
    id: str | None = None,
    event: str | None = None,
    retry: int | None = None,
) -> bytes:
    """One SSE event as bytes: ``id``, ``event``, ``retry`` lines, ``data`` lines, a blank line.

    ``data=""`` writes an empty ``data:`` line (an event with empty data: MCP's *priming* event);
    ``data=None`` writes none at all.
    """
    lines = []
    for name, value in (("id", id), ("event", event)):
        if value is not None:
            if "\n" in value or "\r" in value:  # a line break would end the field early
                raise ValueError(f"an SSE {name} cannot contain a line break")
            lines.append(f"{name}: {value}")
    if retry is not None:
        lines.append(f"retry: {int(retry)}")
    if data is not None:
        # Every line of the payload becomes its own "data:" line; the reader joins them with "\n".
        # A lone "\r" ends a line too, for the reader: each kind of line break starts a new line.
        text = data.replace("\r\n", "\n").replace("\r", "\n")
        lines += [f"data: {line}" if line else "data:" for line in text.split("\n")]
    return ("\n".join(lines) + "\n\n").encode("utf-8")


# --8<-- [end:format]


def format_comment(text: str = "") -> bytes:
    """A comment line: ignored by readers, useful to keep an idle connection alive."""
    return f": {text}\n\n".encode()


@dataclass(frozen=True)
class Event:
    """One event, as the reader dispatches it."""

    data: str
    id: str | None = None  # the last event id seen so far on this stream (it carries over)
    event: str = "message"
    retry: int | None = None  # a retry value that arrived with this event, if any


# --8<-- [start:parser]
class SSEParser:
    """Cuts a byte stream into events, by the HTML standard's rules.

    Lines end with ``\\n``, ``\\r\\n`` or a lone ``\\r``. Each line is ``field: value`` (one space
    after the colon is dropped), a comment (``:`` first), or blank: a blank line *dispatches* the
    event collected so far. An event with no ``data`` line is not dispatched, but its ``id`` still
    counts.
    """

    def __init__(self, max_event: int = 4 * 1024 * 1024) -> None:
        self.max_event = max_event  # an event larger than this is a broken or hostile server
        self.last_event_id: str | None = None  # survives across events, as the standard says
        self.retry: int | None = None
        self._text = ""  # decoded text not yet cut into lines
        # A network read may end in the middle of a multi-byte character: an incremental decoder
        # keeps the first half until the rest arrives. Bytes never valid in UTF-8 become U+FFFD.
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._data: list[str] = []
        self._event = ""
        self._retry_now: int | None = None
        self._size = 0
        self._started = False  # the stream's first byte may be a byte order mark, to be skipped
        self._scanned = 0  # characters of the unfinished line already searched for a line end

    def feed(self, chunk: bytes) -> list[Event]:
        """Feed the next bytes; return the events they complete, in order."""
        text = self._decoder.decode(chunk)
        if not self._started and text:
            self._started = True
            text = text.removeprefix("\ufeff")
        self._text += text
        events = []
        position = 0  # where the next line starts
        while True:
            end = LINE_END.search(self._text, max(position, self._scanned))
            if end is None or (end.group() == "\r" and end.end() == len(self._text)):
                # No whole line yet (a "\r" at the very end may be the first half of "\r\n": wait).
                self._scanned = len(self._text) if end is None else end.start()
                break
            event = self._line(self._text[position : end.start()])
            position = end.end()
            if event is not None:
                events.append(event)
        self._text = self._text[position:]  # keep only the unfinished line
        self._scanned = max(0, self._scanned - position)
        if len(self._text) > self.max_event:
            raise ValueError(f"an SSE line is longer than {self.max_event} characters")
        return events

    def _line(self, line: str) -> Event | None:
        if not line:  # a blank line: dispatch
            return self._dispatch()
        if line.startswith(":"):  # a comment
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._size += len(value)
            if self._size > self.max_event:
                raise ValueError(f"an SSE event is larger than {self.max_event} characters")
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:  # the standard: an id with a NUL is ignored
                self.last_event_id = value
        elif name == "retry":
            if value.isascii() and value.isdigit():
                self.retry = self._retry_now = int(value)
        return None  # any other field name is ignored

    def _dispatch(self) -> Event | None:
        data, event, retry = self._data, self._event or "message", self._retry_now
        self._data, self._event, self._retry_now, self._size = [], "", None, 0
        if not data:  # no data line: nothing to dispatch (the id, if any, is kept)
            return None
        return Event("\n".join(data), self.last_event_id, event, retry)


# --8<-- [end:parser]
