"""Roots (minimcp.server.roots): the server asks which folders it may work in, keeps the answer
until the client says it changed, and a served folder shows only what lies inside them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import TIMEOUT, connected

from minimcp.client import Client, ClientAnswers
from minimcp.rpc import RpcError
from minimcp.server import Server
from minimcp.server.roots import RootsCache, inside_roots, root_path
from minimcp.session import RequestContext


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    for name in ("notes/plan.md", "notes/ideas.md", "code/main.py"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(f"# {name}\n")
    return tmp_path


def file_server(folder: Path) -> Server:
    server = Server("files")
    server.add_directory(folder, within_roots=True)
    return server


def counting(client: Client) -> list[str]:
    """Record each request the server sends the client (to see the cache at work)."""
    asked: list[str] = []
    answer = client.answers.answer

    async def recorded(method: str, params: dict[str, Any]) -> Any:
        asked.append(method)
        return await answer(method, params)

    client.answers.answer = recorded  # type: ignore[method-assign]
    return asked


def names(resources: list[dict[str, Any]]) -> list[str]:
    return [resource["name"] for resource in resources]


def test_only_file_roots_count(tmp_path: Path) -> None:
    assert root_path(tmp_path.as_uri()) == tmp_path.resolve()
    assert root_path("https://example.com/") is None and root_path("file://server/share") is None
    roots = [{"uri": (tmp_path / "notes").as_uri()}, {"uri": "https://example.com/"}, "not a root"]
    assert inside_roots(tmp_path / "notes" / "plan.md", roots)  # type: ignore[arg-type]
    assert not inside_roots(tmp_path / "code" / "main.py", roots)  # type: ignore[arg-type]
    # a prefix of the text is not inside
    assert not inside_roots(tmp_path / "notes-old" / "x.md", roots)


async def test_a_folder_shows_what_lies_inside_the_roots_and_follows_their_changes(
    workspace: Path,
) -> None:
    async with connected(
        file_server(workspace), answers=ClientAnswers(roots=[workspace / "notes"])
    ) as client:
        asked = counting(client)
        assert names(await client.list_resources()) == ["notes/ideas.md", "notes/plan.md"]
        plan = (workspace / "notes" / "plan.md").as_uri()
        assert (await client.read_resource(plan))["contents"][0]["text"] == "# notes/plan.md\n"
        with pytest.raises(RpcError) as outside:  # in the folder, not in the roots: as if absent
            await client.read_resource((workspace / "code" / "main.py").as_uri())
        assert (outside.value.code, outside.value.message) == (-32002, "Resource not found")
        assert asked == ["roots/list"]  # asked once, then kept: the client promised to say

        await client.set_roots([workspace / "code"])  # notifications/roots/list_changed
        assert names(await client.list_resources(refresh=True)) == ["code/main.py"]
        assert asked == ["roots/list", "roots/list"]


async def test_a_client_without_roots_sees_the_whole_folder(workspace: Path) -> None:
    async with connected(file_server(workspace)) as client:
        assert names(await client.list_resources()) == [
            "code/main.py",
            "notes/ideas.md",
            "notes/plan.md",
        ]


async def test_roots_that_never_announce_changes_are_asked_for_every_time(workspace: Path) -> None:
    asked: list[str] = []

    async def on_request(method: str, params: dict[str, Any]) -> Any:
        asked.append(method)
        return {"roots": [{"uri": (workspace / "code").as_uri()}]}

    async with connected(
        file_server(workspace), capabilities={"roots": {}}, on_request=on_request
    ) as client:
        for _ in range(2):  # refresh: past the client's own cache of the list
            assert names(await client.list_resources(refresh=True)) == ["code/main.py"]
    assert asked == ["roots/list", "roots/list"]  # once per request, never kept


def roots_tool_server() -> Server:
    server = Server("asks-roots")
    cache = RootsCache(server)

    @server.tool()
    async def where(context: RequestContext) -> str:
        """The client's roots, by name."""
        return ", ".join(
            root.get("name", "?") for root in await cache.roots(context, timeout=TIMEOUT)
        )

    return server


async def test_a_server_may_not_ask_a_client_without_roots() -> None:
    async with connected(roots_tool_server()) as client:
        result = await client.call_tool("where")
        assert result["isError"] is True
        assert result["content"][0]["text"] == (
            "The client did not declare the 'roots' capability, so this "
            "server cannot send it roots/list"
        )
        await client.ping()


async def test_a_broken_roots_answer_fails_the_tool_and_the_session_goes_on() -> None:
    async def on_request(method: str, params: dict[str, Any]) -> Any:
        return {"folders": []}

    async with connected(
        roots_tool_server(), capabilities={"roots": {}}, on_request=on_request
    ) as client:
        result = await client.call_tool("where")
        assert result["content"][0]["text"] == (
            "The client's answer to roots/list has no list of roots: {'folders': []}"
        )
        await client.ping()
