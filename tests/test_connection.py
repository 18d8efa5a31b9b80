"""The symmetric Connection (minimcp.connection): ids, concurrency, timeouts, failure, order."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest

from minimcp.rpc import (
    Connection,
    ConnectionClosed,
    Notification,
    Request,
    RpcError,
    TracingTransport,
    memory_pair,
)
from minimcp.rpc.abilities import PLAIN
from minimcp.rpc.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    Message,
    to_dict,
)

TIMEOUT = 10.0


async def answer(request: Request) -> Any:
    """A handler with a quick method, a slow one, a failing one and an RpcError."""
    params = request.params or {}
    if request.method == "ping":
        return {}
    if request.method == "echo":
        return params
    if request.method == "slow":
        await asyncio.sleep(params.get("delay", 0.2))
        return {"slow": True}
    if request.method == "boom":
        raise ValueError("kaboom")
    if request.method == "refuse":
        raise RpcError(INVALID_PARAMS, "refused", {"field": "x"})
    if request.method == "nothing":
        return None
    raise RpcError(METHOD_NOT_FOUND, f"Method not found: {request.method}")


@pytest.fixture
async def pair():
    """Two live connections on one memory cable, both answering with :func:`answer`."""
    left_end, right_end = memory_pair()
    left, right = Connection(left_end, answer), Connection(right_end, answer)
    left.start()
    right.start()
    yield left, right
    await left.close()
    await right.close()


@pytest.fixture
async def raw(raw_pair):
    """A live connection whose peer is driven by hand (it answers nothing unless told)."""
    peer, transport = raw_pair()
    connection = Connection(transport, answer)
    connection.start()
    yield connection, peer
    await connection.close()


async def test_results_errors_and_none(pair) -> None:
    left, _ = pair
    assert await left.request("echo", {"a": [1, 2]}, timeout=TIMEOUT) == {"a": [1, 2]}
    assert await left.request("nothing", timeout=TIMEOUT) == {}  # a result is always an object
    with pytest.raises(RpcError) as caught:
        await left.request("refuse", timeout=TIMEOUT)
    assert (caught.value.code, caught.value.message, caught.value.data) == (
        INVALID_PARAMS,
        "refused",
        {"field": "x"},
    )


async def test_out_of_order_answers_are_matched_by_id(pair) -> None:
    left, _ = pair
    finished: list[str] = []

    async def call(method: str) -> Any:
        result = await left.request(method, {"delay": 0.3, "tag": method}, timeout=TIMEOUT)
        finished.append(method)
        return result

    slow, fast = await asyncio.gather(call("slow"), call("echo"))
    assert finished == ["echo", "slow"]  # the quick answer was not held up behind the slow one
    assert slow == {"slow": True}
    assert fast == {"delay": 0.3, "tag": "echo"}


async def test_a_peer_answering_in_reverse_order(raw) -> None:
    connection, peer = raw
    calls = [
        asyncio.ensure_future(connection.request("echo", {"n": n}, timeout=TIMEOUT))
        for n in range(5)
    ]
    requests = [await peer.recv() for _ in range(5)]
    assert len({r["id"] for r in requests}) == 5  # every request in flight has its own id
    for request in reversed(requests):
        await peer.send(
            {"jsonrpc": "2.0", "id": request["id"], "result": {"n": request["params"]["n"]}}
        )
    assert await asyncio.gather(*calls) == [{"n": n} for n in range(5)]
    assert connection._pending == {}


async def test_both_sides_send_requests_at_once(pair) -> None:
    left, right = pair
    # Both sides number their requests 1, 2, 3…: the same ids travel both ways at the same time.
    from_left = [left.request("echo", {"from": "left", "n": n}, timeout=TIMEOUT) for n in range(20)]
    from_right = [
        right.request("echo", {"from": "right", "n": n}, timeout=TIMEOUT) for n in range(20)
    ]
    results = await asyncio.gather(*from_left, *from_right)
    assert results == (
        [{"from": "left", "n": n} for n in range(20)]
        + [{"from": "right", "n": n} for n in range(20)]
    )


async def test_a_handler_may_call_back_the_other_side(raw_pair) -> None:
    left_end, right_end = memory_pair()

    async def right_handler(request: Request) -> Any:
        # While answering left's request, right asks left something: this must not deadlock.
        name = await right.request("whoami", timeout=TIMEOUT)
        return {"hello": name["name"]}

    async def left_handler(request: Request) -> Any:
        return {"name": "left"}

    left, right = Connection(left_end, left_handler), Connection(right_end, right_handler)
    left.start()
    right.start()
    assert await left.request("greet", timeout=TIMEOUT) == {"hello": "left"}
    await left.close()
    await right.close()


async def test_duplicate_id_in_flight_is_rejected(raw_pair) -> None:
    peer, transport = raw_pair()
    release = asyncio.Event()

    async def handler(request: Request) -> Any:
        if request.method == "wait":
            await release.wait()
            return {"waited": True}
        return {}

    connection = Connection(transport, handler)
    connection.start()
    await peer.send({"jsonrpc": "2.0", "id": 7, "method": "wait"})
    await peer.send({"jsonrpc": "2.0", "id": 7, "method": "wait"})
    rejected = await peer.recv()
    assert rejected == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {
            "code": INVALID_REQUEST,
            "message": (
                "Request id 7 was already used in this session, by a request still being answered"
            ),
        },
    }
    release.set()
    assert await peer.recv() == {"jsonrpc": "2.0", "id": 7, "result": {"waited": True}}
    # Once answered, the id is free again.
    assert (await peer.call({"jsonrpc": "2.0", "id": 7, "method": "wait"}))["result"] == {
        "waited": True
    }
    await peer.ping("after")
    await connection.close()


async def test_request_timeout_then_the_late_answer_is_dropped(raw, caplog) -> None:
    connection, peer = raw
    with pytest.raises(asyncio.TimeoutError):
        await connection.request("echo", {}, timeout=0.1)
    assert connection._pending == {}  # no leak
    late = await peer.recv()
    with caplog.at_level(logging.DEBUG, logger="minimcp.connection"):
        await peer.send({"jsonrpc": "2.0", "id": late["id"], "result": {"late": True}})
        # The connection keeps working: a new request gets its own answer.
        call = asyncio.ensure_future(connection.request("echo", {"n": 2}, timeout=TIMEOUT))
        request = await peer.recv()
        assert request["id"] != late["id"]
        await peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"n": 2}})
        assert await call == {"n": 2}
    # We gave up on it ourselves, so its late answer is expected: dropped quietly, not warned about.
    assert "dropping a late answer to a request we stopped waiting for" in caplog.text
    assert not [record for record in caplog.records if record.levelno >= logging.WARNING]


async def test_answers_for_unknown_ids_are_dropped(raw, caplog) -> None:
    connection, peer = raw
    with caplog.at_level(logging.WARNING, logger="minimcp.connection"):
        await peer.send({"jsonrpc": "2.0", "id": 999, "result": {}})
        await peer.send({"jsonrpc": "2.0", "id": "nobody", "error": {"code": -1, "message": "m"}})
        await peer.send(
            {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
        )
        call = asyncio.ensure_future(connection.request("echo", {}, timeout=TIMEOUT))
        request = await peer.recv()
        await peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"first": True}})
        # a repeat
        await peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"second": True}})
        assert await call == {"first": True}
        await peer.ping()  # and nothing was answered for any of them
    assert caplog.text.count("dropping an answer nobody is waiting for") == 4


async def test_pending_requests_fail_when_the_peer_goes_away(raw) -> None:
    connection, peer = raw
    calls = [asyncio.ensure_future(connection.request("echo", timeout=TIMEOUT)) for _ in range(3)]
    for _ in range(3):
        await peer.recv()
    await peer.transport.close()  # the other side's end of the cable is gone
    for call in calls:
        with pytest.raises(ConnectionClosed):
            await call
    await asyncio.wait_for(connection.closed.wait(), TIMEOUT)
    with pytest.raises(ConnectionClosed):
        await connection.request("echo", timeout=TIMEOUT)


async def test_close_after_the_peer_went_away_still_closes_our_transport(raw_pair) -> None:
    peer, transport = raw_pair()
    connection = Connection(transport)
    runner = connection.start()
    await peer.transport.close()
    await asyncio.wait_for(runner, TIMEOUT)
    assert connection.closed.is_set()  # reading has stopped...
    await connection.close()
    assert transport._closed  # ...and close() still releases the cable (a child process, a socket)


async def test_closing_our_side_fails_pending_requests_and_is_idempotent(raw) -> None:
    connection, peer = raw
    call = asyncio.ensure_future(connection.request("echo", timeout=TIMEOUT))
    await peer.recv()
    await connection.close()
    with pytest.raises(ConnectionClosed):
        await call
    await connection.close()  # a second close is harmless
    assert connection.closed.is_set()


async def test_in_flight_handlers_are_cancelled_when_the_peer_goes_away(raw_pair) -> None:
    peer, transport = raw_pair()
    started, cancelled = asyncio.Event(), asyncio.Event()

    async def handler(request: Request) -> Any:
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    connection = Connection(transport, handler)
    connection.grace_period = 0.2
    runner = connection.start()
    await peer.send({"jsonrpc": "2.0", "id": 1, "method": "forever"})
    await asyncio.wait_for(started.wait(), TIMEOUT)
    began = asyncio.get_running_loop().time()
    await peer.transport.close()
    await asyncio.wait_for(runner, TIMEOUT)  # run() returns normally at end of stream...
    await asyncio.wait_for(cancelled.wait(), TIMEOUT)  # ...once the grace period is over
    assert 0.2 <= asyncio.get_running_loop().time() - began < 2.0


async def test_requests_read_before_end_of_stream_are_still_answered(raw_pair) -> None:
    # `printf '<request>' | server`: the request and the end of the stream arrive together.
    peer, transport = raw_pair()

    async def handler(request: Request) -> Any:
        await asyncio.sleep(0.05)
        return {"n": (request.params or {})["n"]}

    connection = Connection(transport, handler)
    for n in range(3):
        await peer.send({"jsonrpc": "2.0", "id": n, "method": "work", "params": {"n": n}})
    await peer.transport._outbox.put(None)  # the peer stops sending, but still reads
    await asyncio.wait_for(connection.run(), TIMEOUT)
    answers = sorted([await peer.recv() for _ in range(3)], key=lambda a: a["id"])
    assert answers == [{"jsonrpc": "2.0", "id": n, "result": {"n": n}} for n in range(3)]


async def test_our_own_requests_fail_at_once_at_end_of_stream(raw_pair) -> None:
    peer, transport = raw_pair()
    release = asyncio.Event()

    async def handler(request: Request) -> Any:
        await release.wait()
        return {}

    connection = Connection(transport, handler)
    connection.grace_period = 5.0
    connection.start()
    await peer.send({"jsonrpc": "2.0", "id": "theirs", "method": "slow"})
    ours = asyncio.ensure_future(connection.request("ours", timeout=TIMEOUT))
    await peer.recv()
    await peer.transport._outbox.put(None)
    # Nobody can answer our request any more: it fails now, not after the grace period.
    with pytest.raises(ConnectionClosed):
        await asyncio.wait_for(ours, 1.0)
    release.set()
    assert await peer.recv() == {"jsonrpc": "2.0", "id": "theirs", "result": {}}
    await connection.close()


async def test_handler_exception_is_internal_error_and_serving_goes_on(pair) -> None:
    left, _ = pair
    for _ in range(3):
        with pytest.raises(RpcError) as caught:
            await left.request("boom", timeout=TIMEOUT)
        assert (caught.value.code, caught.value.message) == (
            INTERNAL_ERROR,
            "Internal error while handling 'boom'",
        )
    assert await left.request("echo", {"ok": 1}, timeout=TIMEOUT) == {"ok": 1}


async def test_a_result_that_is_not_json_is_an_internal_error(raw_pair) -> None:
    peer, transport = raw_pair()

    async def handler(request: Request) -> Any:
        if request.method == "ping":
            return {}
        return {"when": object()}  # json cannot encode this

    connection = Connection(transport, handler)
    connection.start()
    answer = await peer.call({"jsonrpc": "2.0", "id": 1, "method": "bad-result"})
    assert answer["error"]["code"] == INTERNAL_ERROR
    assert answer["error"]["message"] == "Internal error while handling 'bad-result'"
    await peer.ping()
    await connection.close()


async def test_notification_order_is_preserved(raw_pair) -> None:
    left_end, right_end = memory_pair()
    seen: list[int] = []

    async def on_notification(notification: Notification) -> None:
        await asyncio.sleep(0)  # even a handler that yields keeps the order
        seen.append((notification.params or {})["n"])

    left, right = Connection(left_end, answer), Connection(right_end, answer, on_notification)
    left.start()
    right.start()
    for n in range(200):
        await left.notify("notifications/progress", {"n": n})
    # A request sent after the notifications is read after them, so all have been delivered.
    await left.request("ping", timeout=TIMEOUT)
    assert seen == list(range(200))
    await left.close()
    await right.close()


async def test_a_failing_notification_handler_is_not_fatal(raw_pair) -> None:
    peer, transport = raw_pair()

    async def on_notification(notification: Notification) -> None:
        raise RuntimeError("broken handler")

    connection = Connection(transport, answer, on_notification)
    connection.start()
    await peer.send({"jsonrpc": "2.0", "method": "notifications/anything"})
    await peer.ping()
    await connection.close()


class RecordingTransport:
    """A memory cable that remembers what was sent on it, and which request each message belongs
    to."""

    abilities = PLAIN  # it carries messages, and that is all

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.sent: list[tuple[dict[str, Any], Any]] = []

    async def send(self, message: Message, related_request_id: Any = None) -> None:
        self.sent.append((to_dict(message), related_request_id))
        await self.inner.send(message, related_request_id)

    async def receive(self) -> Message | None:
        return await self.inner.receive()

    async def close(self) -> None:
        await self.inner.close()


async def test_every_message_says_which_request_it_belongs_to() -> None:
    """An answer, and what a handler sends while answering, name the request; a broadcast names
    none."""
    client_end, server_end = memory_pair()
    recording = RecordingTransport(server_end)

    async def handler(request: Request) -> Any:
        await server.notify(
            "notifications/progress", {"progress": 1}, related_request_id=request.id
        )
        await server.notify("notifications/tools/list_changed")  # news of the server's own
        return {"done": True}

    server = Connection(recording, handler)
    client = Connection(client_end)
    server.start()
    client.start()
    assert await client.request("work", timeout=5) == {"done": True}
    assert [(message.get("method", "answer"), related) for message, related in recording.sent] == [
        ("notifications/progress", 1),
        ("notifications/tools/list_changed", None),
        ("answer", 1),
    ]
    await client.close()
    await server.close()


async def test_tracing_transport_records_both_directions(raw_pair) -> None:
    left_end, right_end = memory_pair()
    trace: list[tuple[str, Any]] = []
    left = Connection(TracingTransport(left_end, lambda d, m: trace.append((d, json.loads(m)))))
    right = Connection(right_end, answer)
    left.start()
    right.start()
    await left.request("echo", {"x": 1}, timeout=TIMEOUT)
    assert trace == [
        ("->", {"jsonrpc": "2.0", "id": 1, "method": "echo", "params": {"x": 1}}),
        ("<-", {"jsonrpc": "2.0", "id": 1, "result": {"x": 1}}),
    ]
    await left.close()
    await right.close()
