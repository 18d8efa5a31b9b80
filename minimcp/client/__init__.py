"""Layer 4, the client's side: :class:`Client`, what it answers when the server asks
(:mod:`~minimcp.client.answers`, lesson 09), where it meets a cable
(:mod:`~minimcp.client.connect`, lesson 08's :mod:`~minimcp.client.http_connect`), and the
complete client of both eras (:mod:`~minimcp.client.modern`, lesson 12)."""

from minimcp.lazy import lazy_exports

# Each name below is imported the first time it is used, not when the package is: see
# minimcp.lazy. That keeps an earlier lesson's modules from running a later lesson's.
_EXPORTS = {
    "CLIENT_OPTIONS": "minimcp.client.connect",
    "Client": "minimcp.client.client",
    "ClientAnswers": "minimcp.client.answers",
    "Refused": "minimcp.client.answers",
    "connected": "minimcp.client.connect",
    "http_client": "minimcp.client.http_connect",
    "modern_http_client": "minimcp.client.modern",
    "modern_stdio_client": "minimcp.client.modern",
    "stdio_client": "minimcp.client.connect",
    "websocket_client": "minimcp.client.connect",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
