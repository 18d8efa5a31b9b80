"""The course's example server: the notes' calendar tool, courses resources, templates and
prompts."""

from __future__ import annotations

import asyncio
import json
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest
from complete_support import complete_server
from support import TIMEOUT, Notes, connected

from minimcp.client import Client
from minimcp.examples import demos
from minimcp.examples.course import load_data
from minimcp.rpc import RpcError


def course_server(notes: Notes | None = None) -> AbstractAsyncContextManager[Client]:
    """A client connected to a fresh example server whose analysis steps take no time."""
    return connected(complete_server(step_delay=0.001), notes)


async def call(
    client: Client, name: str, arguments: dict[str, Any], **extra: Any
) -> dict[str, Any]:
    return await client.request(
        "tools/call", {"name": name, "arguments": arguments, **extra}, TIMEOUT
    )


async def read(client: Client, uri: str) -> Any:
    """A resource's JSON contents."""
    (contents,) = (await client.request("resources/read", {"uri": uri}, TIMEOUT))["contents"]
    assert contents["uri"] == uri and contents["mimeType"] == "application/json"
    return json.loads(contents["text"])


def test_each_call_builds_a_fresh_server() -> None:
    one, two = complete_server(), complete_server()
    assert one is not two
    one.remove_tool("read_events")
    assert "read_events" not in one.tools and "read_events" in two.tools


async def test_the_handshake_announces_the_features() -> None:
    async with course_server() as client:
        assert client.server_info["name"] == "course-server"
        assert set(client.server_capabilities) == {"tools", "resources", "prompts"}


# -- tools -----------------------------------------------------------------------------------------
async def test_read_events_is_listed_as_in_the_notes() -> None:
    async with course_server() as client:
        tools = {
            tool["name"]: tool
            for tool in (await client.request("tools/list", {}, TIMEOUT))["tools"]
        }
    assert set(tools) == {"read_events", "find_similar_courses", "run_analysis"}
    # notes §6.1.3, field for field, and one field more: it only reads (the course's chat runs it
    # without asking)
    assert tools["read_events"] == {
        "name": "read_events",
        "title": "Read calendar events",
        "description": "Read calendar events for a given day",
        "inputSchema": {
            "type": "object",
            "properties": {
                "date": {
                    "type": "string",
                    "description": "Date to read events.\nFormat: YYYY-MM-DD",
                }
            },
            "required": ["date"],
        },
        "annotations": {"readOnlyHint": True},
    }
    assert "outputSchema" in tools["find_similar_courses"]
    assert all(tool["annotations"] == {"readOnlyHint": True} for tool in tools.values())
    steps = tools["run_analysis"]["inputSchema"]["properties"]["steps"]
    assert steps["type"] == "integer" and steps["minimum"] == 1 and steps["maximum"] == 100


async def test_read_events() -> None:
    async with course_server() as client:
        assert await call(client, "read_events", {"date": "2025-03-21"}) == {
            "content": [
                {
                    "type": "text",
                    "text": "Events for 2025-03-21:\n- 09:00 Doctor appointment\n"
                    "- 12:30 Team meeting\n- 18:00 Gym session",
                }
            ]
        }
        assert await call(client, "read_events", {"date": "2025-03-22"}) == {
            "content": [{"type": "text", "text": "No events for 2025-03-22."}]
        }


@pytest.mark.parametrize(
    "date", ["21/03/2025", "2025-3-21", "2025-02-30", "2025-13-01", "today", "20250321", ""]
)
async def test_a_bad_date_is_an_error_result(date: str) -> None:
    async with course_server() as client:
        result = await call(client, "read_events", {"date": date})
        message = f"Invalid date {date!r}: use the format YYYY-MM-DD, e.g. 2025-03-21"
        assert result == {"content": [{"type": "text", "text": message}], "isError": True}
        await client.ping(TIMEOUT)
        assert not (await call(client, "read_events", {"date": "2025-03-20"})).get("isError")


