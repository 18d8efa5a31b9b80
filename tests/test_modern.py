"""Lesson 12: the server's side of MCP 2026-07-28, on one connection (the cable does not matter).

Every request carries its own envelope; ``server/discover`` replaces the handshake; results carry
``resultType`` and cache hints; questions to the client become ``input_required`` answers, their
state sealed; the first request on a connection decides its era. Each refusal is checked to the
exact error, and the server is checked to go on answering afterwards.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from complete_support import complete_server
from support import FIRST_CALL_TIMEOUT, until

from minimcp.rpc import Connection, RpcError, memory_pair
from minimcp.server import Server
from minimcp.server.elicitation import elicit
from minimcp.server.logs import log
from minimcp.session import RequestContext
from minimcp.transports.process import python_command, spawn

TIMEOUT = 10
VERSION = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1.0"},
}
FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
INITIALIZE = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "test", "version": "1.0"},
}


def envelope(**changes: Any) -> dict[str, Any]:
    """The request envelope, with some keys changed (None: left out)."""
    meta = dict(META)
    for short, value in changes.items():
        key = f"io.modelcontextprotocol/{short}"
        if value is None:
            meta.pop(key, None)
        else:
            meta[key] = value
    return meta


def asking_server() -> Server:
    """The course server, with tools that ask the client things (lesson 09's, asked the 2026
    way)."""
    server = complete_server(step_delay=0.001)
    server.enable_logging()

    @server.tool()
    async def greet(context: RequestContext) -> str:
        """Asks the user's name, then greets them."""
        answer = await elicit(context, "What is your name?", FORM)
        return (
            f"Hello, {answer['content']['name']}!"
            if answer["action"] == "accept"
            else "Hello, stranger."
        )

    @server.tool()
    async def two_questions(context: RequestContext) -> str:
        """Asks twice, one question after the other: two rounds."""
        first = await context.ask(
            {
                "step1": {
                    "method": "elicitation/create",
                    "params": {"message": "First?", "requestedSchema": FORM},
                }
            }
        )
        second = await context.ask(
            {
                "step2": {
                    "method": "elicitation/create",
                    "params": {"message": "Second?", "requestedSchema": FORM},
                }
            }
        )
        return f"{first['step1']['content']['name']} then {second['step2']['content']['name']}"

    @server.tool()
    async def chatty(context: RequestContext) -> str:
        """Logs a line at info."""
        await log(context, "info", "working")
        return "done"

    return server


@asynccontextmanager
async def peer(server: Server | None = None) -> AsyncIterator[tuple[Connection, list[Any]]]:
    """A raw JSON-RPC peer on an in-memory cable, and the notifications it received."""
    client_end, server_end = memory_pair()
    heard: list[Any] = []

    async def on_notification(notification: Any) -> None:
        heard.append(notification)

    serving = asyncio.ensure_future((server or asking_server()).serve(server_end))
    connection = Connection(client_end, on_notification=on_notification)
    connection.start()
    try:
        yield connection, heard
    finally:
        await connection.close()
        await asyncio.wait_for(serving, TIMEOUT)


async def call(connection: Connection, method: str, params: dict[str, Any] | None = None) -> Any:
    return await connection.request(
        method, params if params is not None else {"_meta": META}, TIMEOUT
    )


async def refused(connection: Connection, method: str, params: dict[str, Any] | None) -> RpcError:
    with pytest.raises(RpcError) as caught:
        await connection.request(method, params, TIMEOUT)
    return caught.value


async def still_serving(connection: Connection) -> None:
    assert (await call(connection, "tools/list"))["resultType"] == "complete"


# -- discovery and the envelope --------------------------------------------------------------------


