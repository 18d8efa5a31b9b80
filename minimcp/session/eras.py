"""The client in two eras: the ``initialize`` handshake, or 2026-07-28's envelopes (lesson 12).

Lesson 03's :class:`~minimcp.session.client.ClientSession` opens its conversation and sends each
request through a :class:`~minimcp.session.client.Conversation`; :class:`TwoEras` is lesson 12's,
and plugs in there::

    ClientSession(transport, conversation=TwoEras(Mode.AUTO, server_key=url))
    Client(transport, conversation=TwoEras(Mode.AUTO))        # through lesson 04's client

Its :class:`Mode` says which era to speak: ``LEGACY`` (the handshake), ``MODERN`` (a 2026-07-28
version and nothing else), or ``AUTO``: probe with ``server/discover`` and fall back to
``initialize`` on anything but a modern server's answer. What a probe found is remembered in
:data:`VERDICTS`, by the name the caller gives the server (versioning: "cache the verdict"), so
the next connection to the same server does not probe again.

Once the era is modern, every request carries its own envelope, and is asked again as long as the
server answers ``input_required``. What the handshake era said with a message of its own, the
envelope now says: ``logging/setLevel`` becomes the envelope's log level, and the roots' change
notice is not sent (the server asks for roots with the request that needs them). The server's
questions come inside its answers, outside any session: the client's answers answer them so
(:class:`InputAnswers`). A tool whose ``x-mcp-header`` annotations cannot be honoured is left out
of ``tools/list``, with a warning.
"""

from __future__ import annotations

import logging
from enum import StrEnum
from typing import Any, Protocol

from minimcp.rpc.jsonrpc import INTERNAL_ERROR, Request, RpcError
from minimcp.rpc.mcp import MODERN_ERRORS, SERVER_INFO, UNSUPPORTED_PROTOCOL_VERSION
from minimcp.session.client import ClientSession, InitializeFirst, Params
from minimcp.session.envelope import MODERN_PROTOCOL_VERSIONS, Envelope, with_envelope
from minimcp.session.lifecycle import HandshakeFailed, UnsupportedVersion
from minimcp.transports.http.modern_headers import header_problem

log = logging.getLogger("minimcp.client")

#: How many times a 2026-07-28 request may come back ``input_required`` before giving up.
MAX_ROUNDS = 10


class Mode(StrEnum):
    """Which era a client speaks."""

    LEGACY = "legacy"  # the initialize handshake
    AUTO = "auto"  # probe with server/discover; fall back to initialize
    MODERN = "modern"  # a 2026-07-28 version, and nothing else


class Era(StrEnum):
    """Which era a conversation turned out to be in."""

    LEGACY = "legacy"
    MODERN = "modern"


#: What a dual-era client remembers of each server it probed, by a name the caller gives (a URL,
#: a command line).
VERDICTS: dict[str, Era] = {}

#: Notifications of the handshake era that 2026-07-28 has no use for.
NOT_IN_2026 = {"notifications/roots/list_changed"}


class InputAnswers(Protocol):
    """What a client's answers need to answer in both eras (lesson 09's ``ClientAnswers`` has it).

    A question inside a 2026-07-28 ``input_required`` answer belongs to no session: no handshake
    opened one. So a URL question carries no ``elicitationId`` there, and no completion notice
    follows; the same question in a session carries both.
    """

    async def answer(self, method: str, params: dict[str, Any]) -> Any:
        """Answer one of the server's requests in a session the handshake opened."""

    async def answer_input_request(self, method: str, params: dict[str, Any]) -> Any:
        """Answer a question that came inside a 2026-07-28 ``input_required`` answer."""


