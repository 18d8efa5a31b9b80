"""Layer 3, the session (lesson 03): the lifecycle over a connection.

* :mod:`minimcp.session.lifecycle`: versions, negotiation and the handshake's states, with no I/O;
* :mod:`minimcp.session.cancellation`: ``notifications/cancelled``, both ways (lesson 09, planned);
* :mod:`minimcp.session.server`: :class:`ServerSession`, the server's half;
* :mod:`minimcp.session.context`: the :class:`RequestContext` a handler gets;
* :mod:`minimcp.session.client`: :class:`ClientSession`.
"""

from minimcp.session.client import ClientSession, NotificationCallback, RequestCallback
from minimcp.session.context import RequestContext
from minimcp.session.lifecycle import (
    LATEST_PROTOCOL_VERSION,
    SUPPORTED_PROTOCOL_VERSIONS,
    HandshakeFailed,
    Lifecycle,
    UnsupportedVersion,
    negotiate_version,
)
from minimcp.session.server import ServerApp, ServerSession

__all__ = [
    "LATEST_PROTOCOL_VERSION",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "ClientSession",
    "HandshakeFailed",
    "Lifecycle",
    "NotificationCallback",
    "RequestCallback",
    "RequestContext",
    "ServerApp",
    "ServerSession",
    "UnsupportedVersion",
    "negotiate_version",
]
