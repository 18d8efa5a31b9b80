"""Logging (minimcp.logs): the capability, logging/setLevel per session, notifications/message."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from support import TIMEOUT, Notes, connected

from minimcp.client import Client
from minimcp.rpc import RpcError, memory_pair
from minimcp.rpc.jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND
from minimcp.server import Server
from minimcp.server.logs import DEFAULT_LEVEL, LEVELS, log
from minimcp.session import RequestContext


def chatty_server() -> Server:
    """A server whose tool logs once at every level, and once more without a logger name."""
    server = Server("chatty")
    server.enable_logging()

    @server.tool()
    async def chatter(context: RequestContext) -> str:
        """Log at every level."""
        sent = [
            level
            for level in LEVELS
            if await log(context, level, f"a {level} message", logger="chatty")
        ]
        await log(context, "emergency", {"structured": True, "count": 2})
        return ",".join(sent)

    return server


def logged(notes: Notes) -> list[dict[str, Any]]:
    """The notifications/message params received so far, in order."""
    found = []
    while not notes.empty():
        method, params = notes.get_nowait()
        if method == "notifications/message":
            found.append(params)
    return found


async def still_answers(client: Client) -> None:
    await client.ping(TIMEOUT)
    assert await client.request("logging/setLevel", {"level": "info"}, TIMEOUT) == {}


# -- the capability --------------------------------------------------------------------------------
async def test_a_server_declares_logging_only_when_it_logs() -> None:
    quiet = Server("quiet")
    async with connected(quiet) as client:
        assert "logging" not in client.server_capabilities
        with pytest.raises(RpcError) as caught:
            await client.set_logging_level("info", timeout=TIMEOUT)
        assert caught.value.code == METHOD_NOT_FOUND
        assert caught.value.message == "Method not found: logging/setLevel"

    server = chatty_server()
    assert server.enable_logging() is server.enable_logging()  # one registry, however often you ask
    async with connected(server) as client:
        assert client.server_capabilities["logging"] == {}


# -- logging/setLevel ------------------------------------------------------------------------------
async def test_set_level_accepts_every_rfc5424_level_and_answers_an_empty_result() -> None:
    async with connected(chatty_server()) as client:
        for level in LEVELS:
            assert await client.request("logging/setLevel", {"level": level}, TIMEOUT) == {}


@pytest.mark.parametrize(
    "params",
    [
        {"level": "verbose"},
        {"level": "DEBUG"},
        {"level": 3},
        {"level": None},
        {"level": ["info"]},
        {},
    ],
)
async def test_an_invalid_level_is_invalid_params_and_the_session_goes_on(
    params: dict[str, Any],
) -> None:
    async with connected(chatty_server()) as client:
        with pytest.raises(RpcError) as caught:
            await client.request("logging/setLevel", params, TIMEOUT)
        assert caught.value.code == INVALID_PARAMS
        assert caught.value.message == (
            f"Invalid log level {params.get('level')!r}: use one of debug, info, "
            "notice, warning, error, critical, alert, emergency"
        )
        await still_answers(client)


# -- notifications/message and the filter ----------------------------------------------------------
async def test_messages_arrive_with_level_logger_and_data_before_the_result() -> None:
    notes: Notes = asyncio.Queue()
    async with connected(chatty_server(), notes) as client:
        await client.set_logging_level("debug", timeout=TIMEOUT)
        result = await client.call_tool("chatter", timeout=TIMEOUT)
        assert result["content"][0]["text"] == ",".join(LEVELS)
        messages = logged(notes)  # already here: they travelled before the answer
    assert messages[:2] == [
        {"level": "debug", "logger": "chatty", "data": "a debug message"},
        {"level": "info", "logger": "chatty", "data": "a info message"},
    ]
    assert [m["level"] for m in messages] == [*LEVELS, "emergency"]
    # no logger
    assert messages[-1] == {"level": "emergency", "data": {"structured": True, "count": 2}}


async def test_only_messages_at_least_as_severe_as_the_level_are_sent() -> None:
    notes: Notes = asyncio.Queue()
    async with connected(chatty_server(), notes) as client:
        # Before the client chooses, the server's default applies: info and above.
        assert DEFAULT_LEVEL == "info"
        await client.call_tool("chatter", timeout=TIMEOUT)
        assert [m["level"] for m in logged(notes)] == [*LEVELS[1:], "emergency"]

        await client.set_logging_level("error", timeout=TIMEOUT)
        result = await client.call_tool("chatter", timeout=TIMEOUT)
        assert result["content"][0]["text"] == "error,critical,alert,emergency"
        assert [m["level"] for m in logged(notes)] == [
            "error",
            "critical",
            "alert",
            "emergency",
            "emergency",
        ]

        await client.set_logging_level("emergency", timeout=TIMEOUT)
        await client.call_tool("chatter", timeout=TIMEOUT)
        assert [m["level"] for m in logged(notes)] == ["emergency", "emergency"]


async def test_each_session_keeps_its_own_level() -> None:
    server = chatty_server()
    quiet_notes: Notes = asyncio.Queue()
    loud_notes: Notes = asyncio.Queue()
    async with connected(server, quiet_notes) as quiet, connected(server, loud_notes) as loud:
        await quiet.set_logging_level("critical", timeout=TIMEOUT)
        await loud.set_logging_level("debug", timeout=TIMEOUT)
        await quiet.call_tool("chatter", timeout=TIMEOUT)
        await loud.call_tool("chatter", timeout=TIMEOUT)
        assert [m["level"] for m in logged(quiet_notes)] == [
            "critical",
            "alert",
            "emergency",
            "emergency",
        ]
        assert len(logged(loud_notes)) == len(LEVELS) + 1


# -- mistakes in the server ------------------------------------------------------------------------
async def test_logging_without_the_capability_or_with_a_bad_level_fails_the_tool_not_the_server(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = Server("forgetful")  # never calls enable_logging()

    @server.tool()
    async def careless(context: RequestContext) -> str:
        """Log without declaring the capability."""
        await log(context, "info", "hello")
        return "unreachable"

    async with connected(server) as client:
        result = await client.call_tool("careless", timeout=TIMEOUT)
        assert result == {
            "isError": True,
            "content": [
                {
                    "type": "text",
                    "text": (
                        "Tool careless failed with an internal error "
                        "(the server's log has the details)"
                    ),
                }
            ],
        }
        # the details: our log
        assert "this server did not declare the logging capability" in caplog.text
        await client.ping(TIMEOUT)

    server.enable_logging()

    @server.tool()
    async def misspelt(context: RequestContext) -> str:
        """Log at a level that does not exist."""
        await log(context, "warn", "hello")
        return "unreachable"

    async with connected(server) as client:
        result = await client.call_tool("misspelt", timeout=TIMEOUT)
        assert result["isError"] is True
        assert result["content"][0]["text"] == (
            "Tool misspelt failed with an internal error (the server's log has the details)"
        )
        assert "unknown log level 'warn': use one of debug, info, notice, warning" in caplog.text
        await still_answers(client)


async def test_a_client_that_leaves_does_not_disturb_the_others() -> None:
    server = chatty_server()
    client_end, server_end = memory_pair()
    serving = asyncio.ensure_future(server.serve(server_end))
    async with Client(client_end) as gone:
        await gone.set_logging_level("debug", timeout=TIMEOUT)
    await asyncio.wait_for(serving, TIMEOUT)
    notes: Notes = asyncio.Queue()
    async with connected(server, notes) as client:
        await client.call_tool("chatter", timeout=TIMEOUT)
        assert logged(notes)[0]["level"] == "info"  # a new session starts from the default again
