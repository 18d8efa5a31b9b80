"""The server's half of a session: the handshake, then every request handed to the app (lesson 03).

A :class:`ServerSession` owns one :class:`~minimcp.rpc.connection.Connection` and never knows which
cable it runs on. It keeps the :class:`~minimcp.session.lifecycle.Lifecycle` (the rules, with no
I/O), answers ``initialize`` and ``ping`` itself, and passes everything else to its app, which is
the :class:`minimcp.server.Server` of lessons 04–06 (anything with the :class:`ServerApp` methods).

A handler gets a :class:`RequestContext`: the request, its session, and the means to speak *while
answering*. What it sends through the context (a progress notice, a log line, a question back to the
client) is marked as related to the request it answers, so that a cable with several streams
(Streamable HTTP) puts it on that request's own stream.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from minimcp.rpc import Transport
from minimcp.rpc.connection import Connection
from minimcp.rpc.jsonrpc import (
    METHOD_NOT_FOUND,
    Notification,
    Request,
    RequestId,
    RpcError,
    method_not_found,
)
from minimcp.rpc.mcp import PROTOCOL_VERSION, has_envelope
from minimcp.session.cancellation import CANCELLED, on_cancelled, tell_peer_on_abandon
from minimcp.session.envelope import Envelope, unsupported_version
from minimcp.session.input_required import Answers, InputRequired, StateSeal, pick_answers
from minimcp.session.lifecycle import Lifecycle
from minimcp.session.modern import MODERN_ONLY, admit, discover, finish, input_required, modern_error
from minimcp.session.progress import PROGRESS, ProgressCallback, ProgressRouter
from minimcp.session.saved import KeepsSessionState, SavedState


@runtime_checkable
class ClosesRequestStreams(Protocol):
    """A transport that carries each request's answer on a stream of its own (Streamable HTTP), and
    can end the connection under that stream while the stream itself lives on."""

    def close_request_stream(self, request_id: RequestId, retry_ms: int | None = None) -> bool: ...


# --8<-- [start:context]
@dataclass
class RequestContext:
    """What a server handler knows about the request it is answering, and how it speaks meanwhile."""

    session: ServerSession
    request: Request
    envelope: Envelope | None = None  # a 2026-07-28 request's own facts (lesson 12); None: the session's
    answers: Answers | None = None  # a 2026-07-28 retry's answers to the questions asked (lesson 12)

    @property
    def params(self) -> dict[str, Any]:
        return self.request.params or {}

    @property
    def modern(self) -> bool:
        """Whether this request stands alone (2026-07-28) rather than within an initialized session."""
        return self.envelope is not None

    @property
    def client_capabilities(self) -> dict[str, Any]:
        """What the client can do: said by this request (2026-07-28), or once in ``initialize``."""
        return self.envelope.client_capabilities if self.envelope else self.session.client_capabilities

    @property
    def log_level(self) -> str | None:
        """The least severe log line the client wants for this request (None: the server's default;
        for a 2026-07-28 request, none at all)."""
        return self.envelope.log_level if self.envelope else self.session.log_level

    @property
    def meta(self) -> dict[str, Any]:
        """The request's ``_meta`` (e.g. its ``progressToken``), or an empty dict."""
        meta = self.params.get("_meta")
        return meta if isinstance(meta, dict) else {}

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """A notification that belongs to this request (progress, a log line)."""
        await self.session.connection.notify(method, params, related_request_id=self.request.id)

    async def send_request(self, method: str, params: dict[str, Any] | None = None,
                           timeout: float | None = None, progress: ProgressCallback | None = None) -> Any:
        """A question back to the client, asked while answering this request (sampling, elicitation).

        With ``progress``, the request carries a ``progressToken`` and the client's progress notices
        for it reach ``progress(progress, total, message)`` (lesson 09: progress goes both ways).
        For a 2026-07-28 request it becomes one question of :meth:`ask`, named after its method.
        """
        if self.modern:
            self.answers_or_refuse().asked += 1
            key = f"{method.split('/')[0]}-{self.answers_or_refuse().asked}"
            return (await self.ask({key: {"method": method, "params": params or {}}}))[key]
        connection, related = self.session.connection, self.request.id
        if progress is None:
            return await connection.request(method, params, timeout, related_request_id=related)
        params = dict(params or {})
        with self.session.progress.watching(params, progress):
            return await connection.request(method, params, timeout, related_request_id=related)

    async def ping(self, timeout: float | None = 10.0) -> None:
        await self.send_request("ping", timeout=timeout)
