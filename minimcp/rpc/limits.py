"""The flood limit: a policy a connection is given (lesson 01).

A connection answers each of the peer's requests in a task of its own, so a peer that sends requests
faster than they are answered would make it grow without end. Its *admission* policy decides, for
each incoming request and how many are being answered already, whether to answer it or refuse it at
once with an error the peer can act on (``-32000``, "Server busy": try again later).
"""

from __future__ import annotations

from collections.abc import Callable

from minimcp.rpc.jsonrpc import Request, RpcError

#: JSON-RPC leaves -32000 to -32099 to each implementation: ours for "too many requests at once".
SERVER_BUSY = -32000
#: How many requests of one peer a connection answers at once, unless told otherwise.
DEFAULT_MAX_IN_FLIGHT = 256

#: For one of the peer's requests and how many are being answered already: the error that refuses
#: it, or None to answer it.
Admission = Callable[[Request, int], RpcError | None]


# --8<-- [start:at_most]
def at_most(limit: int) -> Admission:
    """The flood limit "at most ``limit`` of the peer's requests at once"; more get SERVER_BUSY."""

    def admit(request: Request, in_flight: int) -> RpcError | None:
        if in_flight < limit:
            return None
        busy = f"Server busy: {limit} requests of this connection are already being answered"
        return RpcError(SERVER_BUSY, busy, id=request.id)

    return admit


# --8<-- [end:at_most]
