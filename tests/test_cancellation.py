"""Cancellation, both ways (spec 2025-11-25, basic/utilities/cancellation).

Every test runs a real ServerSession and ClientSession over an in-memory cable, with a tracing tap
on the client's side, so it checks what travelled: the ``notifications/cancelled`` sent when a
request is given up, and the answer that must *not* travel once the receiver has stopped.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from complete_support import running_complete
from http_support import raw_session
from support import TIMEOUT, until

from minimcp.client import http_client
from minimcp.rpc import TracingTransport, memory_pair
from minimcp.server import Server
from minimcp.session import ClientSession, RequestContext
from minimcp.session.cancellation import cancellable
from minimcp.session.client_cancellation import cancellation
from minimcp.transports.http.session_transport import SessionTransport
from minimcp.transports.sse import SSEParser

Trace = list[tuple[str, dict[str, Any]]]


@asynccontextmanager
async def session_with(server: Server, **client: Any) -> AsyncIterator[tuple[ClientSession, Trace]]:
    """An initialized ClientSession talking to ``server``, and the trace of what crossed the
    cable."""
    trace: Trace = []
    client_end, server_end = memory_pair()
    serving = asyncio.ensure_future(server.serve(server_end))
    session = ClientSession(
        TracingTransport(client_end, lambda way, text: trace.append((way, json.loads(text)))),
        extensions=[cancellation],
        **client,
    )
    try:
        await session.initialize(timeout=TIMEOUT)
        yield session, trace
    finally:
        await session.close()
        await asyncio.wait_for(serving, TIMEOUT)


def sent(trace: Trace, method: str) -> list[dict[str, Any]]:
    return [message for way, message in trace if way == "->" and message.get("method") == method]


def answers_to(trace: Trace, request_id: Any) -> list[dict[str, Any]]:
    return [
        message
        for way, message in trace
        if way == "<-" and message.get("id") == request_id and "method" not in message
    ]


def slow_server(events: list[str]) -> Server:
    server = Server("slow")
    cancellable(server)  # this lesson's piece, plugged into lesson 03's session
    release = asyncio.Event()  # never set: the tool waits until it is cancelled

    @server.tool()
    async def wait_forever() -> str:
        """Wait until cancelled."""
        try:
            await release.wait()
        except asyncio.CancelledError:
            events.append("cancelled")
            raise
        return "released"

    @server.tool()
    async def stubborn() -> str:
        """Swallow the cancellation and return anyway: the answer must still not be sent."""
        try:
            await release.wait()
        except asyncio.CancelledError:
            events.append("swallowed")
        return "answered anyway"

    return server


@pytest.mark.parametrize("tool, event", [("wait_forever", "cancelled"), ("stubborn", "swallowed")])
async def test_a_request_the_client_gives_up_is_cancelled_and_never_answered(
    tool: str, event: str
) -> None:
    events: list[str] = []
    async with session_with(slow_server(events)) as (session, trace):
        with pytest.raises(TimeoutError):
            await session.request("tools/call", {"name": tool, "arguments": {}}, timeout=0.2)
        [call] = sent(trace, "tools/call")
        await until(lambda: bool(events))  # the cancellation travels, then the tool stops
        assert events == [event]
        [cancelled] = sent(trace, "notifications/cancelled")
        assert cancelled["params"] == {"requestId": call["id"], "reason": "no answer within 0.2 s"}
        await session.ping(timeout=TIMEOUT)  # the session still answers, and ...
        assert answers_to(trace, call["id"]) == []  # ... the cancelled request got no answer at all


async def test_a_caller_that_stops_waiting_cancels_its_request_too() -> None:
    events: list[str] = []
    async with session_with(slow_server(events)) as (session, trace):
        call = asyncio.ensure_future(
            session.request("tools/call", {"name": "wait_forever", "arguments": {}})
        )
        await asyncio.sleep(0.1)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await session.ping(timeout=TIMEOUT)
        await until(lambda: bool(events))
        assert events == ["cancelled"]
        [cancelled] = sent(trace, "notifications/cancelled")
        assert cancelled["params"]["reason"] == "the caller stopped waiting"


async def test_the_server_cancels_a_question_the_client_does_not_answer_in_time() -> None:
    server = Server("asks")
    cancellable(server)
    client_events: list[str] = []

    @server.tool()
    async def ask(context: RequestContext) -> str:
        """Ask the client a question, and give up after 0.2 s."""
        try:
            await context.send_request(
                "elicitation/create",
                {"message": "Your name?", "requestedSchema": {"type": "object", "properties": {}}},
                timeout=0.2,
            )
        except TimeoutError:
            return "no answer in time"
        return "answered"

    async def never_answers(method: str, params: dict[str, Any]) -> Any:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            client_events.append(f"{method} cancelled")
            raise

    async with session_with(server, on_request=never_answers, capabilities={"elicitation": {}}) as (
        session,
        trace,
    ):
        result = await session.request(
            "tools/call", {"name": "ask", "arguments": {}}, timeout=TIMEOUT
        )
        assert result["content"][0]["text"] == "no answer in time"
        [question] = [
            message
            for way, message in trace
            if way == "<-" and message.get("method") == "elicitation/create"
        ]
        [cancelled] = [
            message
            for way, message in trace
            if way == "<-" and message.get("method") == "notifications/cancelled"
        ]
        assert cancelled["params"]["requestId"] == question["id"]
        await session.ping(timeout=TIMEOUT)
        assert client_events == ["elicitation/create cancelled"]
        our_answers = [
            m
            for way, m in trace
            if way == "->" and m.get("id") == question["id"] and "method" not in m
        ]
        assert our_answers == []  # we never answered it


async def test_initialize_is_never_cancelled() -> None:
    client_end, _silent_server = memory_pair()
    trace: Trace = []
    session = ClientSession(
        TracingTransport(client_end, lambda way, text: trace.append((way, json.loads(text)))),
        extensions=[cancellation],
    )
    with pytest.raises(TimeoutError):
        await session.initialize(timeout=0.1)
    await asyncio.sleep(0.05)  # the cancellation, if any, would be sent by a task of its own
    assert [message["method"] for way, message in trace if way == "->"] == ["initialize"]
    await session.close()


@pytest.mark.parametrize(
    "params",
    [
        {"requestId": True},
        {"requestId": {"x": 1}},
        {},
        {"requestId": 999},
        {"requestId": 1, "reason": "initialize may not be cancelled"},
    ],
)
async def test_a_cancellation_of_nothing_is_ignored(
    params: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    events: list[str] = []
    async with session_with(slow_server(events)) as (session, trace):
        await session.notify("notifications/cancelled", params)  # id 1 was our initialize, answered
        await session.ping(timeout=TIMEOUT)
        assert events == []
        assert [
            message for way, message in trace if way == "<-" and "error" in message
        ] == []  # nothing answered


async def test_the_cancellation_is_logged_with_its_reason(caplog: pytest.LogCaptureFixture) -> None:
    events: list[str] = []
    with caplog.at_level(logging.INFO, logger="minimcp.cancellation"):
        async with session_with(slow_server(events)) as (session, _trace):
            with pytest.raises(TimeoutError):
                await session.request(
                    "tools/call", {"name": "wait_forever", "arguments": {}}, timeout=0.1
                )
            await session.ping(timeout=TIMEOUT)
            await until(lambda: bool(events))
    assert "cancelled by the peer (no answer within 0.1 s)" in caplog.text


# -- over Streamable HTTP: the POST's stream must not outlive its cancelled request ----------------
async def test_over_http_a_cancelled_request_ends_its_stream_on_both_sides() -> None:
    events: list[str] = []
    async with running_complete(slow_server(events), stream_after=0.05) as http:
        async with http_client(http.url, extensions=[cancellation]) as client:
            # the answer streams (it took > 0.05 s), then we give up
            with pytest.raises(TimeoutError):
                await client.call_tool("wait_forever", timeout=0.3)
            await until(lambda: events == ["cancelled"])
            transport = client.session.transport
            [session] = http.app.sessions.values()
            await until(lambda: session.busy == 0)
            assert events == ["cancelled"]
            assert session.exchanges == {}  # the server forgot the request ...
            # GET, the POST
            assert [stream.ended for stream in session.streams.values()] == [False, True]
            assert transport._reading == {}  # ... and the client stopped reading its stream
            await client.ping(timeout=TIMEOUT)  # the session goes on


async def test_over_http_the_client_lets_go_of_a_cancelled_stream_by_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Against a server that keeps the stream open (as ours did before it learnt to end it), the
    client closes its side: the server sees the disconnect, and nothing of the session stays
    busy."""
    monkeypatch.setattr(SessionTransport, "request_cancelled", lambda self, request_id: None)
    events: list[str] = []
    async with running_complete(slow_server(events), stream_after=0.05) as http:
        # no GET stream: busy counts the POST only
        async with http_client(http.url, listen=False, extensions=[cancellation]) as client:
            with pytest.raises(TimeoutError):
                await client.call_tool("wait_forever", timeout=0.3)
            [session] = http.app.sessions.values()
            await until(lambda: session.busy == 0)
            assert session.busy == 0 and client.session.transport._reading == {}
            await client.ping(timeout=TIMEOUT)


async def test_over_http_a_request_cancelled_before_its_post_chose_gets_an_empty_stream() -> None:
    events: list[str] = []
    async with (
        running_complete(slow_server(events), stream_after=30) as http,
        raw_session(http.url) as raw,
    ):
        call = {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "wait_forever", "arguments": {}},
        }
        posting = asyncio.ensure_future(raw.post(call))
        [session] = http.app.sessions.values()
        await until(lambda: 7 in session.exchanges)
        cancel = {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 7, "reason": "no"},
        }
        assert (await raw.post(cancel)).status_code == 202
        response = await asyncio.wait_for(posting, TIMEOUT)
        assert (response.status_code, response.headers["content-type"]) == (
            200,
            "text/event-stream",
        )
        events_sent = SSEParser().feed(response.content)
        # the priming event, then the end: no answer
        assert [event.data for event in events_sent] == [""]
        assert events == ["cancelled"] and session.exchanges == {}
        await raw.ping()
