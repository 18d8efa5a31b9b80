"""JSON-RPC 2.0 messages (minimcp.jsonrpc): every error code, on its own and through a Connection.

Each wire test sends one exact text to a live :class:`Connection`, checks the exact answer (or that
there is none), and then pings: the answer to the ping must be the very next message, which proves
both that nothing else was sent and that the connection still serves.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from minimcp.rpc import (
    Connection,
    ErrorResponse,
    Notification,
    Request,
    Response,
    RpcError,
    encode,
    parse,
)
from minimcp.rpc.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    to_dict,
)


async def serve(request: Request) -> Any:
    """The handler the wire tests use: ping, echo, a failing method, nothing else."""
    if request.method == "ping":
        return {}
    if request.method == "echo":
        return request.params or {}
    if request.method == "boom":
        raise ValueError("kaboom")
    raise RpcError(METHOD_NOT_FOUND, f"Method not found: {request.method}")


async def broken_notification_handler(notification: Notification) -> None:
    if notification.method == "notifications/boom":
        raise ValueError("a notification handler failed")


@pytest.fixture
async def peer(raw_pair):
    """A raw peer talking to a live Connection that serves :func:`serve`."""
    peer, transport = raw_pair()
    connection = Connection(transport, serve, broken_notification_handler)
    connection.start()
    yield peer
    await connection.close()


def error_of(text: str | bytes) -> RpcError:
    with pytest.raises(RpcError) as caught:
        parse(text)
    return caught.value


# -- parse on its own ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        '{"jsonrpc": "2.0", "id": 1, "method": "ping"',
        "not json",
        "",
        "{'jsonrpc': '2.0'}",
        b"\xff\xfe\xfd",
        b'{"jsonrpc":"2.0","id":1,"method":"\xc3\x28"}',
        "[" * 100_000,
    ],
)
def test_parse_error(text: str | bytes) -> None:
    err = error_of(text)
    assert (err.code, err.id, err.answerable) == (PARSE_ERROR, None, True)
    assert err.message.startswith("Parse error")


@pytest.mark.parametrize("text", ["1", '"text"', "null", "true", "3.5"])
def test_not_an_object_is_an_invalid_request(text: str) -> None:
    err = error_of(text)
    assert (err.code, err.id, err.answerable) == (INVALID_REQUEST, None, True)
    assert err.message == "A JSON-RPC message must be a JSON object"


@pytest.mark.parametrize("text", ["[]", '[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]'])
def test_batches_are_refused(text: str) -> None:
    err = error_of(text)
    assert (err.code, err.id, err.answerable) == (INVALID_REQUEST, None, True)
    assert err.message.startswith("Batches are not supported")


@pytest.mark.parametrize(
    "obj, expected_id",
    [
        ({"id": 1, "method": "ping"}, 1),
        ({"jsonrpc": "1.0", "id": 1, "method": "ping"}, 1),
        ({"jsonrpc": 2.0, "id": "a", "method": "ping"}, "a"),
        ({"jsonrpc": None, "method": "ping"}, None),
    ],
)
def test_wrong_or_missing_jsonrpc_member(obj: dict[str, Any], expected_id: Any) -> None:
    err = error_of(json.dumps(obj))
    assert (err.code, err.id, err.answerable) == (INVALID_REQUEST, expected_id, True)


@pytest.mark.parametrize("bad_id", [None, True, False, 1.5, 1.0, {"a": 1}, [1]])
def test_request_id_must_be_a_string_or_an_integer(bad_id: Any) -> None:
    err = error_of(json.dumps({"jsonrpc": "2.0", "id": bad_id, "method": "ping"}))
    assert (err.code, err.id, err.answerable) == (INVALID_REQUEST, None, True)


@pytest.mark.parametrize(
    "obj, expected_id",
    [
        ({"jsonrpc": "2.0", "id": 3, "method": 42}, 3),
        ({"jsonrpc": "2.0", "id": "x", "method": None}, "x"),
        ({"jsonrpc": "2.0", "method": ["ping"]}, None),
    ],
)
def test_method_must_be_a_string(obj: dict[str, Any], expected_id: Any) -> None:
    err = error_of(json.dumps(obj))
    assert (err.code, err.id, err.answerable) == (INVALID_REQUEST, expected_id, True)
    assert err.message == 'The member "method" must be a string'


@pytest.mark.parametrize("params", [[1, 2], "text", 3, True])
def test_params_must_be_an_object(params: Any) -> None:
    err = error_of(json.dumps({"jsonrpc": "2.0", "id": 5, "method": "echo", "params": params}))
    assert (err.code, err.id, err.answerable) == (INVALID_PARAMS, 5, True)
    # The same mistake in a notification is never answered: nobody waits for it.
    err = error_of(json.dumps({"jsonrpc": "2.0", "method": "notifications/x", "params": params}))
    assert (err.code, err.answerable) == (INVALID_PARAMS, False)


@pytest.mark.parametrize(
    "obj",
    [
        {"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "m"}},
        {"jsonrpc": "2.0", "id": 1, "error": "broken"},
        {"jsonrpc": "2.0", "id": 1, "error": {"message": "no code"}},
        {"jsonrpc": "2.0", "id": 1, "error": {"code": "1", "message": "m"}},
        {"jsonrpc": "2.0", "id": 1, "error": {"code": 1.5, "message": "m"}},
        {"jsonrpc": "2.0", "id": 1, "error": {"code": True, "message": "m"}},
        {"jsonrpc": "2.0", "id": 1, "error": {"code": 1}},
        {"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": 2}},
        {"jsonrpc": "2.0", "id": 1.5, "error": {"code": 1, "message": "m"}},
        {"jsonrpc": "2.0", "id": None, "result": {}},
        {"jsonrpc": "2.0", "id": False, "result": {}},
        {"jsonrpc": "2.0", "result": {}},
        {"id": 1, "result": {}},
        {"jsonrpc": "1.0", "id": 1, "result": {}},
        {"jsonrpc": "1.0", "id": 1, "error": {"code": 1, "message": "m"}},
    ],
)
def test_a_broken_response_is_invalid_and_never_answered(obj: dict[str, Any]) -> None:
    err = error_of(json.dumps(obj))
    assert (err.code, err.answerable) == (INVALID_REQUEST, False)


@pytest.mark.parametrize(
    "obj, expected_id",
    [
        ({"jsonrpc": "2.0", "id": 4}, 4),
        ({"jsonrpc": "2.0"}, None),
        ({}, None),
        ({"foo": "bar"}, None),
    ],
)
def test_neither_a_request_nor_a_response(obj: dict[str, Any], expected_id: Any) -> None:
    err = error_of(json.dumps(obj))
    assert (err.code, err.id, err.answerable) == (INVALID_REQUEST, expected_id, True)


def test_error_response_with_a_null_id_is_valid() -> None:
    message = parse('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}')
    assert message == ErrorResponse(None, PARSE_ERROR, "Parse error")


def test_to_response_carries_code_message_data_and_id() -> None:
    err = RpcError(INVALID_PARAMS, "bad", {"field": "x"}, id=9)
    assert err.to_response() == ErrorResponse(9, INVALID_PARAMS, "bad", {"field": "x"})
    assert json.loads(encode(err.to_response())) == {
        "jsonrpc": "2.0",
        "id": 9,
        "error": {"code": -32602, "message": "bad", "data": {"field": "x"}},
    }


# -- encode and parse round trip -----------------------------------------------------------------
ROUND_TRIP = [
    Request(1, "ping"),
    Request("abc-1", "tools/call", {"name": "echo", "arguments": {"text": "línea 1\nlínea 2 ✓"}}),
    Request(0, "x", {}),
    Request(-7, "x"),
    Request(2**62, "big"),
    Request("", "empty-string-id"),
    Notification("notifications/initialized"),
    Notification("notifications/progress", {"progress": 1, "total": 3}),
    Response(1, {}),
    Response("s", {"nested": [1, "2", None, True, 2.5]}),
    Response(3, None),
    ErrorResponse(1, METHOD_NOT_FOUND, "Method not found: x"),
    ErrorResponse("e", INTERNAL_ERROR, "Internal error", {"why": ["a", "b"]}),
    ErrorResponse(None, PARSE_ERROR, "Parse error"),
]


@pytest.mark.parametrize("message", ROUND_TRIP, ids=lambda m: type(m).__name__)
def test_round_trip(message: Any) -> None:
    text = encode(message)
    assert "\n" not in text  # one message, one line: what NDJSON framing relies on
    assert parse(text) == message
    assert parse(text.encode("utf-8")) == message


def test_encode_keeps_only_the_members_of_each_kind() -> None:
    assert to_dict(Request(1, "ping")) == {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert to_dict(Notification("n")) == {"jsonrpc": "2.0", "method": "n"}
    assert to_dict(Response(1, {})) == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert to_dict(ErrorResponse(None, -1, "m")) == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -1, "message": "m"},
    }
    assert encode(Request(1, "ping")) == '{"jsonrpc":"2.0","id":1,"method":"ping"}'


@pytest.mark.parametrize("request_id", [7, "7", "uuid-3f2a", 0])
def test_string_and_integer_ids_are_kept_as_they_are(request_id: Any) -> None:
    message = parse(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "ping"}))
    assert isinstance(message, Request) and message.id == request_id
    assert type(message.id) is type(request_id)  # "7" and 7 are different ids


# -- the same errors on the wire, through a Connection -------------------------------------------
ANSWERED = [
    # (what the peer sends, the code it gets back, the id of that answer)
    ('{"jsonrpc": "2.0", "id": 1, "method": "ping"', PARSE_ERROR, None),
    ("not json", PARSE_ERROR, None),
    ("", PARSE_ERROR, None),
    ("42", INVALID_REQUEST, None),
    ("null", INVALID_REQUEST, None),
    ("[]", INVALID_REQUEST, None),
    ('[{"jsonrpc":"2.0","id":1,"method":"ping"}]', INVALID_REQUEST, None),
    ('{"id":1,"method":"ping"}', INVALID_REQUEST, 1),
    ('{"jsonrpc":"1.0","id":"a","method":"ping"}', INVALID_REQUEST, "a"),
    ('{"jsonrpc":"2.0","id":null,"method":"ping"}', INVALID_REQUEST, None),
    ('{"jsonrpc":"2.0","id":true,"method":"ping"}', INVALID_REQUEST, None),
    ('{"jsonrpc":"2.0","id":1.5,"method":"ping"}', INVALID_REQUEST, None),
    ('{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', INVALID_REQUEST, None),
    ('{"jsonrpc":"2.0","id":3,"method":42}', INVALID_REQUEST, 3),
    ('{"jsonrpc":"2.0","method":42}', INVALID_REQUEST, None),
    ('{"jsonrpc":"2.0","id":4}', INVALID_REQUEST, 4),
    ('{"jsonrpc":"2.0","id":5,"method":"echo","params":[1,2]}', INVALID_PARAMS, 5),
    ('{"jsonrpc":"2.0","id":6,"method":"echo","params":"text"}', INVALID_PARAMS, 6),
    ('{"jsonrpc":"2.0","id":7,"method":"nope"}', METHOD_NOT_FOUND, 7),
    ('{"jsonrpc":"2.0","id":"eight","method":"boom"}', INTERNAL_ERROR, "eight"),
]


@pytest.mark.parametrize("text, code, answer_id", ANSWERED)
async def test_bad_input_is_answered_with_the_right_code(
    peer, text: str, code: int, answer_id: Any
) -> None:
    await peer.send(text)
    answer = await peer.recv()
    assert answer["jsonrpc"] == "2.0"
    assert answer["id"] == answer_id
    assert answer["error"]["code"] == code
    assert set(answer) == {"jsonrpc", "id", "error"}
    await peer.ping()


async def test_messages_of_method_not_found_and_internal_error(peer) -> None:
    answer = await peer.call({"jsonrpc": "2.0", "id": 1, "method": "tools/nope"})
    assert answer["error"] == {"code": METHOD_NOT_FOUND, "message": "Method not found: tools/nope"}
    answer = await peer.call({"jsonrpc": "2.0", "id": 2, "method": "boom"})
    # The peer learns that the handler failed, not why: the exception's text stays in our log.
    assert answer["error"] == {
        "code": INTERNAL_ERROR,
        "message": "Internal error while handling 'boom'",
    }
    await peer.echo()


async def test_default_handler_answers_method_not_found_and_keeps_serving(raw_pair) -> None:
    peer, transport = raw_pair()
    connection = Connection(transport)
    connection.start()
    for request_id in (1, 2):
        answer = await peer.call({"jsonrpc": "2.0", "id": request_id, "method": "tools/list"})
        assert answer == {
            "jsonrpc": "2.0",
            "id": request_id,
            "error": {"code": METHOD_NOT_FOUND, "message": "Method not found: tools/list"},
        }
    await connection.close()


NEVER_ANSWERED = [
    # notifications, even broken ones, and even when their handler fails
    '{"jsonrpc":"2.0","method":"notifications/unknown"}',
    '{"jsonrpc":"2.0","method":"notifications/x","params":[1,2]}',
    '{"jsonrpc":"2.0","method":"notifications/x","params":"text"}',
    '{"jsonrpc":"2.0","method":"notifications/boom"}',
    '{"jsonrpc":"2.0","method":"ping"}',
    # responses, good or broken, for ids nobody is waiting on
    '{"jsonrpc":"2.0","id":1,"result":{}}',
    '{"jsonrpc":"2.0","id":"x","error":{"code":-1,"message":"m"}}',
    '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
    '{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}',
    '{"jsonrpc":"2.0","id":1,"error":"broken"}',
    '{"jsonrpc":"2.0","id":1,"error":{"code":"1","message":"m"}}',
    '{"jsonrpc":"2.0","id":null,"result":{}}',
    '{"jsonrpc":"2.0","id":true,"result":{}}',
    '{"jsonrpc":"2.0","result":{}}',
    '{"id":1,"result":{}}',
    '{"jsonrpc":"1.0","id":1,"result":{}}',
    '{"jsonrpc":"1.0","id":1,"error":{"code":-1,"message":"m"}}',
]


@pytest.mark.parametrize("text", NEVER_ANSWERED)
async def test_notifications_and_responses_are_never_answered(peer, text: str) -> None:
    await peer.send(text)
    await peer.ping()  # the ping's answer comes first: nothing was sent for the message above
    assert peer.pending() == 0
