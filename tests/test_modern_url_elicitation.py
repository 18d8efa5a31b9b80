"""Lesson 12: URL-mode elicitation as 2026-07-28 has it, beside lesson 09's 2025-11-25 one.

2026-07-28 removed ``notifications/elicitation/complete`` and the ``elicitationId`` of URL-mode
questions (changelog, minor change 11), and a 2026 server must not emit ``-32042`` (basic, "Error
codes"): a URL question travels inside an ``input_required`` answer, with ``mode``, ``message``
and ``url`` alone, and the client learns the outcome by retrying. The same tools, asked in
2025-11-25, still send the id, the notice and ``-32042``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from minimcp.client import Client, ClientAnswers
from minimcp.rpc import Connection, RpcError, memory_pair
from minimcp.server import Server
from minimcp.server.elicitation import UrlElicitationRequired, elicit_url, elicitation_complete
from minimcp.server.eras import answer_both_eras
from minimcp.session import RequestContext
from minimcp.session.eras import Mode, TwoEras

TIMEOUT = 10
URL = "https://calendar.example.com/connect"


def envelope(capabilities: dict[str, Any]) -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1.0"},
    }


URL_MODE = envelope({"elicitation": {"url": {}}})
FORM_ONLY = envelope({"elicitation": {}})


def calendar_server(signed_in: set[str]) -> Server:
    """Two tools of lesson 09's kind: one asks for a URL and says when it is done, the other cannot
    go on until the user signed in (``signed_in`` stands in for the sign-in page's callback)."""
    server = Server("calendar")
    answer_both_eras(server)

    @server.tool()
    async def connect_calendar(context: RequestContext) -> str:
        """Asks the user to open the calendar's page."""
        answer = await elicit_url(context, "Sign in to your calendar.", URL, "cal-1")
        if answer["action"] != "accept":
            return "Not connected."
        await elicitation_complete(context.session, "cal-1")
        return "Calendar connected."

    @server.tool()
    async def agenda(context: RequestContext) -> str:
        """Needs the user signed in first."""
        if "cal-2" not in signed_in:
            required = {"mode": "url", "elicitationId": "cal-2", "url": URL, "message": "Sign in."}
            raise UrlElicitationRequired([required])
        return "Nothing today."

    return server


@asynccontextmanager
async def raw_peer(server: Server) -> AsyncIterator[tuple[Connection, list[Any]]]:
    """A raw JSON-RPC peer of ``server``, and the notifications it heard."""
    client_end, server_end = memory_pair()
    heard: list[Any] = []

    async def on_notification(notification: Any) -> None:
        heard.append(notification)

    serving = asyncio.ensure_future(server.serve(server_end))
    connection = Connection(client_end, on_notification=on_notification)
    connection.start()
    try:
        yield connection, heard
    finally:
        await connection.close()
        await asyncio.wait_for(serving, TIMEOUT)


async def call(connection: Connection, params: dict[str, Any]) -> Any:
    return await connection.request("tools/call", params, TIMEOUT)


# -- the server ------------------------------------------------------------------------------------
async def test_a_2026_url_question_has_no_id_and_no_completion_notice_follows() -> None:
    async with raw_peer(calendar_server(set())) as (connection, heard):
        first = await call(connection, {"_meta": URL_MODE, "name": "connect_calendar"})
        assert first["resultType"] == "input_required"
        assert first["inputRequests"] == {
            "elicitation-1": {
                "method": "elicitation/create",
                "params": {"mode": "url", "message": "Sign in to your calendar.", "url": URL},
            }
        }
        retry = {
            "_meta": URL_MODE,
            "name": "connect_calendar",
            "requestState": first["requestState"],
            "inputResponses": {"elicitation-1": {"action": "accept"}},
        }
        done = await call(connection, retry)
        assert done["content"] == [{"type": "text", "text": "Calendar connected."}]
        await call(connection, {"_meta": URL_MODE, "name": "agenda"})  # one more round trip
    assert [note.method for note in heard] == []


async def test_a_2026_request_that_needs_a_url_first_is_input_required_not_32042() -> None:
    signed_in: set[str] = set()
    async with raw_peer(calendar_server(signed_in)) as (connection, _):
        first = await call(connection, {"_meta": URL_MODE, "name": "agenda"})
        assert first["resultType"] == "input_required"
        # the key is the server's own name for the interaction: the state keeps it across retries
        assert first["inputRequests"] == {
            "cal-2": {
                "method": "elicitation/create",
                "params": {"mode": "url", "message": "Sign in.", "url": URL},
            }
        }
        retry = {
            "_meta": URL_MODE,
            "name": "agenda",
            "requestState": first["requestState"],
            "inputResponses": {"cal-2": {"action": "accept"}},
        }
        assert (await call(connection, retry))["resultType"] == "input_required"  # not yet done
        signed_in.add("cal-2")
        done = await call(connection, retry)
        assert done["content"] == [{"type": "text", "text": "Nothing today."}]


async def test_a_2026_client_without_url_mode_is_not_sent_one() -> None:
    async with raw_peer(calendar_server(set())) as (connection, _):
        with pytest.raises(RpcError) as caught:
            await call(connection, {"_meta": FORM_ONLY, "name": "agenda"})
        assert caught.value.code == -32021
        assert caught.value.data == {"requiredCapabilities": {"elicitation": {"url": {}}}}
        # a tool asking for itself fails as lesson 09 taught: the model reads why
        result = await call(connection, {"_meta": FORM_ONLY, "name": "connect_calendar"})
        assert result["isError"] is True
        assert "does not include url mode" in result["content"][0]["text"]


async def test_a_2026_url_the_user_declined_ends_the_call() -> None:
    async with raw_peer(calendar_server(set())) as (connection, _):
        first = await call(connection, {"_meta": URL_MODE, "name": "agenda"})
        retry = {
            "_meta": URL_MODE,
            "name": "agenda",
            "requestState": first["requestState"],
            "inputResponses": {"cal-2": {"action": "decline"}},
        }
        done = await call(connection, retry)
        assert (done["resultType"], done["isError"]) == ("complete", True)
        assert done["content"] == [
            {"type": "text", "text": "The user declined to open what agenda needs: " + URL}
        ]


async def test_in_2025_the_same_tools_send_the_id_the_notice_and_32042() -> None:
    server = calendar_server(set())
    client_end, server_end = memory_pair()
    serving = asyncio.ensure_future(server.serve(server_end))
    asked: list[dict[str, Any]] = []
    completed: list[str] = []

    def consent(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept"}

    answers = ClientAnswers(elicitation=consent, elicitation_modes=("url",))
    conversation = TwoEras(Mode.LEGACY)
    async with Client(
        client_end,
        conversation=conversation,
        answers=answers,
        on_elicitation_complete=completed.append,
    ) as client:
        result = await client.call_tool("connect_calendar", timeout=TIMEOUT)
        assert result["content"][0]["text"] == "Calendar connected."
        with pytest.raises(RpcError) as caught:
            await client.call_tool("agenda", timeout=TIMEOUT)
        assert caught.value.code == -32042
        await client.ping()  # the notice was read before the pong
    await asyncio.wait_for(serving, TIMEOUT)
    assert asked == [
        {
            "mode": "url",
            "message": "Sign in to your calendar.",
            "url": URL,
            "elicitationId": "cal-1",
        }
    ]
    assert completed == ["cal-1"]


# -- the client ------------------------------------------------------------------------------------
async def test_a_2026_client_answers_url_questions_without_an_id() -> None:
    signed_in: set[str] = set()
    server = calendar_server(signed_in)
    client_end, server_end = memory_pair()
    serving = asyncio.ensure_future(server.serve(server_end))
    asked: list[dict[str, Any]] = []

    def consent(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        if params["message"] == "Sign in.":
            signed_in.add("cal-2")  # the person went to the sign-in page and signed in
        return {"action": "accept"}

    answers = ClientAnswers(elicitation=consent, elicitation_modes=("url",))
    async with Client(client_end, conversation=TwoEras(Mode.MODERN), answers=answers) as client:
        result = await client.call_tool("connect_calendar", timeout=TIMEOUT)
        assert result["content"][0]["text"] == "Calendar connected."
        result = await client.call_tool("agenda", timeout=TIMEOUT)
        assert result["content"][0]["text"] == "Nothing today."
        assert answers.completed("cal-1") is False  # nothing was left open for a notice
    await asyncio.wait_for(serving, TIMEOUT)
    assert asked == [
        {"mode": "url", "message": "Sign in to your calendar.", "url": URL},
        {"mode": "url", "message": "Sign in.", "url": URL},
    ]


async def test_a_2026_url_question_still_needs_its_url() -> None:
    answers = ClientAnswers(elicitation=lambda p: {"action": "accept"}, elicitation_modes=("url",))
    with pytest.raises(RpcError) as caught:
        await answers.answer_input_request("elicitation/create", {"mode": "url", "message": "Go"})
    assert (caught.value.code, caught.value.message) == (
        -32602,
        'a URL elicitation needs "url" (a string)',
    )
