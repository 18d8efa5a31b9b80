"""Lesson 12: Streamable HTTP for MCP 2026-07-28, beside lesson 08's sessions on the same endpoint.

POST only; no session id; the standard headers checked against the body (-32020); the envelope's
errors with status 400, an unknown method 404; an answer as JSON or as an SSE stream without event
ids; a stream the client closes cancels its request. The official SDK's client in mode="auto" ends
up here, with no initialize on the wire.
"""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import httpx2
import pytest
from complete_support import complete_server, running_complete
from http_support import TIMEOUT, header_tap
from mcp import Client
from support import until
from test_modern import asking_server
from test_session_owners import ISSUER, KEY, headers_of

from minimcp.auth import protect
from minimcp.server import report_progress
from minimcp.session import RequestContext

VERSION = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
}
HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": VERSION,
}


def message(method: str, request_id: int = 1, **params: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {"_meta": META, **params},
    }


def headers_for(body: dict[str, Any], **changes: str | None) -> dict[str, str]:
    """The headers a 2026 client sends with ``body``, some changed (None: left out)."""
    sent = {**HEADERS, "mcp-method": body["method"]}
    name = body["params"].get("name", body["params"].get("uri"))
    if name is not None:
        sent["mcp-name"] = name
    for key, value in changes.items():
        header = key.replace("_", "-")
        if value is None:
            sent.pop(header, None)
        else:
            sent[header] = value
    return sent


async def post(
    http: httpx2.AsyncClient, url: str, body: dict[str, Any], **changes: str | None
) -> httpx2.Response:
    return await http.post(url, json=body, headers=headers_for(body, **changes))


async def still_serving(http: httpx2.AsyncClient, url: str) -> None:
    answer = await post(http, url, message("tools/list", 99))
    assert answer.status_code == 200 and answer.json()["result"]["resultType"] == "complete"


async def test_discover_is_one_json_answer_with_no_session() -> None:
    async with running_complete() as server, httpx2.AsyncClient(timeout=TIMEOUT) as http:
        answer = await post(http, server.url, message("server/discover"))
        assert answer.status_code == 200
        assert answer.headers["content-type"] == "application/json"
        assert "mcp-session-id" not in answer.headers
        assert answer.json()["result"]["supportedVersions"][0] == VERSION
        assert server.app.sessions == {}  # nothing kept


@pytest.mark.parametrize(
    ("body", "changes", "why"),
    [
        (
            message("tools/list"),
            {"mcp_protocol_version": None},
            "the MCP-Protocol-Version header is required",
        ),
        (
            message("tools/list"),
            {"mcp_method": None},
            "the Mcp-Method header is required: it repeats the body's method, 'tools/list'",
        ),
        (
            message("tools/list"),
            {"mcp_method": "prompts/list"},
            "Mcp-Method header value 'prompts/list' does not match body value 'tools/list'",
        ),
        (
            message("tools/list"),
            {"mcp_method": "TOOLS/LIST"},
            "Mcp-Method header value 'TOOLS/LIST' does not match body value 'tools/list'",
        ),
        (
            message("tools/call", name="read_events", arguments={"date": "2025-03-21"}),
            {"mcp_name": "wrong_tool"},
            "Mcp-Name header value 'wrong_tool' does not match body value 'read_events'",
        ),
        (
            message("tools/call", name="read_events", arguments={"date": "2025-03-21"}),
            {"mcp_name": None},
            "the Mcp-Name header is required for tools/call",
        ),
        (
            message("resources/read", uri="courses://all"),
            {"mcp_name": "=?base64?SGVs!!!bG8=?="},
            "header value '=?base64?SGVs!!!bG8=?=' is not valid Base64 of UTF-8 text",
        ),
    ],
)
async def test_a_header_that_contradicts_the_body_is_a_header_mismatch(
    body: dict[str, Any], changes: dict[str, str | None], why: str
) -> None:
    async with running_complete() as server, httpx2.AsyncClient(timeout=TIMEOUT) as http:
        answer = await post(http, server.url, body, **changes)
        assert answer.status_code == 400
        assert answer.json() == {
            "jsonrpc": "2.0",
            "id": 1,
            "error": {"code": -32020, "message": f"Header mismatch: {why}"},
        }
        await still_serving(http, server.url)


