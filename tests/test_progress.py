"""Progress, both ways (minimcp.session.progress): the client hears a long tool, the server hears a
long sampling request; tokens are fresh, late and shrinking notices are dropped."""

from __future__ import annotations

from typing import Any

import pytest
from support import TIMEOUT, connected

from minimcp.client import Client, ClientAnswers
from minimcp.server import Server, report_progress
from minimcp.server.sampling import create_message, text_of
from minimcp.session import RequestContext
from minimcp.session.progress import ProgressRouter, progress_notice

MODEL_ANSWER = {
    "role": "assistant",
    "content": {"type": "text", "text": "ok"},
    "model": "rules",
    "stopReason": "endTurn",
}


def test_a_notice_names_the_request_token_or_is_not_sent() -> None:
    assert progress_notice({"_meta": {"progressToken": 7}}, 1, 3, "one") == {
        "progressToken": 7,
        "progress": 1,
        "total": 3,
        "message": "one",
    }
    assert progress_notice({"_meta": {"progressToken": "t"}}, 0.5) == {
        "progressToken": "t",
        "progress": 0.5,
    }
    for params in (None, {}, {"_meta": {}}, {"_meta": {"progressToken": True}}, {"_meta": "x"}):
        assert progress_notice(params, 1) is None


async def test_the_router_gives_fresh_tokens_and_drops_what_it_must() -> None:
    router, heard = ProgressRouter(), []
    first: dict[str, Any] = {"_meta": {"trace": "kept"}}
    with router.watching(first, lambda *notice: heard.append(notice)) as token:
        assert (
            first["_meta"] == {"trace": "kept", "progressToken": "progress-1"}
            and token == "progress-1"
        )
        with router.watching({}, lambda *notice: None) as other:
            assert other == "progress-2"  # unique among the requests in flight
        assert await router.deliver({"progressToken": token, "progress": 1, "total": 3})
        assert not await router.deliver({"progressToken": token, "progress": 1})  # did not grow
        assert not await router.deliver({"progressToken": token, "progress": 0.5})  # went back
        assert not await router.deliver({"progressToken": "never-given", "progress": 9})
        assert not await router.deliver({"progressToken": token, "progress": "2"})  # not a number
        assert await router.deliver({"progressToken": token, "progress": 2, "message": "two"})
    assert not await router.deliver({"progressToken": token, "progress": 3})  # the request is over
    assert heard == [(1, 3, None), (2, None, "two")]


def progress_server() -> Server:
    server = Server("progressing")

    @server.tool()
    async def wobbly(context: RequestContext) -> str:
        """Report progress that goes back and forth: only the growing notices may reach the
        caller."""
        for value in (1, 1, 0.5, 2, 3):
            await report_progress(context, value, 3)
        return "done"

    @server.tool()
    async def ask_model(context: RequestContext) -> str:
        """Ask the client's model, and listen to how far the client got."""
        heard: list[str] = []
        answer = await create_message(
            context,
            "Say ok",
            max_tokens=5,
            timeout=TIMEOUT,
            progress=lambda progress, total, message: heard.append(f"{progress}/{total} {message}"),
        )
        return f"{text_of(answer)} after {heard}"

    return server


async def test_the_client_hears_only_growing_progress() -> None:
    heard: list[tuple[Any, ...]] = []
    async with connected(progress_server()) as client:
        result = await client.call_tool(
            "wobbly", progress=lambda *notice: heard.append(notice), timeout=TIMEOUT
        )
    assert result["content"][0]["text"] == "done"
    assert heard == [(1, 3, None), (2, 3, None), (3, 3, None)]


@pytest.mark.parametrize("with_token", [True, False])
async def test_the_server_hears_the_client_progress_on_its_own_request(with_token: bool) -> None:
    clients: list[Client] = []

    async def model(params: dict[str, Any]) -> dict[str, Any]:
        if not with_token:
            params = {key: value for key, value in params.items() if key != "_meta"}
        await clients[0].report_progress(params, 1, 2, "shown to the user")
        await clients[0].report_progress(params, 1, 2, "shown again")  # did not grow: dropped
        await clients[0].report_progress(params, 2, 2, "approved")
        return MODEL_ANSWER

    async with connected(progress_server(), answers=ClientAnswers(sampling=model)) as client:
        clients.append(client)
        result = await client.call_tool("ask_model", timeout=TIMEOUT)
    expected = "['1/2 shown to the user', '2/2 approved']" if with_token else "[]"
    assert result["content"][0]["text"] == f"ok after {expected}"
