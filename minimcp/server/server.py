"""The server: one object that every transport serves (lessons 03–06).

A :class:`Server` is a :class:`~minimcp.server.core.ServerCore` (which methods it answers, what it
says about itself in the handshake, who is connected) with its features on top. It owns no cable.
``await server.serve(transport)`` runs one session over any transport, and a transport that carries
many clients (WebSocket, Streamable HTTP) simply calls ``serve`` once per client: the messages stay,
only the cable changes.

Lesson 03 gives it the handshake and ping. Lessons 04–06 add its features, each from its own
module: :mod:`minimcp.server.tools`, :mod:`minimcp.server.resources` and :mod:`minimcp.server.prompts`. The first tool
you register installs ``tools/list`` and ``tools/call`` and announces the ``tools`` capability; a
server without tools says nothing about them. Registration reads like the course notes::

    server = Server("course-server")

    @server.tool(title="Read calendar events")
    def read_events(date: str) -> str:  # its docstring becomes the tool's description
        ...

    @server.resource("courses://all", name="courses", mime_type="application/json")
    def all_courses() -> list[dict]: ...

    @server.template("courses://{id}", name="course-details", mime_type="application/json")
    def course(id: str) -> dict | None: ...

    @server.prompt(name="course-similar-by-name")
    def similar_by_name(names: str) -> str: ...
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

from minimcp.server.completion import CompletionRegistry
from minimcp.server.core import ServerCore
from minimcp.server.files import MAX_FILE_BYTES, Directory
from minimcp.server.logs import LoggingRegistry
from minimcp.server.prompts import Prompt, PromptArgument, PromptRegistry
from minimcp.server.resources import Resource, ResourceRegistry, ResourceTemplate
from minimcp.server.tools import Tool, ToolRegistry

F = TypeVar("F", bound=Callable[..., Any])


class Server(ServerCore):
    """An MCP server with tools, resources, prompts, logging and completion, each created on first use."""

    _tools: ToolRegistry | None = None  # created by the first registration (lessons 04–06)
    _resources: ResourceRegistry | None = None
    _prompts: PromptRegistry | None = None
    _logging: LoggingRegistry | None = None
    _completions: CompletionRegistry | None = None

    # -- features (lessons 04–06) -----------------------------------------------------------------
    @property
    def tools(self) -> ToolRegistry:
        """The tool registry, created (and the ``tools`` capability declared) on first use."""
        if self._tools is None:
            self._tools = ToolRegistry(self)
        return self._tools

    @property
    def resources(self) -> ResourceRegistry:
        if self._resources is None:
            self._resources = ResourceRegistry(self)
        return self._resources

    @property
    def prompts(self) -> PromptRegistry:
        if self._prompts is None:
            self._prompts = PromptRegistry(self)
        return self._prompts

    # --8<-- [start:registration]
    def tool(self, name: str | None = None, *, title: str | None = None, description: str | None = None,
             input_schema: dict[str, Any] | None = None, output_schema: dict[str, Any] | None = None,
             annotations: dict[str, Any] | None = None) -> Callable[[F], F]:
        """Decorator: ``@server.tool()`` makes a function a tool (see :meth:`ToolRegistry.add`)."""
        _parentheses_please("tool", name)

        def register(function: F) -> F:
            self.add_tool(function, name, title=title, description=description, input_schema=input_schema,
                          output_schema=output_schema, annotations=annotations)
            return function
        return register

    def resource(self, uri: str, *, name: str | None = None, title: str | None = None,
                 description: str | None = None, mime_type: str | None = None) -> Callable[[F], F]:
        """Decorator: ``@server.resource("courses://all")`` serves the function's result at that URI."""
        def register(function: F) -> F:
            self.add_resource(uri, function, name, title=title, description=description, mime_type=mime_type)
            return function
        return register

    def template(self, uri_template: str, *, name: str | None = None, title: str | None = None,
                 description: str | None = None, mime_type: str | None = None) -> Callable[[F], F]:
        """Decorator: ``@server.template("courses://{id}")``; the function gets ``id`` as a string."""
        def register(function: F) -> F:
            self.add_template(uri_template, function, name, title=title, description=description,
                              mime_type=mime_type)
            return function
        return register

    def prompt(self, name: str | None = None, *, title: str | None = None, description: str | None = None,
               arguments: list[PromptArgument] | None = None) -> Callable[[F], F]:
        """Decorator: ``@server.prompt()``; the function's parameters are the prompt's arguments."""
        _parentheses_please("prompt", name)

        def register(function: F) -> F:
            self.add_prompt(function, name, title=title, description=description, arguments=arguments)
            return function
        return register
    # --8<-- [end:registration]

    def input_schema(self, tool: str) -> dict[str, Any] | None:
        """The input schema of the tool called ``tool``, if any: the HTTP cable reads its ``x-mcp-header``
        annotations, the arguments a 2026-07-28 client also sends as ``Mcp-Param-*`` headers (lesson 12)."""
        found = self._tools.get(tool) if self._tools is not None else None
        return found.input_schema if found is not None else None

    # The same, one call each, for functions you did not write here (and for taking them away).
    def add_tool(self, function: Callable[..., Any], name: str | None = None, **options: Any) -> Tool:
        return self.tools.add(function, name, **options)

    def remove_tool(self, name: str) -> None:
        self.tools.remove(name)

    def add_resource(self, uri: str, function: Callable[..., Any], name: str | None = None,
                     **options: Any) -> Resource:
        return self.resources.add(uri, function, name, **options)

    def remove_resource(self, uri: str) -> None:
        self.resources.remove(uri)

    def add_template(self, uri_template: str, function: Callable[..., Any], name: str | None = None,
                     **options: Any) -> ResourceTemplate:
        return self.resources.add_template(uri_template, function, name, **options)

    def add_directory(self, folder: str | os.PathLike[str], max_bytes: int = MAX_FILE_BYTES, *,
                      within_roots: bool = False) -> Directory:
        """Serve a folder's files as ``file://`` resources, guarded against reads outside it (and, with
        ``within_roots``, showing only what lies inside the client's roots)."""
        return self.resources.add_directory(folder, max_bytes, within_roots=within_roots)

    async def resource_updated(self, uri: str) -> None:
        """Tell the sessions subscribed to ``uri`` that it changed."""
        await self.resources.updated(uri)

    def add_prompt(self, function: Callable[..., Any], name: str | None = None, **options: Any) -> Prompt:
        return self.prompts.add(function, name, **options)

    def remove_prompt(self, name: str) -> None:
        self.prompts.remove(name)

    # -- utilities: logging and completion (taught in "the client talks back") ---------------------
    def enable_logging(self) -> LoggingRegistry:
        """Declare ``logging`` and answer ``logging/setLevel``; handlers then send log lines with
        :func:`minimcp.server.logs.log`."""
        if self._logging is None:
            self._logging = LoggingRegistry(self)
        return self._logging

    @property
    def completions(self) -> CompletionRegistry:
        """The completion registry, created (and ``completions`` declared) on first use."""
        if self._completions is None:
            self._completions = CompletionRegistry(self, self.find_prompt, self.find_template)
        return self._completions

    def completion(self, *, argument: str, prompt: str | None = None,
                   template: str | None = None) -> Callable[[F], F]:
        """Decorator: ``@server.completion(prompt="code_review", argument="language")`` suggests values
        for a prompt's argument (or, with ``template="courses://{id}"``, a template's variable)."""
        def register(function: F) -> F:
            self.completions.add(function, argument=argument, prompt=prompt, template=template)
            return function
        return register

    def find_prompt(self, name: str) -> Prompt | None:
        """The prompt called ``name``, if any (asking creates no registry, declares nothing)."""
        if self._prompts is None:
            return None
        return self._prompts.get(name)

    def find_template(self, uri_template: str) -> ResourceTemplate | None:
        """The resource template registered as exactly ``uri_template``, if any."""
        if self._resources is None:
            return None
        return self._resources.template(uri_template)


def _parentheses_please(kind: str, name: object) -> None:
    """``@server.tool`` (no parentheses) would hand the function over as the name: say so plainly."""
    if callable(name):
        raise TypeError(f"write @server.{kind}() with parentheses")
