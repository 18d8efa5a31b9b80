"""What a client asks of a server's features: typed helpers, one per method (lessons 04–06, 09).

The helpers speak the spec's JSON and return it as plain dicts, exactly as the server sent it, so
what you print is what travelled (spec 2025-11-25, server/tools, server/resources, server/prompts):

* ``list_tools()``, ``list_resources()``, ``list_resource_templates()``, ``list_prompts()`` return
  the **list of items** (``result["tools"]`` and so on), merged across every page the server sent.
  When the server promised to announce changes (``listChanged`` in its capabilities) the list is
  kept, and asked for again only after such an announcement (or with ``refresh=True``);
* ``call_tool()``, ``read_resource()``, ``get_prompt()`` return the **result object** itself
  (``{"content": [...], "isError": false}``, ``{"contents": [...]}``, ``{"messages": [...]}``);
* ``subscribe()``, ``unsubscribe()`` return nothing: their result is empty;
* ``set_logging_level()`` chooses which ``notifications/message`` the server sends (they reach
  ``on_notification``) and ``complete()`` returns the ``completion`` object of
  ``completion/complete`` (server/utilities/logging and completion, taught later).

A failed request raises :class:`~minimcp.rpc.jsonrpc.RpcError` carrying the server's error code. A
tool that ran and failed is *not* an exception: its result says ``"isError": true`` and the caller
(the host) hands it to the model, which may correct itself.

:class:`ServerFeatures` only asks; :class:`~minimcp.client.client.Client`, built on it, sends each
request on its session and routes back what the server tells it (progress, list changes, resource
updates).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from minimcp.session.progress import ProgressCallback, ProgressRouter

#: ``on_updated(uri)``: a subscribed resource changed; read it again to see how.
UpdatedCallback = Callable[[str], Awaitable[None] | None]

#: How many pages a ``list_*`` helper follows before deciding the server's cursor never ends.
MAX_PAGES = 100


class ServerFeatures:
    """The typed requests of the server's features, and what their answers leave behind: the lists
    kept, the progress callbacks waiting, the subscriptions made."""

    def __init__(self) -> None:
        self._cache: dict[str, list[dict[str, Any]]] = {}  # "tools" → the server's tools, and so on
        self._changes = 0  # list_changed announcements so far (see _list)
        self._progress = ProgressRouter()  # our progress tokens, and the callback of each
        self._subscriptions: dict[str, UpdatedCallback | None] = {}  # uri → on_updated
        self.max_pages = MAX_PAGES  # how many pages a list_* helper follows before giving up

    async def request(
        self, method: str, params: dict[str, Any] | None = None, timeout: float | None = 30.0
    ) -> Any:
        """Send one request and return its result: the :class:`Client` does it on its session."""
        raise NotImplementedError

    @property
    def server_capabilities(self) -> dict[str, Any]:
        """What the server declared in the handshake: the :class:`Client` knows it."""
        raise NotImplementedError

    # -- lists, page by page ----------------------------------------------------------------------
    # --8<-- [start:pagination]
    async def _list(
        self,
        method: str,
        key: str,
        capability: str,
        refresh: bool = False,
        timeout: float | None = 30.0,
    ) -> list[dict[str, Any]]:
        """Every item of a paginated list: follow ``nextCursor`` until the server sends none.

        The cursor is opaque (server/utilities/pagination): we hand it back untouched and never
        guess the page size. ``self.max_pages`` guards against a server whose cursor never ends.
        """
        if key in self._cache and not refresh:
            return list(self._cache[key])
        changes_before = self._changes
        items: list[dict[str, Any]] = []
        params: dict[str, Any] = {}
        for _ in range(self.max_pages):
            result = await self.request(method, params, timeout)
            items.extend(result.get(key, []))
            cursor = result.get("nextCursor")
            if cursor is None:  # no cursor: that was the last page
                break
            params = {"cursor": cursor}
        else:
            raise RuntimeError(f"{method}: still more pages after {self.max_pages}; giving up")
        # Keep the list only if the server promised to tell us when it changes (otherwise it could
        # go stale without our knowing, so we ask every time), and only if no change was announced
        # while we were reading the pages (then what we read may be half old, half new).
        promised = self.server_capabilities.get(capability, {}).get("listChanged")
        if promised and self._changes == changes_before:
            self._cache[key] = items
        return list(items)

    # --8<-- [end:pagination]

    async def list_tools(
        self, *, refresh: bool = False, timeout: float | None = 30.0
    ) -> list[dict[str, Any]]:
        """The server's tools (``tools/list``): name, description, inputSchema, …"""
        return await self._list("tools/list", "tools", "tools", refresh, timeout)

    async def list_resources(
        self, *, refresh: bool = False, timeout: float | None = 30.0
    ) -> list[dict[str, Any]]:
        """The server's concrete resources (``resources/list``): uri, name, mimeType, …"""
        return await self._list("resources/list", "resources", "resources", refresh, timeout)

    async def list_resource_templates(
        self, *, refresh: bool = False, timeout: float | None = 30.0
    ) -> list[dict[str, Any]]:
        """The server's resource templates (``resources/templates/list``): uriTemplate, name, …"""
        return await self._list(
            "resources/templates/list", "resourceTemplates", "resources", refresh, timeout
        )

    async def list_prompts(
        self, *, refresh: bool = False, timeout: float | None = 30.0
    ) -> list[dict[str, Any]]:
        """The server's prompts (``prompts/list``): name, description, arguments, …"""
        return await self._list("prompts/list", "prompts", "prompts", refresh, timeout)

    # -- tools ------------------------------------------------------------------------------------
    # --8<-- [start:call_tool]
    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        progress: ProgressCallback | None = None,
        timeout: float | None = 30.0,
    ) -> dict[str, Any]:
        """Call a tool and return its result: ``{"content": [...], "isError": bool, ...}``.

        With a ``progress`` callback, the request carries a fresh ``progressToken`` in
        ``params._meta``; every ``notifications/progress`` the server sends with that token is
        passed to the callback as ``(progress, total, message)``, in the order it arrived.
        """
        params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
        if progress is None:
            return await self.request("tools/call", params, timeout)
        # A fresh token in params._meta, while it runs
        with self._progress.watching(params, progress):
            return await self.request("tools/call", params, timeout)

    # --8<-- [end:call_tool]

    # -- resources --------------------------------------------------------------------------------
    async def read_resource(self, uri: str, *, timeout: float | None = 30.0) -> dict[str, Any]:
        """Read a resource (a listed URI, or one built from a template): ``{"contents": [...]}``.

        Each item of ``contents`` has the ``uri`` and ``mimeType`` and either ``text`` or a base64
        ``blob``. One read may return several items (a directory, say).
        """
        return await self.request("resources/read", {"uri": uri}, timeout)

    async def subscribe(
        self, uri: str, on_updated: UpdatedCallback | None = None, *, timeout: float | None = 30.0
    ) -> None:
        """Ask to hear when ``uri`` changes: each ``notifications/resources/updated`` for it calls
        ``on_updated(uri)``. The server must declare ``resources.subscribe``."""
        self._subscriptions[uri] = on_updated  # before the request: an update may follow at once
        try:
            await self.request("resources/subscribe", {"uri": uri}, timeout)
        except BaseException:
            self._subscriptions.pop(uri, None)
            raise

    async def unsubscribe(self, uri: str, *, timeout: float | None = 30.0) -> None:
        """Stop hearing about ``uri``."""
        self._subscriptions.pop(uri, None)
        await self.request("resources/unsubscribe", {"uri": uri}, timeout)

    # -- prompts ----------------------------------------------------------------------------------
    # --8<-- [start:get_prompt]
    async def get_prompt(
        self, name: str, arguments: dict[str, str] | None = None, *, timeout: float | None = 30.0
    ) -> dict[str, Any]:
        """Fill a prompt on the server: ``{"description": ..., "messages": [{"role", "content"}]}``.

        Prompt arguments are strings (unlike tool arguments, which follow a JSON Schema).
        """
        params: dict[str, Any] = {"name": name}
        if arguments:
            params["arguments"] = arguments
        return await self.request("prompts/get", params, timeout)

    # --8<-- [end:get_prompt]

    # -- utilities: logging and completion (taught in "the client talks back") ---------------------
    async def set_logging_level(self, level: str, *, timeout: float | None = 30.0) -> None:
        """Ask the server to send only log messages of ``level`` or more severe
        (``logging/setLevel``; in lesson 12's 2026-07-28, each request's envelope says it)."""
        await self.request("logging/setLevel", {"level": level}, timeout)

    async def complete(
        self,
        argument: str,
        value: str,
        *,
        prompt: str | None = None,
        template: str | None = None,
        arguments: dict[str, str] | None = None,
        timeout: float | None = 30.0,
    ) -> dict[str, Any]:
        """Suggestions for ``argument`` of a prompt (``prompt=``) or a URI template (``template=``),
        given what the user typed so far: ``{"values": [...], "total": n, "hasMore": bool}``.

        ``arguments`` are the values already chosen for the other arguments, if any.
        """
        if prompt is not None and template is None:
            ref = {"type": "ref/prompt", "name": prompt}
        elif template is not None and prompt is None:
            ref = {"type": "ref/resource", "uri": template}
        else:
            raise ValueError("name either prompt= or template=")
        params: dict[str, Any] = {"ref": ref, "argument": {"name": argument, "value": value}}
        if arguments:
            params["context"] = {"arguments": arguments}
        result = await self.request("completion/complete", params, timeout)
        return result["completion"]
