"""Streamable HTTP's routing rules, with no socket and no event loop
(minimcp.transports.http.routing)."""

from __future__ import annotations

import pytest

from minimcp.transports.http.routing import ANNOUNCEMENTS, DROP, answer_as, stream_for


@pytest.mark.parametrize(
    ("is_answer", "related", "waiting", "where"),
    [
        (True, 7, {7}, 7),  # an answer goes back on its own POST
        (False, 7, {7, 8}, 7),  # progress sent while answering 7: on 7's stream
        (False, None, {7}, ANNOUNCEMENTS),  # list_changed: the server's own news
        # related to a request whose POST is gone: still worth saying
        (False, 9, {7}, ANNOUNCEMENTS),
        (True, 9, {7}, DROP),  # an answer nobody waits for: nobody can receive it
        (True, None, {7}, DROP),  # an error answer to a message that could not be read
    ],
)
def test_stream_for(is_answer: bool, related: int | None, waiting: set[int], where: object) -> None:
    assert stream_for(is_answer, related, waiting) == where


@pytest.mark.parametrize(
    ("first", "how"),
    [
        ("answer", "json"),  # quick, and silent before its answer
        ("message", "sse"),  # progress (or a question back) came first
        ("close", "sse"),  # the handler closed the stream before saying anything
        (None, "sse"),  # still running when the wait ran out
        ("ended", "gone"),  # the session ended meanwhile
    ],
)
def test_answer_as(first: str | None, how: str) -> None:
    assert answer_as(first) == how  # type: ignore[arg-type]
