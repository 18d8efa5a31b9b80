"""Progress, both ways (spec 2025-11-25, basic/utilities/progress).

Whoever sends a request may ask to hear how it is going, by putting a ``progressToken`` in its
``params._meta``; whoever answers it may then send, as often as it likes,

    {"jsonrpc": "2.0", "method": "notifications/progress",
     "params": {"progressToken": "progress-1", "progress": 2, "total": 5, "message": "Step 2 of 5"}}

The client does it for a long ``tools/call`` (lesson 04); the server may do it too, for a sampling
request that waits for a person (lesson 09). Both sides share the two halves here:

* :func:`progress_notice`, for the side that answers: the notification for a request's token, or
  nothing when the request carried none (nobody asked to hear);
* :class:`ProgressRouter`, for the side that asked: it hands out tokens "unique across all active
  requests", sends each notification to the callback of its request, and drops what the spec says a
  receiver may drop: a token it never gave or whose request is over, and a ``progress`` that did not
  grow ("MUST increase with each notification").
"""

from __future__ import annotations

import itertools
import logging
import weakref
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

from minimcp.rpc.aio import call
from minimcp.rpc.jsonrpc import Notification
from minimcp.session.context import Peer, RequestContext

log = logging.getLogger("minimcp.progress")

PROGRESS = "notifications/progress"

#: ``progress(progress, total, message)``: how far a long request has got.
ProgressCallback = Callable[[float, float | None, str | None], Awaitable[None] | None]
ProgressToken = str | int


# --8<-- [start:notice]
def token_of(params: dict[str, Any] | None) -> ProgressToken | None:
    """The ``progressToken`` a request carries in ``_meta``, or None if it asked for no progress."""
    meta = (params or {}).get("_meta")
    token = meta.get("progressToken") if isinstance(meta, dict) else None
    return token if isinstance(token, (str, int)) and not isinstance(token, bool) else None


def progress_notice(
    request_params: dict[str, Any] | None,
    progress: float,
    total: float | None = None,
    message: str | None = None,
) -> dict[str, Any] | None:
    """The params of ``notifications/progress`` for a request, or None if it carried no token."""
    token = token_of(request_params)
    if token is None:
        return None
    params: dict[str, Any] = {"progressToken": token, "progress": progress}
    if total is not None:
        params["total"] = total
    if message is not None:
        params["message"] = message
    return params


# --8<-- [end:notice]


# --8<-- [start:router]
class ProgressRouter:
    """The tokens this side gave out, and the callback each one's notifications go to."""

    def __init__(self, prefix: str = "progress") -> None:
        self._prefix = prefix
        self._numbers = itertools.count(1)
        self._callbacks: dict[ProgressToken, ProgressCallback] = {}
        self._last: dict[ProgressToken, float] = {}  # the last progress heard, per token

    @contextmanager
    def watching(
        self, params: dict[str, Any], callback: ProgressCallback
    ) -> Iterator[ProgressToken]:
        """Put a fresh token in ``params["_meta"]`` for the request's lifetime; forget it afterwards
        (a notice that comes later has nowhere to go, and is dropped)."""
        # A token unique among this side's requests in flight
        token = f"{self._prefix}-{next(self._numbers)}"
        params["_meta"] = {**params.get("_meta", {}), "progressToken": token}
        self._callbacks[token] = callback
        try:
            yield token
        finally:
            self._callbacks.pop(token, None)
            self._last.pop(token, None)

    async def deliver(self, params: dict[str, Any]) -> bool:
        """Hand one ``notifications/progress`` to its callback; False if it was dropped."""
        token, progress = params.get("progressToken"), params.get("progress")
        callback = self._callbacks.get(token) if isinstance(token, (str, int)) else None
        # A token we never gave, or its request is already over
        if callback is None or token is None:
            log.debug("dropping progress for an unknown token: %r", token)
            return False
        last = self._last.get(token, float("-inf"))
        if not isinstance(progress, (int, float)) or progress <= last:
            log.debug("dropping progress %r for %r: it must grow with each notice", progress, token)
            return False
        self._last[token] = progress
        await call(callback, progress, params.get("total"), params.get("message"))
        return True


# --8<-- [end:router]


# --8<-- [start:server_side]
#: Each server session's router, for the questions it asks its client (made on first use).
_routers: weakref.WeakKeyDictionary[Peer, ProgressRouter] = weakref.WeakKeyDictionary()


def router_of(session: Peer) -> ProgressRouter:
    """The router of ``session``'s questions to its client: made, and given the session's
    ``notifications/progress`` (lesson 03's table of session-level handlers), on first use."""
    router = _routers.get(session)
    if router is None:
        router = _routers[session] = ProgressRouter()

        async def deliver(notification: Notification) -> None:
            await router.deliver(notification.params or {})

        session.notification_handlers[PROGRESS] = deliver
    return router


async def request_with_progress(
    context: RequestContext,
    method: str,
    params: dict[str, Any] | None,
    timeout: float | None,
    progress: ProgressCallback | None,
) -> Any:
    """``context.send_request``, with ``progress(progress, total, message)`` hearing how far the
    client got (lesson 09: progress goes both ways). A request that stands alone (2026-07-28) asks
    within its own answer, where no progress comes: it is sent as it is."""
    if progress is None or context.modern:
        return await context.send_request(method, params, timeout)
    params = dict(params or {})
    with router_of(context.session).watching(params, progress):
        return await context.send_request(method, params, timeout)


# --8<-- [end:server_side]
