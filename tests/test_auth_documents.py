"""Client ID Metadata Documents against a hostile client (issue 24, item 1).

The authorization server fetches where a client tells it to. Each test names a URL or serves a
document from a local web server on 127.0.0.1 (the course server's development switch lets it fetch
from this machine), checks the exact refusal, and that the server serves the next request. Private
addresses are refused from literal IPs: resolving one needs no network.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
import pytest_asyncio
from test_auth_server import REDIRECT, Flow, landed

from minimcp.auth.authorization_server import RunningAuthorizationServer, start_authorization_server
from minimcp.auth.documents import MAX_DOCUMENT_BYTES
from minimcp.transports.http.server import bind, launch, started

#: What a path answers: ``answer(its URL, send, receive)``.
Answer = Callable[[str, Any, Any], Awaitable[None]]


class Documents:
    """A local web server of metadata documents: what each path answers, and how often asked."""

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.answers: dict[str, Answer] = {}
        self.asked: Counter[str] = Counter()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            path = scope["path"]
            self.asked[path] += 1
            answer = self.answers.get(path, document({}, status=404))
            await answer(self.origin + path, send, receive)

    def serve(self, path: str, answer: Answer) -> str:
        self.answers[path] = answer
        return self.origin + path


def document(body: Any, status: int = 200, headers: tuple[tuple[bytes, bytes], ...] = ()) -> Answer:
    """A whole answer; ``body`` is bytes, JSON, or a function of the document's URL giving JSON."""

    async def answer(url: str, send: Any, receive: Any) -> None:
        content = body(url) if callable(body) else body
        raw = content if isinstance(content, bytes) else json.dumps(content).encode()
        start = [(b"content-type", b"application/json"), *headers]
        await send({"type": "http.response.start", "status": status, "headers": start})
        await send({"type": "http.response.body", "body": raw})

    return answer


def endless(chunk: bytes, pause: float) -> Answer:
    """A body that never ends: ``chunk`` after ``chunk``, ``pause`` seconds apart, until the reader
    leaves (a bounded number of times)."""

    async def answer(url: str, send: Any, receive: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        for _ in range(300):
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
            try:
                if (await asyncio.wait_for(receive(), pause))["type"] == "http.disconnect":
                    return
            except TimeoutError:
                pass

    return answer


@pytest_asyncio.fixture
async def documents() -> AsyncIterator[Documents]:
    sock = bind("127.0.0.1", 0)
    app = Documents(f"http://127.0.0.1:{sock.getsockname()[1]}")
    server, serving = launch(app, sock, lifespan="off")
    await started(server, serving)
    try:
        yield app
    finally:
        server.should_exit = True
        await asyncio.wait_for(serving, 10)


@pytest_asyncio.fixture
async def server() -> AsyncIterator[RunningAuthorizationServer]:
    running_server = await start_authorization_server()  # the development switch is on
    try:
        yield running_server
    finally:
        await running_server.close()


def good(url: str, **more: Any) -> dict[str, Any]:
    return {"client_id": url, "client_name": "doc-client", "redirect_uris": [REDIRECT], **more}


async def authorize(issuer: str, client_id: str) -> Any:
    flow = Flow(issuer)
    flow.client_id = client_id
    return await flow.authorize()


async def refused_with(issuer: str, client_id: str) -> str:
    """The error_description of a 400 invalid_client, with no redirect."""
    response = await authorize(issuer, client_id)
    assert (response.status_code, response.json()["error"]) == (400, "invalid_client")
    assert "location" not in response.headers
    return str(response.json()["error_description"])


async def serves_a_document(issuer: str, documents: Documents) -> None:
    """After a refusal, a good document still gets its client a code."""
    url = documents.serve("/fine.json", document(good))
    response = await authorize(issuer, url)
    assert response.status_code == 302 and "code" in landed(response)


@pytest.mark.parametrize(
    ("client_id", "reason"),
    [
        ("http://127.0.0.1.evil.example/client.json", "a client_id URL must be https"),
        ("http://localhostevil.example/client.json", "a client_id URL must be https"),
        ("http://127.0.0.1@evil.example/client.json", "a client_id URL must be https"),
        ("https://127.0.0.1@evil.example/c.json", "it must not hold a user name or password"),
        ("ftp://127.0.0.1/client.json", "a client_id URL must be https"),
        ("https://[::1/client.json", "it is not a URL"),
        ("https://.../client.json", "its host name does not resolve"),  # not even for IDNA
        ("https://example.com", "it needs a path, without . or .. segments"),
        ("https://example.com/a/../client.json", "it needs a path, without . or .. segments"),
        ("https://example.com/client.json#me", "it must not have a fragment"),
        ("https://10.0.0.7/client.json", "its host is at 10.0.0.7, not a public address"),
        ("https://192.168.1.1/c.json", "its host is at 192.168.1.1, not a public address"),
        ("https://169.254.169.254/latest", "its host is at 169.254.169.254, not a public address"),
        ("https://[fd00::1]/client.json", "its host is at fd00::1, not a public address"),
        ("https://[fe80::1]/client.json", "its host is at fe80::1, not a public address"),
        # (Python 3.13 writes an IPv4-mapped address as ::ffff:10.0.0.1, earlier ones ::ffff:a00:1)
        (
            "https://[::ffff:10.0.0.1]/c.json",
            f"its host is at {ipaddress.ip_address('::ffff:10.0.0.1')}, not a public address",
        ),
        ("https://0.0.0.0/client.json", "its host is at 0.0.0.0, not a public address"),
    ],
)
async def test_a_client_id_url_is_parsed_and_its_address_checked_before_any_fetch(
    server: RunningAuthorizationServer, documents: Documents, client_id: str, reason: str
) -> None:
    description = await refused_with(server.issuer, client_id)
    assert description == f"the client_id {client_id!r} was refused: {reason}"
    await serves_a_document(server.issuer, documents)


async def test_without_the_development_switch_this_machine_is_refused_too(
    documents: Documents,
) -> None:
    strict = await start_authorization_server(loopback_documents=False)
    try:
        url = documents.serve("/client.json", document(good))
        assert await refused_with(strict.issuer, url) == (
            f"the client_id {url!r} was refused: a client_id URL must be https"
        )
        # A name is resolved, and its address checked: localhost is this machine
        on_localhost = "https://localhost/client.json"
        assert (await refused_with(strict.issuer, on_localhost)).endswith("not a public address")
        assert documents.asked["/client.json"] == 0  # never fetched
    finally:
        await strict.close()


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (document([1, 2]), "its document is not a JSON object"),
        (document("a string"), "its document is not a JSON object"),
        (document(42), "its document is not a JSON object"),
        (document(None), "its document is not a JSON object"),
        (document(b"{not json"), "its document is not JSON"),
        (document(b"[" * 4000 + b"]" * 1000), "its document is not JSON"),
        (document({"client_id": "x"}, status=404), "its document answered HTTP 404"),
        (
            document({}, status=302, headers=((b"location", b"https://example.com/c.json"),)),
            "its document answered HTTP 302",
        ),
        (document({"redirect_uris": [REDIRECT]}), "its document's client_id is not its own URL"),
        (
            document(lambda url: good(url, token_endpoint_auth_method="client_secret_basic")),
            "its document's token_endpoint_auth_method must be none",
        ),
        (
            document(lambda url: good(url, redirect_uris="http://127.0.0.1:1/cb")),
            "its document's redirect_uris must be a list of 1 to 10 https or loopback URLs "
            "of at most 2000 characters",
        ),
        (
            endless(b"x" * 4096, 0.01),
            f"its document is larger than {MAX_DOCUMENT_BYTES} bytes",
        ),
    ],
)
async def test_a_bad_document_gets_400_with_the_reason_and_is_not_kept(
    server: RunningAuthorizationServer, documents: Documents, answer: Answer, reason: str
) -> None:
    url = documents.serve("/client.json", answer)
    for _ in range(2):  # not cached: asked again, refused again
        assert (
            await refused_with(server.issuer, url) == f"the client_id {url!r} was refused: {reason}"
        )
    assert documents.asked["/client.json"] == 2
    await serves_a_document(server.issuer, documents)


