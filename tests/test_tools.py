"""Tools (lesson 04): tools/list, tools/call, validation, content, errors, list_changed,
progress."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Annotated, Any, Literal, Optional

import pytest
from support import TIMEOUT, connected

from minimcp.client import Client
from minimcp.rpc import RpcError
from minimcp.rpc.jsonrpc import INVALID_PARAMS
from minimcp.server import (
    ToolError,
    ToolResult,
    ToolServer,
    audio_content,
    embedded_resource,
    image_content,
    report_progress,
    resource_link,
)
from minimcp.server.schema import input_schema_for
from minimcp.session import RequestContext


async def call(client: Client, name: str, arguments: Any = None, **extra: Any) -> dict[str, Any]:
    params = {"name": name, **extra}
    if arguments is not None:
        params["arguments"] = arguments
    return await client.request("tools/call", params, TIMEOUT)


async def still_answers(client: Client) -> None:
    """The server survived whatever came before: it still answers a ping and a real call."""
    await client.ping(TIMEOUT)
    assert (await client.request("tools/list", {}, TIMEOUT))["tools"] is not None


def calculator() -> ToolServer:
    server = ToolServer("calculator")

    @server.tool(title="Add two numbers")
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool()
    async def divide(a: float, b: float) -> float:
        """Divide a by b."""
        await asyncio.sleep(0)
        return a / b  # b == 0 raises: an exception inside a tool

    @server.tool()
    def checked_sqrt(x: float) -> float:
        """The square root of a non-negative number."""
        if x < 0:
            raise ToolError(f"x must be >= 0, got {x}: pass a non-negative number")
        return x**0.5

    return server


# -- tools/list ------------------------------------------------------------------------------------
async def test_list_shows_each_tool_with_its_schema() -> None:
    server = calculator()
    server.add_tool(
        lambda city: f"Sunny in {city}",
        "weather",
        title="Weather",
        description="The weather in a city",
        input_schema={
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
        output_schema=None,
    )
    async with connected(server) as client:
        tools = {
            tool["name"]: tool
            for tool in (await client.request("tools/list", {}, TIMEOUT))["tools"]
        }
    assert list(tools) == ["add", "divide", "checked_sqrt", "weather"]
    assert tools["add"] == {
        "name": "add",
        "title": "Add two numbers",
        "description": "Add two integers.",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
            "additionalProperties": False,
        },
    }
    assert tools["weather"]["inputSchema"]["required"] == ["city"]
    assert "outputSchema" not in tools["weather"] and "title" not in tools["divide"]


async def test_the_handshake_announces_tools_only_once_there_are_some() -> None:
    bare = ToolServer("bare")
    async with connected(bare) as client:
        assert client.server_capabilities == {}
    async with connected(calculator()) as client:
        assert client.server_capabilities["tools"] == {"listChanged": True}


def test_input_schema_is_derived_from_the_signature() -> None:
    def search(
        query: Annotated[str, "What to look for"],
        limit: int = 10,
        ratio: float = 0.5,
        exact: bool = False,
        tags: list[str] | None = None,
        extra: dict[str, int] | None = None,
        order: Literal["asc", "desc"] = "asc",
        page: Optional[int] = None,  # noqa: UP045
        context: RequestContext | None = None,
    ) -> str:
        """Search the catalogue."""
        return query

    assert input_schema_for(search) == {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for"},
            "limit": {"type": "integer", "default": 10},
            "ratio": {"type": "number", "default": 0.5},
            "exact": {"type": "boolean", "default": False},
            "tags": {
                "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}],
                "default": None,
            },
            "extra": {
                "anyOf": [
                    {"type": "object", "additionalProperties": {"type": "integer"}},
                    {"type": "null"},
                ],
                "default": None,
            },
            "order": {"enum": ["asc", "desc"], "type": "string", "default": "asc"},
            "page": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
        },
        "required": ["query"],
        "additionalProperties": False,
    }


def test_bad_registrations_fail_at_once() -> None:
    server = ToolServer("strict")
    with pytest.raises(ValueError):
        server.add_tool(lambda: None, "has spaces")
    with pytest.raises(ValueError):
        server.add_tool(lambda: None, "arrayish", input_schema={"type": "array"})
    with pytest.raises(TypeError):  # no JSON Schema for a set: say so, rather than guess
        server.add_tool(_takes_a_set)


def _takes_a_set(values: set[int]) -> int:
    return len(values)


# -- tools/call ------------------------------------------------------------------------------------
async def test_call_sync_and_async_tools() -> None:
    async with connected(calculator()) as client:
        assert await call(client, "add", {"a": 2, "b": 3}) == {
            "content": [{"type": "text", "text": "5"}]
        }
        assert await call(client, "divide", {"a": 1, "b": 4}) == {
            "content": [{"type": "text", "text": "0.25"}]
        }


@pytest.mark.parametrize(
    ("arguments", "complaint"),
    [
        ({"a": 2, "b": "three"}, "b: 'three' is not of type 'integer'"),
        ({"a": 2}, "'b' is a required property"),
        ({"a": 1, "b": 2, "c": 3}, "Additional properties are not allowed ('c' was unexpected)"),
        (None, "'a' is a required property"),
    ],
)
async def test_invalid_arguments_are_an_error_result_the_model_can_read(
    arguments: Any, complaint: str
) -> None:
    async with connected(calculator()) as client:
        result = await call(client, "add", arguments)
        assert result["isError"] is True
        assert result["content"][0]["type"] == "text"
        assert result["content"][0]["text"].startswith("Invalid arguments for tool add: ")
        assert complaint in result["content"][0]["text"]
        await still_answers(client)


async def test_an_unknown_tool_is_a_protocol_error() -> None:
    async with connected(calculator()) as client:
        with pytest.raises(RpcError) as caught:
            await call(client, "multiply", {"a": 2, "b": 3})
        assert caught.value.code == INVALID_PARAMS == -32602
        assert caught.value.message == "Unknown tool: multiply"
        await still_answers(client)


@pytest.mark.parametrize(
    "params",
    [{}, {"name": 42}, {"name": "add", "arguments": [1, 2]}, {"name": "add", "arguments": "a=1"}],
)
async def test_a_malformed_call_is_a_protocol_error(params: dict[str, Any]) -> None:
    async with connected(calculator()) as client:
        with pytest.raises(RpcError) as caught:
            await client.request("tools/call", params, TIMEOUT)
        assert caught.value.code == -32602
        await still_answers(client)


async def test_an_exception_inside_a_tool_is_an_error_result_not_a_dead_server(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with connected(calculator()) as client:
        result = await call(client, "divide", {"a": 1, "b": 0})
        assert result["isError"] is True
        # The model learns that the tool failed; what failed (paths, values) stays in the server's
        # log.
        assert result["content"][0]["text"] == (
            "Tool divide failed with an internal error (the server's log has the details)"
        )
        assert "ZeroDivisionError: division by zero" in caplog.text
        await still_answers(client)
        assert await call(client, "divide", {"a": 9, "b": 3}) == {
            "content": [{"type": "text", "text": "3.0"}]
        }


async def test_a_tool_error_speaks_to_the_model() -> None:
    async with connected(calculator()) as client:
        result = await call(client, "checked_sqrt", {"x": -4})
        assert result == {
            "content": [
                {"type": "text", "text": "x must be >= 0, got -4: pass a non-negative number"}
            ],
            "isError": True,
        }
        await still_answers(client)


async def test_every_kind_of_content_block() -> None:
    server = ToolServer("media")
    png, wav = b"\x89PNG\r\n\x1a\n", b"RIFF\x00\x00WAVE"

    @server.tool()
    def everything() -> list[dict[str, Any]]:
        """One block of each kind."""
        return [
            "some text",
            image_content(png, "image/png"),
            audio_content(wav, "audio/wav"),
            resource_link(
                "courses://AI101", "AI101", title="Intro to AI", mime_type="application/json"
            ),
            embedded_resource("notes://today", text="Buy milk"),
            embedded_resource(
                "blobs://one", blob=b"\x00\x01", mime_type="application/octet-stream"
            ),
        ]

    async with connected(server) as client:
        result = await call(client, "everything", {})
    assert result == {
        "content": [
            {"type": "text", "text": "some text"},
            {"type": "image", "data": base64.b64encode(png).decode(), "mimeType": "image/png"},
            {"type": "audio", "data": base64.b64encode(wav).decode(), "mimeType": "audio/wav"},
            {
                "type": "resource_link",
                "uri": "courses://AI101",
                "name": "AI101",
                "title": "Intro to AI",
                "mimeType": "application/json",
            },
            {
                "type": "resource",
                "resource": {"uri": "notes://today", "mimeType": "text/plain", "text": "Buy milk"},
            },
            {
                "type": "resource",
                "resource": {
                    "uri": "blobs://one",
                    "mimeType": "application/octet-stream",
                    "blob": "AAE=",
                },
            },
        ]
    }


WEATHER_OUTPUT = {
    "type": "object",
    "properties": {"temperature": {"type": "number"}, "conditions": {"type": "string"}},
    "required": ["temperature", "conditions"],
}


async def test_structured_content_matches_the_output_schema_and_comes_as_text_too() -> None:
    server = ToolServer("weather")

    @server.tool(output_schema=WEATHER_OUTPUT)
    def weather(city: str) -> dict[str, Any]:
        """Current weather."""
        return {"temperature": 22.5, "conditions": f"Partly cloudy in {city}"}

    @server.tool(output_schema=WEATHER_OUTPUT)
    def broken_weather(city: str) -> dict[str, Any]:
        """Breaks its own promise."""
        return {"temperature": "warm"}

    async with connected(server) as client:
        listed = (await client.request("tools/list", {}, TIMEOUT))["tools"]
        assert listed[0]["outputSchema"] == WEATHER_OUTPUT
        result = await call(client, "weather", {"city": "Madrid"})
        structured = {"temperature": 22.5, "conditions": "Partly cloudy in Madrid"}
        assert result == {
            "content": [{"type": "text", "text": json.dumps(structured)}],
            "structuredContent": structured,
        }
        broken = await call(client, "broken_weather", {"city": "Madrid"})
        assert broken["isError"] is True and "structuredContent" not in broken
        assert "does not match its outputSchema" in broken["content"][0]["text"]
        await still_answers(client)


async def test_a_tool_may_shape_the_whole_result() -> None:
    server = ToolServer("shaped")

    @server.tool()
    def soft_failure() -> ToolResult:
        """Fails politely, with two blocks."""
        return ToolResult(
            content=["Could not reach the calendar.", "Try again in a minute."], is_error=True
        )

    async with connected(server) as client:
        assert await call(client, "soft_failure", {}) == {
            "content": [
                {"type": "text", "text": "Could not reach the calendar."},
                {"type": "text", "text": "Try again in a minute."},
            ],
            "isError": True,
        }


# -- list_changed ----------------------------------------------------------------------------------
async def next_note(notes: asyncio.Queue[tuple[str, dict[str, Any]]]) -> tuple[str, dict[str, Any]]:
    return await asyncio.wait_for(notes.get(), TIMEOUT)


async def test_adding_and_removing_a_tool_tells_every_live_session() -> None:
    server = calculator()
    first: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue()
    second: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue()
    async with connected(server, first) as one, connected(server, second) as two:
        await one.ping(TIMEOUT)
        await two.ping(TIMEOUT)  # both handshakes are complete: `initialized` has been read

        server.add_tool(
            lambda: "pong", "late_tool", description="Added while clients are connected"
        )
        assert await next_note(first) == ("notifications/tools/list_changed", {})
        assert await next_note(second) == ("notifications/tools/list_changed", {})
        names = [tool["name"] for tool in (await one.request("tools/list", {}, TIMEOUT))["tools"]]
        assert "late_tool" in names
        assert await call(one, "late_tool", {}) == {"content": [{"type": "text", "text": "pong"}]}

        server.remove_tool("late_tool")
        assert await next_note(first) == ("notifications/tools/list_changed", {})
        assert await next_note(second) == ("notifications/tools/list_changed", {})
        with pytest.raises(RpcError) as caught:
            await call(two, "late_tool", {})
        assert caught.value.code == -32602
        await still_answers(two)


async def test_a_tool_can_change_the_list_while_it_runs() -> None:
    server = ToolServer("self-extending")

    @server.tool()
    def unlock() -> str:
        """Adds a second tool."""
        server.add_tool(lambda: "secret", "unlocked")
        return "unlocked a new tool"

    notes: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue()
    async with connected(server, notes) as client:
        await client.ping(TIMEOUT)
        await call(client, "unlock", {})
        assert await next_note(notes) == ("notifications/tools/list_changed", {})
        assert await call(client, "unlocked", {}) == {
            "content": [{"type": "text", "text": "secret"}]
        }


# -- pagination ------------------------------------------------------------------------------------
async def test_tools_list_is_paginated_with_an_opaque_cursor() -> None:
    server = ToolServer("many", page_size=2)
    for i in range(5):
        server.add_tool(lambda: None, f"tool_{i}", description=f"Tool number {i}")
    async with connected(server) as client:
        pages, params = [], {}
        for _ in range(10):  # bounded: 3 pages expected
            page = await client.request("tools/list", params, TIMEOUT)
            pages.append([tool["name"] for tool in page["tools"]])
            if "nextCursor" not in page:
                break
            assert isinstance(page["nextCursor"], str)
            params = {"cursor": page["nextCursor"]}
        assert pages == [["tool_0", "tool_1"], ["tool_2", "tool_3"], ["tool_4"]]

        for bad in ["not-a-cursor", "", 42, "eyJvZmZzZXQiOiA5OX0="]:  # the last one: offset 99
            with pytest.raises(RpcError) as caught:
                await client.request("tools/list", {"cursor": bad}, TIMEOUT)
            assert caught.value.code == -32602
        await still_answers(client)


# -- progress --------------------------------------------------------------------------------------
def slow_server() -> ToolServer:
    server = ToolServer("slow")

    @server.tool()
    async def crunch(steps: int, context: RequestContext) -> str:
        """Work in steps, reporting each one."""
        for step in range(1, steps + 1):
            await asyncio.sleep(0)
            await report_progress(context, step, total=steps, message=f"step {step}")
        return f"crunched {steps} steps"

    return server


async def test_progress_notifications_arrive_in_order_before_the_result() -> None:
    notes: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue()
    async with connected(slow_server(), notes) as client:
        result = await call(client, "crunch", {"steps": 4}, _meta={"progressToken": "job-1"})
        assert result == {"content": [{"type": "text", "text": "crunched 4 steps"}]}
        # The notifications were sent before the answer on the same cable, so they are already here.
        received = [notes.get_nowait() for _ in range(notes.qsize())]
        assert received == [
            (
                "notifications/progress",
                {"progressToken": "job-1", "progress": step, "total": 4, "message": f"step {step}"},
            )
            for step in range(1, 5)
        ]


async def test_no_progress_token_no_progress() -> None:
    notes: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue()
    async with connected(slow_server(), notes) as client:
        assert (await call(client, "crunch", {"steps": 3}))["content"][0][
            "text"
        ] == "crunched 3 steps"
        await client.ping(TIMEOUT)
        assert notes.empty()


# A fresh interpreter in which importing jsonschema takes a second (as it takes several where
# Jupyter's rfc3987-syntax is installed): one session calls a tool for the first time, another pings
# meanwhile.
FIRST_CALL_WHILE_ANOTHER_PINGS = """
import asyncio, importlib.abc, sys, time

