"""The server: one object that every transport serves (lesson 04: its tools).

A :class:`ToolServer` is a :class:`~minimcp.server.core.ServerCore` (which methods it answers, what
it says about itself in the handshake, who is connected) with tools on top. It owns no cable.
``await server.serve(transport)`` runs one session over any transport, and a transport that carries
many clients (WebSocket, Streamable HTTP) simply calls ``serve`` once per client: the messages stay,
only the cable changes.

Lesson 03 gives it the handshake and ping; this lesson, tools (:mod:`minimcp.server.tools`). The
first tool you register installs ``tools/list`` and ``tools/call`` and announces the ``tools``
capability; a server without tools says nothing about them. Registration reads like the course
notes::

    server = ToolServer("course-server")

    @server.tool(title="Read calendar events")
    def read_events(date: str) -> str:  # its docstring becomes the tool's description
        ...

Each later feature lesson adds its decorators by extending this class, in its own module:
lesson 05's :class:`~minimcp.server.resource_server.ResourceServer` adds ``@server.resource()`` and
``@server.template()``, lesson 06's :class:`~minimcp.server.prompts.PromptServer` adds
``@server.prompt()``, and lesson 09's :class:`~minimcp.server.complete.Server` adds logging and
completion: that last one, every feature at once, is what ``from minimcp.server import Server``
gives you.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from minimcp.server.core import ServerCore
from minimcp.server.tools import Tool, ToolRegistry

F = TypeVar("F", bound=Callable[..., Any])


class ToolServer(ServerCore):
    """An MCP server with tools, their registry created on first use."""

    _tools: ToolRegistry | None = None  # created by the first registration

    @property
    def tools(self) -> ToolRegistry:
        """The tool registry, created (and the ``tools`` capability declared) on first use."""
        if self._tools is None:
            self._tools = ToolRegistry(self)
        return self._tools

    # --8<-- [start:registration]
    def tool(
        self,
        name: str | None = None,
        *,
        title: str | None = None,
        description: str | None = None,
        input_schema: dict[str, Any] | None = None,
        output_schema: dict[str, Any] | None = None,
        annotations: dict[str, Any] | None = None,
    ) -> Callable[[F], F]:
        """Decorator: ``@server.tool()`` makes a function a tool (see :meth:`ToolRegistry.add`)."""
        parentheses_please("tool", name)

        def register(function: F) -> F:
            self.add_tool(
                function,
                name,
                title=title,
                description=description,
                input_schema=input_schema,
                output_schema=output_schema,
                annotations=annotations,
            )
            return function

        return register

    # --8<-- [end:registration]

    def input_schema(self, tool: str) -> dict[str, Any] | None:
        """The input schema of the tool called ``tool``, if any.

        The HTTP cable reads its ``x-mcp-header`` annotations: the arguments a 2026-07-28 client
        also sends as ``Mcp-Param-*`` headers (lesson 12).
        """
        found = self._tools.get(tool) if self._tools is not None else None
        return found.input_schema if found is not None else None

    # The same, one call each, for functions you did not write here (and for taking them away).
    def add_tool(
        self, function: Callable[..., Any], name: str | None = None, **options: Any
    ) -> Tool:
        return self.tools.add(function, name, **options)

    def remove_tool(self, name: str) -> None:
        self.tools.remove(name)


def parentheses_please(kind: str, name: object) -> None:
    """``@server.tool`` (no parentheses) would pass the function as the name: say so plainly."""
    if callable(name):
        raise TypeError(f"write @server.{kind}() with parentheses")
