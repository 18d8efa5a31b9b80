"""The conformance suite's server (minimcp.examples.conformance), checked the way the suite checks
it.

The official suite (``@modelcontextprotocol/conformance`` 0.1.16, run by ``tools/conformance.py``)
talks to this server over Streamable HTTP. Here the same expectations, scenario by scenario, run
over the in-memory cable with minimcp's client, which declares ``sampling`` and ``elicitation`` and
answers them as the suite's client does. One test more drives ``python -m minimcp serve --example
conformance`` over stdio with the official SDK's client (``mcp==2.3.0``).
"""

from __future__ import annotations

import asyncio
import base64
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from support import TIMEOUT

from minimcp.client import Client
from minimcp.examples.conformance import build_server
from minimcp.examples.conformance_data import JSON_SCHEMA_2020_12, PNG, WAV
from minimcp.rpc import memory_pair

#: What the suite's client answers to sampling/createMessage (tools-call-sampling).
SAMPLED = {
    "role": "assistant",
    "model": "test-model",
    "stopReason": "endTurn",
    "content": {"type": "text", "text": "This is a test response from the client"},
}
#: What the suite's client answers to each elicitation/create, by the tool that asks.
ELICITED = {
    "Please provide your information": {
        "action": "accept",
        "content": {"username": "testuser", "email": "test@example.com"},
    },
    "Please review and update the form fields with defaults": {
        "action": "accept",
        "content": {
            "name": "Jane Smith",
            "age": 25,
            "score": 88.0,
            "status": "inactive",
            "verified": False,
        },
    },
    "Please select options from the enum fields": {
        "action": "accept",
        "content": {
            "untitledSingle": "option1",
            "titledSingle": "value1",
            "legacyEnum": "opt1",
            "untitledMulti": ["option1", "option2"],
            "titledMulti": ["value1", "value2"],
        },
    },
}

TOOLS = {
    "test_simple_text",
    "test_image_content",
    "test_audio_content",
    "test_embedded_resource",
    "test_multiple_content_types",
    "test_tool_with_logging",
    "test_tool_with_progress",
    "test_error_handling",
    "test_sampling",
    "test_elicitation",
    "test_elicitation_sep1034_defaults",
    "test_elicitation_sep1330_enums",
    "json_schema_2020_12_tool",
}


