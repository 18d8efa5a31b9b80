"""What a hostile client on the same machine tried, and what minimcp answers now.

Each test reproduces one finding of the hardening review (issue "Hardening"), checks the exact error
or status, and that the server still serves the next request.
"""

from __future__ import annotations

import asyncio
import gc
import json
import weakref
from pathlib import Path

import pytest
from http_support import INITIALIZE, raw_session, running
from support import TIMEOUT, connected
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from minimcp.examples.course import build_server
from minimcp.rpc import memory_pair
from minimcp.rpc.jsonrpc import encode, parse
from minimcp.server import ResourceServer
from minimcp.server.files import open_inside, read_file
from minimcp.transports.event_store import (
    MemoryEventStore,
    UnknownEventId,
    new_stream_id,
    parse_event_id,
)
from minimcp.transports.websocket import start_websocket

SURROGATE_ID = '{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}'


# -- 1. a subscribed session is freed when its client leaves ---------------------------------------
async def test_a_subscribed_session_is_freed_when_its_client_leaves() -> None:
    server = build_server(step_delay=0)
    async with connected(server) as client:
        await client.subscribe("courses://all")
        (session,) = server.sessions
        gone = weakref.ref(session)
        del session
    await asyncio.sleep(0)
    gc.collect()
    assert gone() is None, "the session outlived its client"
    assert server.sessions == set()  # its subscriptions lived in it, and went with it


# -- 2. the event store is bounded in bytes; streams a session drops are forgotten ---------------
async def test_the_event_store_keeps_a_byte_budget() -> None:
    store = MemoryEventStore(max_bytes=1000)
    first, second = new_stream_id(), new_stream_id()
    await store.append(first, "x" * 600)
    await store.append(second, "y" * 600)  # over budget: the least recently used stream goes first
    assert store.size == 600
    with pytest.raises(UnknownEventId):
        await store.events_after(f"{first}-0")
    for _ in range(5):
        await store.append(second, "z" * 300)  # then the current stream's oldest events
    assert store.size <= 1000
    newest = await store.append(second, "w" * 5000)  # alone over the budget: the newest is kept
    assert store.size == 5000 and newest.endswith("-6")  # events 0 to 6 of the second stream


async def test_old_streams_of_a_session_leave_the_store_too() -> None:
    store = MemoryEventStore()
    async with (
        running(
            build_server(step_delay=0), event_store=store, max_streams=2, stream_after=0
        ) as http,
        raw_session(http.url) as raw,
    ):
        for n in range(6):  # every call streams (stream_after=0), then its stream is finished
            response = await raw.post(
                {
                    "jsonrpc": "2.0",
                    "id": n,
                    "method": "tools/call",
                    "params": {"name": "run_analysis", "arguments": {"steps": 1}},
                }
            )
            assert response.status_code == 200
        (session,) = http.app.sessions.values()
        await asyncio.sleep(0.05)
        # kept POST streams (+ at most the newest), the GET channel
        assert len(store._streams) <= 2 + 2 + 1
        assert (await raw.http.delete(http.url, headers=raw.headers())).status_code == 200
        await asyncio.sleep(0.05)
        assert store.size == 0 and len(store._streams) == 0, "DELETE left events behind"
        del session


# -- 3. a second initialize is refused, and the session lives on ---------------------------------
async def test_a_second_initialize_leaves_the_session_alive() -> None:
    async with running(build_server(step_delay=0)) as http, raw_session(http.url) as raw:
        again = await raw.post({**INITIALIZE, "id": 2})
        assert again.status_code == 200
        assert again.json()["error"] == {
            "code": -32600,
            "message": "The session is already initialized",
        }
        assert "mcp-session-id" not in again.headers
        await raw.ping()


# -- 6. a lone surrogate comes back as the very id the client sent --------------------------------
def test_encode_escapes_a_lone_surrogate() -> None:
    text = encode(parse(SURROGATE_ID))
    assert text == SURROGATE_ID and text.isascii()


async def test_a_lone_surrogate_over_the_memory_cable() -> None:
    client_end, server_end = memory_pair()
    serving = asyncio.ensure_future(build_server().serve(server_end))
    await client_end.send_text(SURROGATE_ID)
    answer = await asyncio.wait_for(client_end.receive_text(), TIMEOUT)
    assert answer == '{"jsonrpc":"2.0","id":"\\ud800","result":{}}'
    await client_end.close()
    await asyncio.wait_for(serving, TIMEOUT)


async def test_a_lone_surrogate_over_http_and_websocket() -> None:
    server = build_server(step_delay=0)
    async with running(server) as http, raw_session(http.url) as raw:
        response = await raw.post(SURROGATE_ID)
        assert (response.status_code, response.text) == (
            200,
            '{"jsonrpc":"2.0","id":"\\ud800","result":{}}',
        )
        await raw.ping()
    async with await start_websocket(server) as listening:
        async with connect(listening.url, subprotocols=["mcp"]) as socket:  # type: ignore[list-item]
            await socket.send(SURROGATE_ID)
            assert (
                await asyncio.wait_for(socket.recv(), TIMEOUT)
                == '{"jsonrpc":"2.0","id":"\\ud800","result":{}}'
            )
            await socket.send('{"jsonrpc":"2.0","id":2,"method":"ping"}')
            assert json.loads(await asyncio.wait_for(socket.recv(), TIMEOUT)) == {
                "jsonrpc": "2.0",
                "id": 2,
                "result": {},
            }


