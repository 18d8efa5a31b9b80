"""Resources and templates (lesson 05): list, read, templates, -32002, file:// guard, subscriptions,
pages."""

from __future__ import annotations

import asyncio
import base64
import os
import re
from pathlib import Path
from typing import Any

import pytest
from support import TIMEOUT, Notes, connected

from minimcp.client import Client
from minimcp.rpc import RpcError
from minimcp.server import ResourceServer
from minimcp.server.files import RESOURCE_NOT_FOUND, resolve_inside
from minimcp.server.uri_templates import compile_template, match_template


async def read(client: Client, uri: str) -> dict[str, Any]:
    return await client.request("resources/read", {"uri": uri}, TIMEOUT)


async def assert_not_found(client: Client, uri: str) -> None:
    """Reading ``uri`` is -32002 Resource not found, and the server answers on afterwards."""
    with pytest.raises(RpcError) as caught:
        await read(client, uri)
    assert caught.value.code == RESOURCE_NOT_FOUND == -32002, uri
    assert caught.value.data == {"uri": uri}
    await client.ping(TIMEOUT)


COURSES = {
    "AI101": {"id": "AI101", "name": "Intro to AI"},
    "café": {"id": "café", "name": "Coffee"},
}
PIXEL = b"\x89PNG\r\n\x1a\n\x00\x00"


def catalogue() -> ResourceServer:
    server = ResourceServer("catalogue")

    @server.resource(
        "courses://all",
        name="courses",
        title="All Courses",
        description="Complete list of courses available in the catalog",
        mime_type="application/json",
    )
    def all_courses() -> list[dict[str, str]]:
        return list(COURSES.values())

    @server.resource("notes://readme", name="readme")
    async def readme() -> str:
        return "Read me first."

    @server.resource("images://logo", name="logo", mime_type="image/png")
    def logo() -> bytes:
        return PIXEL

    @server.template(
        "courses://{id}", name="course-details", title="Course Detail", mime_type="application/json"
    )
    def course(id: str) -> dict[str, str] | None:
        assert isinstance(id, str)
        return COURSES.get(id)

    @server.template("users://{user}/courses/{course}", name="enrolment")
    def enrolment(user: str, course: str) -> str:
        return f"{user} takes {course}"

    return server


# -- list and read ---------------------------------------------------------------------------------
async def test_list_shows_metadata_not_contents() -> None:
    async with connected(catalogue()) as client:
        assert client.server_capabilities["resources"] == {"subscribe": True, "listChanged": True}
        listed = (await client.request("resources/list", {}, TIMEOUT))["resources"]
    assert listed == [
        {
            "uri": "courses://all",
            "name": "courses",
            "title": "All Courses",
            "description": "Complete list of courses available in the catalog",
            "mimeType": "application/json",
        },
        {"uri": "notes://readme", "name": "readme"},
        {"uri": "images://logo", "name": "logo", "mimeType": "image/png"},
    ]


async def test_read_text_json_and_binary() -> None:
    async with connected(catalogue()) as client:
        assert await read(client, "notes://readme") == {
            "contents": [
                {"uri": "notes://readme", "mimeType": "text/plain", "text": "Read me first."}
            ]
        }
        assert await read(client, "courses://all") == {
            "contents": [
                {
                    "uri": "courses://all",
                    "mimeType": "application/json",
                    "text": '[{"id": "AI101", "name": "Intro to AI"}, '
                    '{"id": "café", "name": "Coffee"}]',
                }
            ]
        }
        logo = (await read(client, "images://logo"))["contents"][0]
        assert logo == {
            "uri": "images://logo",
            "mimeType": "image/png",
            "blob": base64.b64encode(PIXEL).decode(),
        }
        assert base64.b64decode(logo["blob"]) == PIXEL