# --8<-- [end:context]

    # --8<-- [start:ask]
    async def ask(self, questions: dict[str, dict[str, Any]], timeout: float | None = None) -> dict[str, Any]:
        """Ask the client several things at once; their answers, by key.

        ``questions`` maps a key of your choice to ``{"method": "elicitation/create", "params": {...}}``
        (or ``sampling/createMessage``, ``roots/list``). In a session (2025-11-25) they are sent as
        requests, together. A 2026-07-28 request cannot send anything: the answers must come with the
        request itself, and if one is missing the handler stops here and the client is asked
        (:class:`~minimcp.session.input_required.InputRequired`); it runs again on the retry.
        """
        if not self.modern:
            sent = await asyncio.gather(*(self.send_request(question["method"], question.get("params"), timeout)
                                          for question in questions.values()))
            return dict(zip(questions, sent, strict=True))
        return pick_answers(self.answers_or_refuse(), questions, self.client_capabilities)

    def answers_or_refuse(self) -> Answers:
        if self.answers is None:
            raise RuntimeError(f"{self.request.method} may not ask the client anything (2026-07-28 allows it "
                               "in tools/call, prompts/get and resources/read only)")
        return self.answers
    # --8<-- [end:ask]

    # --8<-- [start:close_sse_stream]
    def close_sse_stream(self, retry_ms: int | None = None) -> bool:
        """End the HTTP connection carrying this request's SSE stream, without ending the stream.

        The client reconnects after ``retry_ms`` with ``Last-Event-ID`` and gets the rest, the response
        included (the spec's "polling", SEP-1699). A server does this to avoid holding a connection
        open for a long task. False when the request did not arrive over a cable with such streams.
        """
        transport = self.session.connection.transport
        if not isinstance(transport, ClosesRequestStreams):
            return False
        return transport.close_request_stream(self.request.id, retry_ms)
    # --8<-- [end:close_sse_stream]


@runtime_checkable
class StandsAlone(Protocol):
    """A cable that carries one 2026-07-28 request and nothing else (lesson 12's HTTP): its session starts
    in that era, so that a request without its envelope is refused as such rather than taken for 2025."""

    stands_alone: bool


class ServerApp(Protocol):
    """What a session needs from the server it serves (:class:`minimcp.server.Server` is one).

    ``handle`` answers any method past the handshake, raising ``RpcError(METHOD_NOT_FOUND)`` for
    methods it does not know, and ``knows`` says whether it has a method at all.
    """

    protocol_versions: tuple[str, ...]
    modern_versions: tuple[str, ...]  # the revisions without a handshake it also serves (lesson 12)
    state_seal: StateSeal  # seals the requestState of 2026-07-28 questions (lesson 12)
    cache_ttl_ms: int  # what 2026-07-28 list and read results say about caching them
    cache_scope: str

    def info(self) -> dict[str, Any]: ...

    def capabilities(self) -> dict[str, Any]: ...

    def instructions(self) -> str | None: ...

    def knows(self, method: str) -> bool: ...

    async def handle(self, context: RequestContext) -> Any: ...

    async def handle_notification(self, session: ServerSession, notification: Notification) -> None: ...