async def test_the_version_header_must_match_the_envelope() -> None:
    async with running_complete() as server, httpx2.AsyncClient(timeout=TIMEOUT) as http:
        body = message("tools/list")
        body["params"]["_meta"] = {**META, "io.modelcontextprotocol/protocolVersion": "v999.0.0"}
        answer = await post(http, server.url, body)
        assert (answer.status_code, answer.json()["error"]["code"]) == (400, -32020)
        answer = await post(http, server.url, body, mcp_protocol_version="v999.0.0")
        assert answer.status_code == 400
        assert answer.json()["error"] == {
            "code": -32022,
            "message": "Unsupported protocol version",
            "data": {
                "supported": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"],
                "requested": "v999.0.0",
            },
        }
        await still_serving(http, server.url)


async def test_a_name_sent_in_base64_is_decoded() -> None:
    async with running_complete() as server, httpx2.AsyncClient(timeout=TIMEOUT) as http:
        encoded = "=?base64?" + base64.b64encode(b"courses://all").decode() + "?="
        answer = await post(
            http, server.url, message("resources/read", uri="courses://all"), mcp_name=encoded
        )
        assert answer.status_code == 200 and answer.json()["result"]["contents"]


async def test_envelope_errors_are_400_and_an_unknown_method_404() -> None:
    async with running_complete() as server, httpx2.AsyncClient(timeout=TIMEOUT) as http:
        body = message("server/discover")
        body["params"] = {"_meta": {"io.modelcontextprotocol/protocolVersion": VERSION}}
        answer = await post(http, server.url, body)
        assert (answer.status_code, answer.json()["error"]["code"]) == (400, -32602)
        answer = await post(http, server.url, message("initialize"))
        assert answer.status_code == 404
        assert answer.json()["error"] == {
            "code": -32601,
            "message": (
                "Method not found: initialize "
                "(2026-07-28 has no handshake: every request carries its _meta)"
            ),
        }
        await still_serving(http, server.url)


@pytest.mark.parametrize("method", ["GET", "DELETE"])
async def test_get_and_delete_are_not_allowed_in_2026(method: str) -> None:
    async with running_complete() as server, httpx2.AsyncClient(timeout=TIMEOUT) as http:
        answer = await http.request(
            method, server.url, headers={**HEADERS, "accept": "text/event-stream"}
        )
        assert (answer.status_code, answer.headers["allow"]) == (405, "POST")
        assert (
            answer.json()["error"]["message"]
            == f"Method not allowed: {method} (MCP 2026-07-28 is served over "
            "POST only)"
        )


async def test_progress_streams_without_event_ids_then_the_answer_ends_it() -> None:
    async with running_complete() as server, httpx2.AsyncClient(timeout=TIMEOUT) as http:
        body = message("tools/call", name="run_analysis", arguments={"steps": 3})
        body["params"]["_meta"]["progressToken"] = "p"
        async with http.stream("POST", server.url, json=body, headers=headers_for(body)) as answer:
            assert answer.headers["content-type"] == "text/event-stream"
            assert answer.headers["x-accel-buffering"] == "no"
            text = (await answer.aread()).decode()
        events = [block for block in text.split("\n\n") if block.strip()]
        # no id:, no priming
        assert all(line.startswith("data: ") for block in events for line in block.splitlines())
        said = [json.loads(block.removeprefix("data: ")) for block in events]
        assert [note["params"]["progress"] for note in said[:-1]] == [1, 2, 3]
        assert said[-1]["id"] == 1 and said[-1]["result"]["resultType"] == "complete"


