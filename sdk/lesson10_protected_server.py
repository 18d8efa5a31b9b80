"""Lesson 10, the server's side, with the official Python SDK (``mcp==2.3.0``): a protected MCP
server, an OAuth resource server.

Given ``auth=AuthSettings(...)`` and a token verifier, the SDK's server answers a request without
a token ``401`` with ``WWW-Authenticate: Bearer ... resource_metadata=...``, serves the Protected
Resource Metadata (RFC 9728) naming the authorization server, refuses a token without the required
scope, and checks that a token was issued for this server (RFC 8707). Checking the token itself is
left to you: ``JwtVerifier`` below checks its signature with the authorization server's published
keys (PyJWT does the cryptography), its issuer, its audience and its expiry, as lesson 10's
``TokenVerifier`` does.

It trusts the course authorization server's tokens::

    python -m minimcp auth-server --consent auto         # on http://127.0.0.1:9000
    python sdk/lesson10_protected_server.py [PORT [ISSUER]]  # default 8000, http://127.0.0.1:9000

``tests/test_sdk_lesson10.py`` starts it, and ``minimcp``'s client gets in with lesson 10's
``OAuth``. This file is not part of ``minimcp``, which never imports ``mcp``.
"""

from __future__ import annotations

import sys

import anyio.to_thread
import jwt
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer


class JwtVerifier:
    """The SDK's ``TokenVerifier``: a JWT access token, checked against the issuer's keys."""

    def __init__(self, issuer: str, resource: str) -> None:
        self.issuer = issuer
        self.resource = resource
        self.keys = jwt.PyJWKClient(f"{issuer}/jwks.json")  # fetched once, then cached

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            key = await anyio.to_thread.run_sync(self.keys.get_signing_key_from_jwt, token)
            claims = jwt.decode(
                token, key, algorithms=["RS256"], audience=self.resource, issuer=self.issuer
            )
        except jwt.PyJWTError:
            return None  # the SDK answers 401 invalid_token
        return AccessToken(
            token=token,
            client_id=claims.get("client_id", ""),
            scopes=claims.get("scope", "").split(),
            expires_at=claims["exp"],
            resource=claims["aud"],
            subject=claims["sub"],
        )


def build_server(issuer: str, port: int) -> MCPServer:
    """The protected server at ``http://127.0.0.1:PORT/mcp``, trusting ``issuer``'s tokens."""
    url = f"http://127.0.0.1:{port}/mcp"
    # --8<-- [start:box]
    server = MCPServer(
        "lesson-10",
        token_verifier=JwtVerifier(issuer, url),  # signature, issuer, audience, expiry
        # validated from plain strings, so the URLs stay exactly as given (no "/" added)
        auth=AuthSettings.model_validate(
            {
                "issuer_url": issuer,  # named in the Protected Resource Metadata
                "resource_server_url": url,
                "required_scopes": ["mcp"],
                "validate_token_resource": True,  # a token issued for another server: refused
            }
        ),
    )

    @server.tool()
    def whoami() -> str:
        """Say who is serving."""
        return "a protected server, written with the SDK"

    # --8<-- [end:box]
    return server


def main() -> None:
    """``python sdk/lesson10_protected_server.py [PORT [ISSUER]]``."""
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
    issuer = sys.argv[2] if len(sys.argv) > 2 else "http://127.0.0.1:9000"
    build_server(issuer, port).run("streamable-http", port=port)


if __name__ == "__main__":
    main()
