"""Cancellation, both ways (spec 2025-11-25, basic/utilities/cancellation).

Either side may stop waiting for a request it sent, and says so with a notification:

    {"jsonrpc": "2.0", "method": "notifications/cancelled",
     "params": {"requestId": 7, "reason": "no answer within 5 s"}}

The rules this module keeps, on top of lesson 01's :class:`~minimcp.rpc.connection.Connection`
(which knows how to stop answering a request, and when its own caller gave up, but not MCP's words):

* **sending**: when a request of ours is abandoned (a timeout, a caller that stopped waiting), tell
  the peer, with the reason; never for ``initialize``, which "MUST NOT be cancelled" (the lifecycle
  page says what to do instead: give up on the connection);
* **receiving**: stop the work, free what it held, and send **no** response; a ``requestId`` that is
  unknown, already answered, or malformed is ignored ("MAY ignore"), never answered with an error,
  since a notification has no answer. The late answer the peer may still send is dropped by the
  connection.

"Free what it held" includes the cable: Streamable HTTP keeps a POST's stream open until the answer
goes out, and no answer ever will. A server session whose cable has such streams (lesson 03's
:class:`~minimcp.rpc.abilities.RequestStreams`) tells it, and the stream ends (lesson 08's
``HttpSession.end_request``).
"""

from __future__ import annotations

import logging
from typing import Any

from minimcp.rpc.abilities import RequestStreams
from minimcp.rpc.connection import Connection
from minimcp.rpc.jsonrpc import Notification, Request, RequestId
from minimcp.rpc.transport import log_send_failure
from minimcp.session.server import ServerSession, StartsSessions

log = logging.getLogger("minimcp.cancellation")

CANCELLED = "notifications/cancelled"


# --8<-- [start:send]
def tell_peer_on_abandon(connection: Connection) -> None:
    """Make ``connection`` send ``notifications/cancelled`` for each request it gives up on."""

    async def send_cancelled(request: Request, reason: str) -> None:
        # MUST NOT be cancelled: the caller closes the connection instead
        if request.method == "initialize":
            return
        try:
            await connection.notify(CANCELLED, {"requestId": request.id, "reason": reason})
        except Exception as error:  # the peer may be gone already: nothing more to do
            log_send_failure(f"the cancellation of #{request.id}", error)

    connection.on_abandon = send_cancelled


# --8<-- [end:send]


# --8<-- [start:receive]
def on_cancelled(
    connection: Connection,
    params: dict[str, Any],
    protected: RequestId | None = None,
    streams: RequestStreams | None = None,
) -> None:
    """The peer stopped waiting for one of its requests: stop answering it (and send nothing back).

    ``protected`` is the id of the peer's ``initialize`` request, which may not be cancelled;
    ``streams``, the cable's streams per request, if it has them: the request's one ends too.
    """
    request_id = params.get("requestId")
    reason = params.get("reason")
    if isinstance(request_id, bool) or not isinstance(request_id, (str, int)):
        log.warning("ignoring %s without a valid requestId: %r", CANCELLED, request_id)
        return
    if protected is not None and request_id == protected:
        log.warning(
            "ignoring %s for the initialize request #%s: it may not be cancelled",
            CANCELLED,
            request_id,
        )
        return
    task = connection.answering(request_id)
    if task is not None and not task.done():  # done: its answer has gone out already
        task.cancel()  # the connection sends no answer for a cancelled task, even one that returns
        log.info("request #%s cancelled by the peer (%s)", request_id, reason or "no reason given")
        if streams is not None:  # no answer will close its stream
            streams.request_cancelled(request_id)
    else:  # answered already, or never seen: the two messages crossed on the way
        log.debug("ignoring %s for #%s: no such request is being answered", CANCELLED, request_id)


# --8<-- [end:receive]


# --8<-- [start:plug]
def cancellable(server: StartsSessions) -> None:
    """Give every session of ``server`` cancellation, both ways: lesson 03's session offers the
    seams (its connection's abandon hook, its table of notification handlers), this plugs in."""

    def setup(session: ServerSession) -> None:
        tell_peer_on_abandon(session.connection)  # a question that times out is cancelled

        async def cancelled(notification: Notification) -> None:  # the client stopped waiting
            on_cancelled(
                session.connection,
                notification.params or {},
                protected=session.initialize_id,
                streams=session.request_streams,
            )

        session.notification_handlers[CANCELLED] = cancelled

    server.at_session_start(setup)


# --8<-- [end:plug]
