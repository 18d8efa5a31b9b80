"""Roots: the folders the client lets the server work in (taught in "the client talks back").

A coding assistant opens a project; the file server it talks to should look *there*, not at the
whole disk. The client says where with roots (spec 2025-11-25, client/roots):

* a client that can do this declares ``roots`` in ``initialize`` (``{"listChanged": true}`` if it
  will say when they change);
* the server asks with ``roots/list`` and gets ``{"roots": [{"uri": "file:///home/me/project",
  "name": "project"}]}``; every ``uri`` is a ``file://`` URI;
* when the list changes, the client sends ``notifications/roots/list_changed``, and the server asks
  again when it next needs them.

Roots are a *courtesy*, not a lock: the client tells a well-behaved server where to look; a server
that ignores them is not stopped by the protocol. The course's file server honours them
(:func:`inside_roots`), and keeps its own guard (lesson 05's ``resolve_inside``) whatever they say.

:class:`RootsCache` keeps each session's list until the client says it changed, so a server that
checks every read does not ask the client every time. :class:`RootsScope` is how a served folder
honours them: lesson 05's ``add_directory(folder, scope=...)`` takes a scope for exactly this, and
the complete server's ``add_directory(folder, within_roots=True)`` passes this one.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from urllib.request import url2pathname

from minimcp.server.core import ServerCore
from minimcp.server.sampling import DEFAULT_TIMEOUT, require_capability
from minimcp.server.tools import ToolError
from minimcp.session.context import Peer, RequestContext
from minimcp.session.server import ServerSession

LIST_CHANGED = "notifications/roots/list_changed"


def root_path(uri: str) -> Path | None:
    """The folder a ``file://`` root names, resolved; None for other URIs (the spec allows none)."""
    parts = urlsplit(uri)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
        return None
    return Path(url2pathname(parts.path)).resolve()


def inside_roots(path: Path, roots: list[dict[str, Any]]) -> bool:
    """Whether ``path`` (already resolved) lies in one of the client's ``roots``."""
    folders = [root_path(root.get("uri", "")) for root in roots if isinstance(root, dict)]
    return any(folder is not None and path.is_relative_to(folder) for folder in folders)


# --8<-- [start:roots_cache]
class RootsCache:
    """Each session's roots, asked for once and kept until the client says they changed."""

    def __init__(self, server: ServerCore) -> None:
        self._roots: dict[Peer, list[dict[str, Any]]] = {}
        self._changes: dict[Peer, int] = {}  # list_changed notices heard, per session
        server.on_notification(LIST_CHANGED)(self._changed)
        server.at_session_end(self._forget)

    async def roots(
        self, context: RequestContext, *, timeout: float | None = DEFAULT_TIMEOUT
    ) -> list[dict[str, Any]]:
        """The roots of the client being answered: cached, or asked for with ``roots/list``."""
        session = context.session
        if session in self._roots:
            return self._roots[session]
        require_capability(context, "roots", "roots/list")  # CapabilityMissing: never declared
        changes = self._changes.get(session, 0)
        result = await context.send_request("roots/list", None, timeout)
        roots = result.get("roots") if isinstance(result, dict) else None
        if not isinstance(roots, list):
            raise ToolError(f"The client's answer to roots/list has no list of roots: {result!r}")
        # Keep them only if the client will say when they change, and did not while we asked.
        if (
            session.client_capabilities["roots"].get("listChanged")
            and self._changes.get(session, 0) == changes
        ):
            self._roots[session] = roots
        return roots

    async def _changed(self, session: ServerSession, _notification: Any) -> None:
        self._changes[session] = self._changes.get(session, 0) + 1
        self._roots.pop(session, None)  # lazily: the next roots() asks again

    def _forget(self, session: ServerSession) -> None:
        self._roots.pop(session, None)
        self._changes.pop(session, None)


# --8<-- [end:roots_cache]


# --8<-- [start:roots_scope]
class RootsScope:
    """A served folder narrowed to the client's roots: the ``scope`` lesson 05's folders take."""

    def __init__(self, server: ServerCore) -> None:
        self.cache = RootsCache(server)

    async def visible(self, context: RequestContext) -> Callable[[Path], bool]:
        """For this request: inside the client's roots, if it declared roots; else everything."""
        if "roots" not in context.client_capabilities:
            return lambda path: True
        roots = await self.cache.roots(context)  # once per request, not once per file
        return lambda path: inside_roots(path, roots)


# --8<-- [end:roots_scope]