async def test_discover_says_what_initialize_said_with_both_eras_and_cache_hints() -> None:
    async with peer() as (connection, _):
        result = await call(connection, "server/discover")
    assert result["supportedVersions"] == [
        "2026-07-28",
        "2025-11-25",
        "2025-06-18",
        "2025-03-26",
        "2024-11-05",
    ]
    assert set(result["capabilities"]) == {"tools", "resources", "prompts", "logging"}
    assert result["instructions"].startswith("The course server of MCP from Scratch")
    assert (result["resultType"], result["ttlMs"], result["cacheScope"]) == (
        "complete",
        0,
        "public",
    )
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "course-server"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            {},
            'Invalid params: every request needs "_meta" with '
            '"io.modelcontextprotocol/protocolVersion" and '
            '"io.modelcontextprotocol/clientCapabilities"',
        ),
        (
            {"_meta": envelope(protocolVersion=None, clientCapabilities=None)}
            | {"_meta": {"io.modelcontextprotocol/protocolVersion": 2026}},
            'Invalid params: "_meta" needs "io.modelcontextprotocol/protocolVersion" (a string)',
        ),
        (
            {"_meta": envelope(clientCapabilities=None)},
            'Invalid params: "_meta" needs '
            '"io.modelcontextprotocol/clientCapabilities" (an object)',
        ),
        (
            {"_meta": envelope(logLevel="loud")},
            'Invalid params: "io.modelcontextprotocol/logLevel" must be one of '
            "debug, info, notice, warning, error, critical, alert, emergency",
        ),
    ],
)
async def test_a_malformed_envelope_is_invalid_params(params: dict[str, Any], message: str) -> None:
    async with peer() as (connection, _):
        # the connection is in the modern era: every request needs one
        await call(connection, "server/discover")
        error = await refused(connection, "tools/list", params)
        assert (error.code, error.message) == (-32602, message)
        await still_serving(connection)


async def test_an_unsupported_version_names_the_ones_served() -> None:
    async with peer() as (connection, _):
        error = await refused(
            connection, "tools/list", {"_meta": envelope(protocolVersion="v999.0.0")}
        )
        assert (error.code, error.message) == (-32022, "Unsupported protocol version")
        assert error.data == {
            "supported": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"],
            "requested": "v999.0.0",
        }
        await still_serving(connection)  # a refused first request decides nothing


@pytest.mark.parametrize("method", ["ping", "logging/setLevel", "resources/subscribe", "no/such"])
async def test_what_2026_removed_is_method_not_found(method: str) -> None:
    async with peer() as (connection, _):
        error = await refused(
            connection, method, {"_meta": META, "uri": "courses://all", "level": "info"}
        )
        assert (error.code, error.message) == (-32601, f"Method not found: {method}")
        await still_serving(connection)


async def test_results_carry_their_type_and_lists_their_cache_hints() -> None:
    async with peer() as (connection, _):
        listed = await call(connection, "tools/list")
        called = await call(
            connection,
            "tools/call",
            {"_meta": META, "name": "read_events", "arguments": {"date": "2025-03-21"}},
        )
    assert (listed["resultType"], listed["ttlMs"], listed["cacheScope"]) == (
        "complete",
        0,
        "public",
    )
    assert called["resultType"] == "complete" and "ttlMs" not in called
    assert called["content"][0]["text"].startswith("Events for 2025-03-21")


async def test_a_missing_resource_is_invalid_params_in_2026() -> None:
    async with peer() as (connection, _):
        error = await refused(
            connection, "resources/read", {"_meta": META, "uri": "courses://NOPE"}
        )
        assert (error.code, error.message, error.data) == (
            -32602,
            "Resource not found",
            {"uri": "courses://NOPE"},
        )
        await still_serving(connection)


async def test_log_lines_only_for_a_request_that_asks_for_them() -> None:
    async with peer() as (connection, heard):
        await call(connection, "tools/call", {"_meta": META, "name": "chatty"})
        assert [
            n.method for n in heard
        ] == []  # no logLevel: no notifications/message (basic/index)
        await call(
            connection, "tools/call", {"_meta": envelope(logLevel="debug"), "name": "chatty"}
        )
        assert [(n.method, n.params["data"]) for n in heard] == [
            ("notifications/message", "working")
        ]


# -- the era of a connection -----------------------------------------------------------------------


@pytest.mark.parametrize("envelope_too", [False, True])
async def test_after_a_2026_request_initialize_is_method_not_found_naming_the_versions(
    envelope_too: bool,
) -> None:
    async with peer() as (connection, _):
        await call(connection, "server/discover")
        error = await refused(
            connection, "initialize", {**INITIALIZE, "_meta": META} if envelope_too else INITIALIZE
        )
        assert (error.code, error.message) == (
            -32601,
            "Method not found: initialize (2026-07-28 has no "
            "handshake: every request carries its _meta)",
        )
        await still_serving(connection)