async def test_templates_are_listed_and_read_with_string_parameters() -> None:
    async with connected(catalogue()) as client:
        templates = (await client.request("resources/templates/list", {}, TIMEOUT))[
            "resourceTemplates"
        ]
        assert templates == [
            {
                "uriTemplate": "courses://{id}",
                "name": "course-details",
                "title": "Course Detail",
                "mimeType": "application/json",
            },
            {"uriTemplate": "users://{user}/courses/{course}", "name": "enrolment"},
        ]
        assert await read(client, "courses://AI101") == {
            "contents": [
                {
                    "uri": "courses://AI101",
                    "mimeType": "application/json",
                    "text": '{"id": "AI101", "name": "Intro to AI"}',
                }
            ]
        }
        # The value arrives percent-decoded: caf%C3%A9 is "café".
        cafe = (await read(client, "courses://caf%C3%A9"))["contents"][0]
        assert cafe["text"] == '{"id": "café", "name": "Coffee"}'
        assert (await read(client, "users://u1/courses/AI101"))["contents"][0][
            "text"
        ] == "u1 takes AI101"


async def test_an_exact_uri_wins_over_a_template() -> None:
    async with connected(catalogue()) as client:  # courses://all also fits courses://{id}
        assert (await read(client, "courses://all"))["contents"][0]["text"].startswith("[")


@pytest.mark.parametrize(
    "uri",
    ["courses://NOPE", "nothing://here", "courses://", "courses://a/b", "users://u1/courses/"],
)
async def test_an_unknown_uri_is_resource_not_found(uri: str) -> None:
    async with connected(catalogue()) as client:
        await assert_not_found(client, uri)
        assert (await read(client, "notes://readme"))["contents"][0]["text"] == "Read me first."


@pytest.mark.parametrize("params", [{}, {"uri": 42}, {"uri": None}])
async def test_read_without_a_uri_is_invalid_params(params: dict[str, Any]) -> None:
    async with connected(catalogue()) as client:
        with pytest.raises(RpcError) as caught:
            await client.request("resources/read", params, TIMEOUT)
        assert caught.value.code == -32602
        await client.ping(TIMEOUT)


async def test_a_failing_handler_is_an_internal_error_and_the_server_lives_on() -> None:
    server = catalogue()

    @server.resource("broken://one", name="broken")
    def broken() -> str:
        raise OSError("disk on fire")

    async with connected(server) as client:
        with pytest.raises(RpcError) as caught:
            await read(client, "broken://one")
        assert caught.value.code == -32603
        await client.ping(TIMEOUT)
        assert (await read(client, "notes://readme"))["contents"][0]["text"] == "Read me first."


# -- the URI template matcher ----------------------------------------------------------------------
def test_level_1_matching() -> None:
    pattern = compile_template("courses://{id}")
    assert match_template(pattern, "courses://AI101") == {"id": "AI101"}
    assert match_template(pattern, "courses://a%20b") == {"id": "a b"}
    assert match_template(pattern, "courses://a%2Fb") == {"id": "a/b"}  # an encoded slash is data
    assert match_template(pattern, "courses://a/b") is None  # a raw slash is never inside a value
    assert match_template(pattern, "courses://") is None
    assert match_template(pattern, "xcourses://AI101") is None
    assert match_template(pattern, "courses://AI101?x=1") is None
    assert match_template(compile_template("db://{table}/{column}"), "db://users/name") == {
        "table": "users",
        "column": "name",
    }
    assert match_template(compile_template("db://{table}.{column}"), "db://users.name") == {
        "table": "users",
        "column": "name",
    }  # "." in the template is a literal dot, not "any character"
    assert match_template(compile_template("db://{table}.{column}"), "db://usersXname") is None


@pytest.mark.parametrize(
    "template", ["files://{+path}", "search://{?q}", "x://{id}/{id}", "x://{a", "x://}"]
)
def test_templates_beyond_level_1_are_refused(template: str) -> None:
    with pytest.raises(ValueError):
        compile_template(template)


