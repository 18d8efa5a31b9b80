"""The client's typed helpers, against an in-memory minimcp ToolServer with hand-written handlers.

The handlers return spec-shaped JSON directly (``@server.method("tools/list")``), so these tests
check the client alone, whatever the server's own feature registry does.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from minimcp.client import Client
from minimcp.rpc import RpcError, memory_pair
from minimcp.rpc.jsonrpc import INVALID_PARAMS
from minimcp.server import ToolServer
from minimcp.session import RequestContext, ServerSession

RESOURCE_NOT_FOUND = -32002  # server/resources, "Error Handling"
WAIT = 5  # seconds: no test waits longer for anything


@asynccontextmanager
async def connect(server: ToolServer, **options: Any) -> AsyncIterator[Client]:
    """A client joined to ``server`` by an in-memory cable, handshake done."""
    client_end, server_end = memory_pair()
    serving = asyncio.ensure_future(server.serve(server_end))
    try:
        async with Client(client_end, **options) as client:
            yield client
    finally:
        await asyncio.wait_for(serving, WAIT)  # closing the client ends the server's session


def session_of(server: ToolServer) -> ServerSession:
    """The one session a test server has (to send notifications from the server's side)."""
    (session,) = server.sessions
    return session


def text(value: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": value}]


def make_server(list_changed: bool = True) -> tuple[ToolServer, dict[str, list[Any]]]:
    """A server with three pages of tools, resources, a template and prompts; ``seen`` records
    calls."""
    server = ToolServer("test-server")
    server.declare("tools", {"listChanged": list_changed})
    server.declare("resources", {"subscribe": True, "listChanged": list_changed})
    server.declare("prompts", {"listChanged": list_changed})
    seen: dict[str, list[Any]] = {
        "tools/list": [],
        "tools/call": [],
        "resources/templates/list": [],
        "subscribe": [],
        "unsubscribe": [],
        "prompts/get": [],
        "prompts/list": [],
    }
    pages = {None: (["a", "b"], "page-2"), "page-2": (["c"], "page-3"), "page-3": (["d"], None)}

    @server.method("tools/list")
    async def tools_list(ctx: RequestContext) -> dict[str, Any]:
        cursor = ctx.params.get("cursor")
        seen["tools/list"].append(cursor)
        if cursor not in pages:
            raise RpcError(INVALID_PARAMS, f"Invalid cursor: {cursor}")
        names, next_cursor = pages[cursor]
        result: dict[str, Any] = {
            "tools": [{"name": n, "inputSchema": {"type": "object"}} for n in names]
        }
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        return result

    @server.method("tools/call")
    async def tools_call(ctx: RequestContext) -> dict[str, Any]:
        seen["tools/call"].append(ctx.params)
        name, arguments = ctx.params["name"], ctx.params.get("arguments", {})
        if name == "echo":
            return {"content": text(arguments["text"]), "isError": False}
        if name == "broken":
            return {"content": text("Invalid date: use YYYY-MM-DD"), "isError": True}
        raise RpcError(INVALID_PARAMS, f"Unknown tool: {name}")

    @server.method("resources/list")
    async def resources_list(ctx: RequestContext) -> dict[str, Any]:
        return {
            "resources": [
                {"uri": "courses://all", "name": "courses", "mimeType": "application/json"}
            ]
        }

    @server.method("resources/templates/list")
    async def templates_list(ctx: RequestContext) -> dict[str, Any]:
        seen["resources/templates/list"].append(ctx.params.get("cursor"))
        if ctx.params.get("cursor") is None:
            return {"resourceTemplates": [], "nextCursor": "more"}  # an empty page is still a page
        return {"resourceTemplates": [{"uriTemplate": "courses://{id}", "name": "course-details"}]}

    @server.method("resources/read")
    async def resources_read(ctx: RequestContext) -> dict[str, Any]:
        uri = ctx.params["uri"]
        if uri == "courses://all":
            return {
                "contents": [{"uri": uri, "mimeType": "application/json", "text": '[{"id": 1}]'}]
            }
        raise RpcError(RESOURCE_NOT_FOUND, "Resource not found", {"uri": uri})

    @server.method("resources/subscribe")
    async def subscribe(ctx: RequestContext) -> dict[str, Any]:
        seen["subscribe"].append(ctx.params["uri"])
        return {}

    @server.method("resources/unsubscribe")
    async def unsubscribe(ctx: RequestContext) -> dict[str, Any]:
        seen["unsubscribe"].append(ctx.params["uri"])
        return {}

    @server.method("prompts/list")
    async def prompts_list(ctx: RequestContext) -> dict[str, Any]:
        seen["prompts/list"].append(ctx.params)
        return {
            "prompts": [
                {
                    "name": "course-similar-by-name",
                    "arguments": [{"name": "names", "required": True}],
                }
            ]
        }

    @server.method("prompts/get")
    async def prompts_get(ctx: RequestContext) -> dict[str, Any]:
        seen["prompts/get"].append(ctx.params)
        if ctx.params["name"] != "course-similar-by-name":
            raise RpcError(INVALID_PARAMS, f"Unknown prompt: {ctx.params['name']}")
        names = ctx.params.get("arguments", {}).get("names", "")
        message = {
            "role": "user",
            "content": {"type": "text", "text": f"Find courses like {names}"},
        }
        return {"description": "Similar courses", "messages": [message]}

    return server, seen


# -- lists and pagination -----------------------------------------------------------------------
async def test_list_tools_follows_every_page() -> None:
    server, seen = make_server()
    async with connect(server) as client:
        tools = await client.list_tools()
    assert [t["name"] for t in tools] == ["a", "b", "c", "d"]
    assert seen["tools/list"] == [None, "page-2", "page-3"]  # each cursor handed back untouched


async def test_an_empty_page_with_a_cursor_is_not_the_end() -> None:
    server, seen = make_server()
    async with connect(server) as client:
        templates = await client.list_resource_templates()
    assert templates == [{"uriTemplate": "courses://{id}", "name": "course-details"}]
    assert seen["resources/templates/list"] == [None, "more"]


async def test_a_cursor_that_never_ends_is_bounded() -> None:
    server = ToolServer("endless")
    calls = []

    @server.method("prompts/list")
    async def prompts_list(ctx: RequestContext) -> dict[str, Any]:
        calls.append(ctx.params.get("cursor"))
        return {"prompts": [{"name": f"p{len(calls)}"}], "nextCursor": "again"}

    async with connect(server) as client:
        client.max_pages = 4
        with pytest.raises(RuntimeError, match="more pages after 4"):
            await client.list_prompts()
    assert len(calls) == 4


async def test_lists_are_cached_until_the_server_says_they_changed() -> None:
    server, seen = make_server(list_changed=True)
    changed: list[str] = []
    told = asyncio.Event()

    def on_list_changed(kind: str) -> None:  # a plain function is fine as a callback
        changed.append(kind)
        told.set()

    async with connect(server, on_list_changed=on_list_changed) as client:
        await client.list_tools()
        await client.list_tools()
        assert seen["tools/list"] == [None, "page-2", "page-3"]  # the second call used the cache

        await session_of(server).notify("notifications/tools/list_changed")
        await asyncio.wait_for(told.wait(), WAIT)
        assert changed == ["tools"]
        await client.list_tools()
        assert seen["tools/list"] == [None, "page-2", "page-3"] * 2  # asked again, every page

        await client.list_tools(refresh=True)  # a caller may also insist
        assert len(seen["tools/list"]) == 9


async def test_a_change_announced_while_reading_pages_is_not_cached() -> None:
    server = ToolServer("busy")
    server.declare("tools", {"listChanged": True})
    requests: list[Any] = []

    @server.method("tools/list")
    async def tools_list(ctx: RequestContext) -> dict[str, Any]:
        requests.append(ctx.params.get("cursor"))
        if ctx.params.get("cursor") is None:
            return {"tools": [{"name": "old"}], "nextCursor": "2"}
        if len(requests) == 2:  # the list changes between our first and second page
            await ctx.session.notify("notifications/tools/list_changed")
        return {"tools": [{"name": "new"}]}

    async with connect(server) as client:
        await client.list_tools()
        await client.list_tools()  # the first result was not trusted: asked again, then kept
        await client.list_tools()
    assert requests == [None, "2", None, "2"]


async def test_resources_list_changed_drops_templates_too() -> None:
    server, seen = make_server(list_changed=True)
    told = asyncio.Event()
    async with connect(server, on_list_changed=lambda kind: told.set()) as client:
        await client.list_resource_templates()
        await client.list_prompts()
        await session_of(server).notify("notifications/resources/list_changed")
        await asyncio.wait_for(told.wait(), WAIT)
        await client.list_resource_templates()
        await client.list_prompts()
    assert seen["resources/templates/list"] == [None, "more", None, "more"]
    assert len(seen["prompts/list"]) == 1  # the prompts list did not change


async def test_no_cache_when_the_server_never_announces_changes() -> None:
    server, seen = make_server(list_changed=False)
    async with connect(server) as client:
        await client.list_prompts()
        await client.list_prompts()
    assert len(seen["prompts/list"]) == 2


# -- tools --------------------------------------------------------------------------------------
async def test_call_tool_returns_the_result_object() -> None:
    server, seen = make_server()
    async with connect(server) as client:
        result = await client.call_tool("echo", {"text": "hi"})
    assert result == {"content": text("hi"), "isError": False}
    # no _meta without progress
    assert seen["tools/call"] == [{"name": "echo", "arguments": {"text": "hi"}}]


async def test_a_failing_tool_is_a_result_not_an_exception() -> None:
    server, _ = make_server()
    async with connect(server) as client:
        result = await client.call_tool("broken", {})
    assert result["isError"] is True
    assert result["content"][0]["text"] == "Invalid date: use YYYY-MM-DD"


async def test_protocol_errors_raise_rpc_error_with_the_servers_code() -> None:
    server, _ = make_server()
    async with connect(server) as client:
        with pytest.raises(RpcError) as unknown_tool:
            await client.call_tool("nope", {})
        with pytest.raises(RpcError) as missing:
            await client.read_resource("courses://none")
        with pytest.raises(RpcError) as unknown_prompt:
            await client.get_prompt("nope")
    assert (unknown_tool.value.code, unknown_tool.value.message) == (
        INVALID_PARAMS,
        "Unknown tool: nope",
    )
    assert (missing.value.code, missing.value.data) == (
        RESOURCE_NOT_FOUND,
        {"uri": "courses://none"},
    )
    assert unknown_prompt.value.code == INVALID_PARAMS


async def test_progress_goes_to_the_call_that_asked_for_it_in_order() -> None:
    server = ToolServer("progress")
    server.declare("tools")
    tokens: list[Any] = []
    both_arrived = asyncio.Event()

    @server.method("tools/call")
    async def slow(ctx: RequestContext) -> dict[str, Any]:
        token = ctx.meta["progressToken"]
        tokens.append(token)
        if len(tokens) == 2:
            both_arrived.set()
        # both calls in flight before any progress
        await asyncio.wait_for(both_arrived.wait(), WAIT)
        label = ctx.params["arguments"]["label"]
        for step in (1, 2, 3):
            await ctx.session.notify(
                "notifications/progress",
                {
                    "progressToken": token,
                    "progress": step,
                    "total": 3,
                    "message": f"{label} {step}",
                },
            )
            await asyncio.sleep(0)  # let the other call interleave its notifications
        return {"content": text(f"{label} done")}

    heard: dict[str, list[tuple[Any, ...]]] = {"x": [], "y": []}

    async def on_x(progress: float, total: float | None, message: str | None) -> None:
        heard["x"].append((progress, total, message))

    def on_y(progress: float, total: float | None, message: str | None) -> None:
        heard["y"].append((progress, total, message))

    async with connect(server) as client:
        x, y = await asyncio.wait_for(
            asyncio.gather(
                client.call_tool("slow", {"label": "x"}, progress=on_x),
                client.call_tool("slow", {"label": "y"}, progress=on_y),
            ),
            WAIT,
        )
        # tokens are forgotten once their calls are answered
        assert client._progress._callbacks == {}

    assert (x["content"], y["content"]) == (text("x done"), text("y done"))
    assert len(set(tokens)) == 2 and all(isinstance(t, (str, int)) for t in tokens)
    assert heard["x"] == [(1, 3, "x 1"), (2, 3, "x 2"), (3, 3, "x 3")]
    assert heard["y"] == [(1, 3, "y 1"), (2, 3, "y 2"), (3, 3, "y 3")]


async def test_progress_for_an_unknown_token_is_ignored_but_still_seen() -> None:
    server, _ = make_server()
    seen: list[tuple[str, dict[str, Any]]] = []
    got = asyncio.Event()

    async def on_notification(method: str, params: dict[str, Any]) -> None:
        seen.append((method, params))
        got.set()

    async with connect(server, on_notification=on_notification) as client:
        await session_of(server).notify(
            "notifications/progress", {"progressToken": "stale", "progress": 1}
        )
        await asyncio.wait_for(got.wait(), WAIT)
        await client.ping()  # the connection is fine
    assert seen == [("notifications/progress", {"progressToken": "stale", "progress": 1})]


# -- resources ------------------------------------------------------------------------------------
async def test_list_and_read_resources() -> None:
    server, _ = make_server()
    async with connect(server) as client:
        resources = await client.list_resources()
        result = await client.read_resource("courses://all")
    assert resources == [
        {"uri": "courses://all", "name": "courses", "mimeType": "application/json"}
    ]
    assert result == {
        "contents": [
            {"uri": "courses://all", "mimeType": "application/json", "text": '[{"id": 1}]'}
        ]
    }


async def test_subscribe_routes_updates_to_its_callback() -> None:
    server, seen = make_server()
    updates: list[str] = []
    everything: list[str] = []
    arrived = asyncio.Event()

    async def on_notification(method: str, params: dict[str, Any]) -> None:
        everything.append(params.get("uri", ""))
        arrived.set()

    async def wait_for_one() -> None:
        await asyncio.wait_for(arrived.wait(), WAIT)
        arrived.clear()

    async with connect(server, on_notification=on_notification) as client:
        await client.subscribe("courses://all", updates.append)
        session = session_of(server)
        await session.notify("notifications/resources/updated", {"uri": "courses://all"})
        await wait_for_one()
        await session.notify("notifications/resources/updated", {"uri": "users://all"})  # not ours
        await wait_for_one()
        await client.unsubscribe("courses://all")
        await session.notify("notifications/resources/updated", {"uri": "courses://all"})
        await wait_for_one()

    assert seen["subscribe"] == ["courses://all"] and seen["unsubscribe"] == ["courses://all"]
    assert updates == ["courses://all"]  # one update while subscribed, none after
    assert everything == ["courses://all", "users://all", "courses://all"]


# -- prompts ------------------------------------------------------------------------------------
async def test_list_and_get_prompts() -> None:
    server, seen = make_server()
    async with connect(server) as client:
        prompts = await client.list_prompts()
        result = await client.get_prompt("course-similar-by-name", {"names": "caché, vistas"})
    assert prompts[0]["name"] == "course-similar-by-name"
    assert seen["prompts/get"] == [
        {"name": "course-similar-by-name", "arguments": {"names": "caché, vistas"}}
    ]
    assert result["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "Find courses like caché, vistas"}}
    ]


# -- what the client was before: unchanged -------------------------------------------------------
async def test_the_constructor_and_request_still_work_as_before() -> None:
    server, _ = make_server()

    async def on_request(method: str, params: dict[str, Any]) -> Any:
        return {"roots": []} if method == "roots/list" else {}

    async with connect(
        server, name="old", version="1.2.3", capabilities={"roots": {}}, on_request=on_request
    ) as client:
        session = session_of(server)
        assert session.client_info == {"name": "old", "version": "1.2.3"}
        assert session.client_capabilities == {"roots": {}}
        assert await session.request("roots/list", timeout=WAIT) == {"roots": []}
        assert client.server_info == {"name": "test-server", "version": "0.1.0"}
        assert client.server_capabilities["tools"] == {"listChanged": True}
        assert (await client.request("resources/list"))["resources"][0]["uri"] == "courses://all"
