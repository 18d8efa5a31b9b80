"""The client: one session with one server, and typed helpers for its methods (lessons 03–06).

``async with Client(transport) as client`` performs the handshake on entry and closes the cable on
exit. :mod:`minimcp.client.connect` opens the cable first: ``stdio_client``, ``websocket_client``,
``http_client``.

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

The client also listens. Notifications the server sends are routed here:

* ``notifications/progress`` → the ``progress`` callback of the ``call_tool`` that asked for it;
* ``notifications/{tools,resources,prompts}/list_changed`` → the cached list is dropped (the next
  ``list_*`` asks the server again) and ``on_list_changed(kind)`` is called;
* ``notifications/resources/updated`` → the callback given to ``subscribe(uri, ...)``;
* ``notifications/message`` → ``on_log(level, logger, data)`` (server/utilities/logging);
* ``notifications/elicitation/complete`` → ``on_elicitation_complete(id)``, for a URL we accepted.

Every notification then reaches ``on_notification`` too, if you gave one. Callbacks may be plain
functions or coroutines. They run inside the connection's reading loop, which is what keeps progress
in order, so they must be quick and must never wait for an answer from this same server (that
answer could only be read once they return): to call the server back, start a task.

And the client answers, once lesson 09 plugs its answers in:
``answers=ClientAnswers(sampling=..., elicitation=..., roots=...)`` (:mod:`minimcp.client.answers`),
where each handler given declares a capability and answers the server's matching request;
``set_roots()`` changes the roots and tells the server. ``capabilities=`` and ``on_request=``
remain for anything else.

Later lessons plug into the session the same way: ``conversation=`` (lesson 12's two eras) and
``extensions=`` (lesson 09's cancellation); see :mod:`minimcp.session.client`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Protocol

from minimcp.rpc import Transport
from minimcp.rpc.aio import call
from minimcp.rpc.jsonrpc import method_not_found
from minimcp.session.client import (
    ClientSession,
    Conversation,
    InitializeFirst,
    NotificationCallback,
    RequestCallback,
    SessionExtension,
)
from minimcp.session.progress import PROGRESS, ProgressCallback, ProgressRouter, progress_notice

log = logging.getLogger("minimcp.client")

#: ``on_list_changed(kind)`` with kind ``"tools"``, ``"resources"`` or ``"prompts"``.
ListChangedCallback = Callable[[str], Awaitable[None] | None]
#: ``on_updated(uri)``: a subscribed resource changed; read it again to see how.
UpdatedCallback = Callable[[str], Awaitable[None] | None]
#: ``on_log(level, logger, data)``: one ``notifications/message`` (server/utilities/logging).
LogCallback = Callable[[str, str | None, Any], Awaitable[None] | None]

#: How many pages a ``list_*`` helper follows before deciding the server's cursor never ends.
MAX_PAGES = 100

# The lists a server may announce as changed, and which cached lists each announcement drops.
# Templates belong to the resources capability, so a resources list_changed drops them too.
LIST_CHANGED = {
    "notifications/tools/list_changed": ("tools", ("tools",)),
    "notifications/resources/list_changed": ("resources", ("resources", "resourceTemplates")),
    "notifications/prompts/list_changed": ("prompts", ("prompts",)),
}


class Answers(Protocol):
    """What answers the server's requests, and declares the capabilities that say it will
    (lesson 09's :class:`~minimcp.client.answers.ClientAnswers` plugs in as ``answers=``)."""

    def capabilities(self) -> dict[str, Any]:
        """What ``initialize`` declares: exactly the requests this object answers."""

    def knows(self, method: str) -> bool:
        """Whether it answers ``method``."""

    async def answer(self, method: str, params: dict[str, Any]) -> Any:
        """The answer to one of the server's requests (or the RpcError the spec names)."""

    def completed(self, elicitation_id: Any) -> bool:
        """The server says a URL interaction is over: True if we accepted it and it was open."""

    def set_roots(self, roots: Iterable[Any]) -> bool:
        """Replace the roots; True if they changed."""


# --8<-- [start:client]
class Client:
    """An MCP client bound to one server."""

    def __init__(
        self,
        transport: Transport,
        *,
        name: str = "minimcp-client",
        version: str = "0.1.0",
        answers: Answers | None = None,
        on_log: LogCallback | None = None,
        on_elicitation_complete: Callable[[str], Awaitable[None] | None] | None = None,
        capabilities: dict[str, Any] | None = None,
        on_notification: NotificationCallback | None = None,
        on_request: RequestCallback | None = None,
        on_list_changed: ListChangedCallback | None = None,
        conversation: Conversation | None = None,
        extensions: Sequence[SessionExtension] = (),
    ) -> None:
        # What the server may ask of us (lesson 09 plugs its answers in): they declare what they
        # answer, and raw capabilities= win.
        self.answers = answers
        declared = {**(answers.capabilities() if answers else {}), **(capabilities or {})}
        self.on_request = on_request  # a request none of the handlers above answers
        # Later lessons plug into the session: a conversation of another era (lesson 12), extensions
        # such as cancellation (lesson 09). Without them, lesson 03's handshake and nothing more.
        self.session = ClientSession(
            transport,
            {"name": name, "version": version},
            declared,
            on_notification=self._on_notification,
            on_request=self._on_request,
            conversation=conversation or InitializeFirst(),
            extensions=extensions,
        )
        self.on_notification = on_notification  # called for every notification, after our routing
        self.on_list_changed = on_list_changed
        self.on_log = on_log
        self.on_elicitation_complete = on_elicitation_complete
        self._cache: dict[str, list[dict[str, Any]]] = {}  # "tools" → the server's tools, and so on
        self._changes = 0  # list_changed announcements so far (see _list)
        self._progress = ProgressRouter()  # our progress tokens, and the callback of each
        self._subscriptions: dict[str, UpdatedCallback | None] = {}  # uri → on_updated
        self.max_pages = MAX_PAGES  # how many pages a list_* helper follows before giving up

    async def __aenter__(self) -> Client:
        try:
            await self.session.open()
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

    async def request(
        self, method: str, params: dict[str, Any] | None = None, timeout: float | None = 30.0
    ) -> Any:
        """Any request by name: the typed helpers below are built on this."""
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

    # -- what the server asks of us (lesson 09) ---------------------------------------------------
    # --8<-- [start:answers]
    async def _on_request(self, method: str, params: dict[str, Any]) -> Any:
        """A request from the server: to the ``answers`` plugged in; else to ``on_request``."""
        if self.answers is not None and (self.answers.knows(method) or self.on_request is None):
            return await self.answers.answer(method, params)  # -32601 for what we never declared
        if self.on_request is None:
            raise method_not_found(method)
        return await self.on_request(method, params)

    async def report_progress(
        self,
        request_params: dict[str, Any],
        progress: float,
        total: float | None = None,
        message: str | None = None,
    ) -> None:
        """From a handler answering the server (a sampling request a person reviews, say): tell the
        server how far it has got, if its request carried a ``progressToken``."""
        params = progress_notice(request_params, progress, total, message)
        if params is not None:
            await self.session.notify(PROGRESS, params)

    async def set_roots(self, roots: Iterable[Any]) -> None:
        """Change the roots, and tell the server (``notifications/roots/list_changed``)."""
        if self.answers is None:
            raise RuntimeError(
                "this client did not declare roots: give it answers=ClientAnswers(roots=[...])"
            )
        if self.answers.set_roots(roots):  # (lesson 12's 2026-07-28 conversation does not send it)
            await self.session.notify("notifications/roots/list_changed")

    # --8<-- [end:answers]

    # -- what the server tells us -----------------------------------------------------------------
    # --8<-- [start:notifications]
    async def _on_notification(self, method: str, params: dict[str, Any]) -> None:
        """Route a server notification to whoever is waiting for it, then to ``on_notification``."""
        if method == PROGRESS:
            await self._progress.deliver(params)  # to its call_tool's callback, if still waiting
        elif method in LIST_CHANGED:
            kind, keys = LIST_CHANGED[method]
            self._changes += 1
            for key in keys:
                self._cache.pop(key, None)  # lazily: the next list_* asks the server again
            await call(self.on_list_changed, kind)
        elif method == "notifications/resources/updated":
            uri = params.get("uri")
            if isinstance(uri, str) and uri in self._subscriptions:
                await call(self._subscriptions[uri], uri)
        elif method == "notifications/message":
            await call(self.on_log, params.get("level"), params.get("logger"), params.get("data"))
        elif method == "notifications/elicitation/complete":
            # unknown ids are ignored (MUST)
            if self.answers is not None and self.answers.completed(params.get("elicitationId")):
                await call(self.on_elicitation_complete, params["elicitationId"])
        await call(self.on_notification, method, params)

    # --8<-- [end:notifications]
