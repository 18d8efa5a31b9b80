"""The WebSocket transport (minimcp.transports.websocket): the course's example server over a new
cable.

Every server here listens on 127.0.0.1, port 0 (a free port the system picks), and every wait has a
timeout. The server is ``minimcp.examples.course.build_server()``: the very object lessons 04–06
serve over stdio, served unchanged. After each bad frame, bad upgrade or vanished client, the test
checks that the server goes on serving.
"""

from __future__ import annotations

import asyncio
import base64
import importlib.util
import json
import os
import struct
from collections.abc import AsyncIterator
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed as SocketClosed
from websockets.exceptions import InvalidStatus

from minimcp.client import Client, websocket_client
from minimcp.examples.course import build_server
from minimcp.rpc import ConnectionClosed, memory_pair
from minimcp.rpc.jsonrpc import INVALID_REQUEST, PARSE_ERROR
from minimcp.server import PromptServer
from minimcp.transports.guard import origin_allowed
from minimcp.transports.websocket import (
    HandshakeRefused,
    WebSocketServer,
    WebSocketTransport,
    connect_websocket,
    start_websocket,
)

TIMEOUT = 10.0


@pytest.fixture
async def course() -> AsyncIterator[tuple[PromptServer, WebSocketServer]]:
    """The course's example server, listening at ws://127.0.0.1:<port>/mcp; closed at the end."""
    server = build_server(step_delay=0.001)
    running = await start_websocket(server)
    try:
        yield server, running
    finally:
        await asyncio.wait_for(running.close(), TIMEOUT)


async def raw(url: str, **options: Any) -> ClientConnection:
    """A bare websockets connection that speaks the 1.x SDK's convention: subprotocol mcp."""
    options.setdefault("subprotocols", ["mcp"])
    return await asyncio.wait_for(connect(url, compression=None, proxy=None, **options), TIMEOUT)


async def recv_json(websocket: ClientConnection) -> dict[str, Any]:
    frame = await asyncio.wait_for(websocket.recv(), TIMEOUT)
    assert isinstance(frame, str), "MCP messages travel in text frames"
    return json.loads(frame)


async def closed_with(websocket: ClientConnection) -> tuple[int, str]:
    """Wait for the server to close the socket; return the code and reason of its close frame."""
    with pytest.raises(SocketClosed) as closed:
        await asyncio.wait_for(websocket.recv(), TIMEOUT)
    assert closed.value.rcvd is not None, "the server went away without a close frame"
    return closed.value.rcvd.code, closed.value.rcvd.reason


async def still_serving(running: WebSocketServer) -> None:
    """A new client completes the handshake and calls a tool: the server is fine."""
    async with websocket_client(running.url, name="afterwards") as client:
        result = await client.call_tool("read_events", {"date": "2025-03-21"}, timeout=TIMEOUT)
        assert result["content"][0]["text"].startswith("Events for 2025-03-21:")