async def test_a_document_sent_slowly_is_dropped_at_the_deadline(
    server: RunningAuthorizationServer, documents: Documents
) -> None:
    """A byte every 0.2 s passes every per-read timeout; the deadline is for the whole fetch."""
    server.app.documents.deadline = 1.0
    url = documents.serve("/slow.json", endless(b" ", 0.2))
    began = time.monotonic()
    reason = await refused_with(server.issuer, url)
    assert reason == f"the client_id {url!r} was refused: its document did not arrive within 1 s"
    assert time.monotonic() - began < 3
    await serves_a_document(server.issuer, documents)


async def test_a_good_document_is_kept_for_its_max_age_and_the_cache_is_bounded(
    server: RunningAuthorizationServer, documents: Documents
) -> None:
    kept = documents.serve(
        "/kept.json", document(good, headers=((b"cache-control", b"max-age=60"),))
    )
    fresh = documents.serve(
        "/fresh.json", document(good, headers=((b"cache-control", b"no-store"),))
    )
    for _ in range(2):
        for url in (kept, fresh):
            assert (await authorize(server.issuer, url)).status_code == 302
    assert (documents.asked["/kept.json"], documents.asked["/fresh.json"]) == (1, 2)
    cache = server.app.documents.cache
    cache.clock = lambda: time.monotonic() + 61  # a minute later, it has expired
    assert (await authorize(server.issuer, kept)).status_code == 302
    assert documents.asked["/kept.json"] == 2
    cache.limit = 3
    for number in range(10):
        url = documents.serve(f"/many-{number}.json", document(good))
        assert (await authorize(server.issuer, url)).status_code == 302
    assert len(cache) == 3  # the oldest were forgotten


async def test_a_document_client_gets_its_tokens_even_when_its_document_is_not_kept(
    server: RunningAuthorizationServer, documents: Documents
) -> None:
    url = documents.serve("/fresh.json", document(good, headers=((b"cache-control", b"no-store"),)))
    flow = Flow(server.issuer)
    flow.client_id = url
    response = await flow.authorize()
    assert (await flow.exchange(landed(response)["code"])).status_code == 200
    assert documents.asked["/fresh.json"] == 2  # fetched again at the token endpoint
