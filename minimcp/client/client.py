"""The client: one session with one server, and what it hears from it (lessons 03–06, 09).

``async with Client(transport) as client`` performs the handshake on entry and closes the cable on
exit. :mod:`minimcp.client.connect` opens the cable first: ``stdio_client``, ``websocket_client``,
``http_client``.

The typed helpers, one per method of the server's features (``list_tools()``, ``call_tool()``,
``read_resource()``, ``get_prompt()``, …), come from
:class:`~minimcp.client.features.ServerFeatures`; the client sends each request on its session.

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

Later lessons plug into the session the same way: ``conversation=`` (lesson 12's two eras, which
also says how the answers answer in its era) and ``extensions=`` (lesson 09's cancellation); see
:mod:`minimcp.session.client`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Protocol

from minimcp.client.features import ServerFeatures
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
from minimcp.session.progress import PROGRESS, progress_notice

log = logging.getLogger("minimcp.client")

#: ``on_list_changed(kind)`` with kind ``"tools"``, ``"resources"`` or ``"prompts"``.
ListChangedCallback = Callable[[str], Awaitable[None] | None]
#: ``on_log(level, logger, data)``: one ``notifications/message`` (server/utilities/logging).
LogCallback = Callable[[str, str | None, Any], Awaitable[None] | None]

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
class Client(ServerFeatures):
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
        super().__init__()  # the lists kept, the progress callbacks, the subscriptions
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

    # -- what the server asks of us (lesson 09) ---------------------------------------------------
    # --8<-- [start:answers]
    async def _on_request(self, method: str, params: dict[str, Any]) -> Any:
        """A request from the server: to the ``answers`` plugged in; else to ``on_request``.

        The session's conversation hands it to the answers, as its era asks: lesson 03's calls
        their ``answer``; lesson 12's answers a question that came inside a 2026-07-28 answer its
        own way."""
        if self.answers is not None and (self.answers.knows(method) or self.on_request is None):
            # the answers say -32601 for what we never declared
            return await self.session.conversation.answer_with(self.answers, method, params)
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
