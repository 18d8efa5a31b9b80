"""Lesson 04's server, plus resources: ``@server.resource()``, ``@server.template()`` (lesson 05).

Each feature lesson extends the server of the lesson before in a module of its own, so that the
earlier lesson's code stays as it was: a :class:`ResourceServer` is a
:class:`~minimcp.server.server.ToolServer` that also serves resources. Its first registration
creates the :class:`~minimcp.server.resources.ResourceRegistry`, which installs the
``resources/*`` methods and declares the capability.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

from minimcp.server.files import MAX_FILE_BYTES, Directory, FolderScope
from minimcp.server.resources import Resource, ResourceRegistry, ResourceTemplate
from minimcp.server.server import ToolServer

F = TypeVar("F", bound=Callable[..., Any])


class ResourceServer(ToolServer):
    """Lesson 04's server, plus resources: ``@server.resource()`` and ``@server.template()``."""

    _resources: ResourceRegistry | None = None  # created by the first registration

    @property
    def resources(self) -> ResourceRegistry:
        if self._resources is None:
            self._resources = ResourceRegistry(self)
        return self._resources

    def resource(
        self,
        uri: str,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
    ) -> Callable[[F], F]:
        """Decorator: ``@server.resource("courses://all")`` serves the function's result there."""

        def register(function: F) -> F:
            self.add_resource(
                uri, function, name, title=title, description=description, mime_type=mime_type
            )
            return function

        return register

    def template(
        self,
        uri_template: str,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
    ) -> Callable[[F], F]:
        """Decorator: ``@server.template("courses://{id}")``; the function gets ``id`` (a str)."""

        def register(function: F) -> F:
            self.add_template(
                uri_template,
                function,
                name,
                title=title,
                description=description,
                mime_type=mime_type,
            )
            return function

        return register

    def add_resource(
        self, uri: str, function: Callable[..., Any], name: str | None = None, **options: Any
    ) -> Resource:
        return self.resources.add(uri, function, name, **options)

    def remove_resource(self, uri: str) -> None:
        self.resources.remove(uri)

    def add_template(
        self,
        uri_template: str,
        function: Callable[..., Any],
        name: str | None = None,
        **options: Any,
    ) -> ResourceTemplate:
        return self.resources.add_template(uri_template, function, name, **options)

    def add_directory(
        self,
        folder: str | os.PathLike[str],
        max_bytes: int = MAX_FILE_BYTES,
        *,
        scope: FolderScope | None = None,
    ) -> Directory:
        """Serve a folder's files as ``file://`` resources, guarded against reads outside it."""
        return self.resources.add_directory(folder, max_bytes, scope=scope)

    async def resource_updated(self, uri: str) -> None:
        """Tell the sessions subscribed to ``uri`` that it changed."""
        await self.resources.updated(uri)

    def find_template(self, uri_template: str) -> ResourceTemplate | None:
        """The template registered as exactly ``uri_template``, if any (creates nothing)."""
        return self._resources.template(uri_template) if self._resources is not None else None
