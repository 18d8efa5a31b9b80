"""One request, served on its own: the server's side of MCP 2026-07-28 (lesson 12).

A 2025-11-25 request is served within a session: the handshake said once who the client is. A
2026-07-28 request says it itself, in its envelope (:mod:`minimcp.session.envelope`). Lesson 03's
:class:`~minimcp.session.server.ServerSession` offers a *front*: a way of serving requests that
comes before its handshake rules. :class:`ModernFront` is this lesson's, and serves such a request
from nothing but itself, in four steps, the rules of which are here:

1. read the envelope (``-32602`` without one, ``-32022`` for a version not served);
2. answer ``server/discover`` itself; refuse what 2026-07-28 removed (``initialize``, ``ping``,
   ``logging/setLevel``, ``resources/subscribe``…) with ``-32601``, like any unknown method;
3. hand the rest to the app with a :class:`ModernContext`, which carries the envelope and, for the
   three methods that may ask the client something, this attempt's answers;
4. shape what comes back: ``resultType`` on every result, who answered in ``_meta``, cache hints on
   the results that may be cached, and ``input_required`` when the handler is waiting for an answer.

:func:`minimcp.server.eras.answer_both_eras` plugs the front into every session of a server.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Protocol

from minimcp.rpc.jsonrpc import (
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    Request,
    RpcError,
    method_not_found,
)
from minimcp.rpc.mcp import PROTOCOL_VERSION, SERVER_INFO, has_envelope
from minimcp.session.context import RequestContext
from minimcp.session.envelope import (
    Envelope,
    missing_capability,
    read_envelope,
    unsupported_version,
)
from minimcp.session.input_required import (
    ASKING_METHODS,
    Answers,
    InputRequired,
    StateSeal,
    pick_answers,
)
from minimcp.session.server import ServerApp, ServerSession
from minimcp.session.url_questions import (
    URL_ELICITATION_REQUIRED_2025,
    as_asked_in_2026,
    ask_for_urls,
)

#: Methods of the initialize era that 2026-07-28 removed (changelog): a modern request gets -32601.
REMOVED = ("initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe")
#: Methods that exist only without a handshake: an initialized session answers them -32601.
MODERN_ONLY = ("server/discover", "subscriptions/listen")
#: Results a client may cache, which say for how long and for whom (server/utilities/caching).
CACHEABLE = (
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
)
RESOURCE_NOT_FOUND_2025 = -32002  # 2026-07-28 answers a missing resource with -32602 instead


class Era(enum.Enum):
    """The two ways of speaking MCP: with the handshake (2025-11-25), or without it (2026-07-28)."""

    LEGACY = "legacy"
    MODERN = "modern"


class ModernApp(ServerApp, Protocol):
    """What the front needs of the server: lesson 03's app, and the modern revisions it serves."""

    modern_versions: tuple[str, ...]


@dataclass
class ModernEra:
    """What a server needs to serve 2026-07-28 beyond its features: one of these per server."""

    #: Seals the requestState of questions to the client; the workers of one server share its key.
    seal: StateSeal
    #: What a list or read result says about caching it: fresh for this long (0: ask again each
    #: time, the safe default for lists that may change), and shareable with anyone or not.
    cache_ttl_ms: int = 0
    cache_scope: str = "public"
    #: Capabilities of 2026-07-28 alone, shown by ``server/discover`` and never in a handshake:
    capabilities: dict[str, Any] = field(default_factory=dict)  # extensions (lesson 13)


# --8<-- [start:admit]
def admit(
    app: ModernApp, era: ModernEra, request: Request, principal: str | None = None
) -> tuple[Envelope, Answers | None]:
    """Steps 1 and 2: the request's envelope, and the answers it brings; or the error it earns.

    ``principal``: who sent the request, if the transport authenticated them (HTTP behind lesson
    10's guard); the state of a question is theirs alone."""
    method, params = request.method, request.params or {}
    if method == "initialize":  # what a 2025 client sends first: say why it is refused
        versions = ", ".join(app.modern_versions)
        raise RpcError(
            METHOD_NOT_FOUND,
            f"Method not found: initialize ({versions} has no "
            "handshake: every request carries its _meta)",
        )
    envelope = read_envelope(params, app.modern_versions, app.protocol_versions)
    if method != "server/discover" and (method in REMOVED or not app.knows(method)):
        raise method_not_found(method)
    asking = method in ASKING_METHODS
    answers = Answers.of(method, params, era.seal, principal) if asking else None
    return envelope, answers