async def test_after_initialize_a_2026_request_is_an_unsupported_version() -> None:
    async with peer() as (connection, _):
        assert (await connection.request("initialize", INITIALIZE, TIMEOUT))[
            "protocolVersion"
        ] == "2025-11-25"
        await connection.notify("notifications/initialized")
        error = await refused(connection, "tools/list", {"_meta": META})
        assert (error.code, error.data) == (
            -32022,
            {"supported": ["2025-11-25"], "requested": "2026-07-28"},
        )
        error = await refused(connection, "server/discover", None)
        assert error.code == -32601  # a session's answer to the probe, as before lesson 12
        # the session goes on
        assert "tools" in await connection.request("tools/list", None, TIMEOUT)


async def test_a_legacy_only_server_answers_the_probe_method_not_found() -> None:
    server = asking_server()
    server.modern_versions = ()
    async with peer(server) as (connection, _):
        error = await refused(connection, "server/discover", {"_meta": META})
        assert (error.code, error.message) == (-32601, "Method not found: server/discover")
        assert (await connection.request("initialize", INITIALIZE, TIMEOUT))[
            "protocolVersion"
        ] == "2025-11-25"


# -- questions without a connection back -----------------------------------------------------------

ELICITING = envelope(clientCapabilities={"elicitation": {}})


async def test_a_question_is_answered_input_required_then_the_retry_completes() -> None:
    async with peer() as (connection, _):
        first = await call(connection, "tools/call", {"_meta": ELICITING, "name": "greet"})
        assert first["resultType"] == "input_required"
        assert first["inputRequests"] == {
            "elicitation-1": {
                "method": "elicitation/create",
                "params": {"message": "What is your name?", "requestedSchema": FORM},
            }
        }
        retry = {
            "_meta": ELICITING,
            "name": "greet",
            "requestState": first["requestState"],
            "inputResponses": {"elicitation-1": {"action": "accept", "content": {"name": "Ada"}}},
        }
        done = await call(connection, "tools/call", retry)
    assert done["resultType"] == "complete"
    assert done["content"] == [{"type": "text", "text": "Hello, Ada!"}]


async def test_two_rounds_carry_the_first_answer_in_the_state() -> None:
    async with peer() as (connection, _):
        one = await call(connection, "tools/call", {"_meta": ELICITING, "name": "two_questions"})
        assert list(one["inputRequests"]) == ["step1"]
        two = await call(
            connection,
            "tools/call",
            {
                "_meta": ELICITING,
                "name": "two_questions",
                "requestState": one["requestState"],
                "inputResponses": {"step1": {"action": "accept", "content": {"name": "Ada"}}},
            },
        )
        assert (
            list(two["inputRequests"]) == ["step2"] and two["requestState"] != one["requestState"]
        )
        done = await call(
            connection,
            "tools/call",
            {
                "_meta": ELICITING,
                "name": "two_questions",
                "requestState": two["requestState"],
                "inputResponses": {"step2": {"action": "accept", "content": {"name": "Grace"}}},
            },
        )
    assert done["content"][0]["text"] == "Ada then Grace"


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (
            lambda state: state + "-TAMPERED",
            "it failed verification (changed, or sealed by another server)",
        ),
        (
            lambda state: state[:-4] + ("AAAA" if not state.endswith("AAAA") else "BBBB"),
            "it failed verification (changed, or sealed by another server)",
        ),
        (lambda state: 42, "it is not a request state of this server"),
    ],
)
async def test_a_tampered_state_is_refused(change: Any, why: str) -> None:
    async with peer() as (connection, _):
        first = await call(connection, "tools/call", {"_meta": ELICITING, "name": "greet"})
        error = await refused(
            connection,
            "tools/call",
            {
                "_meta": ELICITING,
                "name": "greet",
                "requestState": change(first["requestState"]),
                "inputResponses": {
                    "elicitation-1": {"action": "accept", "content": {"name": "Ada"}}
                },
            },
        )
        assert (error.code, error.message) == (
            -32602,
            f"Invalid params: requestState refused: {why}",
        )
        await still_serving(connection)