# -- file:// resources and the path guard ----------------------------------------------------------
@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    """A served folder with files, a subfolder and two symlinks; a secret next to it; another
    folder."""
    shared = tmp_path / "shared"
    (shared / "docs").mkdir(parents=True)
    (shared / "notes.txt").write_text("inside\n")
    (shared / "docs" / "guide.md").write_text("# Guide\n")
    (shared / "data.bin").write_bytes(b"\x00\xffbinary")
    (shared / "with space.txt").write_text("spaced\n")
    (tmp_path / "secret.txt").write_text("SECRET\n")
    (tmp_path / "shared-but-not").mkdir()
    (tmp_path / "shared-but-not" / "x.txt").write_text("SECRET\n")
    (shared / "escape.txt").symlink_to(tmp_path / "secret.txt")
    (shared / "outside").symlink_to(tmp_path, target_is_directory=True)
    (shared / "alias.txt").symlink_to(shared / "notes.txt")  # a symlink that stays inside is fine
    return {"root": tmp_path, "shared": shared}


def files_server(folder: Path) -> ResourceServer:
    server = ResourceServer("files")
    server.add_directory(folder)
    return server


async def test_a_folder_is_listed_and_read(tree: dict[str, Path]) -> None:
    shared = tree["shared"]
    async with connected(files_server(shared)) as client:
        listed = (await client.request("resources/list", {}, TIMEOUT))["resources"]
        assert sorted(entry["name"] for entry in listed) == [
            "alias.txt",
            "data.bin",
            "docs/guide.md",
            "notes.txt",
            "with space.txt",
        ]  # no escape.txt
        assert {entry["uri"] for entry in listed} == {
            (shared / name).as_uri()
            for name in ["alias.txt", "data.bin", "docs/guide.md", "notes.txt", "with space.txt"]
        }
        notes = (shared / "notes.txt").as_uri()
        assert await read(client, notes) == {
            "contents": [{"uri": notes, "mimeType": "text/plain", "text": "inside\n"}]
        }
        assert (await read(client, (shared / "with space.txt").as_uri()))["contents"][0][
            "text"
        ] == "spaced\n"
        assert (await read(client, (shared / "alias.txt").as_uri()))["contents"][0][
            "text"
        ] == "inside\n"
        guide = (await read(client, (shared / "docs" / "guide.md").as_uri()))["contents"][0]
        assert guide["text"] == "# Guide\n"
        data = (await read(client, (shared / "data.bin").as_uri()))["contents"][0]
        assert base64.b64decode(data["blob"]) == b"\x00\xffbinary" and "text" not in data


def traversal_attempts(root: Path, shared: Path) -> list[str]:
    base = shared.as_uri()
    return [
        f"{base}/../secret.txt",  # plain ..
        f"{base}/docs/../../secret.txt",
        f"{base}/%2e%2e/secret.txt",  # percent-encoded ..
        f"{base}/%2E%2E/secret.txt",
        f"{base}/..%2fsecret.txt",  # encoded slash
        f"{base}/%2e%2e%2fsecret.txt",
        # double encoding: a folder literally named %2e%2e (absent)
        f"{base}/%252e%252e/secret.txt",
        (root / "secret.txt").as_uri(),  # an absolute path outside
        "file:///etc/passwd",
        "file:///",
        f"{base}-but-not/x.txt",  # a sibling whose name starts like the folder's
        f"{base}/escape.txt",  # a symlink that points outside
        f"{base}/outside/secret.txt",  # through a symlinked folder that points outside
        f"{base}/notes.txt%00.png",  # a NUL byte
        f"file://evil.example{shared.as_posix()}/notes.txt",  # another host
        f"{base}/notes.txt?x=1",
        "file:notes.txt",  # relative
        shared.as_uri(),  # the folder itself is not a file
        f"{base}/missing.txt",
    ]


