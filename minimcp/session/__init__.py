"""Layer 3, the session (lesson 03): the lifecycle over a connection.

* :mod:`minimcp.session.lifecycle`: versions, negotiation and the handshake's states, with no I/O;
* :mod:`minimcp.session.cancellation`: ``notifications/cancelled``, both ways (lesson 09, planned);
* :mod:`minimcp.session.server`: :class:`ServerSession`, and the :class:`RequestContext` of a
  handler;
* :mod:`minimcp.session.client`: :class:`ClientSession`.
"""

from minimcp.session.client import ClientSession, NotificationCallback, RequestCallback
from minimcp.session.lifecycle import (
    LATEST_PROTOCOL_VERSION,
    SUPPORTED_PROTOCOL_VERSIONS,
    HandshakeFailed,
    Lifecycle,
    UnsupportedVersion,
    negotiate_version,
)
from minimcp.session.server import RequestContext, ServerApp, ServerSession

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