async def test_a_state_replayed_on_another_request_is_refused() -> None:
    async with peer() as (connection, _):
        first = await call(connection, "tools/call", {"_meta": ELICITING, "name": "two_questions"})
        error = await refused(
            connection,
            "tools/call",
            {
                "_meta": ELICITING,
                "name": "greet",
                "requestState": first["requestState"],
                "inputResponses": {
                    "elicitation-1": {"action": "accept", "content": {"name": "Ada"}}
                },
            },
        )
        assert (error.code, error.message) == (
            -32602,
            "Invalid params: requestState refused: it belongs to another request",
        )


async def test_a_lone_surrogate_beside_a_request_state_is_invalid_params() -> None:
    async with peer() as (connection, _):
        first = await call(connection, "tools/call", {"_meta": ELICITING, "name": "greet"})
        error = await refused(
            connection,
            "tools/call",
            {
                "_meta": ELICITING,
                "name": "greet",
                "arguments": {"name": "\ud800"},  # not text: no UTF-8 encodes it
                "requestState": first["requestState"],
                "inputResponses": {
                    "elicitation-1": {"action": "accept", "content": {"name": "Ada"}}
                },
            },
        )
        assert (error.code, error.message) == (
            -32602,
            "Invalid params: requestState refused: it belongs to another request",
        )
        await still_serving(connection)


def sealed_answers(state: str) -> dict[str, Any]:
    """The answers a request state carries (sealed, not secret: its body is plain JSON)."""
    body = state.split(".")[0]
    answers: dict[str, Any] = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    return answers["answers"]


async def test_only_the_answers_to_questions_asked_are_sealed_in_the_state() -> None:
    step1 = {"action": "accept", "content": {"name": "Ada"}}
    unasked = {"action": "accept", "content": {"name": "x" * 100_000}}
    async with peer() as (connection, _):
        one = await call(connection, "tools/call", {"_meta": ELICITING, "name": "two_questions"})
        two = await call(
            connection,
            "tools/call",
            {
                "_meta": ELICITING,
                "name": "two_questions",
                "requestState": one["requestState"],
                "inputResponses": {"step1": step1, "unasked": unasked},
            },
        )
        assert list(two["inputRequests"]) == ["step2"]
        assert sealed_answers(two["requestState"]) == {"step1": step1}
        assert len(two["requestState"]) < 1000
        done = await call(
            connection,
            "tools/call",
            {
                "_meta": ELICITING,
                "name": "two_questions",
                "requestState": two["requestState"],
                "inputResponses": {"step2": {"action": "accept", "content": {"name": "Grace"}}},
            },
        )
        assert done["content"][0]["text"] == "Ada then Grace"
        await still_serving(connection)


async def test_a_malformed_answer_is_invalid_params() -> None:
    async with peer() as (connection, _):
        error = await refused(
            connection,
            "tools/call",
            {"_meta": ELICITING, "name": "greet", "inputResponses": {"elicitation-1": 12345}},
        )
        assert (error.code, error.message) == (
            -32602,
            "Invalid params: inputResponses['elicitation-1'] is not an "
            "answer to elicitation/create",
        )
        again = await call(
            connection, "tools/call", {"_meta": ELICITING, "name": "greet", "inputResponses": None}
        )
        assert again["resultType"] == "input_required"  # no answers at all: asked again


async def test_a_question_the_client_cannot_answer_is_a_missing_capability() -> None:
    async with peer() as (connection, _):
        error = await refused(connection, "tools/call", {"_meta": META, "name": "greet"})
        assert (error.code, error.message) == (
            -32021,
            "Server requires the elicitation capability for this request",
        )
        assert error.data == {"requiredCapabilities": {"elicitation": {}}}
        await still_serving(connection)


# -- any process of one server: the state key they share -------------------------------------------


@asynccontextmanager
async def server_process(repo_root: Any, key: str, *arguments: str) -> AsyncIterator[Connection]:
    """``python -m minimcp serve`` over stdio, with ``MINIMCP_STATE_KEY=key``."""
    transport = await spawn(
        python_command("-m", "minimcp", "serve", *arguments),
        cwd=str(repo_root),
        env={**os.environ, "MINIMCP_STATE_KEY": key},
    )
    connection = Connection(transport)
    connection.start()
    try:
        yield connection
    finally:
        await connection.close()