async def test_file_resources_never_read_outside_their_folder(tree: dict[str, Path]) -> None:
    root, shared = tree["root"], tree["shared"]
    async with connected(files_server(shared)) as client:
        for uri in traversal_attempts(root, shared):
            await assert_not_found(client, uri)
        assert (await read(client, (shared / "notes.txt").as_uri()))["contents"][0][
            "text"
        ] == "inside\n"


async def test_hidden_files_are_never_served(tree: dict[str, Path]) -> None:
    shared = tree["shared"]
    (shared / ".env").write_text("TOKEN=secret\n")
    (shared / ".git").mkdir()
    (shared / ".git" / "config").write_text("[core]\n")
    async with connected(files_server(shared)) as client:
        listed = (await client.request("resources/list", {}, TIMEOUT))["resources"]
        assert not [entry for entry in listed if "/." in entry["uri"]]
        await assert_not_found(client, (shared / ".env").as_uri())
        await assert_not_found(client, (shared / ".git" / "config").as_uri())


def test_the_path_guard_itself(tree: dict[str, Path]) -> None:
    root, shared = tree["root"], tree["shared"].resolve()
    for uri in traversal_attempts(root, shared):
        assert resolve_inside(shared, uri) is None, uri
    assert resolve_inside(shared, (shared / "notes.txt").as_uri()) == shared / "notes.txt"
    assert (
        resolve_inside(shared, f"{shared.as_uri()}/docs/./guide.md") == shared / "docs" / "guide.md"
    )
    # stays in
    assert resolve_inside(shared, f"{shared.as_uri()}/docs/../notes.txt") == shared / "notes.txt"


async def test_a_symlink_that_moves_outside_later_is_refused(tree: dict[str, Path]) -> None:
    shared = tree["shared"]
    link = shared / "moving.txt"
    link.symlink_to(shared / "notes.txt")
    async with connected(files_server(shared)) as client:
        assert (await read(client, link.as_uri()))["contents"][0]["text"] == "inside\n"
        link.unlink()
        link.symlink_to(tree["root"] / "secret.txt")  # checked on every read, not once at startup
        await assert_not_found(client, link.as_uri())