async def test_a_late_answer_streams_and_stream_after_zero_always_streams() -> None:
    """The answer is worked out in the POST's own task; one still running after ``stream_after``
    gets a stream all the same, and ``stream_after=0`` streams even an answer ready at once."""
    server = complete_server()

    @server.tool()
    async def slow() -> str:
        """Answers after a while, saying nothing first."""
        await asyncio.sleep(0.3)
        return "late"

    late_call = message("tools/call", name="slow", arguments={})
    for stream_after, body in ((0.05, late_call), (0.0, message("tools/list"))):
        async with (
            running_complete(server, stream_after=stream_after) as http_server,
            httpx2.AsyncClient(timeout=TIMEOUT) as http,
        ):
            answer = await post(http, http_server.url, body)
            assert answer.headers["content-type"] == "text/event-stream"
            last = answer.text.strip().split("\n\n")[-1]
            assert json.loads(last.removeprefix("data: "))["result"]["resultType"] == "complete"


async def test_closing_the_stream_cancels_the_request() -> None:
    server = complete_server()
    stopped = asyncio.Event()

    @server.tool()
    async def forever(context: RequestContext) -> str:
        """Reports once, then waits until cancelled."""
        await report_progress(context, 1, None)
        try:
            await asyncio.sleep(60)
        finally:
            stopped.set()
        return "never"

    async with running_complete(server) as http_server, httpx2.AsyncClient(timeout=TIMEOUT) as http:
        body = message("tools/call", name="forever")
        body["params"]["_meta"]["progressToken"] = "p"
        async with http.stream(
            "POST", http_server.url, json=body, headers=headers_for(body)
        ) as answer:
            async for chunk in answer.aiter_bytes():
                assert b"notifications/progress" in chunk
                break
        # the client left: the handler was cancelled
        await asyncio.wait_for(stopped.wait(), TIMEOUT)


async def test_a_2025_session_and_2026_requests_share_the_endpoint() -> None:
    async with running_complete() as server, httpx2.AsyncClient(timeout=TIMEOUT) as http:
        legacy = {"accept": HEADERS["accept"], "content-type": "application/json"}
        opened = await http.post(
            server.url,
            headers=legacy,
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            },
        )
        legacy |= {
            "mcp-session-id": opened.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-11-25",
        }
        await http.post(
            server.url,
            headers=legacy,
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
        )
        await still_serving(http, server.url)
        answer = await http.post(
            server.url, headers=legacy, json={"jsonrpc": "2.0", "id": 2, "method": "ping"}
        )
        assert answer.json() == {"jsonrpc": "2.0", "id": 2, "result": {}}
        assert list(server.app.sessions) == [opened.headers["mcp-session-id"]]


async def test_the_sdk_in_auto_mode_speaks_2026_over_http_with_no_initialize_on_the_wire() -> None:
    seen: list[dict[str, str]] = []
    async with (
        running_complete(around=header_tap(seen)) as server,
        Client(server.url, mode="auto") as client,
    ):
        assert client.protocol_version == VERSION
        progress: list[float] = []

        async def on_progress(done: float, total: float | None, text: str | None) -> None:
            progress.append(done)

        result = await client.call_tool("run_analysis", {"steps": 3}, progress_callback=on_progress)
        assert result.content[0].text.startswith("Analysed 12 courses")  # type: ignore[union-attr]
        assert progress == [1, 2, 3]
    assert seen and all(
        sent[":method"] == "POST" and "mcp-session-id" not in sent for sent in seen
    ), seen
    assert (
        "initialize" not in [sent.get("mcp-method") for sent in seen]
        and seen[0]["mcp-method"] == "server/discover"
    )


