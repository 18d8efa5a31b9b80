"""The names MCP gives things on the wire, beyond JSON-RPC's own, for every layer (lesson 12).

Revision 2026-07-28 puts what a session used to remember into each request's ``_meta``, under keys
of its own, and numbers the errors it adds in the range JSON-RPC leaves to applications. The session
layer reads the envelope (:mod:`minimcp.session.envelope`); the HTTP cable checks its headers
against it (:mod:`minimcp.transports.http.modern_headers`); both need the same names.
"""

from __future__ import annotations

PREFIX = "io.modelcontextprotocol/"
PROTOCOL_VERSION = PREFIX + "protocolVersion"
CLIENT_CAPABILITIES = PREFIX + "clientCapabilities"
CLIENT_INFO = PREFIX + "clientInfo"
LOG_LEVEL = PREFIX + "logLevel"
SERVER_INFO = PREFIX + "serverInfo"  # on results: who answered
SUBSCRIPTION_ID = PREFIX + "subscriptionId"  # on notifications of a subscriptions/listen stream

# --8<-- [start:codes]
#: The errors 2026-07-28 adds (basic/index, "Error codes"); HTTP answers each with status 400.
HEADER_MISMATCH = -32020  # an HTTP header says something else than the body
MISSING_CLIENT_CAPABILITY = -32021  # the request needs a capability the client did not declare
UNSUPPORTED_PROTOCOL_VERSION = -32022  # a version this server does not serve (data: those it does)
MODERN_ERRORS = (HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION)
# --8<-- [end:codes]


def has_envelope(params: object) -> bool:
    """Whether a request's params carry a 2026-07-28 envelope at all (valid or not): it stands
    alone."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and PROTOCOL_VERSION in meta
