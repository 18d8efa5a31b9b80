"""The complete server: every feature of lessons 04 to 09 on one object (taught in "the client
talks back").

Each feature lesson extended the server of the lesson before it: lesson 04's
:class:`~minimcp.server.server.ToolServer` has tools, lesson 05's
:class:`~minimcp.server.resource_server.ResourceServer` adds resources, lesson 06's
:class:`~minimcp.server.prompts.PromptServer` adds prompts. :class:`Server` adds what this lesson
teaches: logging (:mod:`minimcp.server.logs`), completion (:mod:`minimcp.server.completion`), and
folders that honour the client's roots (:mod:`minimcp.server.roots`). It is the server
``from minimcp.server import Server`` gives, and the one the course's examples build::

    server = Server("course-server")

    @server.tool(title="Read calendar events")
    def read_events(date: str) -> str: ...

    @server.resource("courses://all", name="courses", mime_type="application/json")
    def all_courses() -> list[dict]: ...

    @server.template("courses://{id}", name="course-details", mime_type="application/json")
    def course(id: str) -> dict | None: ...

    @server.prompt(name="course-similar-by-name")
    def similar_by_name(names: str) -> str: ...

    @server.completion(template="courses://{id}", argument="id")
    def course_ids(value: str) -> list[str]: ...
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

from minimcp.server.completion import CompletionRegistry
from minimcp.server.files import MAX_FILE_BYTES, Directory, FolderScope
from minimcp.server.logs import LoggingRegistry
from minimcp.server.prompts import PromptServer
from minimcp.server.roots import RootsScope

F = TypeVar("F", bound=Callable[..., Any])


class Server(PromptServer):
    """A server with tools, resources, prompts, logging and completion, each made on first use."""

    _logging: LoggingRegistry | None = None
    _completions: CompletionRegistry | None = None
    _roots: RootsScope | None = None  # one for every folder that honours the client's roots

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

    def completion(
        self, *, argument: str, prompt: str | None = None, template: str | None = None
    ) -> Callable[[F], F]:
        """Decorator: ``@server.completion(prompt="code_review", argument="language")`` suggests
        values for a prompt's argument (or, with ``template="courses://{id}"``, a template's
        variable)."""

        def register(function: F) -> F:
            self.completions.add(function, argument=argument, prompt=prompt, template=template)
            return function

        return register

    def add_directory(
        self,
        folder: str | os.PathLike[str],
        max_bytes: int = MAX_FILE_BYTES,
        *,
        scope: FolderScope | None = None,
        within_roots: bool = False,
    ) -> Directory:
        """Serve a folder's files as ``file://`` resources, guarded against reads outside it (and,
        with ``within_roots``, showing only what lies inside the client's roots)."""
        if within_roots:
            if self._roots is None:
                self._roots = RootsScope(self)
            scope = self._roots
        return super().add_directory(folder, max_bytes, scope=scope)