async def test_a_listener_hears_list_changes_on_its_own_stream_until_it_closes_it() -> None:
    async with running_complete() as server, httpx2.AsyncClient(timeout=TIMEOUT) as http:
        body = message("subscriptions/listen", 7, notifications={"toolsListChanged": True})
        async with http.stream("POST", server.url, json=body, headers=headers_for(body)) as answer:
            assert answer.headers["content-type"] == "text/event-stream"
            lines = answer.aiter_lines()
            first = json.loads((await anext(lines)).removeprefix("data: "))
            assert first["method"] == "notifications/subscriptions/acknowledged"
            assert first["params"]["_meta"] == {"io.modelcontextprotocol/subscriptionId": 7}
            # any change of the list, from anywhere
            server.app.server.add_tool(lambda: "hi", "newcomer")
            async for line in lines:
                if line.startswith("data: "):
                    heard = json.loads(line.removeprefix("data: "))
                    break
            assert heard == {
                "jsonrpc": "2.0",
                "method": "notifications/tools/list_changed",
                "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 7}},
            }
        # the client closed the stream
        await until(lambda: not server.app.server.subscriptions.listeners)
        assert not server.app.server.subscriptions.listeners


async def test_a_plain_tool_that_changes_the_list_is_heard_with_no_session_ever_opened() -> None:
    """A plain tool runs in a worker thread (lesson 04), and its announcement is handed to the
    server's loop: that loop must be known even when every request came alone (2026-07-28)."""
    served = complete_server(step_delay=0.01)

    @served.tool()
    def grow() -> str:
        """Add a tool, from the worker thread a plain tool runs in."""
        served.add_tool(lambda: "hi", "grown")
        return "grown"

    async with running_complete(served) as server, httpx2.AsyncClient(timeout=TIMEOUT) as http:
        body = message("subscriptions/listen", 7, notifications={"toolsListChanged": True})
        async with http.stream("POST", server.url, json=body, headers=headers_for(body)) as answer:
            lines = answer.aiter_lines()
            first = json.loads((await anext(lines)).removeprefix("data: "))
            assert first["method"] == "notifications/subscriptions/acknowledged"
            call = message("tools/call", 8, name="grow", arguments={})
            called = await http.post(server.url, json=call, headers=headers_for(call))
            assert called.status_code == 200, called.text
            async for line in lines:
                if line.startswith("data: "):
                    heard = json.loads(line.removeprefix("data: "))
                    break
            assert heard["method"] == "notifications/tools/list_changed"


def with_header_parameters() -> Any:
    server = complete_server()

    def route(region: str, priority: int | None = None, verbose: bool | None = None) -> str:
        return f"{region} {priority} {verbose}"

    server.add_tool(
        route,
        input_schema={
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "priority": {"type": "integer", "x-mcp-header": "Priority"},
                "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
            },
        },
    )
    return server


@pytest.mark.parametrize(
    ("arguments", "headers", "why"),
    [
        (
            {"region": "us-west1"},
            {},
            "the Mcp-Param-Region header is required: the body sets 'region'",
        ),
        (
            {"region": "us-west1"},
            {"mcp-param-region": "eu-west1"},
            "Mcp-Param-Region header value 'eu-west1' does not match body value 'us-west1'",
        ),
        (
            {"region": "Hello"},
            {"mcp-param-region": "=?base64?SGVsbG8?="},
            "header value '=?base64?SGVsbG8?=' is not valid Base64 of UTF-8 text",
        ),
        (
            {"region": "x", "priority": 42},
            {"mcp-param-region": "x", "mcp-param-priority": "43"},
            "Mcp-Param-Priority header value '43' does not match body value 42",
        ),
    ],
)
async def test_header_parameters_must_say_what_the_arguments_say(
    arguments: dict[str, Any], headers: dict[str, str], why: str
) -> None:
    async with (
        running_complete(with_header_parameters()) as server,
        httpx2.AsyncClient(timeout=TIMEOUT) as http,
    ):
        body = message("tools/call", name="route", arguments=arguments)
        answer = await http.post(server.url, json=body, headers={**headers_for(body), **headers})
        assert answer.status_code == 400
        assert answer.json()["error"] == {"code": -32020, "message": f"Header mismatch: {why}"}
        await still_serving(http, server.url)


