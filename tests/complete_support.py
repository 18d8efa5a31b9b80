"""The course server as ``python -m minimcp serve`` serves it, for the tests of lessons 09 to 12.

``minimcp.examples.course.build_server`` builds a server of lessons 03-06 alone (so lessons 05-08's
tests run on "minimcp as of lesson 08"). A test that relies on what later lessons plug in
(cancellation, a session's state kept for every worker, 2026-07-28) plugs them in here, explicitly.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from http_support import running

from minimcp.examples.complete import complete
from minimcp.examples.course import build_server
from minimcp.server.complete import Server
from minimcp.server.core import ServerCore
from minimcp.transports.http.server import HttpServer
from minimcp.transports.http.stateless import Revision2026


def complete_server(**options: Any) -> Server:
    """The course server built as lesson 09's :class:`Server` (logging, completion), with lessons
    09, 11 and 12 plugged in; ``options`` are ``build_server``'s."""
    server = complete(build_server(kind=Server, **options))
    assert isinstance(server, Server)
    return server


@asynccontextmanager
async def running_complete(
    server: ServerCore | None = None, **options: Any
) -> AsyncIterator[HttpServer]:
    """The complete course server (or ``server``) over Streamable HTTP, both eras on one endpoint:
    lesson 12's strategy given to lesson 08's endpoint, as ``python -m minimcp serve`` does."""
    served = server if server is not None else complete_server(step_delay=0.01)
    options.setdefault("stand_alone", Revision2026(served))
    async with running(served, **options) as http:
        yield http
