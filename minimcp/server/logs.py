"""Logging: the server's log messages, sent to the client (taught in "the client talks back").

A server over stdio may write whatever it likes to stderr, but nobody on the other side of an HTTP
connection will ever read that. So MCP lets a server send its log lines *through the protocol*, as
``notifications/message``, and lets the client choose how much it wants to hear
(spec 2025-11-25, server/utilities/logging):

* the server declares the ``logging`` capability (a server that never logs says nothing);
* the client may send ``logging/setLevel`` with the least severe level it wants, e.g. ``"warning"``;
  an unknown level is -32602 Invalid params. The choice belongs to *that client's session* only;
* each message carries a ``level``, an optional ``logger`` (a name, such as ``"database"``) and
  ``data``: any JSON value, a string or a whole object.

The levels are the eight syslog severities of RFC 5424, from least to most severe: ``debug``,
``info``, ``notice``, ``warning``, ``error``, ``critical``, ``alert``, ``emergency``
(:mod:`minimcp.session.log_levels`). Filtering is one comparison: a message goes out when its level
is at least the session's level.

Where does a log line travel? Like any notification, on the session's cable. Over Streamable HTTP
(lesson 08) a message sent while answering a request rides on that request's own stream: :func:`log`
sends it as related to the request in its ``context``, and the transport does the rest.

    server = Server("worker")
    server.enable_logging()

    @server.tool()
    async def import_data(context: RequestContext) -> str:
        await log(context, "info", "import started", logger="importer")
        ...

"""

from __future__ import annotations

from typing import Any

from minimcp.rpc.jsonrpc import INVALID_PARAMS, RequestId, RpcError
from minimcp.server.core import ServerCore
from minimcp.session.context import Peer, RequestContext
from minimcp.session.log_levels import LEVELS, SEVERITY, is_level

# --8<-- [start:levels]
#: What a session hears before its client chooses: the spec leaves it to the server, and debug
#: chatter is for clients that ask for it.
DEFAULT_LEVEL = "info"


def wants(session: Peer, level: str, threshold: str | None = None) -> bool:
    """Whether ``session``'s client wants to hear a message of ``level`` (``threshold``: what one
    request asked for, rather than the session's level)."""
    threshold = threshold or session.log_level or DEFAULT_LEVEL
    return SEVERITY[level] >= SEVERITY[threshold]


# --8<-- [end:levels]


# --8<-- [start:registry]
class LoggingRegistry:
    """Answers ``logging/setLevel``, declares ``logging``: ``server.enable_logging()`` makes it."""

    def __init__(self, server: ServerCore) -> None:
        self.server = server
        server.method("logging/setLevel")(self.set_level)
        server.declare("logging")

    async def set_level(self, context: RequestContext) -> dict[str, Any]:
        """``logging/setLevel``: note the level of *this* session; other clients keep theirs."""
        level = context.params.get("level")
        if not is_level(level):
            raise RpcError(
                INVALID_PARAMS, f"Invalid log level {level!r}: use one of {', '.join(LEVELS)}"
            )
        context.session.log_level = level
        return {}


# --8<-- [end:registry]


# --8<-- [start:log]
async def send_log(
    session: Peer,
    level: str,
    data: Any,
    logger: str | None = None,
    related_request_id: RequestId | None = None,
    threshold: str | None = None,
) -> bool:
    """Send ``notifications/message`` to one session, if its level lets it through.

    Returns whether the message was sent. Declaring the capability is the server's promise to the
    client, so logging without it is a bug in the server: it raises :class:`RuntimeError`.
    """
    if not is_level(level):
        raise ValueError(f"unknown log level {level!r}: use one of {', '.join(LEVELS)}")
    if "logging" not in session.app.capabilities():
        raise RuntimeError(
            "this server did not declare the logging capability: call server.enable_logging()"
        )
    if not wants(session, level, threshold):
        return False
    params: dict[str, Any] = {"level": level}
    if logger is not None:
        params["logger"] = logger
    params["data"] = data
    await session.notify("notifications/message", params, related_request_id)
    return True


async def log(context: RequestContext, level: str, data: Any, logger: str | None = None) -> bool:
    """From inside a handler: log to the client whose request is being answered.

    A 2026-07-28 request says in its envelope which lines it wants; without ``logLevel`` it wants
    none (basic/index: the server MUST NOT send ``notifications/message`` then).
    """
    if context.modern and context.log_level is None:
        return False
    return await send_log(
        context.session, level, data, logger, context.request.id, context.log_level
    )


# --8<-- [end:log]