async def test_header_parameters_that_agree_are_served() -> None:
    async with (
        running_complete(with_header_parameters()) as server,
        httpx2.AsyncClient(timeout=TIMEOUT) as http,
    ):
        body = message(
            "tools/call",
            name="route",
            arguments={"region": "Hello, 世界", "priority": 42, "verbose": False},
        )
        answer = await http.post(
            server.url,
            json=body,
            headers={
                **headers_for(body),
                "mcp-param-region": "=?base64?"
                + base64.b64encode("Hello, 世界".encode()).decode()
                + "?=",
                "mcp-param-priority": "42",
                "mcp-param-verbose": "false",
            },
        )
        assert answer.status_code == 200
        assert answer.json()["result"]["content"][0]["text"] == "Hello, 世界 42 False"
        body = message(
            "tools/call", name="route", arguments={"region": "=?base64", "verbose": None}
        )
        answer = await http.post(
            server.url, json=body, headers={**headers_for(body), "mcp-param-region": "=?base64"}
        )
        # no suffix: a literal value; a null argument: no header expected
        assert answer.status_code == 200


async def test_a_nested_header_argument_is_checked_at_its_path() -> None:
    """``x-mcp-header`` on a property of an object argument: the header must say what the body
    says at that path (before, the server ignored it, and the wrong header was served)."""
    server = complete_server()

    def locate(where: dict[str, Any]) -> str:
        return f"in {where['region']}"

    region = {"type": "string", "x-mcp-header": "Region"}
    where = {"type": "object", "properties": {"region": region}}
    server.add_tool(locate, input_schema={"type": "object", "properties": {"where": where}})
    async with running_complete(server) as http_server, httpx2.AsyncClient(timeout=TIMEOUT) as http:
        body = message("tools/call", name="locate", arguments={"where": {"region": "us-west1"}})
        wrong = {**headers_for(body), "mcp-param-region": "eu-west1"}
        answer = await http.post(http_server.url, json=body, headers=wrong)
        assert answer.status_code == 400
        assert answer.json()["error"] == {
            "code": -32020,
            "message": "Header mismatch: Mcp-Param-Region header value 'eu-west1' does not match "
            "body value 'us-west1'",
        }
        right = {**headers_for(body), "mcp-param-region": "us-west1"}
        answer = await http.post(http_server.url, json=body, headers=right)
        assert answer.json()["result"]["content"] == [{"type": "text", "text": "in us-west1"}]


# -- a request state is its user's alone -----------------------------------------------------------


def greet(request_id: int, **more: Any) -> dict[str, Any]:
    """A call of ``greet`` (it asks the user's name), from a client that can be asked."""
    capabilities = {"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
    params = {"_meta": {**META, **capabilities}, "name": "greet", **more}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


async def test_a_state_replayed_by_another_user_is_invalid_params() -> None:
    """Behind lesson 10's guard, a state is sealed for the user who was asked: another user's token
    with the same state on the same request is refused (mrtr: "the authenticated principal,
    rejecting state presented by a different principal"); the user who was asked goes on."""
    guard = protect(ISSUER, {"rsa": KEY.public_key()}, scopes=["mcp"])
    async with (
        running_complete(asking_server(), around=guard) as server,
        httpx2.AsyncClient(timeout=TIMEOUT) as http,
    ):
        ada, bob = headers_of(server.url, "ada"), headers_of(server.url, "bob")
        first = greet(1)
        asked = await http.post(server.url, json=first, headers={**headers_for(first), **ada})
        answer = {"action": "accept", "content": {"name": "Ada"}}
        retry = greet(
            2,
            requestState=asked.json()["result"]["requestState"],
            inputResponses={"elicitation-1": answer},
        )
        replayed = await http.post(server.url, json=retry, headers={**headers_for(retry), **bob})
        assert replayed.status_code == 400
        assert replayed.json()["error"] == {
            "code": -32602,
            "message": "Invalid params: requestState refused: it was sealed for another user",
        }
        answered = await http.post(server.url, json=retry, headers={**headers_for(retry), **ada})
        assert answered.json()["result"]["content"] == [{"type": "text", "text": "Hello, Ada!"}]