async def test_a_missing_or_mistyped_date_is_an_error_result() -> None:
    async with course_server() as client:
        for arguments in ({}, {"date": 20250321}):
            result = await call(client, "read_events", arguments)
            assert result["isError"] is True
            assert "Invalid arguments for tool read_events" in result["content"][0]["text"]
        await client.ping(TIMEOUT)


async def test_find_similar_courses_answers_structured_content() -> None:
    async with course_server() as client:
        result = await call(client, "find_similar_courses", {"ids": ["v1ws", "c4ch"], "limit": 3})
        similar = result["structuredContent"]["similar"]
        assert [course["id"] for course in similar] == ["rd1s", "sq1x", "tx4n"]
        assert similar[0] == {
            "id": "rd1s",
            "name": "Redis in Practice",
            "level": "Intermediate",
            "shared_tags": ["caching", "databases", "performance"],
        }
        assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
        assert "isError" not in result

        unknown = await call(client, "find_similar_courses", {"ids": ["v1ws", "zzzz"]})
        assert (
            unknown["isError"] is True
            and "Unknown course ID(s): zzzz" in unknown["content"][0]["text"]
        )
        await client.ping(TIMEOUT)


async def test_run_analysis_reports_progress_then_answers() -> None:
    notes: Notes = asyncio.Queue()
    async with course_server(notes) as client:
        result = await call(client, "run_analysis", {"steps": 5}, _meta={"progressToken": 7})
        assert result == {
            "content": [
                {
                    "type": "text",
                    "text": (
                        "Analysed 12 courses in 5 steps: 217 hours in total; "
                        "3 Beginner, 5 Intermediate, 4 Advanced; "
                        "most common topic: architecture (5 courses)."
                    ),
                }
            ]
        }
        progress = [notes.get_nowait() for _ in range(notes.qsize())]
        assert progress == [
            (
                "notifications/progress",
                {"progressToken": 7, "progress": step, "total": 5, "message": f"Step {step} of 5"},
            )
            for step in range(1, 6)
        ]


@pytest.mark.parametrize("steps", [0, 101, -1, 2.5, "3"])
async def test_run_analysis_steps_are_bounded(steps: Any) -> None:
    async with course_server() as client:
        result = await call(client, "run_analysis", {"steps": steps})
        assert result["isError"] is True
        assert "Invalid arguments for tool run_analysis" in result["content"][0]["text"]
        await client.ping(TIMEOUT)


async def test_two_analyses_at_once_keep_their_own_progress() -> None:
    notes: Notes = asyncio.Queue()
    async with course_server(notes) as client:
        await asyncio.gather(
            call(client, "run_analysis", {"steps": 3}, _meta={"progressToken": "a"}),
            call(client, "run_analysis", {"steps": 4}, _meta={"progressToken": "b"}),
        )
        received = [notes.get_nowait()[1] for _ in range(notes.qsize())]
        for token, steps in (("a", 3), ("b", 4)):
            mine = [n["progress"] for n in received if n["progressToken"] == token]
            assert mine == list(range(1, steps + 1))


# -- resources -------------------------------------------------------------------------------------
async def test_the_resources_of_the_notes() -> None:
    data = load_data()
    async with course_server() as client:
        listed = (await client.request("resources/list", {}, TIMEOUT))["resources"]
        assert [r["uri"] for r in listed] == ["courses://all", "users://all"]
        assert listed[0] == {
            "uri": "courses://all",
            "name": "courses",
            "title": "All Courses",
            "description": "Complete list of courses available in the catalog",
            "mimeType": "application/json",
        }
        summaries = [{"id": course["id"], "name": course["name"]} for course in data["courses"]]
        assert await read(client, "courses://all") == summaries
        assert await read(client, "users://all") == data["users"]

        templates = (await client.request("resources/templates/list", {}, TIMEOUT))[
            "resourceTemplates"
        ]
        assert templates == [
            {
                "uriTemplate": "courses://{id}",
                "name": "course-details",
                "title": "Course Detail",
                "description": "Get detailed information for a course by id",
                "mimeType": "application/json",
            }
        ]
        ai101 = await read(client, "courses://AI101")
        assert (ai101["name"], ai101["level"], ai101["hours"]) == ("Intro to AI", "Beginner", 40)

        with pytest.raises(RpcError) as caught:
            await read(client, "courses://NOPE")
        assert caught.value.code == -32002 and caught.value.data == {"uri": "courses://NOPE"}
        await client.ping(TIMEOUT)


