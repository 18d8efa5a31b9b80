"""Streamable HTTP's streams: the announcement channel, resumption with Last-Event-ID, and routing.

Each message travels on exactly one stream; a dropped stream is resumed with exactly what it missed.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from http_support import SSEReader, messages, raw_session, running

from minimcp.examples.course import build_server
from minimcp.server import report_progress
from minimcp.session import RequestContext
from minimcp.transports.event_store import MemoryEventStore

GET_HEADERS = {"accept": "text/event-stream"}


def analysis(request_id: int, steps: int) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {
            "name": "run_analysis",
            "arguments": {"steps": steps},
            "_meta": {"progressToken": f"t{request_id}"},
        },
    }


async def test_the_announcement_channel_carries_what_the_server_says_on_its_own() -> None:
    server = build_server(step_delay=0.01)
    async with running(server) as http, raw_session(http.url) as raw:
        async with raw.http.stream("GET", http.url, headers=raw.headers(**GET_HEADERS)) as get:
            assert get.status_code == 200 and get.headers["content-type"] == "text/event-stream"
            reader = SSEReader(get)
            (priming,) = await reader.read(1)
            assert (priming.data, priming.retry) == ("", 20)
            server.add_tool(lambda: "hi", "hello")
            (event,) = await reader.read(1)
            assert json.loads(event.data) == {
                "jsonrpc": "2.0",
                "method": "notifications/tools/list_changed",
            }
            assert event.id.rsplit("-", 1)[0] == priming.id.rsplit("-", 1)[0]  # the same stream
        await raw.ping()


async def test_the_two_channels_at_once_each_message_on_one_stream() -> None:
    """The article's scene: a long task streams on its POST while a new tool is announced on the
    GET."""
    server = build_server(step_delay=0.02)
    async with running(server) as http, raw_session(http.url) as raw:
        async with raw.http.stream("GET", http.url, headers=raw.headers(**GET_HEADERS)) as get:
            announcements = SSEReader(get)
            await announcements.read(1)  # priming
            async with raw.http.stream(
                "POST", http.url, json=analysis(2, 10), headers=raw.headers()
            ) as post:
                task = SSEReader(post)
                await task.read(3)  # priming, progress 1, progress 2
                server.add_tool(lambda: "hi", "hello")  # while the task is running
                rest = messages(await task.read())
            (announcement,) = await announcements.read(1)
        assert json.loads(announcement.data)["method"] == "notifications/tools/list_changed"
        assert all(message.get("method") != "notifications/tools/list_changed" for message in rest)
        assert rest[-1]["id"] == 2 and "result" in rest[-1]


async def test_a_dropped_post_stream_is_resumed_with_exactly_what_it_missed() -> None:
    async with running(build_server(step_delay=0.02)) as http, raw_session(http.url) as raw:
        async with raw.http.stream(
            "POST", http.url, json=analysis(2, 8), headers=raw.headers()
        ) as post:
            # priming, progress 1, progress 2: then the cable breaks
            seen = await SSEReader(post).read(3)
        last_id = seen[-1].id
        await asyncio.sleep(0.1)  # meanwhile the task goes on, and its events are stored
        headers = raw.headers(**GET_HEADERS, last_event_id=last_id)
        async with raw.http.stream("GET", http.url, headers=headers) as resumed:
            assert resumed.status_code == 200
            replayed = await SSEReader(
                resumed
            ).read()  # to the end: the stream closes after the answer
        got = messages(seen) + messages(replayed)
        # none lost, none twice
        assert [m["params"]["progress"] for m in got[:-1]] == [1, 2, 3, 4, 5, 6, 7, 8]
        assert got[-1]["id"] == 2 and "result" in got[-1]
        ids = [event.id for event in seen + replayed]
        assert len(ids) == len(set(ids))
        await raw.ping()


async def test_a_finished_stream_can_still_be_resumed_for_its_answer() -> None:
    async with running(build_server(step_delay=0.01)) as http, raw_session(http.url) as raw:
        async with raw.http.stream(
            "POST", http.url, json=analysis(2, 3), headers=raw.headers()
        ) as post:
            (priming,) = await SSEReader(post).read(1)
        await asyncio.sleep(0.2)  # the task finished while nobody listened
        headers = raw.headers(**GET_HEADERS, last_event_id=priming.id)
        async with raw.http.stream("GET", http.url, headers=headers) as resumed:
            got = messages(await SSEReader(resumed).read())
        assert [m.get("method") for m in got] == ["notifications/progress"] * 3 + [None]
        assert got[-1]["id"] == 2


async def test_a_dropped_get_stream_is_resumed() -> None:
    server = build_server()
    async with running(server) as http, raw_session(http.url) as raw:
        async with raw.http.stream("GET", http.url, headers=raw.headers(**GET_HEADERS)) as get:
            (priming,) = await SSEReader(get).read(1)
        for n in range(3):  # announced while nobody listens: stored, not lost
            await server.broadcast("notifications/message", {"level": "info", "data": n})
        headers = raw.headers(**GET_HEADERS, last_event_id=priming.id)
        async with raw.http.stream("GET", http.url, headers=headers) as resumed:
            reader = SSEReader(resumed)
            got = messages(await reader.read(3))
            await server.broadcast("notifications/message", {"level": "info", "data": 3})
            got += messages(await reader.read(1))  # and then it goes on, live
        assert [m["params"]["data"] for m in got] == [0, 1, 2, 3]


async def test_the_newest_connection_to_a_stream_wins() -> None:
    server = build_server()
    async with running(server) as http, raw_session(http.url) as raw:
        async with raw.http.stream("GET", http.url, headers=raw.headers(**GET_HEADERS)) as first:
            old = SSEReader(first)
            await old.read(1)
            async with raw.http.stream(
                "GET", http.url, headers=raw.headers(**GET_HEADERS)
            ) as second:
                new = SSEReader(second)
                await new.read(1)
                assert await old.read() == []  # the first connection was closed
                await server.broadcast("notifications/message", {"level": "info", "data": "once"})
                (event,) = await new.read(1)
                assert json.loads(event.data)["params"]["data"] == "once"


@pytest.mark.parametrize("last_event_id", ["nonsense", "ffffffffffff-0", "ffffffffffff-x"])
async def test_resuming_a_stream_that_is_not_ours_gets_400(last_event_id: str) -> None:
    async with running() as http, raw_session(http.url) as raw:
        response = await raw.http.get(
            http.url, headers=raw.headers(**GET_HEADERS, last_event_id=last_event_id)
        )
        assert response.status_code == 400
        assert response.json()["error"]["message"] == (
            f"Bad Request: Last-Event-ID {last_event_id!r} names no stream of this session"
        )
        await raw.ping()


async def test_another_sessions_stream_cannot_be_resumed() -> None:
    async with (
        running(build_server(step_delay=0.01)) as http,
        raw_session(http.url) as a,
        raw_session(http.url) as b,
    ):
        async with a.http.stream(
            "POST", http.url, json=analysis(2, 2), headers=a.headers()
        ) as post:
            (priming,) = await SSEReader(post).read(1)
        response = await b.http.get(
            http.url, headers=b.headers(**GET_HEADERS, last_event_id=priming.id)
        )
        assert response.status_code == 400
        await a.ping()
        await b.ping()


async def test_events_the_store_forgot_cannot_be_replayed_and_the_server_says_so() -> None:
    store = MemoryEventStore(max_events=2)
    async with (
        running(build_server(step_delay=0.01), event_store=store) as http,
        raw_session(http.url) as raw,
    ):
        async with raw.http.stream(
            "POST", http.url, json=analysis(2, 6), headers=raw.headers()
        ) as post:
            (priming,) = await SSEReader(post).read(1)
        await asyncio.sleep(0.3)
        response = await raw.http.get(
            http.url, headers=raw.headers(**GET_HEADERS, last_event_id=priming.id)
        )
        assert response.status_code == 400
        assert "cannot resume" in response.json()["error"]["message"]
        await raw.ping()


async def test_the_server_may_close_a_stream_and_the_client_resumes_it() -> None:
    """Polling (SEP-1699): the tool asks to end its connection; the answer waits in the store."""
    server = build_server()

    @server.tool()
    async def long_job(context: RequestContext) -> str:
        """Works for a while, without holding a connection open."""
        await report_progress(context, 1, 2)
        assert context.close_sse_stream(retry_ms=50)
        await asyncio.sleep(0.1)
        await report_progress(context, 2, 2)
        return "done"

    async with running(server) as http, raw_session(http.url) as raw:
        body = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "long_job", "arguments": {}, "_meta": {"progressToken": "t"}},
        }
        async with raw.http.stream("POST", http.url, json=body, headers=raw.headers()) as post:
            reader = SSEReader(post)
            first = await reader.read()  # to the end of this connection
        assert [event.data == "" for event in first] == [True, False]
        assert reader.parser.retry == 50  # "come back in 50 ms"
        headers = raw.headers(**GET_HEADERS, last_event_id=first[-1].id)
        await asyncio.sleep(0.05)
        async with raw.http.stream("GET", http.url, headers=headers) as resumed:
            rest = messages(await SSEReader(resumed).read())
        assert rest[0]["params"]["progress"] == 2
        assert rest[1]["result"]["content"] == [{"type": "text", "text": "done"}]


async def test_close_sse_stream_is_a_no_op_on_other_cables() -> None:
    from support import connected

    server = build_server()
    results: list[bool] = []

    @server.tool()
    def probe(context: RequestContext) -> str:
        """Tries to close its stream."""
        results.append(context.close_sse_stream())
        return "ok"

    async with connected(server) as client:
        await client.call_tool("probe")
    assert results == [False]


async def test_a_question_back_to_the_client_travels_on_the_requests_stream() -> None:
    """A server request sent while answering (here, ping) goes on the POST stream; the client's
    answer is a POST."""
    server = build_server()

    @server.tool()
    async def check_client(context: RequestContext) -> str:
        """Asks the client whether it is still there."""
        await context.ping(timeout=5)
        return "the client answered"

    async with running(server) as http, raw_session(http.url) as raw:
        body = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "check_client"},
        }
        async with raw.http.stream("POST", http.url, json=body, headers=raw.headers()) as post:
            reader = SSEReader(post)
            _, question = await reader.read(2)
            ping = json.loads(question.data)
            assert ping["method"] == "ping"
            answer = await raw.post({"jsonrpc": "2.0", "id": ping["id"], "result": {}})
            assert answer.status_code == 202
            (final,) = messages(await reader.read())
        assert final["result"]["content"][0]["text"] == "the client answered"


async def test_a_broadcast_from_inside_a_request_goes_to_every_announcement_channel() -> None:
    """A handler of session A adds a tool: the notice goes on A's and B's GET streams, never on A's
    POST."""
    server = build_server()

    @server.tool()
    def add_one(context: RequestContext) -> str:
        """Adds a tool while answering."""
        server.add_tool(lambda: "new", "brand_new")
        return "added"

    async with running(server) as http, raw_session(http.url) as a, raw_session(http.url) as b:
        async with (
            a.http.stream("GET", http.url, headers=a.headers(**GET_HEADERS)) as a_get,
            b.http.stream("GET", http.url, headers=b.headers(**GET_HEADERS)) as b_get,
        ):
            a_channel, b_channel = SSEReader(a_get), SSEReader(b_get)
            await a_channel.read(1)
            await b_channel.read(1)
            answer = await a.call(2, "tools/call", {"name": "add_one"})
            # plain JSON: nothing else on it
            assert answer["result"]["content"][0]["text"] == "added"
            for channel in (a_channel, b_channel):
                (event,) = await channel.read(1)
                assert json.loads(event.data)["method"] == "notifications/tools/list_changed"


class SlowStore(MemoryEventStore):
    """A store whose ``append`` takes a while, as one over the network would (a priming event's
    longest)."""

    async def append(self, stream_id: str, data: str) -> str:
        await asyncio.sleep(0.02 if data == "" else 0)
        return await super().append(stream_id, data)


def numbers(events: list[Any]) -> list[int]:
    return [int(event.id.rsplit("-", 1)[1]) for event in events]


async def test_with_a_slow_store_the_priming_event_still_comes_first_and_nothing_is_lost() -> None:
    """Messages sent while a stream's priming event is being stored must come after it, in order."""
    async with (
        running(build_server(step_delay=0), event_store=SlowStore()) as http,
        raw_session(http.url) as raw,
    ):
        async with raw.http.stream(
            "POST", http.url, json=analysis(2, 5), headers=raw.headers()
        ) as post:
            events = await SSEReader(post).read()
        assert events[0].data == "" and numbers(events) == list(range(7))
        got = messages(events)
        assert [m["params"]["progress"] for m in got[:-1]] == [1, 2, 3, 4, 5]
        assert got[-1]["id"] == 2


async def test_with_a_slow_store_announcements_racing_the_get_come_after_its_priming_event() -> (
    None
):
    server = build_server()
    async with running(server, event_store=SlowStore()) as http, raw_session(http.url) as raw:
        sent = 0

        async def announce() -> None:  # a notice every few milliseconds, while the GET opens
            nonlocal sent
            for n in range(20):
                await server.broadcast("notifications/message", {"level": "info", "data": n})
                sent += 1
                await asyncio.sleep(0.002)

        announcing = asyncio.ensure_future(announce())
        async with raw.http.stream("GET", http.url, headers=raw.headers(**GET_HEADERS)) as get:
            reader = SSEReader(get)
            (priming,) = await reader.read(1)
            await asyncio.wait_for(announcing, 5)
            first = numbers([priming])[0]
            rest = await reader.read(sent - first)  # the notices stored after the priming event
        assert priming.data == ""
        assert numbers(rest) == list(range(first + 1, sent + 1))
        assert [m["params"]["data"] for m in messages(rest)] == list(range(first, sent))