# -- 7. a Last-Event-ID with thousands of digits ---------------------------------------------------
def test_a_huge_event_number_is_malformed_not_a_crash() -> None:
    with pytest.raises(UnknownEventId) as caught:
        parse_event_id("abc-" + "9" * 5000)
    assert str(caught.value) == "malformed event id 'abc-" + "9" * 56 + "…'"


async def test_a_huge_last_event_id_gets_400() -> None:
    async with running(build_server(step_delay=0)) as http, raw_session(http.url) as raw:
        response = await raw.http.get(
            http.url,
            headers=raw.headers(accept="text/event-stream", last_event_id="abc-" + "9" * 5000),
        )
        assert response.status_code == 400
        assert response.json()["error"]["message"].startswith("Bad Request: Last-Event-ID 'abc-999")
        await raw.ping()


# -- 8, 9, 10. served files: long names, the symlink swap, and a size limit ------------------------
@pytest.fixture
def folder(tmp_path: Path) -> Path:
    served = tmp_path / "served"
    (served / "docs").mkdir(parents=True)
    (served / "docs" / "note.txt").write_text("inside")
    (tmp_path / "secret.txt").write_text("outside")
    return served.resolve()


async def test_an_over_long_file_name_is_not_found(folder: Path) -> None:
    server = ResourceServer("files")
    server.add_directory(folder)
    async with connected(server) as client:
        from minimcp.rpc import RpcError

        with pytest.raises(RpcError) as caught:
            await client.read_resource((folder / ("x" * 5000)).as_uri(), timeout=TIMEOUT)
        assert caught.value.code == -32002
        assert (await client.read_resource((folder / "docs" / "note.txt").as_uri()))["contents"][0][
            "text"
        ] == "inside"


def test_a_file_swapped_for_a_symlink_after_the_check_is_refused(folder: Path) -> None:
    """The check passed (a regular file inside); then the file became a symlink to a secret
    outside."""
    note = folder / "docs" / "note.txt"
    note.unlink()
    note.symlink_to(folder.parent / "secret.txt")
    assert open_inside(folder, note) is None
    from minimcp.rpc import RpcError

    with pytest.raises(RpcError) as caught:
        read_file(note.as_uri(), folder, note)
    assert caught.value.code == -32002


def test_a_folder_swapped_for_a_symlink_after_the_check_is_refused(folder: Path) -> None:
    outside = folder.parent / "elsewhere"
    outside.mkdir()
    (outside / "note.txt").write_text("outside")
    (folder / "docs" / "note.txt").unlink()
    (folder / "docs").rmdir()
    # the file's own name is no symlink: only the folder moved
    (folder / "docs").symlink_to(outside)
    assert open_inside(folder, folder / "docs" / "note.txt") is None


def test_a_file_over_the_size_limit_is_refused(folder: Path) -> None:
    big = folder / "big.bin"
    big.write_bytes(b"\0" * 2048)
    from minimcp.rpc import RpcError

    with pytest.raises(RpcError) as caught:
        read_file(big.as_uri(), folder, big, max_bytes=1024)
    assert (caught.value.code, caught.value.message) == (
        -32603,
        "Resource too large: over 1024 bytes",
    )
    assert read_file(big.as_uri(), folder, big, max_bytes=4096)["blob"]


# -- 13. the WebSocket upgrade checks Host, as Streamable HTTP does --------------------------------
async def test_the_websocket_upgrade_refuses_a_foreign_host() -> None:
    async with await start_websocket(build_server()) as listening:
        with pytest.raises(InvalidStatus) as refused:
            # A page from evil.example, whose name now resolves to 127.0.0.1 (DNS rebinding).
            async with connect(
                f"ws://evil.example:{listening.port}/mcp",
                host="127.0.0.1",
                port=listening.port,
                subprotocols=["mcp"],
            ):  # type: ignore[list-item]
                pass
        assert refused.value.response.status_code == 421
        assert (
            refused.value.response.body
            == b"Misdirected Request: host 'evil.example' is not served here\n"
        )
        async with connect(listening.url, subprotocols=["mcp"]) as socket:  # type: ignore[list-item]
            await socket.send('{"jsonrpc":"2.0","id":1,"method":"ping"}')
            assert json.loads(await asyncio.wait_for(socket.recv(), TIMEOUT))["result"] == {}


