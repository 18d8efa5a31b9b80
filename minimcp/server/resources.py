"""Resources and templates: information the client may put in the model's context (lesson 05).

A tool is an action the *model* decides to run; a resource is data the *client* (or its user)
decides to read and paste into the conversation (spec 2025-11-25, server/resources). Each one is
named by a URI, such as ``courses://all``, and carries a MIME type that says how to treat it.

* ``resources/list`` answers the catalogue of fixed resources (metadata only, never contents);
* ``resources/templates/list`` answers URI *templates* such as ``courses://{id}``: a family of
  resources, one per value of ``id`` (RFC 6570);
* ``resources/read`` answers the contents of one URI: ``text``, or ``blob`` (base64) for bytes;
* ``resources/subscribe`` / ``resources/unsubscribe`` ask to hear
  ``notifications/resources/updated`` when one URI changes.

A URI that names nothing is error -32002 "Resource not found". A folder of files may be served as
``file://`` resources, and the path guard below makes sure no URI ever reads outside that folder.

Beside this module: :mod:`minimcp.server.uri_templates` (matching ``courses://{id}``),
:mod:`minimcp.server.files` (a folder as ``file://`` resources, and its path guard), and
:mod:`minimcp.server.resource_server` (the server with ``@server.resource()``).
"""

from __future__ import annotations

import inspect
import logging
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from minimcp.rpc.jsonrpc import INVALID_PARAMS, RpcError
from minimcp.rpc.transport import log_send_failure
from minimcp.server.content import contents_for
from minimcp.server.core import ServerCore
from minimcp.server.files import (
    MAX_FILE_BYTES,
    Directory,
    FolderScope,
    not_found,
    read_file,
    resolve_inside,
)
from minimcp.server.handlers import call_handler
from minimcp.server.registry import Catalogue, described
from minimcp.server.uri_templates import compile_template, match_template
from minimcp.session.context import RequestContext

log = logging.getLogger("minimcp.resources")


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
        return described(
            uri=self.uri,
            name=self.name,
            title=self.title,
            description=self.description,
            mimeType=self.mime_type,
        )


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
        return described(
            uriTemplate=self.uri_template,
            name=self.name,
            title=self.title,
            description=self.description,
            mimeType=self.mime_type,
        )


