"""``subscriptions/listen``: what a client hears without a session (MCP 2026-07-28, lesson 12).

In a 2025-11-25 session, the server tells the client that its tools changed on the session's own
channel (the GET stream over HTTP), and a client subscribes to a resource with
``resources/subscribe``. Without sessions, a client that wants to hear such things **asks to
listen** (basic/patterns/subscriptions)::

    {"method": "subscriptions/listen", "params": {"_meta": {...},
     "notifications": {"toolsListChanged": true, "resourceSubscriptions": ["courses://all"]}}}

The request stays open. The server first acknowledges it with the kinds it agreed to send (only
those it can), then sends them, each tagged with the subscription's id (the request's id) in
``_meta``, on the request's own stream. It ends when the client closes that stream (HTTP) or cancels
the request (stdio). A request's own progress and log lines never travel here: they stay on that
request's stream.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from minimcp.rpc.jsonrpc import INVALID_PARAMS, RpcError
from minimcp.rpc.mcp import SUBSCRIPTION_ID
from minimcp.rpc.transport import log_send_failure
from minimcp.server.core import Audience
from minimcp.session.context import RequestContext

#: The kinds a client may ask for: the filter's key, the notification it stands for, the capability
#: (and option) a server must have declared to send it.
KINDS = {
    "toolsListChanged": ("notifications/tools/list_changed", "tools", "listChanged"),
    "promptsListChanged": ("notifications/prompts/list_changed", "prompts", "listChanged"),
    "resourcesListChanged": ("notifications/resources/list_changed", "resources", "listChanged"),
}
UPDATED = "notifications/resources/updated"


class Topic(Protocol):
    """What an extension lets a listener ask for, under a key of ``notifications`` of its own
    (lesson 13's tasks: ``"taskIds": [...]``, heard as ``notifications/tasks``)."""

    method: str  # the notification it stands for

    async def agree(self, context: RequestContext, requested: Any) -> Any:
        """What of ``requested`` this server will send to this listener (None: nothing); or the
        error the request earns."""

    def wants(self, agreed: Any, params: dict[str, Any]) -> bool:
        """Whether a notification with ``params`` is one the listener agreed to hear."""


@dataclass(eq=False)
class Listener:
    """One open ``subscriptions/listen``: what it agreed to hear, and the request to send it on."""

    context: RequestContext
    agreed: dict[str, Any]
    topics: dict[str, Topic] = field(default_factory=dict)  # the extensions' kinds, by key

    @property
    def id(self) -> Any:
        return self.context.request.id

    def wants(self, method: str, params: dict[str, Any]) -> bool:
        if method == UPDATED:
            return params.get("uri") in self.agreed.get("resourceSubscriptions", [])
        for kind, agreed in self.agreed.items():
            topic = self.topics.get(kind)
            if topic is not None and topic.method == method:
                return topic.wants(agreed, params)
        return any(KINDS[kind][0] == method for kind in self.agreed if kind in KINDS)

    async def tell(self, method: str, params: dict[str, Any] | None = None) -> None:
        await self.context.notify(method, {**(params or {}), "_meta": {SUBSCRIPTION_ID: self.id}})


# --8<-- [start:listen]
class Subscriptions(Audience):
    """The open ``subscriptions/listen`` requests of a server, and what they hear: the audience of
    what it broadcasts beside its sessions (lesson 03's :class:`~minimcp.server.core.Audience`)."""

    def __init__(self, capabilities: Callable[[], dict[str, Any]]) -> None:
        self.capabilities = capabilities  # the server's: what it may promise to send
        self.listeners: set[Listener] = set()
        self.topics: dict[str, Topic] = {}  # what extensions add (lesson 13's tasks)

    def add_topic(self, key: str, topic: Topic) -> None:
        """Let a listener ask for ``topic`` under ``notifications[key]``: an extension's kind."""
        self.topics[key] = topic

    @property
    def listening(self) -> bool:
        return bool(self.listeners)

    async def listen(self, context: RequestContext) -> dict[str, Any]:
        """Acknowledge what the server can send, then stay open till the client stops listening."""
        requested = context.params.get("notifications")
        if not isinstance(requested, dict):
            raise RpcError(
                INVALID_PARAMS,
                'Invalid params: subscriptions/listen needs "notifications" (an object)',
            )
        agreed = self.agree(requested)
        for key, topic in self.topics.items():
            if key in requested and (value := await topic.agree(context, requested[key])):
                agreed[key] = value
        listener = Listener(context, agreed, self.topics)
        await listener.tell(
            "notifications/subscriptions/acknowledged", {"notifications": listener.agreed}
        )
        self.listeners.add(listener)  # after the acknowledgment: nothing may come before it
        try:
            # Until cancelled: the client closed the stream, or cancelled
            await asyncio.Event().wait()
        finally:
            self.listeners.discard(listener)
        return {}  # (never reached: a cancelled request is not answered)

    def agree(self, requested: dict[str, Any]) -> dict[str, Any]:
        """The kinds asked for that this server can send: what its capabilities promise."""
        capabilities = self.capabilities()
        agreed: dict[str, Any] = {}
        for kind, (_, capability, option) in KINDS.items():
            if requested.get(kind) is True and capabilities.get(capability, {}).get(option):
                agreed[kind] = True
        uris = requested.get("resourceSubscriptions")
        if isinstance(uris, list) and capabilities.get("resources", {}).get("subscribe"):
            agreed["resourceSubscriptions"] = [uri for uri in uris if isinstance(uri, str)]
        return agreed

    async def deliver(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send ``method`` to every listener that asked for it."""
        for listener in list(self.listeners):
            if listener.wants(method, params or {}):
                try:
                    await listener.tell(method, params)
                except Exception as error:  # one listener gone must not stop the others' notices
                    log_send_failure(method, error)


# --8<-- [end:listen]