async def eventually(condition, what: str) -> None:
    """Poll ``condition()`` until it is true, for at most TIMEOUT seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while not condition():
        assert loop.time() < deadline, f"timed out waiting until {what}"
        await asyncio.sleep(0.01)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1.0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


# -- the handshake and a call ----------------------------------------------------------------------
async def test_handshake_and_tools_call_over_websocket(course) -> None:
    server, running = course
    assert running.url == f"ws://127.0.0.1:{running.port}/mcp"
    async with websocket_client(running.url, name="ws-test", version="1.0") as client:
        assert client.protocol_version == "2025-11-25"
        assert client.server_info == {
            "name": "course-server",
            "version": "0.1.0",
            "title": "MCP from Scratch: course server",
        }
        [session] = server.sessions
        assert session.client_info == {"name": "ws-test", "version": "1.0"}
        tools = await client.list_tools(timeout=TIMEOUT)
        assert [tool["name"] for tool in tools] == [
            "read_events",
            "find_similar_courses",
            "run_analysis",
        ]
        result = await client.call_tool("read_events", {"date": "2025-03-21"}, timeout=TIMEOUT)
        assert result == {
            "content": [
                {
                    "type": "text",
                    "text": "Events for 2025-03-21:\n- 09:00 Doctor "
                    "appointment\n- 12:30 Team meeting\n- 18:00 Gym session",
                }
            ]
        }
        await client.ping(timeout=TIMEOUT)
    await eventually(lambda: not server.sessions, "the session ended")


async def test_the_upgrade_agrees_to_the_subprotocol_mcp(course) -> None:
    _, running = course
    websocket = await raw(running.url)
    try:
        assert websocket.response.status_code == 101
        assert websocket.response.headers["Sec-WebSocket-Protocol"] == "mcp"
        assert websocket.response.headers["Server"] == "minimcp/0.1.0"
        assert "Sec-WebSocket-Extensions" not in websocket.response.headers  # no compression
        assert websocket.subprotocol == "mcp"
    finally:
        await websocket.close()


async def test_the_1x_sdk_convention_one_message_per_text_frame(course) -> None:
    """What the 1.x official SDK's websocket_client does, spoken by hand with the websockets
    library."""
    _, running = course
    websocket = await raw(running.url)
    try:
        await websocket.send(json.dumps(INITIALIZE))
        answer = await recv_json(websocket)
        assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "course-server"
        await websocket.send(json.dumps(INITIALIZED))
        await websocket.send(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "tools/call",
                    "params": {"name": "read_events", "arguments": {"date": "2025-03-20"}},
                }
            )
        )
        assert await recv_json(websocket) == {
            "jsonrpc": "2.0",
            "id": 2,
            "result": {
                "content": [
                    {
                        "type": "text",
                        "text": "Events for 2025-03-20:\n- 09:00 Daily meeting\n"
                        "- 16:00 Secret project presentation to client",
                    }
                ]
            },
        }
        # A message sent in fragments (continuation frames) is still one message.
        text = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "ping"})
        await websocket.send([text[:10], text[10:20], text[20:]])
        assert await recv_json(websocket) == {"jsonrpc": "2.0", "id": 3, "result": {}}
    finally:
        await websocket.close()
    assert websocket.close_code == 1000


def test_the_official_sdk_2x_has_no_websocket_transport() -> None:
    """Why there is no interop test with the installed SDK: 2.x dropped its websocket transport."""
    spec = importlib.util.find_spec("mcp")  # found, not imported
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("the official SDK is not installed")
    folder = spec.submodule_search_locations[0]
    assert not os.path.exists(os.path.join(folder, "client", "websocket.py"))
    assert not os.path.exists(os.path.join(folder, "server", "websocket.py"))


# -- several clients -------------------------------------------------------------------------------
async def test_several_clients_at_once_each_with_its_own_session(course) -> None:
    server, running = course
    updates: dict[str, list[str]] = {"alice": [], "bob": [], "carol": []}
    progress: dict[str, list[float]] = {"alice": [], "bob": [], "carol": []}
    async with (
        websocket_client(running.url, name="alice") as alice,
        websocket_client(running.url, name="bob") as bob,
        websocket_client(running.url, name="carol") as carol,
    ):
        clients = {"alice": alice, "bob": bob, "carol": carol}
        assert sorted(session.client_info["name"] for session in server.sessions) == [
            "alice",
            "bob",
            "carol",
        ]

        # Three long calls at once, each with its own progress, each answered to its own caller.
        async def analyse(name: str, steps: int) -> str:
            result = await clients[name].call_tool(
                "run_analysis",
                {"steps": steps},
                timeout=TIMEOUT,
                progress=lambda p, t, m: progress[name].append(p),
            )
            return result["content"][0]["text"]

        texts = await asyncio.gather(analyse("alice", 3), analyse("bob", 5), analyse("carol", 7))
        assert [text.split(" in ")[1].split(" steps")[0] for text in texts] == ["3", "5", "7"]
        assert progress == {
            "alice": [1, 2, 3],
            "bob": [1, 2, 3, 4, 5],
            "carol": [1, 2, 3, 4, 5, 6, 7],
        }

        # A subscription belongs to one session: only bob hears about courses://AI101.
        await bob.subscribe(
            "courses://AI101", lambda uri: updates["bob"].append(uri), timeout=TIMEOUT
        )
        await server.resource_updated("courses://AI101")
        for client in clients.values():
            await client.ping(timeout=TIMEOUT)  # a round trip: anything sent before has arrived
        assert updates == {"alice": [], "bob": ["courses://AI101"], "carol": []}

        # One client leaving ends its session only.
        await carol.close()
        await eventually(lambda: len(server.sessions) == 2, "carol's session ended")
        await alice.ping(timeout=TIMEOUT)
        await bob.ping(timeout=TIMEOUT)


async def test_push_reaches_every_ready_session(course) -> None:
    server, running = course
    heard: dict[str, asyncio.Queue[str]] = {"alice": asyncio.Queue(), "bob": asyncio.Queue()}
    lurker = await raw(running.url)  # connected, but never sent initialize: not listening yet
    try:
        async with (
            websocket_client(
                running.url, name="alice", on_list_changed=heard["alice"].put_nowait
            ) as alice,
            websocket_client(
                running.url, name="bob", on_list_changed=heard["bob"].put_nowait
            ) as bob,
        ):
            assert len(await alice.list_tools(timeout=TIMEOUT)) == 3
            assert len(await bob.list_tools(timeout=TIMEOUT)) == 3

            @server.tool()
            def shout(text: str) -> str:
                """Answer in capitals."""
                return text.upper()

            for name in ("alice", "bob"):
                assert await asyncio.wait_for(heard[name].get(), TIMEOUT) == "tools"
            for client in (alice, bob):
                names = [tool["name"] for tool in await client.list_tools(timeout=TIMEOUT)]
                assert names[-1] == "shout"
                result = await client.call_tool("shout", {"text": "hi"}, timeout=TIMEOUT)
                assert result["content"][0]["text"] == "HI"

            server.remove_tool("shout")
            for name in ("alice", "bob"):
                assert await asyncio.wait_for(heard[name].get(), TIMEOUT) == "tools"
                assert heard[name].empty()

        # The socket that never finished its handshake heard nothing: its first message is our
        # ping's answer.
        await lurker.send(json.dumps({"jsonrpc": "2.0", "id": "p", "method": "ping"}))
        assert await recv_json(lurker) == {"jsonrpc": "2.0", "id": "p", "result": {}}
    finally:
        await lurker.close()


async def test_the_same_server_object_serves_two_cables_at_once(course) -> None:
    """One Server, one WebSocket client and one in-memory client: one push reaches both."""
    server, running = course
    heard: list[str] = []
    client_end, server_end = memory_pair()
    serving = asyncio.ensure_future(server.serve(server_end))
    async with (
        Client(
            client_end, name="memory", on_list_changed=lambda kind: heard.append("memory")
        ) as local,
        websocket_client(
            running.url, name="ws", on_list_changed=lambda kind: heard.append("ws")
        ) as remote,
    ):
        assert len(server.sessions) == 2
        # A round trip each: the server has read `notifications/initialized` (sent just before), so
        # both sessions are ready, and only ready sessions hear a push.
        await local.ping(timeout=TIMEOUT)
        await remote.ping(timeout=TIMEOUT)
        server.add_tool(lambda: "pong", "pong_tool", description="Answer pong.")
        await eventually(lambda: len(heard) == 2, "both clients heard the push")
        assert sorted(heard) == ["memory", "ws"]
    await asyncio.wait_for(serving, TIMEOUT)


# -- bad frames ------------------------------------------------------------------------------------
async def test_a_binary_frame_closes_with_1003(course) -> None:
    server, running = course
    async with websocket_client(running.url, name="bystander") as bystander:
        websocket = await raw(running.url)
        # JSON, but in a binary frame
        await websocket.send(b'{"jsonrpc":"2.0","id":1,"method":"ping"}')
        assert await closed_with(websocket) == (
            1003,
            "MCP messages are JSON text: send text frames",
        )
        await eventually(lambda: len(server.sessions) == 1, "the binary sender's session ended")
        await bystander.ping(timeout=TIMEOUT)
    await still_serving(running)


@pytest.mark.parametrize(
    ("text", "code", "message"),
    [
        ("hello", PARSE_ERROR, "Parse error: Expecting value: line 1 column 1 (char 0)"),
        (
            '{"jsonrpc": "2.0", "id": 1, "method": "ping"',
            PARSE_ERROR,
            "Parse error: Expecting ',' delimiter: line 1 column 45 (char 44)",
        ),
        ("[]", INVALID_REQUEST, "Batches are not supported: send one JSON-RPC message at a time"),
        (
            '{"id": 7, "method": "ping"}',
            INVALID_REQUEST,
            'The member "jsonrpc" must be exactly "2.0"',
        ),
    ],
)
async def test_a_text_frame_that_is_not_json_rpc_gets_an_error_and_the_session_goes_on(
    course, text: str, code: int, message: str
) -> None:
    _, running = course
    websocket = await raw(running.url)
    try:
        await websocket.send(text)
        answer = await recv_json(websocket)
        assert answer["error"] == {"code": code, "message": message}
        # The same socket, the same session: the handshake still works.
        await websocket.send(json.dumps(INITIALIZE))
        assert (await recv_json(websocket))["result"]["protocolVersion"] == "2025-11-25"
    finally:
        await websocket.close()
    assert websocket.close_code == 1000
    await still_serving(running)


async def test_a_text_frame_that_is_not_utf8_closes_with_1007(course) -> None:
    _, running = course
    websocket = await raw(running.url)
    # a text frame with bytes that are not UTF-8
    await websocket.send(b"\xff\xfe not UTF-8", text=True)
    code, reason = await closed_with(websocket)
    assert code == 1007
    assert reason.startswith("invalid start byte")
    await still_serving(running)


async def test_a_message_over_max_size_closes_with_1009_and_only_that_session_ends() -> None:
    server = build_server(step_delay=0.001)
    async with await start_websocket(server, max_size=4096) as running:
        async with websocket_client(running.url, name="bystander") as bystander:
            websocket = await raw(running.url, max_size=None)
            huge = json.dumps(
                {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "x" * 5000}}
            )
            await websocket.send(huge)
            code, reason = await closed_with(websocket)
            assert (code, reason) == (
                1009,
                f"frame with {len(huge)} bytes exceeds limit of 4096 bytes",
            )
            await eventually(
                lambda: len(server.sessions) == 1, "the oversized sender's session ended"
            )
            # Just under the limit is fine, on the bystander's session.
            result = await bystander.call_tool("read_events", {"date": "x" * 3900}, timeout=TIMEOUT)
            assert result["isError"] is True
        await still_serving(running)


# -- the HTTP upgrade, refused before any session exists -------------------------------------------
async def refused(url: str, **options: Any) -> tuple[int, str]:
    with pytest.raises(InvalidStatus) as refusal:
        await raw(url, **options)
    response = refusal.value.response
    return response.status_code, bytes(response.body).decode()


async def test_a_wrong_path_is_404(course) -> None:
    server, running = course
    assert await refused(running.url.replace("/mcp", "/")) == (
        404,
        "Not Found: the MCP endpoint is /mcp\n",
    )
    assert await refused(running.url + "/more") == (404, "Not Found: the MCP endpoint is /mcp\n")
    assert not server.sessions
    websocket = await raw(running.url + "?client=raw")  # a query string does not change the path
    await websocket.close()
    await still_serving(running)


FOREIGN_ORIGINS = [
    "http://evil.example",
    "https://evil.example:8765",
    "null",
    "http://localhost.evil.example",
    "http://127.0.0.1.evil.example",
    "http://127.0.0.1@evil.example",
    "file://",
    "ftp://localhost",
]


@pytest.mark.parametrize("origin", FOREIGN_ORIGINS)
async def test_a_foreign_origin_is_403(course, origin: str) -> None:
    server, running = course
    expected = (403, f"Forbidden: origin {origin!r} is not allowed\n")
    assert await refused(running.url, origin=origin) == expected
    assert not server.sessions
    await still_serving(running)


@pytest.mark.parametrize(
    "origin",
    [
        None,
        "http://localhost:5173",
        "http://127.0.0.1:8000",
        "https://[::1]:3000",
        "http://LOCALHOST",
    ],
)
async def test_no_origin_and_local_pages_are_let_in(course, origin: str | None) -> None:
    _, running = course
    websocket = await raw(running.url, origin=origin)
    await websocket.close()


async def test_allowed_origins_are_let_in_and_no_others() -> None:
    async with await start_websocket(
        build_server(), allowed_origins=["https://app.example"]
    ) as running:
        websocket = await raw(running.url, origin="https://app.example")
        await websocket.close()
        assert await refused(running.url, origin="https://other.example") == (
            403,
            "Forbidden: origin 'https://other.example' is not allowed\n",
        )


async def test_two_origin_headers_are_400(course) -> None:
    _, running = course
    assert await refused(
        running.url,
        origin="http://localhost",
        additional_headers=[("Origin", "http://evil.example")],
    ) == (400, "Bad Request: more than one Origin header\n")


async def test_a_client_that_offers_no_mcp_subprotocol_is_400(course) -> None:
    server, running = course
    assert await refused(running.url, subprotocols=None) == (
        400,
        "Failed to open a WebSocket connection: missing subprotocol.\n",
    )
    assert await refused(running.url, subprotocols=["jsonrpc"]) == (
        400,
        "Failed to open a WebSocket connection: invalid subprotocol; expected one of mcp.\n",
    )
    assert not server.sessions
    await still_serving(running)


def test_origin_allowed() -> None:
    assert origin_allowed("http://localhost:5173")
    assert origin_allowed("https://127.0.0.1")
    assert origin_allowed("http://[::1]:8080/")
    assert origin_allowed("https://app.example/", ["https://APP.example"])
    for origin in FOREIGN_ORIGINS:
        assert not origin_allowed(origin)


# -- vanished peers and keepalive ------------------------------------------------------------------
async def test_a_client_that_vanishes_mid_request_leaves_the_server_serving(course) -> None:
    server, running = course
    server_slow = build_server(step_delay=0.05)  # a slower analysis on its own server
    async with await start_websocket(server_slow) as slow:
        transport = await connect_websocket(slow.url)
        client = Client(transport, name="vanishing")
        await client.__aenter__()
        steps: list[float] = []
        third = asyncio.Event()

        def on_progress(progress: float, total: float | None, message: str | None) -> None:
            steps.append(progress)
            if progress == 3:
                third.set()

        call = asyncio.ensure_future(
            client.call_tool("run_analysis", {"steps": 40}, progress=on_progress, timeout=TIMEOUT)
        )
        await asyncio.wait_for(third.wait(), TIMEOUT)
        transport.websocket.transport.abort()  # the cable is cut: no close frame, nothing more
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(call, TIMEOUT)
        assert transport.close_code == 1006  # "abnormal closure": no close frame ever came
        await eventually(lambda: not server_slow.sessions, "the vanished client's session ended")
        await client.close()
        await still_serving(slow)
    await still_serving(running)


async def read_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """One unmasked frame from the server, read by hand (RFC 6455, section 5.2)."""
    first, second = await asyncio.wait_for(reader.readexactly(2), TIMEOUT)
    length = second & 0x7F
    if length == 126:
        (length,) = struct.unpack("!H", await reader.readexactly(2))
    elif length == 127:
        (length,) = struct.unpack("!Q", await reader.readexactly(8))
    return first & 0x0F, await asyncio.wait_for(reader.readexactly(length), TIMEOUT)


async def test_keepalive_closes_a_peer_that_stopped_answering_with_1011() -> None:
    server = build_server()
    # close_timeout: how long websockets waits, after its close frame, for a peer that never
    # answers.
    async with await start_websocket(
        server, ping_interval=0.2, ping_timeout=0.2, close_timeout=0.5
    ) as running:
        # A client that completes the upgrade by hand, then never answers anything (as if
        # unplugged).
        reader, writer = await asyncio.open_connection("127.0.0.1", running.port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            (
                f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{running.port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                "Sec-WebSocket-Protocol: mcp\r\n\r\n"
            ).encode()
        )
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), TIMEOUT)
        assert head.startswith(b"HTTP/1.1 101 Switching Protocols\r\n")
        await eventually(lambda: len(server.sessions) == 1, "the session started")
        # A live client answers pings without being asked: it stays connected.
        async with websocket_client(running.url, name="alive") as alive:
            opcode, payload = await read_frame(reader)
            assert opcode == 0x9  # PING; we do not answer
            opcode, payload = await read_frame(reader)
            assert opcode == 0x8  # CLOSE
            assert struct.unpack("!H", payload[:2])[0] == 1011
            assert payload[2:] == b"keepalive ping timeout"
            await eventually(lambda: len(server.sessions) == 1, "the silent peer's session ended")
            await asyncio.sleep(0.5)  # a few more ping intervals
            await alive.ping(timeout=TIMEOUT)
        writer.close()
        await still_serving(running)


# -- closing ---------------------------------------------------------------------------------------
async def test_a_client_that_leaves_closes_with_1000_on_both_sides(course) -> None:
    server, running = course
    async with websocket_client(running.url) as client:
        [server_side] = running.listening.connections
        transport = client.session.transport
    assert transport.close_code == 1000  # the server's echo of our close frame
    await eventually(lambda: server_side.close_code is not None, "the server saw the close")
    assert server_side.close_code == 1000
    await eventually(lambda: not server.sessions, "the session ended")


async def test_a_server_that_shuts_down_closes_with_1001() -> None:
    server = build_server(step_delay=0.05)
    running = await start_websocket(server)
    transport = await connect_websocket(running.url)
    client = Client(transport)
    await client.__aenter__()
    call = asyncio.ensure_future(client.call_tool("run_analysis", {"steps": 100}, timeout=TIMEOUT))
    await asyncio.sleep(0.1)
    await asyncio.wait_for(running.close(), TIMEOUT)
    with pytest.raises(ConnectionClosed):
        await asyncio.wait_for(call, TIMEOUT)
    assert (transport.close_code, transport.close_reason) == (1001, "")
    assert not server.sessions
    await client.close()


async def test_the_client_refuses_a_server_that_does_not_agree_to_mcp() -> None:
    async def echo(websocket) -> None:
        async for message in websocket:
            await websocket.send(message)

    async with serve(echo, "127.0.0.1", 0) as plain:  # a WebSocket server that knows no subprotocol
        port = plain.sockets[0].getsockname()[1]
        with pytest.raises(HandshakeRefused, match="did not agree to the subprotocol 'mcp'"):
            await connect_websocket(f"ws://127.0.0.1:{port}/mcp")


def test_the_transport_has_the_transport_shape() -> None:
    for name in ("send", "receive", "close"):
        assert asyncio.iscoroutinefunction(getattr(WebSocketTransport, name))
