"""Streamable HTTP, the client: session id, headers, JSON and SSE answers, the GET channel,
resumption after the server's retry, a new session after 404, DELETE on close."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2
import pytest
from http_support import TIMEOUT, running

from minimcp.client import http_client
from minimcp.examples.course import build_server
from minimcp.rpc import RpcError
from minimcp.rpc.jsonrpc import INTERNAL_ERROR
from minimcp.server import report_progress
from minimcp.session import RequestContext
from minimcp.transports.http.client import HttpClientTransport


async def test_the_client_runs_the_course_server_over_http() -> None:
    trace: list[str] = []
    async with running() as http:
        async with http_client(http.url, on_http=trace.append) as client:
            assert client.server_info["name"] == "course-server"
            assert client.protocol_version == "2025-11-25"
            transport = client.session.transport
            assert transport.session_id in http.app.sessions
            result = await client.call_tool("read_events", {"date": "2025-03-21"}, timeout=TIMEOUT)
            assert result["content"][0]["text"].startswith("Events for 2025-03-21:")
            progress: list[tuple[Any, ...]] = []
            result = await client.call_tool(
                "run_analysis",
                {"steps": 3},
                timeout=TIMEOUT,
                progress=lambda *args: progress.append(args),
            )
            assert progress == [(n, 3, f"Step {n} of 3") for n in (1, 2, 3)]
            assert "Analysed 12 courses" in result["content"][0]["text"]
        assert http.app.sessions == {}  # closing sent DELETE
    # The GET stream opens right after the handshake, before the first request: nothing announced is
    # missed.
    assert trace == [
        "POST initialize #1 -> 200 application/json",
        "POST notifications/initialized -> 202 ",
        "GET -> 200 text/event-stream",
        "POST tools/call #2 -> 200 application/json",
        "POST tools/call #3 -> 200 text/event-stream",
        "DELETE -> 200",
    ]


async def test_announcements_arrive_on_the_get_channel() -> None:
    server = build_server()
    async with running(server) as http, http_client(http.url) as client:
        changed = asyncio.Event()
        client.on_list_changed = lambda kind: changed.set()
        for _ in range(100):  # wait (bounded) until the GET stream is attached
            if next(iter(http.app.sessions.values())).announcements.listener is not None:
                break
            await asyncio.sleep(0.02)
        server.add_tool(lambda: "hi", "hello")
        await asyncio.wait_for(changed.wait(), TIMEOUT)
        assert "hello" in [tool["name"] for tool in await client.list_tools(timeout=TIMEOUT)]


async def test_the_client_resumes_a_stream_the_server_closed_after_its_retry() -> None:
    server = build_server()

    @server.tool()
    async def long_job(context: RequestContext) -> str:
        """Ends its connection twice on the way."""
        for step in (1, 2, 3):
            await report_progress(context, step, 3)
            context.close_sse_stream(retry_ms=30)
            await asyncio.sleep(0.05)
        return "done"

    trace: list[str] = []
    async with running(server) as http, http_client(http.url, on_http=trace.append) as client:
        progress: list[Any] = []
        result = await client.call_tool(
            "long_job", timeout=TIMEOUT, progress=lambda *a: progress.append(a[0])
        )
        assert result["content"] == [{"type": "text", "text": "done"}]
        assert progress == [1, 2, 3]
    resumed = [line for line in trace if line.startswith("GET (Last-Event-ID")]
    assert len(resumed) >= 2 and all(line.endswith("200 text/event-stream") for line in resumed)


async def test_a_resumption_refused_for_a_moment_is_tried_again() -> None:
    """A gateway with no live server behind it (502), or a busy server (503), is no reason to give
    up a stream."""
    server = build_server()

    @server.tool()
    async def cut_job(context: RequestContext) -> str:
        """Ends its connection once on the way."""
        await report_progress(context, 1, 2)
        context.close_sse_stream(retry_ms=20)
        await asyncio.sleep(0.2)
        await report_progress(context, 2, 2)
        return "done"

    refusals = [502, 503]

    def flaky(url: str, app: Any) -> Any:
        async def serve(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if (
                scope["type"] == "http"
                and scope["method"] == "GET"
                and refusals
                and any(name == b"last-event-id" for name, _ in scope["headers"])
            ):
                await send(
                    {"type": "http.response.start", "status": refusals.pop(0), "headers": []}
                )
                await send({"type": "http.response.body", "body": b""})
                return
            await app(scope, receive, send)

        return serve

    trace: list[str] = []
    async with (
        running(server, around=flaky) as http,
        http_client(http.url, on_http=trace.append) as client,
    ):
        progress: list[Any] = []
        result = await client.call_tool(
            "cut_job", timeout=TIMEOUT, progress=lambda *a: progress.append(a[0])
        )
        assert result["content"] == [{"type": "text", "text": "done"}]
        assert progress == [1, 2]
    resumed = [line.rsplit(" -> ", 1)[1] for line in trace if line.startswith("GET (Last-Event-ID")]
    assert resumed == ["502 ", "503 ", "200 text/event-stream"], trace


async def test_on_404_the_client_starts_a_new_session_and_goes_on() -> None:
    async with running() as http, http_client(http.url) as client:
        transport: HttpClientTransport = client.session.transport
        old = transport.session_id
        await http.app.sessions[old].end()  # the server forgets the session (expiry, restart…)
        result = await client.call_tool("read_events", {"date": "2025-03-21"}, timeout=TIMEOUT)
        assert result["content"][0]["text"].startswith("Events for 2025-03-21")
        assert transport.session_id not in (None, old)
        assert list(http.app.sessions) == [transport.session_id]


async def test_a_server_error_status_becomes_a_json_rpc_error() -> None:
    async with running(max_body=300) as http, http_client(http.url) as client:
        with pytest.raises(RpcError) as caught:
            await client.call_tool("read_events", {"date": "x" * 400}, timeout=TIMEOUT)
        assert (caught.value.code, caught.value.message) == (
            -32600,
            "Request body larger than 300 bytes",
        )
        await client.ping(timeout=TIMEOUT)


async def test_a_stream_that_can_never_resume_fails_its_request_instead_of_hanging() -> None:
    server = build_server(step_delay=0.05)
    async with running(server) as http:
        client_transport = HttpClientTransport(http.url, max_retries=2)
        from minimcp.client import Client

        async with Client(client_transport) as client:
            calling = asyncio.ensure_future(
                client.call_tool(
                    "run_analysis", {"steps": 50}, timeout=TIMEOUT, progress=lambda *a: None
                )
            )
            for _ in range(100):  # wait (bounded) until the call's own stream has begun
                if "request 2" in client_transport.last_event_ids:
                    break
                await asyncio.sleep(0.02)
            await http.close()  # the server goes away for good
            with pytest.raises(RpcError) as caught:
                await asyncio.wait_for(calling, TIMEOUT)
            assert caught.value.code == INTERNAL_ERROR
            assert caught.value.message.startswith("No answer:")


async def test_a_server_without_a_get_stream_is_fine() -> None:
    """405 on GET is allowed: the client simply has no announcement channel."""
    async with running() as http:
        original = http.app.get

        async def no_get(request, receive, send) -> None:
            from minimcp.transports.http.asgi import Refusal

            raise Refusal(405, "no GET stream here")

        http.app.get = no_get
        trace: list[str] = []
        async with http_client(http.url, on_http=trace.append) as client:
            await client.ping(timeout=TIMEOUT)
            await asyncio.sleep(0.1)
        assert "GET -> 405 application/json" in trace
        http.app.get = original


async def test_the_client_refuses_to_run_against_nothing() -> None:
    with pytest.raises(httpx2.ConnectError):
        async with http_client("http://127.0.0.1:9/mcp", timeout=2):
            pass
