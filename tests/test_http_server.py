"""Streamable HTTP, the server: every status code and guard, each followed by proof that it still
serves.

The server is the course's example server behind ``minimcp.http`` on 127.0.0.1; the client is raw
httpx2, so each test sees exactly what travelled (spec 2025-11-25, basic/transports).
"""

from __future__ import annotations

import asyncio

import httpx2
import pytest
from http_support import (
    ACCEPT_BOTH,
    INITIALIZE,
    RawHttp,
    SSEReader,
    messages,
    raw_session,
    read_events,
    running,
)

from minimcp.examples.course import build_server
from minimcp.rpc.jsonrpc import INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR
from minimcp.session import SUPPORTED_PROTOCOL_VERSIONS


def error_of(response: httpx2.Response) -> tuple[int, str]:
    """The JSON-RPC error in an HTTP error's body (which has no id to answer)."""
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert body["jsonrpc"] == "2.0" and "result" not in body
    return body["error"]["code"], body["error"]["message"]


# -- the session -----------------------------------------------------------------------------------
async def test_initialize_opens_a_session_with_an_unguessable_visible_ascii_id() -> None:
    async with running() as http, raw_session(http.url, initialize=False) as raw:
        response = await raw.post(INITIALIZE)
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/json"
        session_id = response.headers["mcp-session-id"]
        assert len(session_id) == 32 and all(0x21 <= ord(char) <= 0x7E for char in session_id)
        assert response.json()["result"]["protocolVersion"] == "2025-11-25"
        raw.session_id = session_id
        notified = await raw.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert (notified.status_code, notified.content) == (202, b"")
        await raw.ping()
        # A second client gets a session of its own.
        other = await raw.http.post(http.url, json=INITIALIZE, headers={"accept": ACCEPT_BOTH})
        assert other.headers["mcp-session-id"] != session_id
        assert len(http.app.sessions) == 2


async def test_a_failed_initialize_opens_no_session() -> None:
    async with running() as http, raw_session(http.url, initialize=False) as raw:
        response = await raw.post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
        assert response.status_code == 200
        assert "mcp-session-id" not in response.headers
        assert response.json()["error"]["code"] == -32602
        await asyncio.sleep(0)
        assert http.app.sessions == {}
        await raw.initialize()  # and a correct one still works
        await raw.ping()


async def test_requests_without_a_session_id_get_400() -> None:
    async with running() as http, raw_session(http.url) as raw:
        session_id, raw.session_id = raw.session_id, None
        response = await raw.post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert response.status_code == 400
        assert error_of(response) == (INVALID_REQUEST, "Bad Request: missing Mcp-Session-Id header")
        response = await raw.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert response.status_code == 400
        get = await raw.http.get(http.url, headers={"accept": "text/event-stream"})
        assert get.status_code == 400
        raw.session_id = session_id
        await raw.ping()


async def test_a_2025_server_answers_the_probe_method_not_found_so_new_clients_fall_back() -> None:
    server = build_server(step_delay=0.01)
    # the initialize era only: what a 2025 server answers (lesson 12 serves both)
    server.modern_versions = ()
    async with running(server) as http, raw_session(http.url, initialize=False) as raw:
        response = await raw.post(
            {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}},
            mcp_protocol_version="2026-07-28",
        )
        assert response.status_code == 400
        assert response.json() == {
            "jsonrpc": "2.0",
            "id": 1,
            "error": {"code": METHOD_NOT_FOUND, "message": "Method not found: server/discover"},
        }
        await raw.initialize()
        await raw.ping()