# -- 4. a client that trickles its headers is dropped; 5. half-open sessions do not hold the cap --
async def test_a_slow_request_head_is_dropped_and_others_are_served() -> None:
    from minimcp.transports.http.server import start_http

    http = await start_http(build_server(step_delay=0), header_timeout=0.3)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", http.port)
        writer.write(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # and then nothing more
        await writer.drain()
        loop = asyncio.get_running_loop()
        started = loop.time()
        assert await asyncio.wait_for(reader.read(), TIMEOUT) == b""  # the server hung up
        assert 0.2 < loop.time() - started < 3
        writer.close()
        async with raw_session(http.url) as raw:
            await raw.ping()
    finally:
        await http.close()


async def test_connections_over_the_limit_are_refused_at_once() -> None:
    """Slow clients cannot hold more than max_connections: one more is closed before it says a
    word."""
    from minimcp.transports.http.server import start_http

    http = await start_http(build_server(step_delay=0), max_connections=4, header_timeout=30)
    held = []
    try:
        for _ in range(4):  # four slow clients, each holding a connection without a word
            held.append(await asyncio.open_connection("127.0.0.1", http.port))
        await asyncio.sleep(0.1)
        reader, writer = await asyncio.open_connection("127.0.0.1", http.port)
        assert await asyncio.wait_for(reader.read(), TIMEOUT) == b""  # refused: closed at once
        writer.close()
        for _, held_writer in held:
            held_writer.close()
        held.clear()
        await asyncio.sleep(0.1)
        async with raw_session(http.url) as raw:  # the honest client after them is served
            await raw.ping()
    finally:
        for _, held_writer in held:
            held_writer.close()
        await http.close()


async def test_sessions_left_half_open_expire_and_free_the_cap() -> None:
    async with running(build_server(step_delay=0), max_sessions=3, handshake_timeout=0.2) as http:
        for _ in range(3):  # initialize, and never send notifications/initialized
            async with raw_session(http.url, initialize=False) as raw:
                assert (await raw.post(INITIALIZE)).status_code == 200
        await asyncio.sleep(0.4)
        # a place was free again: the half-open ones expired
        async with raw_session(http.url) as raw:
            await raw.ping()


# -- 10. limits: requests in flight, a tool's run time, what an error repeats ---------------------
async def test_too_many_requests_in_flight_are_refused_not_queued() -> None:
    server = ResourceServer("busy")
    release = asyncio.Event()

    @server.tool()
    async def wait() -> str:
        """Waits until released."""
        await release.wait()
        return "done"

    server.max_in_flight = 2
    client_end, server_end = memory_pair()
    serving = asyncio.ensure_future(server.serve(server_end))
    await client_end.send_text(json.dumps(INITIALIZE))
    await asyncio.wait_for(client_end.receive_text(), TIMEOUT)
    await client_end.send_text('{"jsonrpc":"2.0","method":"notifications/initialized"}')
    for n in (10, 11, 12):
        await client_end.send_text(
            json.dumps(
                {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": "wait"}}
            )
        )
    refused = json.loads(await asyncio.wait_for(client_end.receive_text(), TIMEOUT))
    assert refused == {
        "jsonrpc": "2.0",
        "id": 12,
        "error": {
            "code": -32000,
            "message": "Server busy: 2 requests of this connection are already being answered",
        },
    }
    release.set()
    answers = {
        json.loads(await asyncio.wait_for(client_end.receive_text(), TIMEOUT))["id"]
        for _ in range(2)
    }
    assert answers == {10, 11}
    await client_end.send_text('{"jsonrpc":"2.0","id":13,"method":"ping"}')
    assert json.loads(await asyncio.wait_for(client_end.receive_text(), TIMEOUT))["result"] == {}
    await client_end.close()
    await asyncio.wait_for(serving, TIMEOUT)


async def test_a_tool_that_runs_too_long_gets_an_error_result() -> None:
    server = ResourceServer("slow")

    @server.tool()
    async def hang() -> str:
        """Never finishes."""
        await asyncio.sleep(3600)
        return "never"

    server.tools.timeout = 0.1
    async with connected(server) as client:
        result = await client.call_tool("hang", timeout=TIMEOUT)
        assert result == {
            "isError": True,
            "content": [{"type": "text", "text": "Tool hang did not finish within 0.1 seconds"}],
        }
        await client.ping(TIMEOUT)


async def test_a_long_method_name_is_not_repeated_whole() -> None:
    async with connected(build_server()) as client:
        from minimcp.rpc import RpcError

        with pytest.raises(RpcError) as caught:
            await client.request("x" * 1_000_000, timeout=TIMEOUT)
        assert caught.value.message == "Method not found: " + "x" * 100 + "…"
        await client.ping(TIMEOUT)


# -- 11. a plain function runs off the event loop --------------------------------------------------
async def test_a_blocking_tool_does_not_hold_up_other_clients() -> None:
    import time

    server = ResourceServer("blocking")

    @server.tool()
    def sleepy() -> str:
        """Blocks for a second, as a careless tool might (a slow file read, time.sleep)."""
        time.sleep(1.0)
        return "rested"

    async with connected(server) as sleeper, connected(server) as other:
        call = asyncio.ensure_future(sleeper.call_tool("sleepy", timeout=TIMEOUT))
        await asyncio.sleep(0.1)
        loop = asyncio.get_running_loop()
        started = loop.time()
        await other.ping(TIMEOUT)
        assert loop.time() - started < 0.5, "the other client waited for the blocking tool"
        assert (await call)["content"][0]["text"] == "rested"
