"""The server: one object that every transport serves (lessons 03–06).

A :class:`Server` is a registry: which methods it answers and what it says about itself in the
handshake. It owns no cable. ``await server.serve(transport)`` runs one session over any transport,
and a transport that carries many clients (WebSocket, Streamable HTTP) simply calls ``serve`` once
per client: the messages stay, only the cable changes.

Lesson 03 gives it the handshake and ping. Lessons 04–06 add its features, each from its own
module: :mod:`minimcp.tools`, :mod:`minimcp.resources` and :mod:`minimcp.prompts`. The first tool
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

Run ``python -m minimcp.server`` to serve a small demo server over stdio.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from .completion import CompletionRegistry
from .connection import Transport, unrelated_to_any_request
from .jsonrpc import METHOD_NOT_FOUND, Notification, RpcError
from .logs import LoggingRegistry
from .pagination import DEFAULT_PAGE_SIZE
from .prompts import Prompt, PromptArgument, PromptRegistry
from .resources import Directory, Resource, ResourceRegistry, ResourceTemplate
from .session import RequestContext, ServerSession
from .tools import Tool, ToolRegistry

log = logging.getLogger("minimcp.server")

Handler = Callable[[RequestContext], Awaitable[Any]]
NotificationHandler = Callable[[ServerSession, Notification], Awaitable[None]]
F = TypeVar("F", bound=Callable[..., Any])


# --8<-- [start:server]
class Server:
    """An MCP server: its identity, its capabilities, and a handler for each method it serves."""

    def __init__(self, name: str, version: str = "0.1.0", *, title: str | None = None,
                 instructions: str | None = None, page_size: int = DEFAULT_PAGE_SIZE) -> None:
        self.name = name
        self.version = version
        self.title = title
        self._instructions = instructions
        self._handlers: dict[str, Handler] = {}
        self._notification_handlers: dict[str, NotificationHandler] = {}
        self._capabilities: dict[str, Any] = {}
        self.sessions: set[ServerSession] = set()  # every client connected right now
        self.page_size = page_size  # how many items one tools/list (resources/list…) page carries
        self._tools: ToolRegistry | None = None  # created by the first registration (lessons 04–06)
        self._resources: ResourceRegistry | None = None
        self._prompts: PromptRegistry | None = None
        self._background: set[asyncio.Task[None]] = set()  # notifications on their way out

    def method(self, name: str) -> Callable[[Handler], Handler]:
        """Register the handler of a request method: ``@server.method("tools/list")``."""
        def register(handler: Handler) -> Handler:
            self._handlers[name] = handler
            return handler
        return register

    def on_notification(self, name: str) -> Callable[[NotificationHandler], NotificationHandler]:
        """Register the handler of a notification method the client may send."""
        def register(handler: NotificationHandler) -> NotificationHandler:
            self._notification_handlers[name] = handler
            return handler
        return register

    def declare(self, capability: str, options: dict[str, Any] | None = None) -> None:
        """Announce a capability in the handshake, e.g. ``declare("tools", {"listChanged": True})``."""
        self._capabilities.setdefault(capability, {}).update(options or {})

    async def serve(self, transport: Transport) -> None:
        """Serve one client over ``transport`` until it goes away."""
        session = ServerSession(transport, self)
        self.sessions.add(session)
        try:
            await session.run()
        finally:
            self.sessions.discard(session)
    # --8<-- [end:server]

    # -- telling every client at once ------------------------------------------------------------
    # --8<-- [start:broadcast]
    async def broadcast(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send a notification to every session that has finished its handshake."""
        with unrelated_to_any_request():  # even when a handler broadcasts, this answers no request
            for session in list(self.sessions):
                if session.state != "ready":  # before `initialized`, the client is not listening yet
                    continue
                try:
                    await session.notify(method, params)
                except Exception as exc:  # a client that just left must not stop the others' notices
                    log.debug("could not send %s to a session: %s", method, exc)

    def announce(self, method: str, params: dict[str, Any] | None = None) -> None:
        """:meth:`broadcast`, from plain (not async) code such as ``add_tool``: send it soon.

        With no event loop running there is no session either, so there is nobody to tell.
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        if not any(session.state == "ready" for session in self.sessions):
            return
        task = loop.create_task(self.broadcast(method, params))
        self._background.add(task)  # keep a reference, or the task may be collected before it runs
        task.add_done_callback(self._background.discard)
    # --8<-- [end:broadcast]

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

    def add_directory(self, folder: str | os.PathLike[str]) -> Directory:
        """Serve a folder's files as ``file://`` resources, guarded against reads outside it."""
        return self.resources.add_directory(folder)

    async def resource_updated(self, uri: str) -> None:
        """Tell the sessions subscribed to ``uri`` that it changed."""
        await self.resources.updated(uri)

    def add_prompt(self, function: Callable[..., Any], name: str | None = None, **options: Any) -> Prompt:
        return self.prompts.add(function, name, **options)

    def remove_prompt(self, name: str) -> None:
        self.prompts.remove(name)

    # -- utilities: logging and completion (taught in "the client talks back") ---------------------
    # Created on first use, like the feature registries; until then these class-level Nones stand in.
    _logging: LoggingRegistry | None = None
    _completions: CompletionRegistry | None = None

    def enable_logging(self) -> LoggingRegistry:
        """Declare ``logging`` and answer ``logging/setLevel``; handlers then send log lines with
        :func:`minimcp.logs.log`."""
        if self._logging is None:
            self._logging = LoggingRegistry(self)
        return self._logging

    @property
    def completions(self) -> CompletionRegistry:
        """The completion registry, created (and ``completions`` declared) on first use."""
        if self._completions is None:
            self._completions = CompletionRegistry(self)
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
        return next((prompt for prompt in self._prompts if prompt.name == name), None)

    def find_template(self, uri_template: str) -> ResourceTemplate | None:
        """The resource template registered as exactly ``uri_template``, if any."""
        if self._resources is None:
            return None
        return self._resources.template(uri_template)

    # -- what ServerSession asks of us (minimcp.session.ServerApp) ------------------------------
    def info(self) -> dict[str, Any]:
        info = {"name": self.name, "version": self.version}
        if self.title:
            info["title"] = self.title
        return info

    def capabilities(self) -> dict[str, Any]:
        return {name: dict(options) for name, options in self._capabilities.items()}

    def instructions(self) -> str | None:
        return self._instructions

    def knows(self, method: str) -> bool:
        return method in self._handlers

    async def handle(self, context: RequestContext) -> Any:
        handler = self._handlers.get(context.request.method)
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {context.request.method}")
        return await handler(context)

    async def handle_notification(self, session: ServerSession, notification: Notification) -> None:
        handler = self._notification_handlers.get(notification.method)
        if handler is not None:
            await handler(session, notification)


def _parentheses_please(kind: str, name: object) -> None:
    """``@server.tool`` (no parentheses) would hand the function over as the name: say so plainly."""
    if callable(name):
        raise TypeError(f"write @server.{kind}() with parentheses")


async def _demo() -> None:
    """A tiny server over this process's stdin and stdout: pipe JSON-RPC lines into it."""
    from .stdio import stdio_server_transport

    server = Server("server-demo", instructions="A tiny demo: one tool, one resource, one prompt.")

    @server.tool()
    def echo(text: str) -> str:
        """Answer with the same text."""
        return text

    @server.resource("demo://hello", name="hello", mime_type="text/plain")
    def hello() -> str:
        return "Hello from a resource."

    @server.prompt()
    def greet(name: str) -> str:
        """Greet someone by name."""
        return f"Say hello to {name}."

    await server.serve(await stdio_server_transport())


if __name__ == "__main__":
    import sys

    print("Serving over stdio; send one JSON-RPC message per line (Ctrl-D to end).", file=sys.stderr)
    asyncio.run(_demo())
