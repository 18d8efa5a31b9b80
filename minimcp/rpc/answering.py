"""How a request becomes its answer: the handlers a connection is given, and the rule (lesson 01).

A :class:`~minimcp.rpc.connection.Connection` is given two handlers, one for the peer's requests
and one for its notifications; until it is given others, an unknown request earns ``-32601`` and an
unknown notification is dropped. :func:`answer_of` turns what a request handler does into the one
answer the request is owed. It needs no connection: lesson 12 answers a request that arrives on its
own by the same rule.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from minimcp.rpc.jsonrpc import (
    INTERNAL_ERROR,
    ErrorResponse,
    Notification,
    Request,
    Response,
    RpcError,
    method_not_found,
)

log = logging.getLogger("minimcp.connection")


# --8<-- [start:defaults]
RequestHandler = Callable[[Request], Awaitable[Any]]
NotificationHandler = Callable[[Notification], Awaitable[None]]


async def no_such_method(request: Request) -> Any:
    """The default request handler: nothing is served yet."""
    raise method_not_found(request.method)


async def ignore(notification: Notification) -> None:
    """The default notification handler: notifications nobody asked for are dropped."""


# --8<-- [end:defaults]


# --8<-- [start:answer_of]
async def answer_of(request: Request, handler: RequestHandler) -> Response | ErrorResponse:
    """What ``handler`` answers to ``request``: a response with its result, or the error response
    its failure earns. A cancelled handler gives no answer at all (CancelledError goes through)."""
    try:
        result = await handler(request)
    except RpcError as err:
        return ErrorResponse(request.id, err.code, err.message, err.data)
    except Exception:  # a bug in a handler must never take the connection down
        # The traceback goes to our log; the peer learns only that we failed, not our internals.
        log.exception("handler for %s failed", request.method)
        return internal_error(request)
    return Response(request.id, {} if result is None else result)


def internal_error(request: Request) -> ErrorResponse:
    """The answer to a request whose handler failed: -32603, and nothing of our internals."""
    return ErrorResponse(
        request.id, INTERNAL_ERROR, f"Internal error while handling {request.method!r}"
    )


# --8<-- [end:answer_of]
