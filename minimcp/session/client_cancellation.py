"""Cancellation for the client's session (lesson 09), plugged into lesson 03's
:class:`~minimcp.session.client.ClientSession`.

Lesson 03's session knows nothing of cancellation; it takes ``extensions``, functions given the
built session. :func:`cancellation` is one: with it, the session tells the server about each
request of ours it gave up on, and stops answering a question of the server's when the server
stops waiting::

    ClientSession(transport, extensions=[cancellation])
    Client(transport, extensions=[cancellation])   # the same, through lesson 04's client

The rules themselves live in :mod:`minimcp.session.cancellation`, shared with the server's session.
"""

from __future__ import annotations

from typing import Any

from minimcp.session.cancellation import CANCELLED, on_cancelled, tell_peer_on_abandon
from minimcp.session.client import ClientSession


def cancellation(session: ClientSession) -> None:
    """Teach ``session`` both halves of cancellation (a ``SessionExtension``)."""
    tell_peer_on_abandon(session.connection)  # our request that times out is cancelled

    def server_stopped_waiting(params: dict[str, Any]) -> None:  # for a question it asked us
        on_cancelled(session.connection, params)

    session.notification_handlers[CANCELLED] = server_stopped_waiting
