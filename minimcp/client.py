"""The client: one session with one server, and typed helpers for its methods (lessons 03–06).

``async with Client(transport) as client`` performs the handshake on entry and closes the cable on
exit. :func:`stdio_client` starts a server as a child process first.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from .connection import Transport
from .session import ClientSession, NotificationCallback, RequestCallback
from .stdio import spawn


# --8<-- [start:client]
class Client:
    """An MCP client bound to one server."""

    def __init__(self, transport: Transport, *, name: str = "minimcp-client", version: str = "0.1.0",
                 capabilities: dict[str, Any] | None = None,
                 on_notification: NotificationCallback | None = None,
                 on_request: RequestCallback | None = None) -> None:
        self.session = ClientSession(transport, {"name": name, "version": version}, capabilities or {},
                                     on_notification=on_notification, on_request=on_request)

    async def __aenter__(self) -> Client:
        try:
            await self.session.initialize()
        except BaseException:
            await self.close()
            raise
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self.session.close()

    async def ping(self, timeout: float | None = 10.0) -> None:
        await self.session.ping(timeout)

    async def request(self, method: str, params: dict[str, Any] | None = None,
                      timeout: float | None = 30.0) -> Any:
        """Any request by name: the typed helpers of later lessons are built on this."""
        return await self.session.request(method, params, timeout)
    # --8<-- [end:client]

    @property
    def server_info(self) -> dict[str, Any]:
        return self.session.server_info

    @property
    def server_capabilities(self) -> dict[str, Any]:
        return self.session.server_capabilities

    @property
    def protocol_version(self) -> str | None:
        return self.session.protocol_version

    @property
    def instructions(self) -> str | None:
        return self.session.instructions


@asynccontextmanager
async def stdio_client(command: Sequence[str], **options: Any) -> AsyncIterator[Client]:
    """Start ``command`` as a child process and yield an initialized client to it."""
    spawn_options = {k: options.pop(k) for k in ("env", "cwd", "on_stderr", "use_threads", "framing")
                     if k in options}
    transport = await spawn(command, **spawn_options)
    async with Client(transport, **options) as client:
        yield client