def input_required(
    needed: InputRequired, answers: Answers | None, request: Request, era: ModernEra
) -> dict[str, Any]:
    """Step 4, when the handler stopped at a question: ask it, every answer so far sealed in the
    state."""
    if answers is None:  # a bug of the server's: tools/list (say) may not ask the client anything
        raise RuntimeError(
            f"{request.method} asked the client a question, which 2026-07-28 does not allow"
        )
    state = answers.state(request.method, request.params or {}, era.seal, needed.requests)
    return {"resultType": "input_required", "inputRequests": needed.requests, "requestState": state}


def modern_error(error: RpcError) -> RpcError:
    """An error as 2026-07-28 numbers it: a missing resource is ``-32602`` now, not ``-32002``."""
    if error.code == RESOURCE_NOT_FOUND_2025:
        return RpcError(INVALID_PARAMS, error.message, error.data)
    return error


# --8<-- [end:admit]


# --8<-- [start:discover]
def discover(app: ModernApp, era: ModernEra) -> dict[str, Any]:
    """``server/discover``: what ``initialize`` used to answer, for anyone, at any time."""
    result: dict[str, Any] = {
        "supportedVersions": [*app.modern_versions, *app.protocol_versions],
        "capabilities": {**app.capabilities(), **era.capabilities},
    }
    if instructions := app.instructions():
        result["instructions"] = instructions
    return result


def finish(result: Any, app: ModernApp, era: ModernEra, method: str) -> dict[str, Any]:
    """A handler's result as 2026-07-28 sends it: complete, signed by who answered, cache hints."""
    shaped = dict(result) if isinstance(result, dict) else {}
    shaped.setdefault("resultType", "complete")
    shaped["_meta"] = {**shaped.get("_meta", {}), SERVER_INFO: app.info()}
    if method in CACHEABLE:
        shaped.setdefault("ttlMs", era.cache_ttl_ms)
        shaped.setdefault("cacheScope", era.cache_scope)
    return shaped


# --8<-- [end:discover]


# --8<-- [start:context]
@dataclass
class ModernContext(RequestContext):
    """Lesson 03's context, for a request that stands alone: what the client is and can do comes
    from the request's envelope, and a question to the client is answered from the request."""

    envelope: Envelope | None = None  # the request's own facts (always given by the front)
    answers: Answers | None = None  # this attempt's answers to the questions asked (tools/call…)
    #: Who sent it, if the transport authenticated them (HTTP behind lesson 10's guard): what a
    #: request leaves behind for later ones (lesson 13's tasks) is theirs alone.
    principal: str | None = None

    @property
    def modern(self) -> bool:
        return True

    @property
    def client_capabilities(self) -> dict[str, Any]:
        """What the client can do: said by this request."""
        return self.envelope.client_capabilities if self.envelope else {}

    @property
    def log_level(self) -> str | None:
        """The least severe log line the client wants for this request: none at all without one."""
        return self.envelope.log_level if self.envelope else None

    def missing_capability(self, name: str) -> RpcError | None:
        return missing_capability(name)

    async def send_request(
        self, method: str, params: dict[str, Any] | None = None, timeout: float | None = None
    ) -> Any:
        """A question back to the client: one question of :meth:`ask`, named after its method."""
        self.answers_or_refuse().asked += 1
        key = f"{method.split('/')[0]}-{self.answers_or_refuse().asked}"
        return (await self.ask({key: {"method": method, "params": params or {}}}))[key]

    # --8<-- [end:context]

    # --8<-- [start:ask]
    async def ask(
        self, questions: dict[str, dict[str, Any]], timeout: float | None = None
    ) -> dict[str, Any]:
        """Ask the client several things at once; their answers, by key.

        A 2026-07-28 request cannot send anything: the answers must come with the request itself,
        and if one is missing the handler stops here and the client is asked
        (:class:`~minimcp.session.input_required.InputRequired`); it runs again on the retry.
        """
        asked = {key: as_asked_in_2026(question) for key, question in questions.items()}
        return pick_answers(self.answers_or_refuse(), asked, self.client_capabilities)

    def answers_or_refuse(self) -> Answers:
        if self.answers is None:
            raise RuntimeError(
                f"{self.request.method} may not ask the client anything (2026-07-28 "
                "allows it in tools/call, prompts/get and resources/read only)"
            )
        return self.answers

    # --8<-- [end:ask]


