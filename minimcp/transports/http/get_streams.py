"""The stream a GET reads: the announcement channel, or one resumed after an event (lesson 08).

Without a ``Last-Event-ID`` header, a GET opens the session's announcement channel, from now on.
With one, it resumes the stream that event belongs to (a POST's or the GET's own), replaying what
came after it, exactly, or not at all: a stream this session does not have, or an event the store
has forgotten, is a ``400``.
"""

from __future__ import annotations

from minimcp.transports.event_store import StoredEvent, UnknownEventId, parse_event_id
from minimcp.transports.http.asgi import Refusal
from minimcp.transports.http.seams import OpenSession
from minimcp.transports.http.streams import Listener, Stream


# --8<-- [start:stream_for_get]
async def stream_for_get(
    session: OpenSession, last_event_id: str | None
) -> tuple[Stream, Listener, list[StoredEvent]]:
    """The stream a GET reads, its new connection, and the events to write first."""
    if last_event_id is None:  # the announcement channel, from now on
        stream = session.announcements
        listener, priming = await stream.open()
        return stream, listener, [priming]
    # Resuming a stream: replay what came after that event, then go on
    stream_id = stream_of(last_event_id)
    found = session.stream(stream_id) if stream_id else None
    if found is None:
        raise Refusal(
            400,
            f"Bad Request: Last-Event-ID {last_event_id!r} names no stream of this session",
        )
    listener = await found.attach()
    try:
        return found, listener, await found.events_after(last_event_id)
    except UnknownEventId as error:
        found.detach(listener)
        raise Refusal(400, f"Bad Request: cannot resume: {error}") from None


# --8<-- [end:stream_for_get]


def stream_of(event_id: str) -> str | None:
    """The id of the stream an event id names, or None if it names none."""
    try:
        return parse_event_id(event_id)[0]
    except UnknownEventId:
        return None
