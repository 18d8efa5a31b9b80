"""What lesson 08's endpoint needs of others, and where later lessons plug in (lesson 08).

* :class:`McpServer`: what the endpoint needs of the server behind it;
* :class:`OpenSession`: what ``GET`` and ``DELETE`` need of the session a request names (an
  :class:`~minimcp.transports.http.sessions.HttpSession` here; lesson 11 adds sessions that other
  workers run, seen from here);
* :class:`StandAlone`: requests served with no session at all. This lesson serves none
  (:class:`SessionsOnly`); lesson 12 gives the endpoint its 2026-07-28 strategy
  (:class:`~minimcp.transports.http.stateless.Revision2026`);
* :class:`RequestHeaders`, on the client's side: a later lesson's say in the headers of each POST
  (lesson 12's :class:`~minimcp.transports.http.modern_client.ModernHeaders`).
"""

from __future__ import annotations

from typing import Protocol

from minimcp.rpc import Servable
from minimcp.rpc.jsonrpc import Message, Request
from minimcp.transports.http.asgi import HttpRequest, Receive, Send
from minimcp.transports.http.streams import Stream


class McpServer(Servable, Protocol):
    """What the endpoint needs of the server behind it (:class:`minimcp.server.Server` is one):
    ``serve`` a session over a transport, the protocol versions it speaks, and whether it has a
    method at all."""

    protocol_versions: tuple[str, ...]

    def knows(self, method: str) -> bool: ...


class OpenSession(Protocol):
    """What GET and DELETE need of the session a request names: an :class:`HttpSession` of this
    process, or (lesson 11) one that another worker runs, seen from here."""

    busy: int  # HTTP requests of it being served right now
    last_active: float

    @property
    def announcements(self) -> Stream: ...  # the GET stream

    def stream(self, stream_id: str) -> Stream | None: ...  # a stream to resume, if it has that one

    async def end(self) -> None: ...


# --8<-- [start:stand_alone]
class StandAlone(Protocol):
    """Requests the endpoint serves without a session: the seam a later era plugs into.

    This lesson's endpoint serves every request in a session. Lesson 12's revision, 2026-07-28, has
    none: each request carries what a session would have said. Its strategy is given to the endpoint
    (``StreamableHTTP(server, stand_alone=...)``); the endpoint asks it about every request first.
    """

    def screen(self, request: HttpRequest) -> None:
        """A GET or DELETE: raise the :class:`Refusal` it earns here, if any (else return)."""

    def takes(self, request: HttpRequest, message: Message) -> bool:
        """Whether this POSTed message is one to serve with no session."""

    async def serve(
        self,
        request: HttpRequest,
        message: Message,
        send: Send,
        receive: Receive,
        stream_after: float,
        keepalive: float,
    ) -> None:
        """Serve it: the answer, as JSON or as an SSE stream (the endpoint's timings given).
        ``message`` is the POST's body, parsed once by the endpoint."""

    async def close(self) -> None:
        """The server stops: each request still being served gets an answer now."""


class SessionsOnly:
    """Lesson 08's own choice: no request stands alone; every one belongs to a session."""

    def screen(self, request: HttpRequest) -> None:
        return None

    def takes(self, request: HttpRequest, message: Message) -> bool:
        return False

    async def serve(
        self,
        request: HttpRequest,
        message: Message,
        send: Send,
        receive: Receive,
        stream_after: float,
        keepalive: float,
    ) -> None:
        raise AssertionError("SessionsOnly takes no request")

    async def close(self) -> None:
        return None


# --8<-- [end:stand_alone]


class RequestHeaders(Protocol):
    """A later lesson's say in the headers of each POST (lesson 12's: the 2026-07-28 headers)."""

    def headers_for(self, request: Request) -> dict[str, str] | None:
        """The headers to send with ``request``, if this hook speaks for it (then the session's
        headers are not sent); None to leave the request to the session."""

    def received(self, message: Message) -> None:
        """A message from the server, parsed: what the hook may learn from it."""