# --8<-- [start:front]
class ModernFront:
    """Lesson 12's front for one session: it takes the requests that carry an envelope (and every
    request, once a connection spoke 2026-07-28 first), and serves each from itself alone."""

    def __init__(self, session: ServerSession, app: ModernApp, settings: ModernEra) -> None:
        self.session, self.app, self.settings = session, app, settings
        #: Decided by the first request accepted on the connection (stdio, WebSocket).
        self.decided: Era | None = None

    @property
    def era(self) -> Era | None:
        """The connection's era: the initialize handshake's once it succeeded, or 2026-07-28's."""
        return Era.LEGACY if self.session.protocol_version is not None else self.decided

    def stands_alone(self, request: Request) -> bool:
        """Whether ``request`` is one for this front to serve as 2026-07-28."""
        if not self.app.modern_versions:  # e.g. `serve --legacy-only`: the initialize era alone
            return False
        return has_envelope(request.params) or self.era is Era.MODERN

    def takes(self, request: Request) -> bool:
        # The methods without a handshake are taken always: within a session they are refused below.
        return request.method in MODERN_ONLY or self.stands_alone(request)

    async def serve(self, request: Request) -> dict[str, Any]:
        """A 2026-07-28 request, served from what it carries alone."""
        if not self.stands_alone(request):
            # What a 2026-07-28 client's probe `server/discover` gets in a session: -32601 is how an
            # older server answers it, and the client then keeps to the initialize handshake.
            raise method_not_found(request.method)
        if self.era is Era.LEGACY:  # this connection began with initialize: that version only
            requested = (request.params or {}).get("_meta", {}).get(PROTOCOL_VERSION)
            raise unsupported_version(str(requested), (str(self.session.protocol_version),))
        envelope, answers = admit(self.app, self.settings, request)
        self.decided = Era.MODERN  # the first request accepted decides the connection's era
        context = ModernContext(self.session, request, envelope, answers)
        return await answer_admitted(self.app, self.settings, context)


# --8<-- [end:front]


# --8<-- [start:answer_admitted]
async def answer_admitted(app: ModernApp, era: ModernEra, context: ModernContext) -> dict[str, Any]:
    """Steps 3 and 4, for a request admitted: its handler's result, shaped for 2026-07-28. The
    front of a session and lesson 12's HTTP (:mod:`minimcp.session.alone`) both end here."""
    method = context.request.method
    if method == "server/discover":
        return finish(discover(app, era), app, era, method)
    try:
        result = await app.handle(context)
    except InputRequired as needed:
        return input_required(needed, context.answers, context.request, era)
    except RpcError as error:
        if error.code != URL_ELICITATION_REQUIRED_2025:
            raise modern_error(error) from None
        # a code 2026-07-28 retired: ask for the URLs instead (or say the user declined one)
        tool = (context.request.params or {}).get("name")
        result = ask_for_urls(error, context.client_capabilities, context.answers, tool)
        if isinstance(result, InputRequired):
            return input_required(result, context.answers, context.request, era)
    return finish(result, app, era, method)


# --8<-- [end:answer_admitted]