# -- prompts ---------------------------------------------------------------------------------------
async def get(client: Client, name: str, arguments: dict[str, str] | None = None) -> dict[str, Any]:
    return await client.request(
        "prompts/get", {"name": name, "arguments": arguments or {}}, TIMEOUT
    )


async def test_the_prompts_of_the_notes() -> None:
    async with course_server() as client:
        prompts = {
            p["name"]: p for p in (await client.request("prompts/list", {}, TIMEOUT))["prompts"]
        }
        assert set(prompts) == {"course-similar-by-name", "general-summary", "course-overview"}
        assert prompts["course-similar-by-name"] == {  # notes §6.3.4
            "name": "course-similar-by-name",
            "title": "Find similar courses by name",
            "description": "Given one or more course names, build a prompt that asks the LLM "
            "to search similar courses using tools and IDs.",
            "arguments": [
                {
                    "name": "names",
                    "description": "Comma-separated list of course names to use as reference",
                    "required": True,
                }
            ],
        }
        summary = await get(client, "general-summary")
        assert summary["messages"] == [
            {
                "role": "user",
                "content": {
                    "type": "text",
                    "text": (
                        "Summarize the following content in a concise way, highlighting key "
                        "concepts and main sections."
                    ),
                },
            }
        ]


async def test_course_similar_by_name_turns_names_into_ids() -> None:
    async with course_server() as client:
        # The notes' user typed "caché, vistas"; the catalogue is in English. Accents do not matter.
        (message,) = (await get(client, "course-similar-by-name", {"names": "Caché, views"}))[
            "messages"
        ]
        assert message["role"] == "user"
        assert message["content"]["text"] == (
            "Find similar courses using the tool find_similar_courses with these course IDs: "
            "c4ch, v1ws (the courses named Cache Strategies, SQL Views). Finally, answer the "
            "user with a short description of the most relevant similar courses."
        )
        partly = (await get(client, "course-similar-by-name", {"names": "cache, knitting"}))[
            "messages"
        ][0]
        assert "course IDs: c4ch " in partly["content"]["text"]
        assert partly["content"]["text"].endswith("No course matched 'knitting'; say so.")


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({}, "Missing required argument(s) for prompt course-similar-by-name: names"),
        ({"names": "knitting, pottery"}, "No course matches 'knitting', 'pottery'"),
        ({"names": " , "}, "No course matches no name"),
    ],
)
async def test_course_similar_by_name_rejects_what_it_cannot_use(
    arguments: dict[str, str], fragment: str
) -> None:
    async with course_server() as client:
        with pytest.raises(RpcError) as caught:
            await get(client, "course-similar-by-name", arguments)
        assert caught.value.code == -32602 and fragment in caught.value.message
        await client.ping(TIMEOUT)


async def test_course_overview_embeds_the_course() -> None:
    async with course_server() as client:
        first, second = (await get(client, "course-overview", {"id": "AI101"}))["messages"]
        assert first["role"] == "user" and first["content"]["type"] == "resource"
        embedded = first["content"]["resource"]
        assert embedded["uri"] == "courses://AI101" and embedded["mimeType"] == "application/json"
        assert json.loads(embedded["text"]) == await read(client, "courses://AI101")
        assert second["content"]["type"] == "text"
        with pytest.raises(RpcError) as caught:
            await get(client, "course-overview", {"id": "NOPE"})
        assert caught.value.code == -32602
        await client.ping(TIMEOUT)


async def test_the_demo_runs_offline(capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m minimcp demo host``: the course's example server over stdio."""
    await asyncio.wait_for(demos.host(), 30)
    out = capsys.readouterr().out
    assert out.startswith("── the system prompt")
    assert "user: What do I have on my calendar today?" in out
