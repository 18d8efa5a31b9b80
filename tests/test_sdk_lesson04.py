"""Lesson 04's boxes: a tool on the official SDK's server, and tools used by the SDK's client.

Both directions: ``minimcp``'s client lists and calls the tool of ``sdk/lesson04_tools_server.py``
(the schema the SDK made from the signature, a good call, and the two kinds of failure), and
``sdk/lesson04_tools_client.py`` runs against the course server, ``python -m minimcp serve``.
"""

from __future__ import annotations

import pytest
from sdk_support import run_sdk_script, sdk_server

pytest.importorskip("mcp", reason="the SDK boxes' tests need the official SDK (mcp==2.3.0)")


TIMEOUT = 30.0
SERVER = "lesson04_tools_server.py"
EVENTS = (
    "Events for 2025-03-21:\n- 09:00 Doctor appointment\n- 12:30 Team meeting\n- 18:00 Gym session"
)


async def test_minimcp_lists_and_calls_the_sdk_servers_tool() -> None:
    async with sdk_server(SERVER) as client:
        assert client.server_info["name"] == "calendar-sdk"
        assert "tools" in client.server_capabilities
        (tool,) = await client.list_tools(timeout=TIMEOUT)
        assert (tool["name"], tool["title"], tool["description"]) == (
            "read_events",
            "Read calendar events",
            "Read calendar events for a given day.",  # the docstring
        )
        schema = tool["inputSchema"]  # made by the SDK from the signature
        assert schema["required"] == ["date"]
        assert schema["properties"]["date"]["type"] == "string"
        assert (
            schema["properties"]["date"]["description"]
            == "Date to read events.\nFormat: YYYY-MM-DD"
        )

        result = await client.call_tool("read_events", {"date": "2025-03-21"}, timeout=TIMEOUT)
        assert result["isError"] is False
        assert result["content"] == [{"type": "text", "text": EVENTS}]

        # The tool's own failure, for the model: a result with isError, not a protocol error
        result = await client.call_tool("read_events", {"date": "21/03/2025"}, timeout=TIMEOUT)
        assert result["isError"] is True
        assert "use the format YYYY-MM-DD" in result["content"][0]["text"]

        # Arguments that do not fit the schema: checked by the SDK before the function runs
        result = await client.call_tool("read_events", {}, timeout=TIMEOUT)
        assert result["isError"] is True and "date" in result["content"][0]["text"]

        # A tool that does not exist: a result with isError too, where minimcp's server answers a
        # protocol error, -32602 (section 4 of lesson 04)
        result = await client.call_tool("no_such_tool", {}, timeout=TIMEOUT)
        assert result["isError"] is True
        assert result["content"] == [{"type": "text", "text": "Unknown tool: no_such_tool"}]


async def test_the_sdk_client_lists_and_calls_the_course_servers_tools() -> None:
    printed = await run_sdk_script("lesson04_tools_client.py")
    assert printed.splitlines() == [
        "read_events: Read calendar events for a given day",
        "find_similar_courses: Find courses similar to the given ones (by course ID): those "
        "sharing the most topics.",
        "run_analysis: Analyse the course catalogue, slowly, reporting progress after every step.",
        *EVENTS.splitlines(),
        "isError: True - Invalid date '21/03/2025': use the format YYYY-MM-DD, e.g. 2025-03-21",
        "{'similar': [{'id': 'rd1s', 'name': 'Redis in Practice', 'level': 'Intermediate', "
        "'shared_tags': ['caching', 'performance']}, {'id': 'ev3n', 'name': "
        "'Event-Driven Architecture', 'level': 'Advanced', 'shared_tags': ['architecture']}]}",
    ]