async def test_unknown_and_ended_sessions_get_404() -> None:
    async with running() as http, raw_session(http.url) as raw:
        session_id = raw.session_id
        raw.session_id = "0" * 32
        response = await raw.post({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        assert response.status_code == 404
        assert error_of(response) == (
            INVALID_REQUEST,
            "Session not found: it expired or was ended; initialize a new one",
        )
        raw.session_id = session_id
        await raw.ping()

        deleted = await raw.http.delete(http.url, headers=raw.headers())
        assert deleted.status_code == 200
        for method in ("POST", "GET", "DELETE"):
            response = await raw.http.request(
                method,
                http.url,
                headers=raw.headers(),
                content=b'{"jsonrpc":"2.0","id":3,"method":"ping"}',
            )
            assert response.status_code == 404, method
        assert http.app.sessions == {}
        await raw.initialize()  # a new session is always possible
        await raw.ping()


async def test_an_unsupported_protocol_version_header_gets_400() -> None:
    async with running() as http, raw_session(http.url) as raw:
        response = await raw.post(
            {"jsonrpc": "2.0", "id": 2, "method": "ping"}, mcp_protocol_version="1999-01-01"
        )
        assert response.status_code == 400
        assert error_of(response) == (
            INVALID_REQUEST,
            "Bad Request: unsupported MCP-Protocol-Version "
            f"'1999-01-01' (supported: {', '.join(SUPPORTED_PROTOCOL_VERSIONS)})",
        )
        for version in SUPPORTED_PROTOCOL_VERSIONS:  # any supported one is fine, as is none at all
            await raw.call(version, "ping", mcp_protocol_version=version)
        headers = raw.headers()
        del headers["mcp-protocol-version"]
        response = await raw.http.post(
            http.url, json={"jsonrpc": "2.0", "id": 9, "method": "ping"}, headers=headers
        )
        assert response.status_code == 200
        await raw.ping()


async def test_idle_sessions_expire() -> None:
    async with running(session_timeout=0.2) as http, raw_session(http.url) as raw:
        await raw.ping()
        for _ in range(100):  # bounded: 5 s at most
            if not http.app.sessions:
                break
            await asyncio.sleep(0.05)
        response = await raw.post({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        assert response.status_code == 404
        await raw.initialize()
        await raw.ping()


async def test_the_number_of_sessions_is_capped() -> None:
    async with running(max_sessions=2) as http, raw_session(http.url) as first:
        async with raw_session(http.url) as second:
            third = RawHttp(http.url)
            response = await third.post(INITIALIZE)
            assert response.status_code == 503
            assert response.headers["retry-after"] == "10"
            assert error_of(response) == (
                INVALID_REQUEST,
                "Service unavailable: 2 sessions already open",
            )
            await first.ping()
            await second.ping()
            assert (await second.http.delete(http.url, headers=second.headers())).status_code == 200
            await third.initialize()  # a place came free
            await third.ping()
            await third.close()


async def test_at_the_cap_an_idle_session_makes_room_at_once() -> None:
    """At the cap, initialize first expires the idle sessions: the place they free is usable at
    once."""
    async with running(max_sessions=1) as http, raw_session(http.url) as idle:
        (session,) = http.app.sessions.values()
        session.last_active -= 10_000  # unused for hours (the reaper has not come by yet)
        newcomer = RawHttp(http.url)
        await newcomer.initialize()
        await newcomer.ping()
        response = await idle.post({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        assert response.status_code == 404
        await newcomer.close()


async def test_a_server_that_is_shutting_down_opens_no_new_session() -> None:
    """Once close() has ended the sessions, a client told 404 must not open a new one on the way
    out: its streams would hold the shutdown up."""
    async with running() as http, raw_session(http.url) as raw:
        await http.app.close()
        response = await raw.post({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        assert response.status_code == 404
        raw.session_id = None
        response = await raw.post(INITIALIZE)
        assert response.status_code == 503
        assert error_of(response) == (
            INVALID_REQUEST,
            "Service unavailable: the server is shutting down",
        )
        assert http.app.sessions == {}


# -- what a POST must look like --------------------------------------------------------------------
@pytest.mark.parametrize("accept", ["application/json", "text/event-stream", "text/html", ""])
async def test_post_must_accept_json_and_sse(accept: str) -> None:
    async with running() as http, raw_session(http.url) as raw:
        headers = raw.headers(accept=accept)
        response = await raw.http.post(
            http.url, json={"jsonrpc": "2.0", "id": 2, "method": "ping"}, headers=headers
        )
        assert response.status_code == 406
        assert error_of(response) == (
            INVALID_REQUEST,
            "Not Acceptable: Accept must list application/json and text/event-stream",
        )
        await raw.ping()
        # Wildcards and parameters are understood.
        await raw.call(3, "ping", accept="application/*;q=0.9, text/event-stream")
        await raw.call(4, "ping", accept="*/*")


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", ""])
async def test_post_must_be_json(content_type: str) -> None:
    async with running() as http, raw_session(http.url) as raw:
        response = await raw.post(
            {"jsonrpc": "2.0", "id": 2, "method": "ping"}, content_type=content_type
        )
        assert response.status_code == 415
        assert error_of(response) == (
            INVALID_REQUEST,
            "Unsupported Media Type: the body must be application/json",
        )
        await raw.call(3, "ping", content_type="application/json; charset=utf-8")


async def test_a_body_over_the_limit_gets_413() -> None:
    async with running(max_body=1000) as http, raw_session(http.url) as raw:
        big = {"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"pad": "x" * 2000}}
        response = await raw.post(big)
        assert response.status_code == 413
        assert error_of(response) == (INVALID_REQUEST, "Request body larger than 1000 bytes")

        async def chunks():  # no Content-Length: the limit holds while reading, too
            for _ in range(5):
                yield b" " * 400

        response = await raw.http.post(http.url, content=chunks(), headers=raw.headers())
        assert response.status_code == 413
        await raw.ping()


@pytest.mark.parametrize(
    ("body", "code", "message"),
    [
        (b'{"jsonrpc": "2.0", "id": 2, "method": "ping"', PARSE_ERROR, "Parse error"),
        (b"", PARSE_ERROR, "Parse error"),
        (b"\xff\xfe{}", PARSE_ERROR, "Parse error: the body is not UTF-8"),
        (
            b'[{"jsonrpc": "2.0", "id": 2, "method": "ping"}]',
            INVALID_REQUEST,
            "Batches are not supported: send one JSON-RPC message at a time",
        ),
        (b'"ping"', INVALID_REQUEST, "A JSON-RPC message must be a JSON object"),
        (
            b'{"jsonrpc": "1.0", "id": 2, "method": "ping"}',
            INVALID_REQUEST,
            'The member "jsonrpc" must be exactly "2.0"',
        ),
    ],
)
async def test_malformed_messages_get_400_with_the_json_rpc_error(
    body: bytes, code: int, message: str
) -> None:
    async with running() as http, raw_session(http.url) as raw:
        response = await raw.post(body)
        assert response.status_code == 400
        got_code, got_message = error_of(response)
        assert got_code == code and got_message.startswith(message)
        await raw.ping()


async def test_a_request_id_already_in_flight_is_refused() -> None:
    async with running() as http, raw_session(http.url) as raw:
        slow = {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {
                "name": "run_analysis",
                "arguments": {"steps": 30},
                "_meta": {"progressToken": 1},
            },
        }
        async with raw.http.stream("POST", http.url, json=slow, headers=raw.headers()) as first:
            assert first.status_code == 200
            again = await raw.post(slow)
            assert again.status_code == 400
            assert again.json()["error"] == {
                "code": INVALID_REQUEST,
                "message": (
                    "Request id 7 was already used in this session, "
                    "by a request still being answered"
                ),
            }
            answer = messages(await read_events(first))[-1]
            assert (
                answer["id"] == 7
                and "Analysed 12 courses" in answer["result"]["content"][0]["text"]
            )
        await raw.ping()


# -- the guards ------------------------------------------------------------------------------------
async def test_a_foreign_origin_gets_403_and_loopback_origins_pass() -> None:
    async with running() as http, raw_session(http.url) as raw:
        response = await raw.post(
            {"jsonrpc": "2.0", "id": 2, "method": "ping"}, origin="https://evil.example"
        )
        assert response.status_code == 403
        assert error_of(response) == (
            INVALID_REQUEST,
            "Forbidden: origin 'https://evil.example' is not allowed",
        )
        for origin in (f"http://127.0.0.1:{http.port}", "http://localhost:3000", "https://[::1]"):
            await raw.call(origin, "ping", origin=origin)
        await raw.ping()


async def test_an_allowed_origin_can_be_configured() -> None:
    async with (
        running(allowed_origins=["https://app.example"]) as http,
        raw_session(http.url) as raw,
    ):
        await raw.call(2, "ping", origin="https://app.example")
        assert (
            await raw.post(
                {"jsonrpc": "2.0", "id": 3, "method": "ping"}, origin="https://other.example"
            )
        ).status_code == 403


async def test_a_host_that_is_not_ours_gets_421() -> None:
    """DNS rebinding: the browser sends the attacker's name as Host even when it reaches
    127.0.0.1."""
    async with running() as http, raw_session(http.url) as raw:
        response = await raw.post(
            {"jsonrpc": "2.0", "id": 2, "method": "ping"}, host="evil.example:80"
        )
        assert response.status_code == 421
        assert error_of(response) == (
            INVALID_REQUEST,
            "Misdirected request: host 'evil.example' is not served here",
        )
        await raw.call(3, "ping", host=f"localhost:{http.port}")
        await raw.ping()


async def test_wrong_path_and_method() -> None:
    async with running() as http, raw_session(http.url) as raw:
        response = await raw.http.post(
            http.url.replace("/mcp", "/other"), json=INITIALIZE, headers=raw.headers()
        )
        assert response.status_code == 404
        assert error_of(response) == (INVALID_REQUEST, "Not found: the MCP endpoint is /mcp")
        response = await raw.http.put(http.url, json=INITIALIZE, headers=raw.headers())
        assert response.status_code == 405
        assert response.headers["allow"] == "GET, POST, DELETE"
        await raw.ping()


async def test_get_must_accept_sse() -> None:
    async with running() as http, raw_session(http.url) as raw:
        response = await raw.http.get(http.url, headers=raw.headers(accept="application/json"))
        assert response.status_code == 406
        assert error_of(response) == (
            INVALID_REQUEST,
            "Not Acceptable: Accept must list text/event-stream",
        )
        await raw.ping()


# -- JSON or a stream ------------------------------------------------------------------------------
async def test_quick_requests_get_json_and_notifications_202() -> None:
    async with running() as http, raw_session(http.url) as raw:
        answer = await raw.call(
            2, "tools/call", {"name": "read_events", "arguments": {"date": "2025-03-21"}}
        )
        assert answer["result"]["content"][0]["text"].startswith("Events for 2025-03-21:")
        response = await raw.post(
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}}
        )
        assert (response.status_code, response.content) == (202, b"")


async def test_a_request_with_progress_is_answered_as_a_stream() -> None:
    async with running() as http, raw_session(http.url) as raw:
        body = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {
                "name": "run_analysis",
                "arguments": {"steps": 3},
                "_meta": {"progressToken": "p"},
            },
        }
        async with raw.http.stream("POST", http.url, json=body, headers=raw.headers()) as response:
            assert response.status_code == 200
            assert response.headers["content-type"] == "text/event-stream"
            assert response.headers["cache-control"] == "no-cache"
            events = await read_events(response)
        priming, *rest = events
        # an id to resume from, and when to come back
        assert (priming.data, priming.retry) == ("", 20)
        stream_id = priming.id.rsplit("-", 1)[0]
        assert [event.id for event in events] == [f"{stream_id}-{n}" for n in range(5)]
        sent = messages(rest)
        assert [m["params"]["progress"] for m in sent[:3]] == [1, 2, 3]
        assert sent[3]["id"] == 2 and "result" in sent[3]
        await raw.ping()


async def test_a_slow_request_without_progress_is_streamed_too() -> None:
    async with running(stream_after=0.05) as http, raw_session(http.url) as raw:
        body = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "run_analysis", "arguments": {"steps": 10}},
        }  # 10 × 10 ms, no token
        async with raw.http.stream("POST", http.url, json=body, headers=raw.headers()) as response:
            assert response.headers["content-type"] == "text/event-stream"
            events = await read_events(response)
        assert [event.data == "" for event in events] == [True, False]
        assert messages(events)[0]["id"] == 2


async def test_sessions_are_independent() -> None:
    async with running() as http:
        async with raw_session(http.url) as a, raw_session(http.url) as b:
            call = {"name": "read_events", "arguments": {"date": "2025-03-21"}}
            answers = await asyncio.gather(
                *(raw.call(1000 + n, "tools/call", call) for n, raw in enumerate([a, b] * 5))
            )
            assert [answer["id"] for answer in answers] == [1000 + n for n in range(10)]
            assert (await a.http.delete(http.url, headers=a.headers())).status_code == 200
            await b.ping()  # ending one session leaves the other alone
            assert (await a.post({"jsonrpc": "2.0", "id": 1, "method": "ping"})).status_code == 404


async def test_delete_closes_the_open_streams() -> None:
    async with running() as http, raw_session(http.url) as raw:
        async with raw.http.stream(
            "GET", http.url, headers=raw.headers(accept="text/event-stream")
        ) as get:
            reader = SSEReader(get)
            (priming,) = await reader.read(1)
            assert priming.data == ""
            assert (await raw.http.delete(http.url, headers=raw.headers())).status_code == 200
            assert await reader.read() == []  # the stream ended, with nothing more