# --8<-- [start:registry]
class ResourceRegistry(Catalogue[Resource]):
    """A server's resources. Creating it installs the ``resources/*`` methods and the capability."""

    def __init__(self, server: ServerCore) -> None:
        self._templates: dict[str, ResourceTemplate] = {}
        self._directories: list[Directory] = []
        methods = {
            "resources/list": self.list_resources,
            "resources/templates/list": self.list_templates,
            "resources/read": self.read_resource,
            "resources/subscribe": self.subscribe,
            "resources/unsubscribe": self.unsubscribe,
        }
        # The catalogue holds the fixed resources, by URI; templates and folders are kept beside it.
        super().__init__(server, "resources", methods, {"subscribe": True, "listChanged": True})

    # --8<-- [end:registry]

    # -- registering ------------------------------------------------------------------------------
    def add(
        self,
        uri: str,
        handler: Callable[..., Any],
        name: str | None = None,
        *,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
    ) -> Resource:
        """Serve ``handler()``'s return value at ``uri``."""
        resource = Resource(
            uri,
            name or handler.__name__,
            handler,
            title,
            description if description is not None else _doc(handler),
            mime_type,
        )
        return self.put(uri, resource)

    def add_template(
        self,
        uri_template: str,
        handler: Callable[..., Any],
        name: str | None = None,
        *,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
    ) -> ResourceTemplate:
        """Serve every URI ``uri_template`` matches; the handler gets each variable as a string.

        The handler returns None when the URI names nothing (then the client gets -32002).
        """
        template = ResourceTemplate(
            uri_template,
            name or handler.__name__,
            handler,
            title,
            description if description is not None else _doc(handler),
            mime_type,
        )
        self._templates[uri_template] = template
        self.changed()
        return template

    def add_directory(
        self,
        folder: str | os.PathLike[str],
        max_bytes: int = MAX_FILE_BYTES,
        *,
        scope: FolderScope | None = None,
    ) -> Directory:
        """Serve the files of ``folder`` as ``file://`` resources (read-only, never outside it).

        ``scope``: of those, only the ones it shows the client being answered (lesson 09 passes
        one that honours the client's roots).
        """
        directory = Directory(Path(folder).resolve(strict=True), max_bytes, scope)
        if not directory.folder.is_dir():
            raise NotADirectoryError(str(folder))
        self._directories.append(directory)
        self.changed()
        return directory

    def template(self, uri_template: str) -> ResourceTemplate | None:
        """The template registered as exactly ``uri_template``, if any."""
        return self._templates.get(uri_template)

    # -- the methods ------------------------------------------------------------------------------
    async def list_resources(self, context: RequestContext) -> dict[str, Any]:
        definitions = [resource.definition() for resource in self]
        for directory in self._directories:
            shows = await _visible(directory, context)  # asked once for the whole folder
            definitions += [directory.definition(path) for path in directory.files() if shows(path)]
        return self.page("resources", definitions, context)

    async def list_templates(self, context: RequestContext) -> dict[str, Any]:
        return self.page(
            "resourceTemplates",
            [template.definition() for template in self._templates.values()],
            context,
        )

    # --8<-- [start:read]
    async def read_resource(self, context: RequestContext) -> dict[str, Any]:
        """``resources/read``: a fixed resource first, then served folders, then the templates."""
        uri = _uri_param(context)
        resource = self.get(uri)
        if resource is not None:  # an exact URI wins: courses://all is not the course "all"
            value = await call_handler(resource.handler, {}, context)
            return {"contents": [contents_for(uri, value, resource.mime_type)]}
        for directory in self._directories:
            path = resolve_inside(directory.folder, uri)
            if path is not None and (await _visible(directory, context))(path):
                return {"contents": [read_file(uri, directory.folder, path, directory.max_bytes)]}
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
        if uri in self:
            return True
        for directory in self._directories:
            path = resolve_inside(directory.folder, uri)
            if path is not None and (await _visible(directory, context))(path):
                return True
        for template in self._templates.values():
            variables = match_template(template.pattern, uri)
            if (
                variables is not None
                and await call_handler(template.handler, variables, context) is not None
            ):
                return True
        return False

    # -- subscriptions ----------------------------------------------------------------------------
    # --8<-- [start:subscribe]
    async def subscribe(self, context: RequestContext) -> dict[str, Any]:
        """``resources/subscribe``: remember that *this session* wants to hear about ``uri``."""
        uri = _uri_param(context)
        if not await self.exists(uri, context):
            raise not_found(uri)
        # Kept with the session: lesson 11 saves it with the rest
        context.session.subscriptions.add(uri)
        return {}

    async def unsubscribe(self, context: RequestContext) -> dict[str, Any]:
        uri = _uri_param(context)
        context.session.subscriptions.discard(uri)
        return {}

    async def updated(self, uri: str) -> None:
        """Tell every session subscribed to ``uri`` that it changed (and nobody else)."""
        # A change of the resource belongs to no request, whoever's request caused it.
        for session in list(self.server.sessions):  # a session that ended has left this set
            if uri in session.subscriptions:
                try:
                    await session.notify("notifications/resources/updated", {"uri": uri})
                except Exception as error:  # one broken cable must not stop the others' notices
                    log_send_failure(f"resources/updated for {uri}", error)
        # And the clients that listen without a session (lesson 12)
        await self.server.subscriptions.deliver("notifications/resources/updated", {"uri": uri})

    # --8<-- [end:subscribe]


async def _visible(directory: Directory, context: RequestContext) -> Callable[[Path], bool]:
    """Which of ``directory``'s files the client being answered may see: all of them, unless the
    folder was given a scope (lesson 09's roots: a courtesy of the client's, not a lock)."""
    if directory.scope is None:
        return lambda path: True
    return await directory.scope.visible(context)


def _uri_param(context: RequestContext) -> str:
    uri = context.params.get("uri")
    if not isinstance(uri, str):
        raise RpcError(INVALID_PARAMS, f'{context.request.method} needs "uri" (a string)')
    return uri


def _doc(handler: Callable[..., Any]) -> str | None:
    return inspect.getdoc(handler)
