"""Resources and resource templates: information the client may put in the model's context (lesson 05).

A tool is an action the *model* decides to run; a resource is data the *client* (or its user)
decides to read and paste into the conversation (spec 2025-11-25, server/resources). Each one is
named by a URI, such as ``courses://all``, and carries a MIME type that says how to treat it.

* ``resources/list`` answers the catalogue of fixed resources (metadata only, never contents);
* ``resources/templates/list`` answers URI *templates* such as ``courses://{id}``: a family of
  resources, one per value of ``id`` (RFC 6570);
* ``resources/read`` answers the contents of one URI: ``text``, or ``blob`` (base64) for bytes;
* ``resources/subscribe`` / ``resources/unsubscribe`` ask to hear ``notifications/resources/updated``
  when one URI changes.

A URI that names nothing is error -32002 "Resource not found". A folder of files may be served as
``file://`` resources, and the path guard below makes sure no URI ever reads outside that folder.

Run ``python -m minimcp.resources`` to watch a client list, read and probe a tiny server.
"""

from __future__ import annotations

import base64
import inspect
import json
import logging
import mimetypes
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit
from urllib.request import url2pathname

from .connection import unrelated_to_any_request
from .jsonrpc import INVALID_PARAMS, RpcError
from .pagination import page_result
from .session import RequestContext, ServerSession
from .tools import call_handler

if TYPE_CHECKING:  # only for type hints: server.py imports this module, not the other way round
    from .server import Server

log = logging.getLogger("minimcp.resources")

#: MCP's own error code for a URI that names nothing (server/resources, "Error Handling").
RESOURCE_NOT_FOUND = -32002


def not_found(uri: str) -> RpcError:
    return RpcError(RESOURCE_NOT_FOUND, "Resource not found", {"uri": uri})


# -- contents ---------------------------------------------------------------------------------------
# --8<-- [start:contents]
def contents_for(uri: str, value: Any, mime_type: str | None = None) -> dict[str, Any]:
    """One entry of ``resources/read``'s ``contents``: text for text, base64 ``blob`` for bytes.

    A handler may return a ``str``, ``bytes``, or any JSON-able value (written as JSON text).
    """
    if isinstance(value, (bytes, bytearray)):
        blob = base64.b64encode(bytes(value)).decode("ascii")
        return {"uri": uri, "mimeType": mime_type or "application/octet-stream", "blob": blob}
    if isinstance(value, str):
        return {"uri": uri, "mimeType": mime_type or "text/plain", "text": value}
    return {"uri": uri, "mimeType": mime_type or "application/json",
            "text": json.dumps(value, ensure_ascii=False)}
# --8<-- [end:contents]


# -- URI templates (RFC 6570, level 1) ------------------------------------------------------------
# --8<-- [start:template]
# Level 1 of RFC 6570 is "simple string expansion": {id} is replaced by the value with every
# character outside the unreserved set percent-encoded. So a value in a real URI is a run of
# unreserved characters and %XX escapes, and never contains "/", "?" or "#". Matching is the
# expansion run backwards: find such runs where the {names} stand, then percent-decode them.
VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
EXPANDED_VALUE = r"(?:[A-Za-z0-9\-._~]|%[0-9A-Fa-f]{2})+"


def compile_template(template: str) -> re.Pattern[str]:
    """A regular expression that matches the URIs ``template`` expands to, one group per variable."""
    leftover = VARIABLE.sub("", template)
    if "{" in leftover or "}" in leftover:  # {+path}, {?query}…: levels 2-4, which we do not need
        raise ValueError(f"URI template {template!r}: only level-1 variables such as {{id}} are supported")
    pattern, position, seen = "", 0, set()
    for variable in VARIABLE.finditer(template):
        name = variable.group(1)
        if name in seen:
            raise ValueError(f"URI template {template!r} uses {{{name}}} twice")
        seen.add(name)
        pattern += re.escape(template[position:variable.start()]) + f"(?P<{name}>{EXPANDED_VALUE})"
        position = variable.end()
    return re.compile(pattern + re.escape(template[position:]))


