"""Lesson 05's boxes: resources and a template on the official SDK's server; its client reading.

Both directions: ``minimcp``'s client lists and reads the resources of
``sdk/lesson05_resources_server.py`` (a fixed one, and a template it fills in), and
``sdk/lesson05_resources_client.py`` runs against the course server, ``python -m minimcp serve``.
"""

from __future__ import annotations

import json

import pytest
from sdk_support import run_sdk_script, sdk_server

pytest.importorskip("mcp", reason="the SDK boxes' tests need the official SDK (mcp==2.3.0)")

from minimcp.rpc import RpcError  # noqa: E402
from minimcp.rpc.jsonrpc import INVALID_PARAMS  # noqa: E402

TIMEOUT = 30.0
SERVER = "lesson05_resources_server.py"


async def test_minimcp_lists_and_reads_the_sdk_servers_resources() -> None:
    async with sdk_server(SERVER) as client:
        assert "resources" in client.server_capabilities
        resources = await client.list_resources(timeout=TIMEOUT)
        assert [(r["uri"], r["name"], r["mimeType"]) for r in resources] == [
            ("courses://all", "courses", "application/json")
        ]
        templates = await client.list_resource_templates(timeout=TIMEOUT)
        assert [(t["uriTemplate"], t["name"]) for t in templates] == [
            ("courses://{id}", "course-details")
        ]

        # courses://all also fits the template: the fixed resource wins, as in minimcp
        (content,) = (await client.read_resource("courses://all", timeout=TIMEOUT))["contents"]
        assert [course["id"] for course in json.loads(content["text"])] == ["AI101", "c4ch"]

        uri = templates[0]["uriTemplate"].replace("{id}", "AI101")  # the client fills it in
        (content,) = (await client.read_resource(uri, timeout=TIMEOUT))["contents"]
        assert (content["uri"], content["mimeType"]) == ("courses://AI101", "application/json")
        assert json.loads(content["text"])["name"] == "Intro to AI"


async def test_a_uri_that_names_nothing_is_an_error_and_the_session_goes_on() -> None:
    async with sdk_server(SERVER) as client:
        for uri in ("courses://NOPE", "nothing://here"):
            with pytest.raises(RpcError) as caught:
                await client.read_resource(uri, timeout=TIMEOUT)
            # The SDK answers -32602 Invalid params (revision 2026-07-28's code for this case) even
            # in a 2025-11-25 session, where minimcp answers -32002 Resource not found (lesson 05).
            assert caught.value.code == INVALID_PARAMS
            assert caught.value.data == {"uri": uri}
        (content,) = (await client.read_resource("courses://c4ch", timeout=TIMEOUT))["contents"]
        assert json.loads(content["text"])["name"] == "Cache Strategies"


async def test_the_sdk_client_lists_and_reads_the_course_servers_resources() -> None:
    printed = await run_sdk_script("lesson05_resources_client.py")
    assert printed.splitlines() == [
        "courses://all application/json",
        "users://all application/json",
        "courses://{id} application/json",
        "12 courses",
        "Intro to AI",
    ]