def test_serving_a_missing_folder_fails_at_once(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        ResourceServer("x").add_directory(tmp_path / "absent")
    (tmp_path / "file.txt").write_text("")
    with pytest.raises(NotADirectoryError):
        ResourceServer("x").add_directory(tmp_path / "file.txt")


# -- subscriptions ---------------------------------------------------------------------------------
async def next_note(notes: Notes) -> tuple[str, dict[str, Any]]:
    return await asyncio.wait_for(notes.get(), TIMEOUT)


async def test_updates_go_to_subscribed_sessions_only() -> None:
    server = catalogue()
    a_notes: Notes = asyncio.Queue()
    b_notes: Notes = asyncio.Queue()
    async with connected(server, a_notes) as a, connected(server, b_notes) as b:
        assert await a.request("resources/subscribe", {"uri": "courses://all"}, TIMEOUT) == {}
        assert await b.request("resources/subscribe", {"uri": "courses://AI101"}, TIMEOUT) == {}

        await server.resource_updated("courses://all")
        assert await next_note(a_notes) == (
            "notifications/resources/updated",
            {"uri": "courses://all"},
        )
        await server.resource_updated("courses://AI101")
        assert await next_note(b_notes) == (
            "notifications/resources/updated",
            {"uri": "courses://AI101"},
        )
        await server.resource_updated("notes://readme")  # nobody asked
        await a.ping(TIMEOUT)
        await b.ping(TIMEOUT)  # anything sent before the pongs has arrived by now
        assert a_notes.empty() and b_notes.empty()

        assert await a.request("resources/unsubscribe", {"uri": "courses://all"}, TIMEOUT) == {}
        await server.resource_updated("courses://all")
        await a.ping(TIMEOUT)
        assert a_notes.empty()


async def test_subscribing_to_nothing_is_resource_not_found() -> None:
    async with connected(catalogue()) as client:
        with pytest.raises(RpcError) as caught:
            await client.request("resources/subscribe", {"uri": "nothing://here"}, TIMEOUT)
        assert caught.value.code == -32002
        with pytest.raises(RpcError) as caught:  # the template fits, but there is no such course
            await client.request("resources/subscribe", {"uri": "courses://NOPE"}, TIMEOUT)
        assert caught.value.code == -32002
        assert (
            await client.request("resources/subscribe", {"uri": "courses://AI101"}, TIMEOUT) == {}
        )
        with pytest.raises(RpcError) as caught:
            await client.request("resources/subscribe", {}, TIMEOUT)
        assert caught.value.code == -32602
        await client.ping(TIMEOUT)


async def test_a_session_that_left_is_forgotten() -> None:
    server = catalogue()
    notes: Notes = asyncio.Queue()
    async with connected(server) as gone:
        await gone.request("resources/subscribe", {"uri": "courses://all"}, TIMEOUT)
    async with connected(server, notes) as here:
        await here.request("resources/subscribe", {"uri": "courses://all"}, TIMEOUT)
        # The first session was dropped when it left: only the second is left to tell.
        assert [session.subscriptions for session in server.sessions] == [{"courses://all"}]
        await server.resource_updated("courses://all")
        assert await next_note(notes) == (
            "notifications/resources/updated",
            {"uri": "courses://all"},
        )
    assert server.sessions == set()  # and so was the second, with its subscriptions


async def test_adding_a_resource_tells_live_sessions() -> None:
    server = catalogue()
    notes: Notes = asyncio.Queue()
    async with connected(server, notes) as client:
        await client.ping(TIMEOUT)
        server.add_resource("notes://late", lambda: "late", "late")
        assert await next_note(notes) == ("notifications/resources/list_changed", {})
        assert (await read(client, "notes://late"))["contents"][0]["text"] == "late"
        server.remove_resource("notes://late")
        assert await next_note(notes) == ("notifications/resources/list_changed", {})
        await assert_not_found(client, "notes://late")


# -- pagination ------------------------------------------------------------------------------------
async def walk(client: Client, method: str, key: str) -> list[list[str]]:
    pages: list[list[str]] = []
    params: dict[str, Any] = {}
    for _ in range(20):
        page = await client.request(method, params, TIMEOUT)
        pages.append([entry.get("uri") or entry["uriTemplate"] for entry in page[key]])
        if "nextCursor" not in page:
            return pages
        params = {"cursor": page["nextCursor"]}
    raise AssertionError("the pages never ended")


async def test_resources_and_templates_are_paginated() -> None:
    server = ResourceServer("many", page_size=2)
    for i in range(5):
        server.add_resource(f"items://{i}", lambda: "x", f"item-{i}")
        server.add_template(f"items{i}://{{id}}", lambda id: id, f"family-{i}")
    async with connected(server) as client:
        assert await walk(client, "resources/list", "resources") == [
            ["items://0", "items://1"],
            ["items://2", "items://3"],
            ["items://4"],
        ]
        assert await walk(client, "resources/templates/list", "resourceTemplates") == [
            ["items0://{id}", "items1://{id}"],
            ["items2://{id}", "items3://{id}"],
            ["items4://{id}"],
        ]
        for method in ("resources/list", "resources/templates/list"):
            with pytest.raises(RpcError) as caught:
                await client.request(method, {"cursor": "bogus!"}, TIMEOUT)
            assert caught.value.code == -32602
        await client.ping(TIMEOUT)


def test_cursors_are_opaque_strings() -> None:
    from minimcp.server.pagination import encode_cursor

    assert re.fullmatch(r"[A-Za-z0-9_=-]+", encode_cursor(2)) and not encode_cursor(2).isdigit()
    assert os.sep not in encode_cursor(1000)
