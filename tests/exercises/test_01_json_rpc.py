"""Checks for lesson 01's exercise (lessons/01-json-rpc/exercise.py).

Run them with ``python tools/check.py 01``. Each test's docstring is the hint you see when it fails.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from minimcp.rpc import ConnectionClosed, ErrorResponse, Notification, Request, Response, RpcError
from minimcp.rpc.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    from_dict,
)

# -- Exercise 1 · A strict validator ---------------------------------------------------------------

VALID = [
    {"jsonrpc": "2.0", "id": 1, "method": "read_events", "params": {"date": "2025-03-21"}},
    {"jsonrpc": "2.0", "id": "req-7", "method": "read_events"},
    {
        "jsonrpc": "2.0",
        "method": "notifications/message",
        "params": {"level": "info", "data": "synced"},
    },
    {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "read_events",
        "params": {"_meta": {"com.example/trace": "x"}},
    },
    {"jsonrpc": "2.0", "id": 1, "result": {"events": []}},
    {"jsonrpc": "2.0", "id": "req-7", "result": {}},
    {
        "jsonrpc": "2.0",
        "id": 3,
        "error": {"code": -32601, "message": "Method not found: x", "data": [1]},
    },
    {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}},
    {"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}},
]


def problems(exercise, obj):
    return sorted(exercise.validate_message(obj))


def test_valid_messages_have_no_problems(exercise):
    """A valid request, notification, result or error response has no problems: return []. An error
    response may have "id": null or no id (the peer could not read the request's id)."""
    for obj in VALID:
        assert exercise.validate_message(obj) == [], obj


def test_not_an_object(exercise):
    """A list is a batch: return ["batch: MCP sends one message at a time"] and nothing else; any
    other non-dict (a string, a number, None) is ["not an object"]."""
    assert exercise.validate_message([{"jsonrpc": "2.0", "method": "x"}]) == [
        "batch: MCP sends one message at a time"
    ]
    assert exercise.validate_message([]) == ["batch: MCP sends one message at a time"]
    for obj in ("read_events", 42, None, True):
        assert exercise.validate_message(obj) == ["not an object"], obj


def test_a_request_with_everything_wrong(exercise):
    """Do not stop at the first problem: check "jsonrpc", "method", "id", "params" and the presence
    of "result"/"error" independently, and append one string per problem."""
    obj = {
        "jsonrpc": "1.0",
        "id": None,
        "method": "rpc.discover",
        "params": ["2025-03-21"],
        "result": {},
    }
    assert problems(exercise, obj) == sorted(
        [
            '"jsonrpc" must be "2.0"',
            '"method" names starting with "rpc." are reserved',
            '"id" must be a string or an integer',
            '"params" must be an object',
            'a request or notification has no "result" or "error"',
        ]
    )


def test_ids_and_params_in_detail(exercise):
    """true and 1.5 are not ids (bool is an int in Python: exclude it). "params": null is not an
    object. A non-string "method" is its own problem. "params._meta" must be an object."""
    assert problems(exercise, {"jsonrpc": "2.0", "id": True, "method": "x"}) == [
        '"id" must be a string or an integer'
    ]
    assert problems(exercise, {"jsonrpc": "2.0", "id": 1.5, "method": "x"}) == [
        '"id" must be a string or an integer'
    ]
    assert problems(exercise, {"jsonrpc": "2.0", "id": 1, "method": "x", "params": None}) == [
        '"params" must be an object'
    ]
    assert problems(exercise, {"jsonrpc": "2.0", "method": 5, "params": {"_meta": "x"}}) == sorted(
        [
            '"method" must be a string',
            '"params._meta" must be an object',
        ]
    )


def test_responses_in_detail(exercise):
    """A result needs an id and an object "result"; an error needs an object with an integer "code"
    and a string "message"; a response never has both "result" and "error"."""
    assert problems(exercise, {"jsonrpc": "2.0", "result": ["x"]}) == sorted(
        [
            'missing "id"',
            '"result" must be an object',
        ]
    )
    assert problems(exercise, {"jsonrpc": "2.0", "id": None, "result": {}}) == [
        '"id" must be a string or an integer'
    ]
    assert problems(exercise, {"jsonrpc": "2.0", "id": 1, "error": {"code": "-32601"}}) == sorted(
        [
            '"error.code" must be an integer',
            '"error.message" must be a string',
        ]
    )
    assert problems(
        exercise, {"jsonrpc": "2.0", "id": 1, "error": {"code": True, "message": "m"}}
    ) == ['"error.code" must be an integer']
    assert problems(exercise, {"jsonrpc": "2.0", "id": [1], "error": "boom"}) == sorted(
        [
            '"id" must be a string or an integer',
            '"error" must be an object',
        ]
    )
    both = {"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "m"}}
    assert problems(exercise, both) == ['a response has "result" or "error", not both']


def test_no_kind_and_no_version(exercise):
    """Without "method", "result" and "error" an object is no message at all; a missing "jsonrpc" is
    its own problem (different from a wrong one)."""
    assert problems(exercise, {"id": 1}) == sorted(
        ['missing "jsonrpc"', 'no "method", "result" or "error"']
    )
    assert problems(exercise, {"jsonrpc": 2.0, "method": "x"}) == ['"jsonrpc" must be "2.0"']


def test_stricter_than_minimcp(exercise):
    """Whatever minimcp's from_dict rejects, your validator must reject too (with at least one
    problem)."""
    rejected = [
        {"jsonrpc": "2.0", "id": 1},
        {"jsonrpc": "2.0", "id": {"n": 1}, "method": "x"},
        {"jsonrpc": "2.0", "method": "x", "params": "date"},
        {"jsonrpc": "2.0", "id": 1.0, "result": {}},
        {"jsonrpc": "2.0", "id": 1, "error": {"message": "no code"}},
        {"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "m"}, "result": {}},
        {"method": "x"},
    ]
    for obj in rejected:
        with pytest.raises(RpcError):
            from_dict(obj)
        assert exercise.validate_message(obj), obj


# -- Exercise 2 · The table of pending requests ----------------------------------------------------


async def test_open_issues_fresh_ids(exercise):
    """open() returns (id, future): ids 1, 2, 3... and a new, not-yet-done future each time;
    len(table) counts the requests still waiting."""
    table = exercise.PendingRequests()
    opened = [table.open() for _ in range(3)]
    assert [request_id for request_id, _ in opened] == [1, 2, 3]
    assert all(isinstance(future, asyncio.Future) and not future.done() for _, future in opened)
    assert len({id(future) for _, future in opened}) == 3
    assert len(table) == 3


async def test_answers_out_of_order(exercise):
    """resolve() looks the answer's id up: answers may come in any order, each wakes its own future.
    An answered id leaves the table, and ids are never reused."""
    table = exercise.PendingRequests()
    (first, f1), (second, f2) = table.open(), table.open()
    table.resolve(Response(second, {"calendars": ["personal", "work"]}))
    assert f2.done() and not f1.done()
    table.resolve(Response(first, {"events": ["09:00 Doctor appointment"]}))
    assert await asyncio.wait_for(f1, 1) == {"events": ["09:00 Doctor appointment"]}
    assert await asyncio.wait_for(f2, 1) == {"calendars": ["personal", "work"]}
    assert len(table) == 0
    assert table.open()[0] == 3


async def test_error_answer_raises_rpc_error(exercise):
    """An ErrorResponse makes the future raise RpcError(code, message, data, id=...)."""
    table = exercise.PendingRequests()
    request_id, future = table.open()
    table.resolve(ErrorResponse(request_id, INVALID_PARAMS, "Invalid date", {"date": "tomorrow"}))
    with pytest.raises(RpcError) as caught:
        await asyncio.wait_for(future, 1)
    assert caught.value.code == INVALID_PARAMS
    assert caught.value.message == "Invalid date"
    assert caught.value.data == {"date": "tomorrow"}
    assert caught.value.id == request_id


async def test_unknown_and_duplicate_answers(exercise):
    """An answer nobody waits for raises UnknownAnswer and changes nothing: an id never issued, an
    id answered already, the string "1" for the integer 1, True for 1, or None."""
    table = exercise.PendingRequests()
    request_id, future = table.open()
    strays = [
        Response(99, {}),
        Response("1", {}),
        Response(True, {}),
        ErrorResponse(None, PARSE_ERROR, "x"),
    ]
    for stray in strays:
        with pytest.raises(exercise.UnknownAnswer):
            table.resolve(stray)
    assert not future.done() and len(table) == 1
    table.resolve(Response(request_id, {"ok": True}))
    with pytest.raises(exercise.UnknownAnswer):
        table.resolve(Response(request_id, {"ok": "again"}))
    assert future.result() == {"ok": True}


async def test_close_fails_everything(exercise):
    """close(): every waiting future raises ConnectionClosed, the table is empty, open() raises
    ConnectionClosed from then on, and a late answer is an UnknownAnswer."""
    table = exercise.PendingRequests()
    (one, f1), (_, f2) = table.open(), table.open()
    table.close()
    for future in (f1, f2):
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(future, 1)
    assert len(table) == 0
    with pytest.raises(ConnectionClosed):
        table.open()
    with pytest.raises(exercise.UnknownAnswer):
        table.resolve(Response(one, {}))


async def test_forget_then_late_answer(exercise):
    """forget(id) gives up on a request (cancel its future, drop it); its late answer is an
    UnknownAnswer. Forgetting an id that is not waiting does nothing."""
    table = exercise.PendingRequests()
    request_id, future = table.open()
    table.forget(request_id)
    assert future.cancelled() and len(table) == 0
    table.forget(request_id)
    table.forget(12345)
    with pytest.raises(exercise.UnknownAnswer):
        table.resolve(Response(request_id, {}))


async def test_call_round_trip_and_timeout(exercise):
    """call(send, method, params, timeout): open, send Request(id, method, params), wait_for the
    future, and forget the id in a `finally` -- after an answer and after a time-out alike."""
    table = exercise.PendingRequests()
    sent: list[Request] = []

    async def send(request: Request) -> None:
        sent.append(request)

    slow = asyncio.ensure_future(table.call(send, "read_events", {"date": "2025-03-21"}, timeout=5))
    fast = asyncio.ensure_future(table.call(send, "list_calendars", timeout=5))
    for _ in range(50):  # let both send their request
        if len(sent) == 2:
            break
        await asyncio.sleep(0.01)
    assert sent == [
        Request(1, "read_events", {"date": "2025-03-21"}),
        Request(2, "list_calendars", None),
    ]
    table.resolve(Response(2, {"calendars": ["personal"]}))  # the fast one answers first
    table.resolve(Response(1, {"events": []}))
    assert await asyncio.wait_for(fast, 1) == {"calendars": ["personal"]}
    assert await asyncio.wait_for(slow, 1) == {"events": []}

    with pytest.raises(asyncio.TimeoutError):
        await table.call(send, "read_events", {"date": "2025-03-22"}, timeout=0.05)
    assert len(table) == 0
    with pytest.raises(exercise.UnknownAnswer):
        table.resolve(Response(3, {"events": []}))


# -- Exercise 3 · Batches, the way plain JSON-RPC 2.0 answers them ---------------------------------

CALENDAR = {"2025-03-21": ["09:00 Doctor appointment", "12:30 Team meeting", "18:00 Gym session"]}


class Calendar:
    """A handler for the tests: read_events works, broken_events has a bug, others are unknown."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def __call__(self, message: Request | Notification) -> object:
        self.seen.append(message.method)
        if isinstance(message, Notification):
            if message.method == "explode":
                raise RuntimeError("a notification handler failing must not produce an answer")
            return "ignored"
        if message.method == "read_events":
            return {"events": CALENDAR.get((message.params or {}).get("date"), [])}
        if message.method == "broken_events":
            raise KeyError("date")
        if message.method == "nothing":
            return None
        raise RpcError(METHOD_NOT_FOUND, f"Method not found: {message.method}")


def req(request_id, method, params=None):
    out = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        out["params"] = params
    return out


def note(method, params=None):
    out = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        out["params"] = params
    return out


async def run_batch(exercise, payload, handler=None):
    text = payload if isinstance(payload, str) else json.dumps(payload)
    reply = await asyncio.wait_for(exercise.answer_batch(text, handler or Calendar()), 5)
    return None if reply is None else json.loads(reply)


async def test_single_messages(exercise):
    """A lone object (no array) is answered with a lone object; a lone notification gets None (and
    the handler still runs). A handler returning None answers {}."""
    calendar = Calendar()
    reply = await run_batch(exercise, req(1, "read_events", {"date": "2025-03-21"}), calendar)
    assert reply == {"jsonrpc": "2.0", "id": 1, "result": {"events": CALENDAR["2025-03-21"]}}
    assert (
        await run_batch(exercise, note("notifications/message", {"level": "info"}), calendar)
        is None
    )
    assert calendar.seen == ["read_events", "notifications/message"]
    assert await run_batch(exercise, req("n", "nothing")) == {
        "jsonrpc": "2.0",
        "id": "n",
        "result": {},
    }


async def test_a_batch_of_requests(exercise):
    """A non-empty array is answered with ONE array holding one response per request, in the order
    of the requests, each with its request's id."""
    reply = await run_batch(
        exercise,
        [
            req(1, "read_events", {"date": "2025-03-21"}),
            req("b", "read_events", {"date": "2025-03-22"}),
        ],
    )
    assert reply == [
        {"jsonrpc": "2.0", "id": 1, "result": {"events": CALENDAR["2025-03-21"]}},
        {"jsonrpc": "2.0", "id": "b", "result": {"events": []}},
    ]


async def test_a_mixed_batch(exercise):
    """In a batch: notifications get no entry; a non-object gets -32600 with id null; a broken
    object gets from_dict's error (with its id); RpcError from the handler keeps its code; any other
    exception is -32603; responses are ignored."""
    calendar = Calendar()
    reply = await run_batch(
        exercise,
        [
            req(1, "read_events", {"date": "2025-03-21"}),
            note("notifications/message", {"level": "info"}),
            7,
            req(2, "read_events", ["2025-03-21"]),
            req(3, "write_events"),
            req(4, "broken_events"),
            {"jsonrpc": "2.0", "id": 1, "result": {}},
            note("explode"),
            {"jsonrpc": "2.0", "method": "x", "params": [1]},
        ],
        calendar,
    )
    assert isinstance(reply, list)
    assert [(entry.get("id"), entry.get("error", {}).get("code")) for entry in reply] == [
        (1, None),
        (None, INVALID_REQUEST),
        (2, INVALID_PARAMS),
        (3, METHOD_NOT_FOUND),
        (4, INTERNAL_ERROR),
    ]
    assert reply[0]["result"] == {"events": CALENDAR["2025-03-21"]}
    assert reply[3]["error"]["message"] == "Method not found: write_events"
    assert sorted(calendar.seen) == sorted(
        ["read_events", "notifications/message", "write_events", "broken_events", "explode"]
    )


async def test_nothing_to_answer(exercise):
    """A batch of notifications only (or of responses only) gets no reply at all: None, not "[]"."""
    calendar = Calendar()
    assert await run_batch(exercise, [note("a"), note("b")], calendar) is None
    assert sorted(calendar.seen) == ["a", "b"]
    assert await run_batch(exercise, [{"jsonrpc": "2.0", "id": 9, "result": {}}]) is None


async def test_empty_batch_and_bad_json(exercise):
    """ "[]" is answered with a single -32600 error object (not an array), id null; text that is not
    JSON gets a single -32700 error object, id null."""
    empty = await run_batch(exercise, "[]")
    assert isinstance(empty, dict)
    assert empty["id"] is None and empty["error"]["code"] == INVALID_REQUEST
    broken = await run_batch(exercise, '[{"jsonrpc": "2.0", "id": 1, "method": "read_events"},')
    assert isinstance(broken, dict)
    assert broken["id"] is None and broken["error"]["code"] == PARSE_ERROR


async def test_batch_requests_run_concurrently(exercise):
    """Run the requests of one batch at the same time (asyncio.gather): here request 1 waits for
    request 2, so answering them one after the other never finishes."""
    second_started = asyncio.Event()

    async def handler(message):
        if message.method == "slow":
            await asyncio.wait_for(second_started.wait(), 2)
            return {"who": "slow"}
        second_started.set()
        return {"who": "fast"}

    reply = await run_batch(exercise, [req(1, "slow"), req(2, "fast")], handler)
    assert reply == [
        {"jsonrpc": "2.0", "id": 1, "result": {"who": "slow"}},
        {"jsonrpc": "2.0", "id": 2, "result": {"who": "fast"}},
    ]