class SuiteClient:
    """The suite's client, as far as the server can tell: what it declares and how it answers."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.notifications: list[tuple[str, dict[str, Any]]] = []

    async def on_request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.requests.append((method, params))
        if method == "sampling/createMessage":
            return SAMPLED
        assert method == "elicitation/create"
        return ELICITED[params["message"]]

    async def on_notification(self, method: str, params: dict[str, Any]) -> None:
        self.notifications.append((method, params))

    def logs(self) -> list[dict[str, Any]]:
        return [
            params for method, params in self.notifications if method == "notifications/message"
        ]


@asynccontextmanager
async def suite(
    capabilities: dict[str, Any] | None = None,
) -> AsyncIterator[tuple[Client, SuiteClient]]:
    """A fresh conformance server, and a client that declares and answers sampling and
    elicitation."""
    peer = SuiteClient()
    client_end, server_end = memory_pair()
    serving = asyncio.ensure_future(build_server().serve(server_end))
    if capabilities is None:
        capabilities = {"sampling": {}, "elicitation": {}}  # what the suite's client declares
    try:
        async with Client(
            client_end,
            name="conformance-test-client",
            version="1.0.0",
            capabilities=capabilities,
            on_request=peer.on_request,
            on_notification=peer.on_notification,
        ) as client:
            yield client, peer
    finally:
        await asyncio.wait_for(serving, TIMEOUT)


async def call(
    client: Client, name: str, arguments: dict[str, Any] | None = None, **options: Any
) -> dict[str, Any]:
    return await client.call_tool(name, arguments, timeout=TIMEOUT, **options)


# -- server-initialize, ping, logging-set-level, completion-complete -------------------------------
async def test_initialize_declares_every_capability_the_suite_uses() -> None:
    async with suite() as (client, _):
        assert client.protocol_version == "2025-11-25"
        assert client.server_info["name"] == "minimcp-conformance"
        assert client.server_capabilities == {
            "logging": {},
            "completions": {},
            "tools": {"listChanged": True},
            "resources": {"subscribe": True, "listChanged": True},
            "prompts": {"listChanged": True},
        }
        assert await client.request("ping", timeout=TIMEOUT) == {}
        assert await client.request("logging/setLevel", {"level": "info"}, TIMEOUT) == {}


async def test_completion_answers_values_for_the_prompt_argument_the_suite_asks_about() -> None:
    async with suite() as (client, _):
        answer = await client.request(
            "completion/complete",
            {
                "ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
                "argument": {"name": "arg1", "value": "test"},
            },
            TIMEOUT,
        )
        assert answer == {"completion": {"values": [], "total": 0, "hasMore": False}}
        assert await client.complete("arg1", "par", prompt="test_prompt_with_arguments") == {
            "values": ["paris", "park", "party"],
            "total": 3,
            "hasMore": False,
        }
        assert await client.complete("id", "4", template="test://template/{id}/data") == {
            "values": ["456"],
            "total": 1,
            "hasMore": False,
        }


# -- tools-list, json-schema-2020-12 ---------------------------------------------------------------
async def test_every_tool_has_a_name_a_description_and_an_input_schema() -> None:
    async with suite() as (client, _):
        tools = await client.list_tools()
    # test_reconnection comes with lesson 08's transport
    assert TOOLS <= {tool["name"] for tool in tools}
    for tool in tools:
        assert tool["name"] and tool["description"] and tool["inputSchema"]["type"] == "object"
    by_name = {tool["name"]: tool for tool in tools}
    assert by_name["json_schema_2020_12_tool"] == {
        "name": "json_schema_2020_12_tool",
        "description": "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
        "inputSchema": JSON_SCHEMA_2020_12,
    }
    schema = by_name["json_schema_2020_12_tool"]["inputSchema"]
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert "address" in schema["$defs"] and schema["additionalProperties"] is False
    assert by_name["test_sampling"]["inputSchema"]["required"] == ["prompt"]
    assert by_name["test_elicitation"]["inputSchema"]["required"] == ["message"]


async def test_the_json_schema_2020_12_tool_validates_with_its_refs() -> None:
    async with suite() as (client, _):
        arguments = {"name": "Ada", "address": {"city": "London"}, "email": "ada@example.com"}
        result = await call(client, "json_schema_2020_12_tool", arguments)
        assert result["content"][0]["text"] == (
            'JSON Schema 2020-12 tool called with: {"name": "Ada", '
            '"address": {"city": "London"}, "email": "ada@example.com"}'
        )
        # if/then/else: a phone contact needs a phone number
        missing = await call(
            client, "json_schema_2020_12_tool", {"contactMethod": "phone", "email": "a@b.c"}
        )
        assert missing["content"][0]["text"] == (
            "Invalid arguments for tool json_schema_2020_12_tool: 'phone' is a required property"
        )
        wrong = await call(
            client, "json_schema_2020_12_tool", {"address": {"city": 7}, "email": "a@b.c"}
        )
        assert wrong["isError"] is True
        assert wrong["content"][0]["text"] == (
            "Invalid arguments for tool json_schema_2020_12_tool: "
            "address/city: 7 is not of type 'string'"
        )


# -- tools-call-* ----------------------------------------------------------------------------------
async def test_the_content_tools_answer_what_the_suite_checks() -> None:
    async with suite() as (client, _):
        # tools-call-simple-text calls it without "arguments" at all
        simple = await client.request("tools/call", {"name": "test_simple_text"}, TIMEOUT)
        assert simple["content"] == [
            {"type": "text", "text": "This is a simple text response for testing."}
        ]

        image = (await call(client, "test_image_content"))["content"]
        assert image == [
            {"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"}
        ]
        assert PNG.startswith(b"\x89PNG\r\n\x1a\n")

        audio = (await call(client, "test_audio_content"))["content"]
        assert audio == [
            {"type": "audio", "data": base64.b64encode(WAV).decode(), "mimeType": "audio/wav"}
        ]
        assert WAV[:4] == b"RIFF" and WAV[8:12] == b"WAVE"

        embedded = (await call(client, "test_embedded_resource"))["content"]
        assert embedded == [
            {
                "type": "resource",
                "resource": {
                    "uri": "test://embedded-resource",
                    "mimeType": "text/plain",
                    "text": "This is an embedded resource content.",
                },
            }
        ]

        mixed = (await call(client, "test_multiple_content_types"))["content"]
        assert [block["type"] for block in mixed] == ["text", "image", "resource"]
        assert json.loads(mixed[2]["resource"]["text"]) == {"test": "data", "value": 123}
        assert mixed[2]["resource"]["mimeType"] == "application/json"


async def test_the_error_tool_answers_is_error_with_a_message() -> None:
    async with suite() as (client, _):
        result = await call(client, "test_error_handling")
        assert result == {
            "isError": True,
            "content": [
                {"type": "text", "text": "This tool intentionally returns an error for testing"}
            ],
        }
        assert await client.request("ping", timeout=TIMEOUT) == {}


async def test_the_logging_tool_sends_three_messages_while_it_runs() -> None:
    async with suite() as (client, peer):
        await client.set_logging_level("debug", timeout=TIMEOUT)
        result = await call(client, "test_tool_with_logging")
        assert result["content"][0]["text"] == "Tool with logging executed successfully"
        assert peer.logs() == [
            {"level": "info", "logger": "conformance", "data": data}
            for data in (
                "Tool execution started",
                "Tool processing data",
                "Tool execution completed",
            )
        ]
        # at a stricter level the same call logs nothing
        await client.set_logging_level("warning", timeout=TIMEOUT)
        await call(client, "test_tool_with_logging")
        assert len(peer.logs()) == 3


async def test_the_progress_tool_reports_0_50_100_of_100() -> None:
    async with suite() as (client, _):
        updates: list[tuple[float, float | None, str | None]] = []
        result = await call(
            client, "test_tool_with_progress", progress=lambda *update: updates.append(update)
        )
        assert updates == [
            (0, 100, "Completed step 0 of 100"),
            (50, 100, "Completed step 50 of 100"),
            (100, 100, "Completed step 100 of 100"),
        ]
        assert result["content"][0]["text"] == 'Progress reported for token "progress-1"'
        # the suite's own token, as it sends it (an integer works as well as a string)
        raw = await client.request(
            "tools/call",
            {"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": 7}},
            TIMEOUT,
        )
        assert raw["content"][0]["text"] == "Progress reported for token 7"


async def test_the_sampling_tool_asks_the_client_and_returns_its_answer() -> None:
    async with suite() as (client, peer):
        result = await call(client, "test_sampling", {"prompt": "Test prompt for sampling"})
    assert result["content"][0]["text"] == "LLM response: This is a test response from the client"
    assert peer.requests == [
        (
            "sampling/createMessage",
            {
                "messages": [
                    {
                        "role": "user",
                        "content": {"type": "text", "text": "Test prompt for sampling"},
                    }
                ],
                "maxTokens": 100,
            },
        )
    ]


async def test_the_elicitation_tool_asks_for_username_and_email() -> None:
    async with suite() as (client, peer):
        result = await call(
            client, "test_elicitation", {"message": "Please provide your information"}
        )
    assert result["content"][0]["text"] == (
        'User response: action=accept, content={"username": "testuser", '
        '"email": "test@example.com"}'
    )
    [(method, params)] = peer.requests
    assert method == "elicitation/create"
    assert params["message"] == "Please provide your information"
    assert params["requestedSchema"]["required"] == ["username", "email"]
    assert {
        name: prop["type"] for name, prop in params["requestedSchema"]["properties"].items()
    } == {"username": "string", "email": "string"}


async def test_sep1034_every_primitive_type_has_its_default() -> None:
    async with suite() as (client, peer):
        result = await call(client, "test_elicitation_sep1034_defaults")
    assert result["content"][0]["text"].startswith(
        'Elicitation completed: action=accept, content={"name"'
    )
    properties = peer.requests[0][1]["requestedSchema"]["properties"]
    assert {name: (prop["type"], prop["default"]) for name, prop in properties.items()} == {
        "name": ("string", "John Doe"),
        "age": ("integer", 30),
        "score": ("number", 95.5),
        "status": ("string", "active"),
        "verified": ("boolean", True),
    }
    assert properties["status"]["default"] in properties["status"]["enum"]


async def test_sep1330_the_five_enum_variants() -> None:
    async with suite() as (client, peer):
        result = await call(client, "test_elicitation_sep1330_enums")
    assert result["content"][0]["text"].startswith(
        "Elicitation completed: action=accept, content={"
    )
    p = peer.requests[0][1]["requestedSchema"]["properties"]
    assert p["untitledSingle"]["type"] == "string" and isinstance(p["untitledSingle"]["enum"], list)
    assert "oneOf" not in p["untitledSingle"] and "enumNames" not in p["untitledSingle"]
    assert p["titledSingle"]["type"] == "string" and "enum" not in p["titledSingle"]
    assert all(
        isinstance(o["const"], str) and isinstance(o["title"], str)
        for o in p["titledSingle"]["oneOf"]
    )
    assert p["legacyEnum"]["type"] == "string"
    assert len(p["legacyEnum"]["enumNames"]) == len(p["legacyEnum"]["enum"])
    assert p["untitledMulti"]["type"] == "array" and p["untitledMulti"]["items"]["type"] == "string"
    assert isinstance(p["untitledMulti"]["items"]["enum"], list)
    assert "anyOf" not in p["untitledMulti"]["items"]
    assert p["titledMulti"]["type"] == "array" and "enum" not in p["titledMulti"]["items"]
    assert all(
        isinstance(o["const"], str) and isinstance(o["title"], str)
        for o in p["titledMulti"]["items"]["anyOf"]
    )


async def test_without_the_capabilities_sampling_and_elicitation_return_an_error() -> None:
    async with suite(capabilities={}) as (client, peer):
        sampled = await call(client, "test_sampling", {"prompt": "hello"})
        assert (
            sampled["isError"] is True and "'sampling' capability" in sampled["content"][0]["text"]
        )
        for name, arguments in (
            ("test_elicitation", {"message": "hi"}),
            ("test_elicitation_sep1034_defaults", {}),
            ("test_elicitation_sep1330_enums", {}),
        ):
            result = await call(client, name, arguments)
            assert (
                result["isError"] is True
                and "'elicitation' capability" in result["content"][0]["text"]
            )
        assert await client.request("ping", timeout=TIMEOUT) == {}
    assert peer.requests == []


# -- resources-* -----------------------------------------------------------------------------------
async def test_resources_list_read_and_subscribe() -> None:
    async with suite() as (client, _):
        resources = await client.list_resources()
        assert {r["uri"] for r in resources} == {
            "test://static-text",
            "test://static-binary",
            "test://watched-resource",
        }
        assert all(r["name"] and r["description"] and r["mimeType"] for r in resources)
        templates = await client.list_resource_templates()
        assert [t["uriTemplate"] for t in templates] == ["test://template/{id}/data"]

        assert await client.read_resource("test://static-text") == {
            "contents": [
                {
                    "uri": "test://static-text",
                    "mimeType": "text/plain",
                    "text": "This is the content of the static text resource.",
                }
            ]
        }
        assert await client.read_resource("test://static-binary") == {
            "contents": [
                {
                    "uri": "test://static-binary",
                    "mimeType": "image/png",
                    "blob": base64.b64encode(PNG).decode(),
                }
            ]
        }
        [content] = (await client.read_resource("test://template/123/data"))["contents"]
        assert (content["uri"], content["mimeType"]) == (
            "test://template/123/data",
            "application/json",
        )
        assert json.loads(content["text"]) == {
            "id": "123",
            "templateTest": True,
            "data": "Data for ID: 123",
        }

        watched = {"uri": "test://watched-resource"}
        assert await client.request("resources/subscribe", watched, TIMEOUT) == {}
        assert await client.request("resources/unsubscribe", watched, TIMEOUT) == {}


# -- prompts-* -------------------------------------------------------------------------------------
async def test_prompts_list_and_get() -> None:
    async with suite() as (client, _):
        prompts = {p["name"]: p for p in await client.list_prompts()}
        assert set(prompts) == {
            "test_simple_prompt",
            "test_prompt_with_arguments",
            "test_prompt_with_embedded_resource",
            "test_prompt_with_image",
            "test_input_required_result_prompt",
        }  # the 2026-07-28 scenarios' (lesson 12)
        assert all(p["description"] for p in prompts.values())
        assert prompts["test_prompt_with_arguments"]["arguments"] == [
            {"name": "arg1", "description": "First test argument", "required": True},
            {"name": "arg2", "description": "Second test argument", "required": True},
        ]

        simple = await client.get_prompt("test_simple_prompt")
        assert simple["messages"] == [
            {
                "role": "user",
                "content": {"type": "text", "text": "This is a simple prompt for testing."},
            }
        ]
        with_args = await client.get_prompt(
            "test_prompt_with_arguments", {"arg1": "testValue1", "arg2": "testValue2"}
        )
        assert with_args["messages"][0]["content"]["text"] == (
            "Prompt with arguments: arg1='testValue1', arg2='testValue2'"
        )
        embedded = await client.get_prompt(
            "test_prompt_with_embedded_resource", {"resourceUri": "test://example-resource"}
        )
        assert embedded["messages"] == [
            {
                "role": "user",
                "content": {
                    "type": "resource",
                    "resource": {
                        "uri": "test://example-resource",
                        "mimeType": "text/plain",
                        "text": "Embedded resource content for testing.",
                    },
                },
            },
            {
                "role": "user",
                "content": {"type": "text", "text": "Please process the embedded resource above."},
            },
        ]
        image = await client.get_prompt("test_prompt_with_image")
        assert image["messages"][0]["content"] == {
            "type": "image",
            "data": base64.b64encode(PNG).decode(),
            "mimeType": "image/png",
        }


# -- the official SDK's client, over stdio ---------------------------------------------------------
async def test_the_sdk_client_lists_and_calls_the_tools_over_stdio(repo_root) -> None:
    pytest.importorskip("mcp", reason="the interop test needs the official SDK (mcp==2.3.0)")
    from mcp import Client as SdkClient
    from mcp import StdioServerParameters
    from mcp.shared.exceptions import MCPDeprecationWarning
    from mcp.types import (
        CreateMessageResult,
        ElicitResult,
        LoggingMessageNotificationParams,
        PromptReference,
        TextContent,
    )

    sampled: list[Any] = []
    elicited: list[Any] = []
    logged: list[LoggingMessageNotificationParams] = []

    async def sampling(context: Any, params: Any) -> CreateMessageResult:
        sampled.append(params)
        return CreateMessageResult(
            role="assistant",
            content=TextContent(type="text", text="Hi from the SDK"),
            model="sdk-model",
            stop_reason="endTurn",
        )

    async def elicitation(context: Any, params: Any) -> ElicitResult:
        elicited.append(params)
        return ElicitResult(
            action="accept", content={"username": "sdk", "email": "sdk@example.com"}
        )

    async def logging_callback(params: LoggingMessageNotificationParams) -> None:
        logged.append(params)

    server = StdioServerParameters(
        command=sys.executable,
        cwd=str(repo_root),
        args=["-m", "minimcp", "serve", "--example", "conformance"],
    )

    async def scenario() -> None:
        async with SdkClient(
            server,
            mode="legacy",
            sampling_callback=sampling,
            elicitation_callback=elicitation,
            logging_callback=logging_callback,
        ) as client:
            assert (
                client.server_info is not None and client.server_info.name == "minimcp-conformance"
            )
            listed = await client.list_tools()
            assert TOOLS <= {tool.name for tool in listed.tools}

            simple = await client.call_tool("test_simple_text")
            assert simple.content[0].text == "This is a simple text response for testing."

            answer = await client.call_tool("test_sampling", {"prompt": "Say hi"})
            assert answer.content[0].text == "LLM response: Hi from the SDK"
            assert sampled[0].max_tokens == 100 and sampled[0].messages[0].content.text == "Say hi"

            answer = await client.call_tool("test_elicitation", {"message": "Who are you?"})
            assert answer.content[0].text == (
                'User response: action=accept, content={"username": "sdk", '
                '"email": "sdk@example.com"}'
            )
            assert elicited[0].message == "Who are you?"

            # deprecated in 2026-07-28, fine on a 2025 session
            with pytest.warns(MCPDeprecationWarning):
                await client.set_logging_level("debug")
            await client.call_tool("test_tool_with_logging")
            assert [entry.data for entry in logged] == [
                "Tool execution started",
                "Tool processing data",
                "Tool execution completed",
            ]

            updates: list[float] = []

            async def on_progress(
                progress: float, total: float | None, message: str | None
            ) -> None:
                updates.append(progress)

            await client.call_tool("test_tool_with_progress", progress_callback=on_progress)
            assert updates == [0, 50, 100]

            ref = PromptReference(type="ref/prompt", name="test_prompt_with_arguments")
            completion = await client.complete(ref, {"name": "arg1", "value": "pa"})
            assert completion.completion.values == ["paris", "park", "party"]

            error = await client.call_tool("test_error_handling")
            assert error.is_error is True

    await asyncio.wait_for(scenario(), 60)
