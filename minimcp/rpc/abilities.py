"""What a cable can do besides carrying messages, declared by its class (lesson 01).

Every transport sends and receives whole messages (:class:`~minimcp.rpc.transport.Transport`).
A few can do more, and the session above may use it: Streamable HTTP (lesson 08) carries each
request's answer on a stream of its own, so it can end the connection under that stream, and must
let the stream go when the request is cancelled; lesson 11's workers keep each session's state where
another worker finds it.

A transport says what it can do in its ``abilities``: an :class:`Abilities` whose fields are the
objects that do it (typed, so mypy checks that the class really has those methods), or None. A cable
that only carries messages, as stdio and WebSocket do, declares :data:`PLAIN`. The session reads the
declaration; it never has to guess from the transport's type.

The slots are named here, in lesson 01, so that the session can read them without importing the
later lessons that fill them: lesson 08's HTTP cable fills ``request_streams`` and ``hands_in``,
lesson 11's shared cable ``state_keeper``. Every other cable leaves them empty.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from minimcp.rpc.jsonrpc import Message, RequestId

#: The connection's way in for one message (:meth:`~minimcp.rpc.connection.Connection.take`).
Take = Callable[[Message], Awaitable[None]]


class RequestStreams(Protocol):
    """A cable with a stream per request (lesson 08's Streamable HTTP)."""

    def close_request_stream(self, request_id: RequestId, retry_ms: int | None = None) -> bool:
        """End the connection under a request's stream (the stream lives on, the client resumes it
        after ``retry_ms``); False if no such request is waiting."""

    def request_cancelled(self, request_id: RequestId) -> None:
        """The request was cancelled: no answer will end its stream, so end it now."""


class StateKeeper(Protocol):
    """A cable that keeps its session's state where other processes find it (lesson 11)."""

    def restored_state(self) -> dict[str, Any] | None:
        """The state to start from (None: a new session)."""

    async def keep_state(self, state: dict[str, Any]) -> None:
        """Keep ``state``: called, before the client hears the answer, whenever it changed."""


class HandsIn(Protocol):
    """A cable whose messages are handed in by others (lesson 08: each POST brings one), rather
    than read from a stream by the connection's reading loop."""

    def hand_to(self, take: Take) -> None:
        """From now on, give each message straight to ``take``: the task that brought it runs it,
        with no queue between, and no turn of the event loop for the reading loop to wake up."""


# --8<-- [start:abilities]
@dataclass(frozen=True)
class Abilities:
    """What one cable can do besides send and receive: each field the object doing it, or None."""

    request_streams: RequestStreams | None = None  # close a request's stream; end a cancelled one
    state_keeper: StateKeeper | None = None  # save the session's state for another worker
    hands_in: HandsIn | None = None  # messages handed in, not read: give them to the connection
    #: The other side may stop sending and still read: a pipe's end of input is half a close, so
    #: every request received before it is answered (lesson 02), not only the quick ones.
    reads_after_end: bool = False


#: A cable that only carries messages (stdio, WebSocket).
PLAIN = Abilities()
# --8<-- [end:abilities]
