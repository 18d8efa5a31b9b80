"""What minimcp's OAuth client refuses to trust (minimcp.auth.trust, minimcp.auth.registration).

A server the client has never met hands it JSON. Each test bends one document and checks that the
client uses nothing from it: Protected Resource Metadata about another resource (RFC 9728 §3.3),
authorization server metadata naming another issuer (RFC 8414 §3.3), an ``iss`` from another server
(RFC 9207); and that what it registered at one authorization server is never shown to another
(SEP-2352), each registration saying what kind of application it is (SEP-837).

The first test is real and on loopback: the course authorization server, a protected course server,
and a third server whose metadata names that course server as its resource. The others stand
scripted servers behind an in-memory httpx transport, every request recorded.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2
import pytest
from complete_support import complete_server, running_complete

from minimcp.auth import protect
from minimcp.auth.authorization_server import start_authorization_server
from minimcp.auth.client import AuthorizationFailed, OAuth
from minimcp.auth.registration import application_type
from minimcp.auth.trust import checked_resource, expected_resource
from minimcp.transports.http.server import bind, launch, started

REDIRECT = "http://127.0.0.1:33418/callback"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}


class Impostor:
    """An ASGI server whose metadata names another server as its resource: every request kept."""

    def __init__(self, victim: str, issuer: str) -> None:
        self.victim, self.issuer, self.url = victim, issuer, ""
        self.seen: list[tuple[str, str, str]] = []  # method, path, Authorization header

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        headers = dict(scope["headers"])
        authorization = headers.get(b"authorization", b"").decode()
        self.seen.append((scope["method"], scope["path"], authorization))
        metadata = f"{self.url}/.well-known/oauth-protected-resource/mcp"
        if scope["path"] == "/.well-known/oauth-protected-resource/mcp":
            status, extra = 200, []
            body = {"resource": self.victim, "authorization_servers": [self.issuer]}
        else:
            challenge = f'Bearer resource_metadata="{metadata}", scope="mcp"'
            status, extra, body = 401, [(b"www-authenticate", challenge.encode())], {}
        content = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": status, "headers": content + extra})
        await send({"type": "http.response.body", "body": json.dumps(body).encode()})


async def test_metadata_naming_another_resource_gets_no_token_and_no_request() -> None:
    """The confused deputy: a server names a real protected server as its resource, hoping the
    client gets it a token for that server. The client refuses the metadata, and asks nobody."""
    authorization = await start_authorization_server()
    guard = protect(authorization.issuer, authorization.grants.public_keys(), scopes=["mcp"])
    sock = bind("127.0.0.1", 0)
    try:
        async with running_complete(complete_server(), around=guard) as victim:
            impostor = Impostor(victim.url, authorization.issuer)
            impostor.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
            server, serving = launch(impostor, sock, lifespan="off")
            await started(server, serving)
            asked: list[str] = []  # every request of the client's own (metadata, tokens)

            async def record(request: httpx2.Request) -> None:
                asked.append(f"{request.method} {request.url}")

            oauth = OAuth(
                f"{impostor.url}/mcp",
                redirect_uri=REDIRECT,
                http=httpx2.AsyncClient(timeout=10, event_hooks={"request": [record]}),
            )
            try:
                async with httpx2.AsyncClient(auth=oauth, timeout=10) as http:
                    with pytest.raises(AuthorizationFailed, match=r"RFC 9728 §3\.3"):
                        await http.post(f"{impostor.url}/mcp", json=INITIALIZE)
            finally:
                await oauth.aclose()
                server.should_exit = True
                await serving
    finally:
        await authorization.close()
    assert asked == [f"GET {impostor.url}/.well-known/oauth-protected-resource/mcp"]
    assert oauth.tokens == {} and all(header == "" for _, _, header in impostor.seen)


class Scripted:
    """A resource server and the authorization servers it may name, scripted: every request kept.

    ``issuers`` lists the authorization servers; the resource metadata names ``issuers[current]``.
    Each server registers clients as ``<issuer>-client`` and accepts only the tokens of the server
    the resource names now.
    """

    def __init__(self, *issuers: str) -> None:
        self.issuers, self.current = issuers, 0
        self.seen: list[str] = []
        self.registrations: list[dict[str, Any]] = []
        self.metadata_issuer: dict[str, str] = {}  # an issuer's metadata may name another
        self.iss_supported = True
        self.iss = "right"  # or "wrong", or "absent"
        self.valid: set[str] = set()

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        url = str(request.url).split("?")[0]
        self.seen.append(f"{request.method} {url} {request.content.decode()}".rstrip())
        if url == "http://mcp.test/mcp":
            token = request.headers.get("authorization", "").removeprefix("Bearer ")
            if token in self.valid and token.endswith(self.issuers[self.current]):
                return httpx2.Response(200, json={"ok": True})
            challenge = 'Bearer resource_metadata="http://mcp.test/.well-known/prm"'
            return httpx2.Response(401, headers={"www-authenticate": challenge})
        if url == "http://mcp.test/.well-known/prm":
            named = self.issuers[self.current]
            return httpx2.Response(
                200, json={"resource": "http://mcp.test/mcp", "authorization_servers": [named]}
            )
        issuer = url.split("/.well-known/")[0] if "/.well-known/" in url else url.rsplit("/", 1)[0]
        if url.endswith("/.well-known/oauth-authorization-server"):
            return httpx2.Response(200, json=self.metadata(issuer))
        if url.endswith("/register"):
            self.registrations.append({"at": issuer, **json.loads(request.content)})
            return httpx2.Response(201, json={"client_id": f"{issuer}-client"})
        if url.endswith("/token"):
            token = f"token-{len(self.valid)}-{issuer}"
            self.valid.add(token)
            return httpx2.Response(200, json={"access_token": token, "token_type": "Bearer"})
        return httpx2.Response(404)

    def metadata(self, issuer: str) -> dict[str, Any]:
        return {
            "issuer": self.metadata_issuer.get(issuer, issuer),
            "authorization_endpoint": f"{issuer}/authorize",
            "token_endpoint": f"{issuer}/token",
            "registration_endpoint": f"{issuer}/register",
            "authorization_response_iss_parameter_supported": self.iss_supported,
            "token_endpoint_auth_methods_supported": ["none"],
        }

    async def authorize(self, url: str) -> str:
        self.seen.append(f"GET {url}")  # the browser's visit, with its query
        query = {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}
        answer = {"code": "code-1", "state": query["state"]}
        if self.iss != "absent":
            right = url.split("/authorize")[0]
            answer["iss"] = right if self.iss == "right" else "http://evil.test"
        return f"{query['redirect_uri']}?{urlencode(answer)}"

    def oauth(self, **options: Any) -> tuple[OAuth, httpx2.AsyncClient]:
        transport = httpx2.MockTransport(self.handle)
        metadata_client = httpx2.AsyncClient(transport=transport)
        oauth = OAuth(
            "http://mcp.test/mcp", authorize=self.authorize, http=metadata_client, **options
        )
        return oauth, httpx2.AsyncClient(transport=transport, auth=oauth)


async def test_authorization_server_metadata_naming_another_issuer_is_refused() -> None:
    servers = Scripted("http://auth.test")
    servers.metadata_issuer["http://auth.test"] = "http://evil.test"
    oauth, http = servers.oauth()
    with pytest.raises(AuthorizationFailed, match=r"names the issuer 'http://evil.test'.*RFC 8414"):
        await http.post("http://mcp.test/mcp", json=INITIALIZE)
    # Nothing from that document was used: no registration, no browser, no token request.
    assert servers.seen[-1] == "GET http://auth.test/.well-known/oauth-authorization-server"
    assert oauth.tokens == {}


async def test_a_present_iss_is_compared_even_when_the_server_does_not_advertise_it() -> None:
    servers = Scripted("http://auth.test")
    servers.iss_supported, servers.iss = False, "wrong"  # no promise, and the wrong iss anyway
    oauth, http = servers.oauth()
    with pytest.raises(AuthorizationFailed, match="came from 'http://evil.test'"):
        await http.post("http://mcp.test/mcp", json=INITIALIZE)
    assert not any(seen.startswith("POST http://auth.test/token") for seen in servers.seen)


async def test_credentials_from_one_authorization_server_are_never_shown_to_another() -> None:
    servers = Scripted("http://as1.test", "http://as2.test")
    oauth, http = servers.oauth()
    assert (await http.post("http://mcp.test/mcp", json=INITIALIZE)).status_code == 200
    servers.current = 1  # the resource moves to another authorization server
    servers.seen.clear()
    assert (await http.post("http://mcp.test/mcp", json=INITIALIZE)).status_code == 200
    assert [r["at"] for r in servers.registrations] == ["http://as1.test", "http://as2.test"]
    assert not any("as1.test-client" in seen for seen in servers.seen if "as2.test" in seen)
    assert oauth.client_id == "http://as2.test-client"


async def test_pre_registered_credentials_are_for_their_own_issuer_only() -> None:
    servers = Scripted("http://as2.test")
    oauth, http = servers.oauth(client_id="mine", client_issuer="http://as1.test")
    with pytest.raises(AuthorizationFailed, match="pre-registered client is for http://as1.test"):
        await http.post("http://mcp.test/mcp", json=INITIALIZE)
    assert servers.registrations == [] and not any("/authorize" in s for s in servers.seen)


async def test_every_registration_says_what_kind_of_application_the_client_is() -> None:
    servers = Scripted("http://auth.test")
    oauth, http = servers.oauth()
    await http.post("http://mcp.test/mcp", json=INITIALIZE)
    assert servers.registrations[0]["application_type"] == "native"  # a loopback redirect
    assert application_type("http://localhost:9000/callback") == "native"
    assert application_type("com.example.app:/callback") == "native"  # a private-use scheme
    assert application_type("https://app.example.com/callback") == "web"


def test_the_resource_expected_is_the_one_the_metadata_url_was_made_from() -> None:
    well_known = "http://mcp.test/.well-known/oauth-protected-resource"
    assert expected_resource("http://mcp.test/mcp", f"{well_known}/mcp", False) == (
        "http://mcp.test/mcp"
    )
    assert expected_resource("http://mcp.test/mcp", well_known, False) == "http://mcp.test"
    # named by the 401: the URL of the request that was refused, wherever the document is
    assert expected_resource("http://mcp.test/mcp", "http://x.test/m.json", True) == (
        "http://mcp.test/mcp"
    )
    published = {"resource": "HTTP://MCP.test:80/mcp/"}  # the same, written otherwise
    assert checked_resource(published, "http://mcp.test/mcp") == "HTTP://MCP.test:80/mcp/"
    for other in ("http://mcp.test/mcp#x", "http://mcp.test/mcp2", "https://mcp.test/mcp"):
        with pytest.raises(AuthorizationFailed, match="not used"):
            checked_resource({"resource": other}, "http://mcp.test/mcp")
