"""Layer 3, authorization (lesson 10): OAuth 2.1 for MCP over HTTP, server side and client side.

* :mod:`~minimcp.auth.bearer`: the ``Authorization`` header and the ``WWW-Authenticate`` challenge;
* :mod:`~minimcp.auth.tokens`: the checks on an access token (signature, issuer, audience, time);
* :mod:`~minimcp.auth.resource`: the MCP server as a resource server: its checks, its refusals,
  its Protected Resource Metadata (RFC 9728);
* :mod:`~minimcp.auth.guards`: those checks in front of lesson 08's endpoint and lesson 07's socket;
* :mod:`~minimcp.auth.discovery`: the client's first steps: the metadata, the scopes, PKCE;
* :mod:`~minimcp.auth.browser`: the person's step: a browser there and back, or a script's request;
* :mod:`~minimcp.auth.client`: the client's whole flow, on httpx's ``Auth`` hook (``OAuth``);
* :mod:`~minimcp.auth.grants`, :mod:`~minimcp.auth.authorization_server`: the course's own
  authorization server, with its parts: :mod:`~minimcp.auth.validation` (the checks on a request),
  :mod:`~minimcp.auth.documents` (Client ID Metadata Documents, fetched with care),
  :mod:`~minimcp.auth.consent` (the person's page) and :mod:`~minimcp.auth.expiring` (what it keeps
  for strangers, bounded and expiring).

It sits beside :mod:`minimcp.session`, above the transports whose HTTP plumbing it uses, and knows
nothing of JSON-RPC sessions: authorization happens at the transport level, before any MCP message.
"""

from minimcp.auth.bearer import MalformedAuthorization, bearer_token, challenge
from minimcp.auth.browser import AuthorizationFailed, follow_without_a_browser, in_the_browser
from minimcp.auth.client import OAuth
from minimcp.auth.guards import ProtectedEndpoint, protect, websocket_guard
from minimcp.auth.resource import ProtectedResource
from minimcp.auth.tokens import InvalidToken, TokenVerifier, scopes_of

__all__ = [
    "AuthorizationFailed",
    "InvalidToken",
    "MalformedAuthorization",
    "OAuth",
    "ProtectedEndpoint",
    "ProtectedResource",
    "TokenVerifier",
    "bearer_token",
    "challenge",
    "follow_without_a_browser",
    "in_the_browser",
    "protect",
    "scopes_of",
    "websocket_guard",
]
