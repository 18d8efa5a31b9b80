"""Interop for lesson 09 with the official Python SDK (mcp==2.3.0), both ways.

1. minimcp's client answers an SDK server that asks (tests/servers/sdk_asking_server.py): sampling,
   a form with a default, a URL and its completion, roots; over stdio and over Streamable HTTP.
2. The SDK's client, with its sampling, elicitation, roots and logging callbacks, uses minimcp's
   assistant server; and completes a prompt's argument.
3. Cancellation each way: the SDK gives up on a minimcp tool (the tool is cancelled), minimcp gives
   up on an SDK tool (the SDK's tool is cancelled).
Only the tests import ``mcp``.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from complete_support import running_complete
from support import START_TIMEOUT, free_port, until

mcp = pytest.importorskip("mcp", reason="the interop tests need the official SDK (mcp==2.3.0)")

from mcp import Client as SdkClient  # noqa: E402
from mcp import StdioServerParameters, types  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from minimcp.client import Client, ClientAnswers, http_client, stdio_client  # noqa: E402
from minimcp.examples.assistant import build_server  # noqa: E402
from minimcp.rpc import RpcError  # noqa: E402
from minimcp.server import Server  # noqa: E402
from minimcp.session.cancellation import cancellable  # noqa: E402
from minimcp.session.client_cancellation import cancellation  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 30.0
MODEL_ANSWER = {
    "role": "assistant",
    "content": {"type": "text", "text": "Paris."},
    "model": "rules",
    "stopReason": "endTurn",
}


@asynccontextmanager
async def sdk_asking(cable: str, **options: Any) -> AsyncIterator[Client]:
    """minimcp's client, with ``options``, connected to the SDK's asking server over ``cable``."""
    command = [sys.executable, "-m", "tests.servers.sdk_asking_server"]
    if cable == "stdio":
        async with stdio_client(command, cwd=str(ROOT), **options) as client:
            yield client
        return
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        *command, "--http", str(port), cwd=str(ROOT), stderr=asyncio.subprocess.PIPE
    )
    try:
        assert process.stderr is not None
        ready = process.stderr.readline
        while (await asyncio.wait_for(ready(), START_TIMEOUT)).strip() != b"ready":
            pass
        async with http_client(f"http://127.0.0.1:{port}/mcp", **options) as client:
            yield client
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), TIMEOUT)


def text(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


# -- 1. minimcp's client answers the SDK's server --------------------------------------------------
@pytest.mark.parametrize("cable", ["stdio", "http"])
async def test_minimcp_answers_every_question_of_an_sdk_server(cable: str, tmp_path: Path) -> None:
    asked: list[dict[str, Any]] = []
    completed: list[str] = []

    def model(request: dict[str, Any]) -> dict[str, Any]:
        asked.append(request)
        return MODEL_ANSWER

    async with sdk_asking(
        cable,
        answers=ClientAnswers(
            sampling=model,
            elicitation=lambda request: (
                {"action": "accept", "content": {"github_user": "octocat"}}
                if request.get("mode") != "url"
                else {"action": "accept"}
            ),
            elicitation_modes=("form", "url"),
            roots=[tmp_path],
        ),
        on_elicitation_complete=completed.append,
    ) as client:
        assert (
            text(
                await client.call_tool(
                    "ask_model", {"question": "Capital of France?"}, timeout=TIMEOUT
                )
            )
            == "rules: Paris."
        )
        assert asked[0]["messages"] == [
            {"role": "user", "content": {"type": "text", "text": "Capital of France?"}}
        ]
        assert asked[0]["systemPrompt"] == "Be brief." and asked[0]["maxTokens"] == 50
        # The form's "public" has a default the handler left out: minimcp's client filled it in.
        assert text(await client.call_tool("ask_github", timeout=TIMEOUT)) == "octocat public=True"
        assert text(await client.call_tool("connect", timeout=TIMEOUT)) == "connected"
        await client.ping()  # the completion notice was read before the pong
        assert completed == ["e-1"]
        assert text(await client.call_tool("where", timeout=TIMEOUT)) == tmp_path.resolve().as_uri()


async def test_a_question_minimcp_never_offered_fails_the_sdk_tool_and_the_session_goes_on() -> (
    None
):
    async with sdk_asking("stdio") as client:
        with pytest.raises(RpcError) as refused:  # the SDK passes our answer on as its call's error
            await client.call_tool("ask_model", {"question": "?"}, timeout=TIMEOUT)
        assert (refused.value.code, refused.value.message) == (
            -32601,
            "Method not found: sampling/createMessage",
        )
        assert await client.list_tools(timeout=TIMEOUT)  # still serving


async def test_minimcp_gives_up_and_the_sdk_tool_is_cancelled(tmp_path: Path) -> None:
    record = tmp_path / "record.txt"
    async with sdk_asking("stdio", extensions=[cancellation]) as client:  # lesson 09's, plugged in
        with pytest.raises(TimeoutError):
            await client.call_tool("wait_for_cancel", {"record": str(record)}, timeout=0.5)
        # The notice travels, then the SDK cancels its handler, which writes the file: wait until
        # it is written whole (another process writes it), bounded for a loaded machine.
        await until(lambda: record.exists() and record.read_text() == "cancelled", timeout=60)
        assert record.read_text() == "cancelled"
        await client.ping()


# -- 2. the SDK's client answers minimcp's server --------------------------------------------------
async def sampling(
    context: Any, params: types.CreateMessageRequestParams
) -> types.CreateMessageResult:
    assert params.system_prompt == "You convert XML documents to JSON. Answer with the JSON only."
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text='{"a": "1"}'),
        model="sdk-model",
        stop_reason="endTurn",
    )


async def elicitation(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    if params.message == "What is your GitHub user?":
        return types.ElicitResult(action="accept", content={"github_user": "octocat"})
    # book_meeting: defaults apply
    return types.ElicitResult(action="accept", content={"date": "2026-12-01"})


# logging/setLevel is what a 2025-11-25 session uses; the SDK warns that 2026-07-28 deprecates it.
@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
async def test_the_sdk_client_answers_the_assistant_server_over_stdio() -> None:
    lines: list[tuple[str, Any]] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        lines.append((params.level, params.data))

    server = StdioServerParameters(
        command=sys.executable, args=["-m", "minimcp", "serve", "--example", "assistant"]
    )
    async with SdkClient(
        server,
        mode="legacy",
        read_timeout_seconds=TIMEOUT,
        sampling_callback=sampling,
        elicitation_callback=elicitation,
        logging_callback=on_log,
    ) as client:
        await client.set_logging_level("info")
        result = await client.call_tool("xml_to_json", {"xml": "<a>1</a>"})
        assert result.content[0].text == '{"a": "1"}'
        result = await client.call_tool("link_github", {})
        assert result.content[0].text == "Linked to GitHub user octocat."
        result = await client.call_tool("book_meeting", {"title": "Retro"})
        # The SDK's client does not fill in defaults: the server checks the answer, and the form's
        # required "confirm" is missing, so the tool fails with a message the model can read.
        assert result.is_error is True
        assert result.content[0].text == (
            "The client's answer does not fit the requested schema: "
            "'confirm' is a required property"
        )
        completion = await client.complete(
            types.PromptReference(type="ref/prompt", name="plan-meeting"),
            {"name": "room", "value": "l"},
        )
        assert completion.completion.values == ["Lisbon", "London"]
    assert ("info", "asking the client's model to translate the XML") in lines
    assert ("notice", "linked octocat") in lines


async def test_the_sdk_client_gives_its_roots_to_a_folder_that_honours_them(tmp_path: Path) -> None:
    for name in ("notes/plan.md", "code/main.py"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(name)

    async def roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(
            roots=[types.Root(uri=(tmp_path / "notes").as_uri(), name="notes")]
        )

    async with running_complete(build_server(workspace=tmp_path)) as http:
        async with SdkClient(
            http.url, mode="legacy", read_timeout_seconds=TIMEOUT, list_roots_callback=roots
        ) as client:
            listed = await client.list_resources()
    assert [resource.name for resource in listed.resources] == ["notes/plan.md"]


# -- 3. the SDK gives up on a minimcp tool ---------------------------------------------------------
async def test_the_sdk_gives_up_and_the_minimcp_tool_is_cancelled() -> None:
    events: list[str] = []
    server = Server("slow")
    cancellable(server)  # lesson 09's piece: the client's notifications/cancelled stop the tool

    @server.tool()
    async def wait_forever() -> str:
        """Wait until cancelled."""
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            events.append("cancelled")
            raise
        return "finished"

    async with running_complete(server) as http:
        async with SdkClient(http.url, mode="legacy") as client:
            with pytest.raises(MCPError, match="Request 'tools/call' timed out"):
                await client.call_tool("wait_forever", {}, read_timeout_seconds=0.5)
            await until(lambda: bool(events))
            assert events == ["cancelled"]
            # the session goes on
            assert (await client.list_tools()).tools[0].name == "wait_forever"
