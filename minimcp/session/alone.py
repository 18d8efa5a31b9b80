"""A 2026-07-28 request that arrives alone: one function call, no session (lesson 12).

Over stdio and WebSocket a 2026-07-28 request still arrives on a connection: lesson 03's
:class:`~minimcp.session.server.ServerSession` receives it, and its front
(:class:`~minimcp.session.modern.ModernFront`) serves it. Over Streamable HTTP it arrives alone, in
a POST of its own: no connection to keep, no handshake to remember, nothing to end afterwards. So
:func:`answer_alone` answers it with one call, from the request to its answer. What the handler
says meanwhile (progress, a log line) goes to ``say``; lesson 12's HTTP writes it on the POST's
stream.

The handler's context reaches the client through a :class:`~minimcp.session.context.Peer`; here
that is :class:`OneRequestPeer`, which knows what the request's envelope says and can hear what
is said about the request, and nothing more.
"""

from __future__ import annotations

from typing import Any

from minimcp.rpc.abilities import RequestStreams
from minimcp.rpc.answering import answer_of
from minimcp.rpc.jsonrpc import ErrorResponse, Notification, Request, RequestId, Response
from minimcp.session.context import NotificationHandler, Say
from minimcp.session.envelope import Envelope
from minimcp.session.modern import ModernApp, ModernContext, ModernEra, admit, answer_admitted
from minimcp.session.server import ServerApp


# --8<-- [start:peer]
class OneRequestPeer:
    """The client of one request that arrives alone: what its envelope says of it, and a way to
    tell it things about that request. It cannot be asked anything: a 2026-07-28 question to the
    client travels inside the answer (:class:`~minimcp.session.input_required.InputRequired`)."""

    request_streams: RequestStreams | None = None  # one POST, one stream: none to close early
    protocol_version: str | None = None  # no handshake agreed one: the envelope says it

    def __init__(self, app: ModernApp, say: Say, envelope: Envelope) -> None:
        self.app: ServerApp = app
        self.say = say
        self.client_capabilities = envelope.client_capabilities
        self.log_level = envelope.log_level
        self.subscriptions: set[str] = set()  # resources/subscribe is gone in 2026-07-28
        self.notification_handlers: dict[str, NotificationHandler] = {}

    async def notify(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        related_request_id: RequestId | None = None,
    ) -> None:
        """Everything said here is about the one request: it goes on that request's stream."""
        await self.say(Notification(method, params))

    async def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        timeout: float | None = None,
        related_request_id: RequestId | None = None,
    ) -> Any:
        raise RuntimeError(
            f"a request that arrives alone cannot send {method!r} to its client: "
            "ask through the context (context.ask), which returns input_required"
        )


# --8<-- [end:peer]


# --8<-- [start:answer_alone]
async def answer_alone(
    app: ModernApp, era: ModernEra, request: Request, say: Say, principal: str | None = None
) -> Response | ErrorResponse:
    """Answer a 2026-07-28 request from itself alone; what it says meanwhile goes to ``say``.

    The same four steps as the front's (:mod:`minimcp.session.modern`), and the same rule as
    lesson 01's connection for turning a handler's failure into an error response. ``principal``
    is the user the transport authenticated (lesson 10's guard), if any: a request state is sealed
    for that user alone.
    """

    async def serve(request: Request) -> dict[str, Any]:
        envelope, answers = admit(app, era, request, principal)
        peer = OneRequestPeer(app, say, envelope)
        context = ModernContext(peer, request, envelope, answers, principal)
        return await answer_admitted(app, era, context)

    return await answer_of(request, serve)


# --8<-- [end:answer_alone]