class TwoEras(InitializeFirst):
    """A conversation in the era ``mode`` says; in ``Mode.AUTO``, a probe's answer decides."""

    def __init__(
        self,
        mode: Mode = Mode.AUTO,
        server_key: str | None = None,
        versions: tuple[str, ...] = MODERN_PROTOCOL_VERSIONS,
    ) -> None:
        self.mode = Mode(mode)
        self.server_key = server_key  # names the server in VERDICTS
        self.versions = versions  # the 2026-era versions this client speaks, latest first
        self.era: Era | None = None  # LEGACY after initialize, MODERN once discover was answered
        self.log_level: str | None = None  # what a 2026-07-28 request asks for in its envelope

    # --8<-- [start:open]
    async def open(self, session: ClientSession, timeout: float | None) -> dict[str, Any]:
        """Start talking, in the era ``mode`` says; in AUTO, the answer to a probe decides."""
        legacy_known = VERDICTS.get(self.server_key or "") == Era.LEGACY
        if self.mode == Mode.LEGACY or (self.mode == Mode.AUTO and legacy_known):
            return await self._handshake(session, timeout)
        session.connection.start()
        auto = self.mode == Mode.AUTO
        try:
            return await self.discover(session, self.versions[0], timeout)
        except RpcError as error:
            data = error.data if isinstance(error.data, dict) else {}
            supported = data.get("supported", [])
            common = [v for v in supported if v in self.versions]
            unsupported = error.code == UNSUPPORTED_PROTOCOL_VERSION
            if unsupported and common:  # a modern server: one more try
                return await self.discover(session, common[0], timeout)
            if unsupported and auto:
                if not any(v in session.supported_versions for v in supported):
                    ours = self.versions + session.supported_versions
                    raise UnsupportedVersion(str(supported), ours) from None
                # it named a version of the handshake era we speak: initialize, below
            elif not auto or error.code in MODERN_ERRORS:
                raise
        except TimeoutError:  # no answer at all: an older server that ignores what it does not know
            if not auto:
                raise
        # any other error: an older server (never keyed to one code: versioning)
        return await self._handshake(session, timeout)

    async def _handshake(self, session: ClientSession, timeout: float | None) -> dict[str, Any]:
        result = await session.initialize(timeout)
        self._found(Era.LEGACY)
        return result

    def _found(self, era: Era) -> None:
        self.era = era
        if self.server_key is not None:
            VERDICTS[self.server_key] = era

    async def discover(
        self, session: ClientSession, version: str, timeout: float | None = 30.0
    ) -> dict[str, Any]:
        """``server/discover`` in ``version``: from now on every request carries its envelope."""
        params = with_envelope({}, self.envelope(session, version))
        result = await session.connection.request("server/discover", params, timeout)
        if not (isinstance(result, dict) and isinstance(result.get("capabilities"), dict)):
            raise HandshakeFailed(f"the server's discover result is malformed: {result!r}")
        session.protocol_version = version
        # who answered: in the result's _meta (older drafts: in the body)
        info = result.get("_meta", {}).get(SERVER_INFO) or result.get("serverInfo")
        session.server_info = info if isinstance(info, dict) else {}
        session.server_capabilities = result["capabilities"]
        session.instructions = result.get("instructions")
        self._found(Era.MODERN)
        return result

    # --8<-- [end:open]

    def envelope(self, session: ClientSession, version: str | None = None) -> Envelope:
        return Envelope(
            version or str(session.protocol_version),
            session.capabilities,
            session.client_info,
            self.log_level,
        )

    # --8<-- [start:request]
    async def request(
        self, session: ClientSession, method: str, params: Params, timeout: float | None
    ) -> Any:
        """A request; in 2026-07-28, with its envelope, and asked again while the server needs
        input."""
        if self.era != Era.MODERN:
            return await session.connection.request(method, params, timeout)
        if method == "logging/setLevel":  # no such request any more: each envelope says it
            self.log_level = (params or {}).get("level")
            return {}
        base = with_envelope(params, self.envelope(session))
        sent = base
        for _ in range(MAX_ROUNDS):
            result = await session.connection.request(method, sent, timeout)  # each: a new id
            kind = result.get("resultType", "complete") if isinstance(result, dict) else "complete"
            if kind == "complete":  # (no resultType at all: an older server's result, complete)
                return usable_tools(result) if method == "tools/list" else result
            if kind != "input_required":  # a kind an extension brings, or an error
                return await self.other_result(session, method, params, result, timeout)
            answers = await answer_all(session, result.get("inputRequests") or {})
            sent = {**base, "inputResponses": answers}
            if "requestState" in result:  # exactly as it came: never read, never changed
                sent["requestState"] = result["requestState"]
        raise RpcError(
            INTERNAL_ERROR, f"{method}: the server still needed input after {MAX_ROUNDS} rounds"
        )

    # --8<-- [end:request]

    async def other_result(
        self,
        session: ClientSession,
        method: str,
        params: Params,
        result: dict[str, Any],
        timeout: float | None,
    ) -> Any:
        """A result of a kind this conversation does not know: an error. An extension that adds a
        kind (lesson 13's tasks: ``"task"``) overrides this, and takes the result from here."""
        kind = result.get("resultType")
        raise RpcError(INTERNAL_ERROR, f"the server answered with an unknown resultType {kind!r}")

    async def notify(self, session: ClientSession, method: str, params: Params) -> None:
        if self.era == Era.MODERN and method in NOT_IN_2026:
            return
        await session.connection.notify(method, params)

    async def answer_with(self, answers: InputAnswers, method: str, params: dict[str, Any]) -> Any:
        """The server's question, to the client's answers: in 2026-07-28 it came inside an
        ``input_required`` answer (``answer_all`` below), outside any session."""
        if self.era == Era.MODERN:
            return await answers.answer_input_request(method, params)
        return await answers.answer(method, params)


async def answer_all(session: ClientSession, questions: dict[str, Any]) -> dict[str, Any]:
    """The answers to a round of the server's questions, by the callbacks that answer its
    requests."""
    answers = {}
    for key, question in questions.items():
        asked = Request(key, question.get("method", ""), question.get("params"))
        answers[key] = await session.answer(asked)
    return answers


def usable_tools(result: Any) -> Any:
    """A ``tools/list`` page without the tools whose ``x-mcp-header`` annotations cannot be
    honoured: the client could not send their arguments as the headers they ask for."""
    if not (isinstance(result, dict) and isinstance(result.get("tools"), list)):
        return result
    kept = []
    for tool in result["tools"]:
        problem = header_problem(tool.get("inputSchema")) if isinstance(tool, dict) else None
        if problem is None:
            kept.append(tool)
        else:
            log.warning("leaving out tool %r: %s", tool.get("name"), problem)
    return {**result, "tools": kept}