def match_template(pattern: re.Pattern[str], uri: str) -> dict[str, str] | None:
    """The variables of ``uri`` (decoded, always strings), or None if it is not one of the template's URIs."""
    found = pattern.fullmatch(uri)
    if found is None:
        return None
    return {name: unquote(value) for name, value in found.groupdict().items()}
# --8<-- [end:template]


# -- file:// resources and the path guard -------------------------------------------------------
# --8<-- [start:path_guard]
def resolve_inside(folder: Path, uri: str) -> Path | None:
    """The regular file that the ``file://`` ``uri`` names, if it lies inside ``folder``; else None.

    ``folder`` must already be resolved (absolute, no symlinks). The order matters: first decode
    the URI (so ``%2e%2e`` becomes ``..``), then resolve the path (which collapses every ``..`` and
    follows every symlink to where it really points), and only then compare with the folder.
    Checking the text of the URI instead would miss an encoded ``..`` or a symlink pointing out.
    (One gap remains for a hostile *local* user: a file swapped for a symlink between this check
    and the read. Closing it takes ``os.open`` with ``O_NOFOLLOW`` on every path component.)
    """
    parts = urlsplit(uri)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost") or parts.query or parts.fragment:
        return None
    try:
        path = Path(url2pathname(parts.path))  # percent-decodes, and knows Windows drive letters
        if not path.is_absolute():
            return None
        real = path.resolve()  # may raise on a NUL byte or a symlink loop: both are "not found"
    except (OSError, RuntimeError, ValueError):
        return None
    if not real.is_relative_to(folder) or not real.is_file():
        return None
    if any(part.startswith(".") for part in real.relative_to(folder).parts):
        return None  # hidden files and folders (.env, .git) are never served
    return real
# --8<-- [end:path_guard]


TEXT_TYPES = ("application/json", "application/xml", "application/javascript", "application/x-sh")


def read_file(uri: str, path: Path) -> dict[str, Any]:
    """A file's contents: text when its type is textual and it decodes as UTF-8, otherwise a blob."""
    mime_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    data = path.read_bytes()
    if mime_type.startswith("text/") or mime_type in TEXT_TYPES:
        try:
            return contents_for(uri, data.decode("utf-8"), mime_type)
        except UnicodeDecodeError:
            pass
    return contents_for(uri, data, mime_type)


# -- the registry -----------------------------------------------------------------------------------
@dataclass
class Resource:
    """A fixed resource: one URI, and a function that returns its contents."""

    uri: str
    name: str
    handler: Callable[..., Any]
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None

    def definition(self) -> dict[str, Any]:
        out = {"uri": self.uri, "name": self.name, "title": self.title,
               "description": self.description, "mimeType": self.mime_type}
        return {key: value for key, value in out.items() if value is not None}


