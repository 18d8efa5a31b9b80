"""What a server handler gets: the request, and the client to speak to meanwhile (lesson 03).

A handler is given a :class:`RequestContext`: the request, the :class:`Peer` it came from, and the
means to speak *while answering*. What it sends through the context (a progress notice, a log line,
a question back to the client) is marked as related to the request it answers, so that a cable with
several streams (Streamable HTTP) puts it on that request's own stream.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from minimcp.rpc.abilities import RequestStreams
from minimcp.rpc.jsonrpc import Message, Notification, Request, RequestId, RpcError

#: A session-level handler of one notification method, consulted before the app.
NotificationHandler = Callable[[Notification], Awaitable[None]]
#: A way to send one message and nothing else: where what a request says goes when there is no
#: session to carry it (lesson 12 answers such requests).
Say = Callable[[Message], Awaitable[None]]


# --8<-- [start:peer]
class Declares(Protocol):
    """The server behind a peer, as much of it as a handler needs: what it declared it can do."""

    def capabilities(self) -> dict[str, Any]: ...


class Peer(Protocol):
    """The client a request came from, as a handler reaches it through its context.

    Here, in lesson 03, that is always the :class:`~minimcp.session.server.ServerSession` the
    request arrived in. Lesson 12 answers a 2026-07-28 request that arrives alone, with no session
    around it: its peer is that one request (:class:`minimcp.session.alone.OneRequestPeer`), which
    can say things while it is answered and knows what the request's envelope says, and nothing
    more.
    """

    client_capabilities: dict[str, Any]
    log_level: str | None  # the least severe log line the client wants (None: the default)
    subscriptions: set[str]  # the resource URIs the client wants to hear about (lesson 05)
    notification_handlers: dict[str, NotificationHandler]  # session-level ones (lesson 09)
    request_streams: RequestStreams | None  # the cable's streams per request (lesson 08)

    @property
    def app(self) -> Declares:
        """The server answering: a session's :class:`~minimcp.session.server.ServerApp`. Only
        read, so a peer may hold any app that declares its capabilities."""
        ...

    async def notify(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        related_request_id: RequestId | None = None,
    ) -> None: ...

    async def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        timeout: float | None = None,
        related_request_id: RequestId | None = None,
    ) -> Any: ...


# --8<-- [end:peer]


# --8<-- [start:context]
@dataclass
class RequestContext:
    """What a server handler knows of the request it is answering, and how it speaks meanwhile."""

    session: Peer  # the ServerSession it arrived in (lesson 12: or the request alone)
    request: Request

    @property
    def params(self) -> dict[str, Any]:
        return self.request.params or {}

    @property
    def modern(self) -> bool:
        """Whether this request stands alone rather than within an initialized session: never, here
        (lesson 12's own context, :class:`minimcp.session.modern.ModernContext`, says yes)."""
        return False

    @property
    def client_capabilities(self) -> dict[str, Any]:
        """What the client can do, as it said once in ``initialize``."""
        return self.session.client_capabilities

    @property
    def log_level(self) -> str | None:
        """The least severe log line the client wants (None: the server's default)."""
        return self.session.log_level

    def missing_capability(self, name: str) -> RpcError | None:
        """The protocol error for needing the client capability ``name``, undeclared: none within a
        session, where the server simply may not ask (lesson 09 tells the model why); lesson 12's
        context, whose request must declare what it needs, answers ``-32021``."""
        return None

    @property
    def meta(self) -> dict[str, Any]:
        """The request's ``_meta`` (e.g. its ``progressToken``), or an empty dict."""
        meta = self.params.get("_meta")
        return meta if isinstance(meta, dict) else {}

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """A notification that belongs to this request (progress, a log line)."""
        await self.session.notify(method, params, related_request_id=self.request.id)

    async def send_request(
        self, method: str, params: dict[str, Any] | None = None, timeout: float | None = None
    ) -> Any:
        """A question back to the client, asked while answering this request (sampling…)."""
        return await self.session.request(method, params, timeout, self.request.id)

    async def ping(self, timeout: float | None = 10.0) -> None:
        await self.send_request("ping", timeout=timeout)

    # --8<-- [end:context]

    # --8<-- [start:ask]
    async def ask(
        self, questions: dict[str, dict[str, Any]], timeout: float | None = None
    ) -> dict[str, Any]:
        """Ask the client several things at once; their answers, by key.

        ``questions`` maps a key of your choice to ``{"method": "elicitation/create", "params":
        {...}}`` (or ``sampling/createMessage``, ``roots/list``). In a session they are sent as
        requests, together. (Lesson 12's context answers them from the request itself instead.)
        """
        asking = [
            self.send_request(question["method"], question.get("params"), timeout)
            for question in questions.values()
        ]
        sent = await asyncio.gather(*asking)  # together: the client may answer in any order
        return dict(zip(questions, sent, strict=True))

    # --8<-- [end:ask]

    # --8<-- [start:close_sse_stream]
    def close_sse_stream(self, retry_ms: int | None = None) -> bool:
        """End the HTTP connection carrying this request's SSE stream, without ending the stream.

        The client reconnects after ``retry_ms`` with ``Last-Event-ID`` and gets the rest, the
        response included (the spec's "polling", SEP-1699). A server does this to avoid holding a
        connection open for a long task. False when the request did not arrive over a cable with
        such streams (the cable declares its :class:`~minimcp.rpc.abilities.RequestStreams`, if it
        has them).
        """
        streams = self.session.request_streams
        return streams is not None and streams.close_request_stream(self.request.id, retry_ms)

    # --8<-- [end:close_sse_stream]