# --8<-- [start:server_session]
class ServerSession(SavedState):
    """The server's half of one client's session: lifecycle state, then dispatch to the app."""

    def __init__(self, transport: Transport, app: ServerApp) -> None:
        self.app = app
        self.lifecycle = Lifecycle()
        #: "legacy" once ``initialize`` succeeded, "modern" once a 2026-07-28 request was served: on a
        #: connection (stdio, WebSocket) the first one decides, and the other era is refused (lesson 12).
        self.era: str | None = "modern" if isinstance(transport, StandsAlone) else None
        self.protocol_version: str | None = None
        self.client_info: dict[str, Any] = {}
        self.client_capabilities: dict[str, Any] = {}
        #: The least severe log level this session's client wants to hear, chosen with
        #: ``logging/setLevel`` (see :mod:`minimcp.server.logs`); None until the client chooses.
        self.log_level: str | None = None
        self.subscriptions: set[str] = set()  # the resource URIs this client wants to hear about (lesson 05)
        self.connection = Connection(transport, self._on_request, self._on_notification)
        tell_peer_on_abandon(self.connection)  # a request to the client that times out is cancelled
        self._initialize_id: RequestId | None = None  # the client may not cancel its initialize
        self.progress = ProgressRouter()  # tokens of our requests to the client (RequestContext.send_request)
        # A cable shared by several processes (lesson 11) keeps the session's state where they all see it.
        self._keeper = transport if isinstance(transport, KeepsSessionState) else None
        restored = self._keeper.restored_state() if self._keeper is not None else None
        if restored is not None:
            self.restore(restored)
        self._kept = self.saved_state()

    @property
    def state(self) -> str:
        """``new``, ``initializing`` or ``ready``: see :class:`~minimcp.session.lifecycle.Lifecycle`."""
        return self.lifecycle.state

    async def run(self) -> None:
        """Serve until the client goes away."""
        await self.connection.run()

    async def _on_request(self, request: Request) -> Any:
        try:
            return await self._dispatch(request)
        finally:  # saved before the client hears the answer: whoever takes the session over knows it
            await self._keep_state()

    async def _dispatch(self, request: Request) -> Any:
        method = request.method
        if self.app.modern_versions and (has_envelope(request.params) or self.era == "modern"):
            return await self._serve_modern(request)
        if method == "initialize":
            self._initialize_id = request.id
            result = self._initialize(request.params or {})
            self.era = "legacy"
            return result
        if method == "ping":  # allowed in every state, in both directions (basic/utilities/ping)
            return {}
        if not self.app.knows(method) or method in MODERN_ONLY:
            # Also what a 2026-07-28 client's probe `server/discover` gets in a session: -32601 is how
            # an older server answers it, and the client then keeps to the initialize handshake.
            raise method_not_found(method)
        self.lifecycle.check_request(method)
        return await self.app.handle(RequestContext(self, request))
    # --8<-- [end:server_session]

    # --8<-- [start:serve_modern]
    async def _serve_modern(self, request: Request) -> dict[str, Any]:
        """A 2026-07-28 request, served from what it carries alone (:mod:`minimcp.session.modern`)."""
        if self.era == "legacy":  # this connection began with initialize: it speaks that version only
            requested = (request.params or {}).get("_meta", {}).get(PROTOCOL_VERSION)
            raise unsupported_version(str(requested), (str(self.protocol_version),))
        if request.method == "initialize":  # what a 2025 client sends first: say why it is refused
            raise RpcError(METHOD_NOT_FOUND, "Method not found: initialize (" + ", ".join(self.app.modern_versions)
                           + " has no handshake: every request carries its _meta)")
        envelope, answers = admit(self.app, request)
        self.era = "modern"  # the first request accepted decides the connection's era
        if request.method == "server/discover":
            return finish(discover(self.app), self.app, request.method)
        try:
            result = await self.app.handle(RequestContext(self, request, envelope, answers))
        except InputRequired as needed:
            return input_required(needed, answers, request, self.app)
        except RpcError as error:
            raise modern_error(error) from None
        return finish(result, self.app, request.method)
    # --8<-- [end:serve_modern]

    # --8<-- [start:initialize]
    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        agreed = self.lifecycle.initialize(params, self.app.protocol_versions)
        self.protocol_version = agreed.protocol_version
        self.client_info, self.client_capabilities = agreed.client_info, agreed.client_capabilities
        result: dict[str, Any] = {
            "protocolVersion": self.protocol_version,
            "capabilities": self.app.capabilities(),
            "serverInfo": self.app.info(),
        }
        if instructions := self.app.instructions():
            result["instructions"] = instructions
        return result
    # --8<-- [end:initialize]

    # --8<-- [start:initialized]
    async def _on_notification(self, notification: Notification) -> None:
        if notification.method == "notifications/initialized":
            self.lifecycle.initialized()
            await self._keep_state()
            return
        if notification.method == CANCELLED:  # the client stopped waiting: stop the work, answer nothing
            on_cancelled(self.connection, notification.params or {}, protected=self._initialize_id)
            return
        if notification.method == PROGRESS:  # how far the client got with a question we asked it
            await self.progress.deliver(notification.params or {})
            return
        await self.app.handle_notification(self, notification)
    # --8<-- [end:initialized]


    # -- the server speaks first ----------------------------------------------------------------
    # --8<-- [start:server_ping]
    async def ping(self, timeout: float | None = 10.0) -> None:
        """Ask the client whether it is still there (an empty result means yes)."""
        await self.connection.request("ping", timeout=timeout)
    # --8<-- [end:server_ping]

    async def notify(self, method: str, params: dict[str, Any] | None = None,
                     related_request_id: RequestId | None = None) -> None:
        """A notification of the server's own (``list_changed``), or, with ``related_request_id``, one
        that belongs to a request being answered."""
        await self.connection.notify(method, params, related_request_id)

    async def request(self, method: str, params: dict[str, Any] | None = None,
                      timeout: float | None = None) -> Any:
        return await self.connection.request(method, params, timeout)