@dataclass
class ResourceTemplate:
    """A family of resources: ``courses://{id}`` and a function of ``id`` (a string)."""

    uri_template: str
    name: str
    handler: Callable[..., Any]
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    pattern: re.Pattern[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.pattern = compile_template(self.uri_template)

    def definition(self) -> dict[str, Any]:
        out = {"uriTemplate": self.uri_template, "name": self.name, "title": self.title,
               "description": self.description, "mimeType": self.mime_type}
        return {key: value for key, value in out.items() if value is not None}


# --8<-- [start:directory]
@dataclass
class Directory:
    """A folder served as ``file://`` resources: every regular file inside it, and nothing outside."""

    folder: Path

    def files(self) -> list[Path]:
        """The files a client may read, sorted. Symlinks that lead outside are left out."""
        found = []
        for parent, _dirs, names in os.walk(self.folder):  # os.walk does not follow symlinked folders
            for name in names:
                path = Path(parent, name)
                if resolve_inside(self.folder, path.as_uri()) is not None:
                    found.append(path)
        return sorted(found)

    def definition(self, path: Path) -> dict[str, Any]:
        out = {"uri": path.as_uri(), "name": path.relative_to(self.folder).as_posix()}
        mime_type = mimetypes.guess_type(path.name)[0]
        if mime_type:
            out["mimeType"] = mime_type
        return out
# --8<-- [end:directory]


# --8<-- [start:registry]
class ResourceRegistry:
    """The resources of one server. Creating it installs the ``resources/*`` methods and the capability."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self._resources: dict[str, Resource] = {}
        self._templates: dict[str, ResourceTemplate] = {}
        self._directories: list[Directory] = []
        self._subscriptions: dict[ServerSession, set[str]] = {}  # who wants to hear about which URIs
        server.method("resources/list")(self.list_resources)
        server.method("resources/templates/list")(self.list_templates)
        server.method("resources/read")(self.read_resource)
        server.method("resources/subscribe")(self.subscribe)
        server.method("resources/unsubscribe")(self.unsubscribe)
        server.declare("resources", {"subscribe": True, "listChanged": True})
    # --8<-- [end:registry]

    # -- registering ------------------------------------------------------------------------------
    def add(self, uri: str, handler: Callable[..., Any], name: str | None = None, *,
            title: str | None = None, description: str | None = None,
            mime_type: str | None = None) -> Resource:
        """Serve ``handler()``'s return value at ``uri``."""
        resource = Resource(uri, name or handler.__name__, handler, title,
                            description if description is not None else _doc(handler), mime_type)
        self._resources[uri] = resource
        self.server.announce("notifications/resources/list_changed")
        return resource

    def add_template(self, uri_template: str, handler: Callable[..., Any], name: str | None = None, *,
                     title: str | None = None, description: str | None = None,
                     mime_type: str | None = None) -> ResourceTemplate:
        """Serve every URI ``uri_template`` matches; the handler gets each variable as a string.

        The handler returns None when the URI names nothing (then the client gets -32002).
        """
        template = ResourceTemplate(uri_template, name or handler.__name__, handler, title,
                                    description if description is not None else _doc(handler), mime_type)
        self._templates[uri_template] = template
        self.server.announce("notifications/resources/list_changed")
        return template

    def add_directory(self, folder: str | os.PathLike[str]) -> Directory:
        """Serve the files of ``folder`` as ``file://`` resources (read-only, never outside it)."""
        directory = Directory(Path(folder).resolve(strict=True))
        if not directory.folder.is_dir():
            raise NotADirectoryError(str(folder))
        self._directories.append(directory)
        self.server.announce("notifications/resources/list_changed")
        return directory

    def template(self, uri_template: str) -> ResourceTemplate | None:
        """The template registered as exactly ``uri_template``, if any."""
        return self._templates.get(uri_template)

    def remove(self, uri: str) -> None:
        """Take a fixed resource away (KeyError if there is none)."""
        del self._resources[uri]
        self.server.announce("notifications/resources/list_changed")

    # -- the methods ------------------------------------------------------------------------------
    async def list_resources(self, context: RequestContext) -> dict[str, Any]:
        definitions = [resource.definition() for resource in self._resources.values()]
        for directory in self._directories:
            definitions += [directory.definition(path) for path in directory.files()]
        return page_result("resources", definitions, context.params, self.server.page_size)

    async def list_templates(self, context: RequestContext) -> dict[str, Any]:
        definitions = [template.definition() for template in self._templates.values()]
        return page_result("resourceTemplates", definitions, context.params, self.server.page_size)

    # --8<-- [start:read]
    async def read_resource(self, context: RequestContext) -> dict[str, Any]:
        """``resources/read``: a fixed resource first, then the served folders, then the templates."""
        uri = _uri_param(context)
        if uri in self._resources:  # an exact URI wins: courses://all is not the course "all"
            resource = self._resources[uri]
            value = await call_handler(resource.handler, {}, context)
            return {"contents": [contents_for(uri, value, resource.mime_type)]}
        for directory in self._directories:
            path = resolve_inside(directory.folder, uri)
            if path is not None:
                return {"contents": [read_file(uri, path)]}
        for template in self._templates.values():
            variables = match_template(template.pattern, uri)
            if variables is not None:
                value = await call_handler(template.handler, variables, context)
                if value is None:  # the template fits, but no such thing: courses://NOPE
                    raise not_found(uri)
                return {"contents": [contents_for(uri, value, template.mime_type)]}
        raise not_found(uri)
    # --8<-- [end:read]

    async def exists(self, uri: str, context: RequestContext) -> bool:
        """Whether ``uri`` names something we can read. A template can only tell by trying."""
        if uri in self._resources or any(resolve_inside(d.folder, uri) is not None for d in self._directories):
            return True
        for template in self._templates.values():
            variables = match_template(template.pattern, uri)
            if variables is not None and await call_handler(template.handler, variables, context) is not None:
                return True
        return False

    # -- subscriptions ----------------------------------------------------------------------------
    # --8<-- [start:subscribe]
    async def subscribe(self, context: RequestContext) -> dict[str, Any]:
        """``resources/subscribe``: remember that *this session* wants to hear about ``uri``."""
        uri = _uri_param(context)
        if not await self.exists(uri, context):
            raise not_found(uri)
        self._subscriptions.setdefault(context.session, set()).add(uri)
        return {}

    async def unsubscribe(self, context: RequestContext) -> dict[str, Any]:
        uri = _uri_param(context)
        self._subscriptions.get(context.session, set()).discard(uri)
        return {}

    async def updated(self, uri: str) -> None:
        """Tell every session subscribed to ``uri`` that it changed (and nobody else)."""
        with unrelated_to_any_request():  # a change of the resource, whoever's request caused it
            for session, uris in list(self._subscriptions.items()):
                if session not in self.server.sessions:  # that client has gone: forget it
                    del self._subscriptions[session]
                elif uri in uris:
                    try:
                        await session.notify("notifications/resources/updated", {"uri": uri})
                    except Exception as exc:  # one broken cable must not stop the others' notices
                        log.debug("could not tell a session that %s changed: %s", uri, exc)
    # --8<-- [end:subscribe]


def _uri_param(context: RequestContext) -> str:
    uri = context.params.get("uri")
    if not isinstance(uri, str):
        raise RpcError(INVALID_PARAMS, f'{context.request.method} needs "uri" (a string)')
    return uri


def _doc(handler: Callable[..., Any]) -> str | None:
    return inspect.getdoc(handler)


async def _demo() -> None:
    """A server with a resource, a template and a folder; a client reads them and tries to escape."""
    import asyncio
    import tempfile

    from .connection import memory_pair
    from .server import Server
    from .session import ClientSession

    with tempfile.TemporaryDirectory() as tmp:
        shared = Path(tmp, "shared")
        shared.mkdir()
        Path(shared, "notes.txt").write_text("Resources are chosen by the client, not the model.\n")
        Path(tmp, "secret.txt").write_text("never served\n")
        Path(shared, "sneaky.txt").symlink_to(Path(tmp, "secret.txt"))

        server = Server("resources-demo")
        courses = {"AI101": {"id": "AI101", "name": "Intro to AI"}}

        @server.resource("courses://all", name="courses", title="All Courses",
                         mime_type="application/json")
        def all_courses() -> list[dict[str, str]]:
            return list(courses.values())

        @server.template("courses://{id}", name="course-details", mime_type="application/json")
        def course(id: str) -> dict[str, str] | None:
            return courses.get(id)

        server.add_directory(shared)

        client_end, server_end = memory_pair()
        serving = asyncio.ensure_future(server.serve(server_end))
        client = ClientSession(client_end)
        await client.initialize(timeout=5)

        async def ask(method: str, params: dict[str, Any] | None = None) -> None:
            try:
                print(method, params or "", "->", json.dumps(await client.request(method, params, 5)))
            except RpcError as err:
                print(method, params or "", "-> error", err.code, err.message, err.data or "")

        await ask("resources/list")
        await ask("resources/templates/list")
        await ask("resources/read", {"uri": "courses://all"})
        await ask("resources/read", {"uri": "courses://AI101"})
        await ask("resources/read", {"uri": "courses://NOPE"})
        await ask("resources/read", {"uri": Path(shared, "notes.txt").as_uri()})
        for attack in (Path(shared).as_uri() + "/../secret.txt", Path(shared).as_uri() + "/%2e%2e/secret.txt",
                       Path(shared, "sneaky.txt").as_uri(), "file:///etc/passwd"):
            await ask("resources/read", {"uri": attack})
        await client.close()
        await serving


if __name__ == "__main__":
    import asyncio

    asyncio.run(_demo())
