"""The lifecycle (minimcp.session): initialize, version negotiation, initialized, ping.

The server side is checked on the wire with a hand-driven client (exact requests in, exact answers
out); the client side against a real ServerSession, and against a hand-driven server where the
test needs the server to say something a real one never would.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from minimcp.rpc import ConnectionClosed, Notification, Request, RpcError, memory_pair
from minimcp.rpc.jsonrpc import INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND
from minimcp.session import (
    LATEST_PROTOCOL_VERSION,
    SUPPORTED_PROTOCOL_VERSIONS,
    ClientSession,
    HandshakeFailed,
    RequestContext,
    ServerSession,
    UnsupportedVersion,
    negotiate_version,
)

TIMEOUT = 10.0
VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
CLIENT_INFO = {"name": "test-client", "version": "9.9.9"}


class App:
    """The smallest server app a session can serve: one method, and a record of notifications."""

    protocol_versions = SUPPORTED_PROTOCOL_VERSIONS

    def __init__(self, instructions: str | None = "Ask me to echo.") -> None:
        self._instructions = instructions
        self.notifications: list[tuple[str, dict[str, Any]]] = []

    def info(self) -> dict[str, Any]:
        return {"name": "test-server", "version": "1.2.3"}

    def capabilities(self) -> dict[str, Any]:
        return {"tools": {"listChanged": True}}

    def instructions(self) -> str | None:
        return self._instructions

    def knows(self, method: str) -> bool:
        return method == "demo/echo"

    async def handle(self, context: RequestContext) -> Any:
        if context.request.method != "demo/echo":
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {context.request.method}")
        return {"params": context.params, "meta": context.meta, "state": context.session.state}

    async def handle_notification(self, session: ServerSession, notification: Notification) -> None:
        self.notifications.append((notification.method, notification.params or {}))


def initialize_request(
    request_id: Any = 1, version: Any = LATEST_PROTOCOL_VERSION, **params: Any
) -> dict:
    body = {"protocolVersion": version, "capabilities": {}, "clientInfo": CLIENT_INFO}
    body.update(params)
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {k: v for k, v in body.items() if v is not ...},
    }


@pytest.fixture
async def server(raw_pair):
    """A live ServerSession and the raw client peer that talks to it."""
    peer, transport = raw_pair()
    session = ServerSession(transport, App())
    serving = asyncio.ensure_future(session.run())
    yield session, peer
    await session.connection.close()
    await asyncio.wait_for(serving, TIMEOUT)


@pytest.fixture
async def live():
    """A real ClientSession and ServerSession on one memory cable (the client is not yet
    initialized)."""
    client_end, server_end = memory_pair()
    app = App()
    server_session = ServerSession(server_end, app)
    serving = asyncio.ensure_future(server_session.run())
    client = ClientSession(client_end, dict(CLIENT_INFO), {"roots": {"listChanged": True}})
    yield client, server_session, app, serving
    await client.close()
    await asyncio.wait_for(serving, TIMEOUT)


# -- the handshake ------------------------------------------------------------------------------
async def test_handshake_both_sides(live) -> None:
    client, server_session, app, _ = live
    assert server_session.state == "new"
    result = await client.initialize(timeout=TIMEOUT)
    assert result == {
        "protocolVersion": LATEST_PROTOCOL_VERSION,
        "capabilities": {"tools": {"listChanged": True}},
        "serverInfo": {"name": "test-server", "version": "1.2.3"},
        "instructions": "Ask me to echo.",
    }
    # What the client learnt...
    assert client.protocol_version == LATEST_PROTOCOL_VERSION
    assert client.server_info == {"name": "test-server", "version": "1.2.3"}
    assert client.server_capabilities == {"tools": {"listChanged": True}}
    assert client.instructions == "Ask me to echo."
    # ...and what the server learnt. The ping is read after notifications/initialized, so by the
    # time it is answered the server has moved to "ready".
    await client.ping(timeout=TIMEOUT)
    assert server_session.state == "ready"
    assert server_session.protocol_version == LATEST_PROTOCOL_VERSION
    assert server_session.client_info == CLIENT_INFO
    assert server_session.client_capabilities == {"roots": {"listChanged": True}}
    assert app.notifications == []  # notifications/initialized is the session's, not the app's
    assert await client.request("demo/echo", {"x": 1}, timeout=TIMEOUT) == {
        "params": {"x": 1},
        "meta": {},
        "state": "ready",
    }


async def test_handshake_on_the_wire(server) -> None:
    session, peer = server
    answer = await peer.call(initialize_request(1))
    assert answer == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": {"name": "test-server", "version": "1.2.3"},
            "instructions": "Ask me to echo.",
        },
    }
    assert session.state == "initializing"
    await peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    await peer.ping()  # notifications are never answered: the ping's answer comes next
    assert session.state == "ready"


async def test_no_instructions_means_no_instructions_member(raw_pair) -> None:
    peer, transport = raw_pair()
    session = ServerSession(transport, App(instructions=None))
    serving = asyncio.ensure_future(session.run())
    answer = await peer.call(initialize_request(1))
    assert "instructions" not in answer["result"]
    await session.connection.close()
    await asyncio.wait_for(serving, TIMEOUT)


# -- version negotiation ------------------------------------------------------------------------
def test_supported_versions() -> None:
    assert LATEST_PROTOCOL_VERSION == "2025-11-25"
    assert sorted(SUPPORTED_PROTOCOL_VERSIONS) == VERSIONS
    assert SUPPORTED_PROTOCOL_VERSIONS[0] == LATEST_PROTOCOL_VERSION  # newest first
    for version in VERSIONS:
        assert negotiate_version(version) == version
    for other in ("2099-01-01", "2024-10-07", "", "latest", None, 20241105):
        assert negotiate_version(other) == LATEST_PROTOCOL_VERSION


@pytest.mark.parametrize("version", VERSIONS)
async def test_client_asks_for_each_version_and_gets_it(live, version: str) -> None:
    client, server_session, _, _ = live
    result = await client.initialize(timeout=TIMEOUT, protocol_version=version)
    assert result["protocolVersion"] == version
    assert client.protocol_version == server_session.protocol_version == version
    await client.ping(timeout=TIMEOUT)


@pytest.mark.parametrize("version", VERSIONS)
async def test_server_agrees_to_each_version_on_the_wire(server, version: str) -> None:
    _, peer = server
    answer = await peer.call(initialize_request("init", version))
    assert answer["result"]["protocolVersion"] == version


@pytest.mark.parametrize("version", ["2099-01-01", "2024-10-07", "1.0", ""])
async def test_an_unknown_version_gets_the_latest(server, version: str) -> None:
    session, peer = server
    answer = await peer.call(initialize_request(1, version))
    assert answer["result"]["protocolVersion"] == "2025-11-25"
    assert session.protocol_version == "2025-11-25"


async def test_client_that_cannot_speak_the_answer_disconnects(live) -> None:
    client, server_session, _, serving = live
    client.supported_versions = ("1999-01-01",)  # it asks for a version no server supports
    with pytest.raises(UnsupportedVersion) as caught:
        await client.initialize(timeout=TIMEOUT)
    assert caught.value.offered == "2025-11-25"
    assert caught.value.supported == ("1999-01-01",)
    assert "2025-11-25" in str(caught.value)
    assert client.connection.closed.is_set()
    await asyncio.wait_for(serving, TIMEOUT)  # the server saw the client hang up
    assert server_session.state == "initializing"  # no notifications/initialized was ever sent
    with pytest.raises(ConnectionClosed):
        await client.ping(timeout=TIMEOUT)


async def test_client_refuses_a_version_it_did_not_offer(raw_pair) -> None:
    peer, transport = raw_pair()
    client = ClientSession(transport)
    handshake = asyncio.ensure_future(client.initialize(timeout=TIMEOUT))
    request = await peer.recv()
    assert request["method"] == "initialize"
    assert request["params"] == {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "minimcp", "version": "0.1.0"},
    }
    future = {
        "protocolVersion": "2030-01-01",
        "capabilities": {},
        "serverInfo": {"name": "future", "version": "1"},
    }
    await peer.send({"jsonrpc": "2.0", "id": request["id"], "result": future})
    with pytest.raises(UnsupportedVersion):
        await handshake
    # The client hung up without confirming: the next thing on the cable is its end.
    assert await asyncio.wait_for(peer.transport.receive_text(), TIMEOUT) is None


@pytest.mark.parametrize(
    "result",
    [
        {"protocolVersion": "2025-11-25", "capabilities": {}},
        {"protocolVersion": "2025-11-25", "serverInfo": {"name": "x", "version": "1"}},
        {
            "protocolVersion": "2025-11-25",
            "capabilities": [],
            "serverInfo": {"name": "x", "version": "1"},
        },
        [],
    ],
)
async def test_client_refuses_a_malformed_initialize_result(raw_pair, result: Any) -> None:
    peer, transport = raw_pair()
    client = ClientSession(transport)
    handshake = asyncio.ensure_future(client.initialize(timeout=TIMEOUT))
    request = await peer.recv()
    await peer.send({"jsonrpc": "2.0", "id": request["id"], "result": result})
    with pytest.raises(HandshakeFailed):
        await handshake
    assert await asyncio.wait_for(peer.transport.receive_text(), TIMEOUT) is None  # it hung up


async def test_client_sends_initialized_after_the_result(raw_pair) -> None:
    peer, transport = raw_pair()
    client = ClientSession(transport)
    handshake = asyncio.ensure_future(
        client.initialize(timeout=TIMEOUT, protocol_version="2025-03-26")
    )
    request = await peer.recv()
    assert request["params"]["protocolVersion"] == "2025-03-26"
    await peer.send(
        {
            "jsonrpc": "2.0",
            "id": request["id"],
            "result": {
                "protocolVersion": "2024-11-05",
                "capabilities": {"logging": {}},
                "serverInfo": {"name": "older", "version": "1"},
            },
        }
    )
    result = await handshake
    # the server's choice wins
    assert result["protocolVersion"] == client.protocol_version == "2024-11-05"
    assert client.instructions is None
    assert await peer.recv() == {"jsonrpc": "2.0", "method": "notifications/initialized"}
    await client.close()


# -- the server refuses what breaks the lifecycle ------------------------------------------------
async def test_initialize_twice_is_an_invalid_request(server) -> None:
    session, peer = server
    assert "result" in await peer.call(initialize_request(1))
    for request_id, version in ((2, "2025-11-25"), (3, "2024-11-05")):
        answer = await peer.call(initialize_request(request_id, version))
        assert answer == {
            "jsonrpc": "2.0",
            "id": request_id,
            "error": {"code": INVALID_REQUEST, "message": "The session is already initialized"},
        }
    assert session.protocol_version == "2025-11-25"  # the second initialize changed nothing
    await peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    answer = await peer.call(initialize_request(4))
    assert answer["error"]["code"] == INVALID_REQUEST
    await peer.ping()


PROTOCOL_VERSION_MESSAGE = 'initialize needs "protocolVersion" (a string)'
CLIENT_INFO_MESSAGE = 'initialize needs "clientInfo" with a "name" and a "version"'
CAPABILITIES_MESSAGE = 'initialize needs "capabilities" (an object)'


@pytest.mark.parametrize(
    "params, message",
    [
        ("no params member", PROTOCOL_VERSION_MESSAGE),
        ("empty params", PROTOCOL_VERSION_MESSAGE),
        ({"protocolVersion": ...}, PROTOCOL_VERSION_MESSAGE),
        ({"protocolVersion": None}, PROTOCOL_VERSION_MESSAGE),
        ({"protocolVersion": 20251125}, PROTOCOL_VERSION_MESSAGE),
        ({"protocolVersion": ["2025-11-25"]}, PROTOCOL_VERSION_MESSAGE),
        ({"clientInfo": ...}, CLIENT_INFO_MESSAGE),
        ({"clientInfo": "test-client"}, CLIENT_INFO_MESSAGE),
        ({"clientInfo": {"name": "x"}}, CLIENT_INFO_MESSAGE),
        ({"clientInfo": {"version": "1"}}, CLIENT_INFO_MESSAGE),
        ({"clientInfo": {"name": "x", "version": 1}}, CLIENT_INFO_MESSAGE),
        ({"clientInfo": {"name": None, "version": "1"}}, CLIENT_INFO_MESSAGE),
        ({"capabilities": ...}, CAPABILITIES_MESSAGE),
        ({"capabilities": None}, CAPABILITIES_MESSAGE),
        ({"capabilities": []}, CAPABILITIES_MESSAGE),
        ({"capabilities": "all"}, CAPABILITIES_MESSAGE),
    ],
)
async def test_initialize_with_bad_params_is_invalid_params(
    server, params: Any, message: str
) -> None:
    session, peer = server
    if isinstance(params, dict):
        request = initialize_request(1, **params)
    elif params == "empty params":
        request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    else:
        request = {"jsonrpc": "2.0", "id": 1, "method": "initialize"}
    answer = await peer.call(request)
    assert answer == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {"code": INVALID_PARAMS, "message": message},
    }
    assert session.state == "new"
    await peer.ping()
    # The session is still waiting for a proper initialize, and takes one.
    assert (await peer.call(initialize_request(2)))["result"]["protocolVersion"] == "2025-11-25"


async def test_requests_before_initialize(server) -> None:
    _, peer = server
    await peer.ping("ping-first")  # ping works in every state
    answer = await peer.call({"jsonrpc": "2.0", "id": 1, "method": "demo/echo", "params": {"x": 1}})
    assert answer == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {
            "code": INVALID_REQUEST,
            "message": "Received 'demo/echo' before initialization: send 'initialize' first",
        },
    }
    answer = await peer.call({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert answer["error"] == {"code": METHOD_NOT_FOUND, "message": "Method not found: tools/list"}
    assert "result" in await peer.call(initialize_request(3))
    answer = await peer.call({"jsonrpc": "2.0", "id": 4, "method": "demo/echo", "params": {"x": 1}})
    assert answer["result"] == {"params": {"x": 1}, "meta": {}, "state": "initializing"}


async def test_initialized_pipelined_right_behind_initialize(server) -> None:
    session, peer = server
    await peer.send(initialize_request(1))  # no waiting for the answer before confirming
    await peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert "result" in await peer.recv()
    await peer.ping()
    assert session.state == "ready"


async def test_initialized_before_initialize_is_ignored(server) -> None:
    session, peer = server
    await peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    await peer.ping()
    assert session.state == "new"


@pytest.mark.parametrize("initialized", [False, True], ids=["before", "after"])
async def test_server_discover_is_method_not_found(server, initialized: bool) -> None:
    # A 2026 client probes server/discover first; -32601 tells it to fall back to initialize.
    _, peer = server
    if initialized:
        assert "result" in await peer.call(initialize_request("init"))
        await peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    answer = await peer.call(
        {"jsonrpc": "2.0", "id": "d", "method": "server/discover", "params": {}}
    )
    assert answer == {
        "jsonrpc": "2.0",
        "id": "d",
        "error": {"code": METHOD_NOT_FOUND, "message": "Method not found: server/discover"},
    }
    await peer.ping()


# -- the seams later lessons plug into ------------------------------------------------------------
class EchoFront:
    """A front that takes ``demo/front`` before the handshake's rules (as lesson 12's takes
    2026)."""

    def takes(self, request: Request) -> bool:
        return request.method == "demo/front"

    async def serve(self, request: Request) -> Any:
        return {"served": "by the front"}


async def test_the_session_offers_seams_for_later_lessons(server) -> None:
    session, peer = server
    heard: list[str] = []
    after: list[str] = []

    async def on_progress(notification: Notification) -> None:
        heard.append(notification.method)

    async def after_each() -> None:
        after.append(session.state)

    session.front = EchoFront()
    session.notification_handlers["notifications/progress"] = on_progress
    session.after_each.append(after_each)
    # before initialize
    answer = await peer.call({"jsonrpc": "2.0", "id": 1, "method": "demo/front"})
    assert answer == {"jsonrpc": "2.0", "id": 1, "result": {"served": "by the front"}}
    assert "result" in await peer.call(initialize_request(2))
    await peer.send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {}})
    await peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    await peer.ping()
    assert heard == ["notifications/progress"]  # the session's handler, not the app
    assert session.app.notifications == []  # type: ignore[attr-defined]
    assert after == ["new", "initializing", "ready", "ready"]  # after each request and initialized


# -- both directions after the handshake ---------------------------------------------------------
async def test_ping_from_server_to_client(live) -> None:
    client, server_session, _, _ = live
    await client.initialize(timeout=TIMEOUT)
    await server_session.ping(timeout=TIMEOUT)  # raises if the answer is not a result


async def test_server_requests_reach_the_clients_callback(live) -> None:
    client, server_session, _, _ = live
    await client.initialize(timeout=TIMEOUT)
    with pytest.raises(RpcError) as caught:  # without a callback, the client knows only ping
        await server_session.request("roots/list", timeout=TIMEOUT)
    assert (caught.value.code, caught.value.message) == (
        METHOD_NOT_FOUND,
        "Method not found: roots/list",
    )

    async def on_request(method: str, params: dict[str, Any]) -> Any:
        return {"roots": [{"uri": "file:///tmp", "name": method}], "echo": params}

    client.on_request = on_request
    assert await server_session.request("roots/list", {"a": 1}, timeout=TIMEOUT) == {
        "roots": [{"uri": "file:///tmp", "name": "roots/list"}],
        "echo": {"a": 1},
    }


async def test_notifications_both_ways(live) -> None:
    client, server_session, app, _ = live
    received: list[tuple[str, dict[str, Any]]] = []

    async def on_notification(method: str, params: dict[str, Any]) -> None:
        received.append((method, params))

    client.on_notification = on_notification
    await client.initialize(timeout=TIMEOUT)
    await server_session.notify("notifications/message", {"level": "info", "data": "hello"})
    await server_session.ping(timeout=TIMEOUT)  # read after the notification: it has been delivered
    assert received == [("notifications/message", {"level": "info", "data": "hello"})]
    await client.notify("notifications/roots/list_changed")
    await client.ping(timeout=TIMEOUT)
    assert app.notifications == [("notifications/roots/list_changed", {})]


async def test_request_context_exposes_params_and_meta(live) -> None:
    client, _, _, _ = live
    await client.initialize(timeout=TIMEOUT)
    result = await client.request(
        "demo/echo", {"a": 1, "_meta": {"progressToken": "t1"}}, timeout=TIMEOUT
    )
    assert result["meta"] == {"progressToken": "t1"}
    result = await client.request("demo/echo", {"_meta": "not an object"}, timeout=TIMEOUT)
    assert result["meta"] == {}


async def test_the_real_server_says_who_it_is() -> None:
    from minimcp.server.core import ServerCore

    server = ServerCore("named", "2.0.0", title="A Named Server", instructions="Read me first.")
    server.declare("tools", {"listChanged": True})
    client_end, server_end = memory_pair()
    serving = asyncio.ensure_future(server.serve(server_end))
    client = ClientSession(client_end)
    result = await client.initialize(timeout=TIMEOUT)
    assert result["serverInfo"] == {"name": "named", "version": "2.0.0", "title": "A Named Server"}
    assert result["instructions"] == "Read me first."
    assert result["capabilities"]["tools"] == {"listChanged": True}
    assert len(server.sessions) == 1
    await client.ping(timeout=TIMEOUT)
    await client.close()
    await asyncio.wait_for(serving, TIMEOUT)
    assert server.sessions == set()
