"""One request, served on its own: the server's side of MCP 2026-07-28 (lesson 12).

A 2025-11-25 request is served within a session: the handshake said once who the client is. A
2026-07-28 request says it itself, in its envelope (:mod:`minimcp.session.envelope`), so
:class:`~minimcp.session.server.ServerSession` serves it from nothing but itself, in four steps, the
rules of which are here:

1. read the envelope (``-32602`` without one, ``-32022`` for a version not served);
2. answer ``server/discover`` itself; refuse what 2026-07-28 removed (``initialize``, ``ping``,
   ``logging/setLevel``, ``resources/subscribe``…) with ``-32601``, like any unknown method;
3. hand the rest to the app with a :class:`~minimcp.session.server.RequestContext` that carries the
   envelope, and, for the three methods that may ask the client something, this attempt's answers;
4. shape what comes back: ``resultType`` on every result, who answered in ``_meta``, cache hints on the
   results that may be cached, and ``input_required`` when the handler is waiting for an answer.
"""

from __future__ import annotations

from typing import Any

from minimcp.rpc.jsonrpc import INVALID_PARAMS, Request, RpcError, method_not_found
from minimcp.rpc.mcp import SERVER_INFO
from minimcp.session.envelope import Envelope, read_envelope
from minimcp.session.input_required import ASKING_METHODS, Answers, InputRequired

#: Methods of the initialize era that 2026-07-28 removed (changelog): a modern request for one is -32601.
REMOVED = ("initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe")
#: Methods that exist only without a handshake: an initialized session answers them -32601, as before.
MODERN_ONLY = ("server/discover", "subscriptions/listen")
#: Results a client may cache, which therefore say for how long and for whom (server/utilities/caching).
CACHEABLE = ("server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list",
             "resources/read")
RESOURCE_NOT_FOUND_2025 = -32002  # 2026-07-28 answers a missing resource with -32602 instead


# --8<-- [start:admit]
def admit(app: Any, request: Request) -> tuple[Envelope, Answers | None]:
    """Steps 1 and 2: the request's envelope, and the answers it brings; or the error it earns."""
    method, params = request.method, request.params or {}
    envelope = read_envelope(params, app.modern_versions, app.protocol_versions)
    if method != "server/discover" and (method in REMOVED or not app.knows(method)):
        raise method_not_found(method)
    answers = Answers.of(method, params, app.state_seal) if method in ASKING_METHODS else None
    return envelope, answers


def input_required(needed: InputRequired, answers: Answers | None, request: Request, app: Any) -> dict[str, Any]:
    """Step 4, when the handler stopped at a question: ask it, with every answer so far sealed in the state."""
    if answers is None:  # a bug of the server's: tools/list (say) may not ask the client anything
        raise RuntimeError(f"{request.method} asked the client a question, which 2026-07-28 does not allow")
    state = answers.state(request.method, request.params or {}, app.state_seal)
    return {"resultType": "input_required", "inputRequests": needed.requests, "requestState": state}


def modern_error(error: RpcError) -> RpcError:
    """An error as 2026-07-28 numbers it: a missing resource is ``-32602`` now, not ``-32002``."""
    if error.code == RESOURCE_NOT_FOUND_2025:
        return RpcError(INVALID_PARAMS, error.message, error.data)
    return error
# --8<-- [end:admit]


# --8<-- [start:discover]
def discover(app: Any) -> dict[str, Any]:
    """``server/discover``: what ``initialize`` used to answer, for anyone, at any time."""
    result: dict[str, Any] = {"supportedVersions": [*app.modern_versions, *app.protocol_versions],
                              "capabilities": app.capabilities()}
    if instructions := app.instructions():
        result["instructions"] = instructions
    return result


def finish(result: Any, app: Any, method: str) -> dict[str, Any]:
    """A handler's result as 2026-07-28 sends it: complete, signed with who answered, with cache hints."""
    shaped = dict(result) if isinstance(result, dict) else {}
    shaped.setdefault("resultType", "complete")
    shaped["_meta"] = {**shaped.get("_meta", {}), SERVER_INFO: app.info()}
    if method in CACHEABLE:
        shaped.setdefault("ttlMs", app.cache_ttl_ms)
        shaped.setdefault("cacheScope", app.cache_scope)
    return shaped
# --8<-- [end:discover]