async def test_processes_sharing_a_key_open_each_others_states_and_no_others(
    repo_root: Any,
) -> None:
    key, other = "11" * 32, "22" * 32
    call_params = {"_meta": ELICITING, "name": "link_github"}
    async with (
        server_process(repo_root, key, "--example", "assistant") as first,
        server_process(repo_root, key, "--example", "assistant") as second,
        server_process(repo_root, other, "--example", "assistant") as stranger,
    ):
        # Each process's first call may import what the server needs: the bound of a first call.
        asked = await first.request("tools/call", call_params, FIRST_CALL_TIMEOUT)
        retry = {
            **call_params,
            "requestState": asked["requestState"],
            "inputResponses": {
                "elicitation-1": {"action": "accept", "content": {"github_user": "octocat"}}
            },
        }
        # another process: the same server
        done = await second.request("tools/call", retry, FIRST_CALL_TIMEOUT)
        assert done["content"][0]["text"] == "Linked to GitHub user octocat."
        with pytest.raises(RpcError) as caught:
            await stranger.request("tools/call", retry, FIRST_CALL_TIMEOUT)
        assert caught.value.message == (
            "Invalid params: requestState refused: it failed verification (changed, "
            "or sealed by another server)"
        )


async def test_legacy_only_answers_the_probe_method_not_found_over_stdio(repo_root: Any) -> None:
    async with server_process(repo_root, "33" * 32, "--legacy-only") as connection:
        with pytest.raises(RpcError) as caught:
            await connection.request("server/discover", {"_meta": META}, FIRST_CALL_TIMEOUT)
        assert (caught.value.code, caught.value.message) == (
            -32601,
            "Method not found: server/discover",
        )


# -- subscriptions/listen --------------------------------------------------------------------------


async def test_a_listener_is_acknowledged_first_then_hears_what_it_asked_for_tagged() -> None:
    server = asking_server()
    async with peer(server) as (connection, heard):
        listening = asyncio.ensure_future(
            call(
                connection,
                "subscriptions/listen",
                {
                    "_meta": META,
                    "notifications": {
                        "toolsListChanged": True,
                        "resourceSubscriptions": ["courses://all"],
                        "unknownKind": True,
                    },
                },
            )
        )
        await until(lambda: heard)
        ack = heard[0]
        assert (ack.method, ack.params) == (
            "notifications/subscriptions/acknowledged",
            {
                "notifications": {
                    "toolsListChanged": True,
                    "resourceSubscriptions": ["courses://all"],
                },
                "_meta": {"io.modelcontextprotocol/subscriptionId": 1},
            },
        )
        server.add_tool(lambda: "hi", "newcomer")
        await server.resource_updated("courses://all")
        await server.resource_updated("users://all")  # not asked for
        server.add_prompt(lambda: "hi", "new_prompt")  # not asked for either
        await until(lambda: len(heard) == 3)
        await asyncio.sleep(0.05)
        assert sorted(
            ((n.method, n.params) for n in heard[1:]), key=lambda pair: pair[0], reverse=True
        ) == [
            (
                "notifications/tools/list_changed",
                {"_meta": {"io.modelcontextprotocol/subscriptionId": 1}},
            ),
            (
                "notifications/resources/updated",
                {"uri": "courses://all", "_meta": {"io.modelcontextprotocol/subscriptionId": 1}},
            ),
        ]
        # stdio: stop listening
        await connection.notify("notifications/cancelled", {"requestId": 1})
        await until(lambda: not server.subscriptions.listeners)
        assert not listening.done()  # a cancelled request gets no answer
        listening.cancel()
        await still_serving(connection)


async def test_a_listen_without_notifications_is_invalid_params() -> None:
    async with peer() as (connection, _):
        error = await refused(connection, "subscriptions/listen", {"_meta": META})
        assert (error.code, error.message) == (
            -32602,
            'Invalid params: subscriptions/listen needs "notifications" (an object)',
        )
        await still_serving(connection)