class SlowImport(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "jsonschema":
            time.sleep(1.0)  # blocks whichever thread imports it
        return None

sys.meta_path.insert(0, SlowImport())
from minimcp.client import Client
from minimcp.rpc import memory_pair
from minimcp.server import ToolServer

server = ToolServer("slow-import")

@server.tool()
def echo(text: str) -> str:
    return text

async def main():
    assert "jsonschema" not in sys.modules
    order = []
    (a, a_server), (b, b_server) = memory_pair(), memory_pair()
    serving = [asyncio.ensure_future(server.serve(cable)) for cable in (a_server, b_server)]
    async with Client(a) as first, Client(b) as second:
        async def call():
            await first.call_tool("echo", {"text": "hi"}, timeout=30)
            order.append("call")
        async def ping():
            await asyncio.sleep(0.2)  # the call has begun its import
            await second.ping(timeout=30)
            order.append("ping")
        await asyncio.gather(call(), ping())
    print(order)
    for task in serving:
        task.cancel()

asyncio.run(main())
"""


def test_the_first_call_imports_jsonschema_without_stopping_the_other_sessions() -> None:
    """The import runs in a thread: a ping from another session is answered while it lasts."""
    import subprocess
    import sys

    ran = subprocess.run(
        [sys.executable, "-c", FIRST_CALL_WHILE_ANOTHER_PINGS],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "['ping', 'call']"
