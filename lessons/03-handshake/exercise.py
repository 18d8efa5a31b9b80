# ----------------------------------------------------------------------------------------
# Lesson 03-handshake: your exercise.
#
# 1. Read the docstrings below: each part says exactly what to build.
# 2. Replace each `raise NotImplementedError(...)`, under its TODO, with your code.
# 3. Check your work, as often as you like:  python tools/check.py 03
#
# Stuck for good? A worked answer is in solutions/03-handshake/exercise.py.
# This file is yours: a new version of the course may replace it, so keep a copy of your work.
# ----------------------------------------------------------------------------------------
"""Lesson 03 · The handshake: exercises.

minimcp's session (``minimcp/session/``) handles the lifecycle in the simplest way that is correct.
These three exercises do what it leaves out, one piece of the spec at a time
(https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle):

1. **Version negotiation, both sides** -- ``parse_version``, ``latest``, ``server_choice`` and
   ``negotiate``: a client that speaks several revisions picks what to ask for, a server picks what
   to answer, and the client decides whether it can live with the answer. Versions are dates, so
   they are compared as dates, and text that is not a date is never a version.
2. **A lifecycle guard** -- ``LifecycleGuard``: the state machine ``new → initializing → ready →
   closed`` that decides, for every message a side sends or receives, whether the lifecycle allows
   it now, and which error a refused request earns. For the server's role and for the client's.
3. **Capability negotiation** -- ``negotiated`` and ``may_send``: from the two ``capabilities``
   objects of the handshake, which requests and notifications each side may use afterwards.

Check your work with:  python tools/check.py 03
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from minimcp.rpc.jsonrpc import INVALID_REQUEST

# =================================================================================================
# Exercise 1 · Version negotiation
# =================================================================================================
#
# An MCP protocol version is the date of its revision, written YYYY-MM-DD: "2024-11-05",
# "2025-03-26", "2025-06-18", "2025-11-25". The spec (basic/lifecycle, "Version Negotiation"):
#
# * the client sends a version it supports, which SHOULD be its latest;
# * the server answers with the same version if it supports it, otherwise with another version it
#   supports, which SHOULD be its latest;
# * if the client does not support the version in the answer, it SHOULD disconnect.
#
# Lists of versions come in any order (minimcp lists them newest first, the official SDK oldest
# first), so "latest" means the newest *date*, never "the first one in the list".


class MalformedVersion(ValueError):
    """Text that is not a protocol version: not a real date written YYYY-MM-DD."""


def parse_version(version: object) -> datetime.date:
    """Turn a protocol version into the date it names, or raise :class:`MalformedVersion`.

    A version is exactly ten characters: four ASCII digits, ``-``, two, ``-``, two; and it must be
    a date that exists::

        parse_version("2025-11-25")  ->  datetime.date(2025, 11, 25)

    Malformed (each raises MalformedVersion): ``"2025-3-26"``, ``"2025/03/26"``, ``"20250326"``,
    ``" 2025-03-26"``, ``"2025-03-26\\n"``, ``"2025-02-30"``, ``"2025-13-01"``, ``"1.0.0"``,
    ``"latest"``, ``""``, and anything that is not a string (``None``, ``20251125``).
    """
    # TODO: the shape by re.fullmatch with [0-9], then the calendar by datetime.date
    raise NotImplementedError("parse_version")


def latest(versions: Iterable[object]) -> str:
    """The newest well-formed version in ``versions``, by date.

    Malformed entries are skipped (a peer's list may hold junk; it never wins). The order of the
    list does not matter. Raise ``ValueError`` when no entry is well-formed (an empty list too)::

        latest(["2024-11-05", "2025-11-25", "2025-06-18"])   ->  "2025-11-25"
        latest(["2025-11-25", "2099-1-1", "draft"])          ->  "2025-11-25"
    """
    # TODO: keep the entries parse_version accepts, then take the one with the latest date
    raise NotImplementedError("latest")


def server_choice(requested: object, server_versions: Iterable[object]) -> str:
    """The server's rule: the requested version if the server supports it, else the server's latest.

    Only well-formed versions count as supported, on both sides: a malformed ``requested`` is never
    "supported" (even if the same junk is in the server's list), so the server answers its latest.
    Raise ``ValueError`` when the server has no well-formed version at all::

        server_choice("2024-11-05", ["2025-11-25", "2024-11-05"])  ->  "2024-11-05"
        server_choice("2099-01-01", ["2024-11-05", "2025-11-25"])  ->  "2025-11-25"
    """
    # TODO: the server's latest (it raises for you); is requested well-formed and listed?
    raise NotImplementedError("server_choice")


def negotiate(client_versions: Iterable[object], server_versions: Iterable[object]) -> str | None:
    """Play one whole negotiation; return the agreed version, or None when the client must
    disconnect.

    1. The client asks for its latest well-formed version (``latest``; ValueError if it has none).
    2. The server answers with ``server_choice``.
    3. The client accepts the answer only if it is one of its own well-formed versions.

    There is a single round, exactly as in the spec, so two peers that share an *older* version
    can still fail: a client speaking 2025-06-18 and 2024-11-05 asks for 2025-06-18; a server
    speaking 2025-11-25 and 2024-11-05 answers 2025-11-25; the client cannot speak it -> None.
    """
    # TODO: ask latest(client), answer server_choice(ask, server); client must speak it
    raise NotImplementedError("negotiate")


# =================================================================================================
# Exercise 2 · A lifecycle guard
# =================================================================================================

NEW, INITIALIZING, READY, CLOSED = "new", "initializing", "ready", "closed"

#: The messages of refused requests (use them with .format(method=...)).
BEFORE_INITIALIZE = "Received {method!r} before initialization: send 'initialize' first"
ALREADY_INITIALIZED = "The session is already initialized"
NOT_READY = "Received {method!r} before the session is ready"


@dataclass(frozen=True)
class Verdict:
    """What to do with one incoming message.

    ``action`` is ``"allow"`` (handle it), ``"refuse"`` (answer the request with the JSON-RPC error
    ``code`` and ``message``) or ``"drop"`` (ignore it: a notification never gets an answer, and
    nothing can be answered once the session is closed).
    """

    action: str
    code: int | None = None
    message: str | None = None


ALLOW = Verdict("allow")
DROP = Verdict("drop")


def refuse(code: int, message: str) -> Verdict:
    return Verdict("refuse", code, message)


class LifecycleGuard:
    """The lifecycle as a state machine, for one side of one session.

    ``role`` is ``"server"`` or ``"client"`` (anything else: ``ValueError``). The state starts at
    ``"new"``. Every message is described by its ``kind`` (``"request"`` or ``"notification"``;
    anything else: ``ValueError``) and its ``method``. :meth:`receive` judges what the peer sent
    us; :meth:`send` says whether we may send something now; :meth:`close` ends the session.

    **Server role**, ``receive`` (what the client sends), in the order the rules apply:

    * state ``closed``: everything → DROP;
    * request ``ping`` → ALLOW, in every other state (ping works before, during and after the
      handshake);
    * request ``initialize``: in ``new`` → ALLOW, and the state becomes ``initializing``;
      in any later state → refuse(-32600, ALREADY_INITIALIZED);
    * any other request: in ``new`` → refuse(-32600, BEFORE_INITIALIZE.format(method=method));
      in ``initializing`` or ``ready`` → ALLOW (the server has answered initialize);
    * notification ``notifications/initialized``: in ``initializing`` → ALLOW, and the state
      becomes ``ready``; otherwise → DROP;
    * any other notification: in ``new`` → DROP; otherwise → ALLOW.

    **Server role**, ``send`` (True: allowed). The server SHOULD NOT send requests other than pings,
    nor notifications other than logging, before it has received ``notifications/initialized``:

    * state ``closed`` → False;
    * request ``ping`` → True;
    * any other request → True only in ``ready``;
    * notification ``notifications/message`` (logging) → True in ``initializing`` or ``ready``;
    * any other notification → True only in ``ready``.

    **Client role**, ``send``. The client starts the handshake, so its own sends move its state:

    * state ``closed`` → False;
    * request ``initialize``: in ``new`` → True, and the state becomes ``initializing``; else False;
    * request ``ping`` → True;
    * any other request → True only in ``ready`` (the client SHOULD NOT send requests other than
      pings before the server has answered initialize);
    * notification ``notifications/initialized``: in ``initializing`` → True, and the state becomes
      ``ready`` (the client sends it once it has accepted the server's answer); else False;
    * any other notification: in ``new`` → False; otherwise True.

    **Client role**, ``receive`` (what the server sends):

    * state ``closed``: everything → DROP;
    * request ``ping`` → ALLOW;
    * any other request: in ``ready`` → ALLOW; otherwise → refuse(-32600,
      NOT_READY.format(method=method));
    * notification ``notifications/message`` (logging): in ``initializing`` or ``ready`` → ALLOW;
      in ``new`` → DROP;
    * any other notification: in ``ready`` → ALLOW; otherwise → DROP.

    A refusal (``send`` returning False, or a ``receive`` verdict other than ALLOW) never changes
    the state.
    """

    def __init__(self, role: str) -> None:
        # TODO: check the role, remember it, start in NEW
        raise NotImplementedError("__init__")

    def receive(self, kind: str, method: str) -> Verdict:
        """Judge one message the peer sent us; move the state on when the rules say so."""
        # TODO: check kind; closed drops everything; then self.role's rules, top to bottom
        raise NotImplementedError("receive")

    def send(self, kind: str, method: str) -> bool:
        """May we send this message now? True (and the state moves on when the rules say so) or
        False."""
        # TODO: check kind; closed sends nothing; then self.role's rules, top to bottom
        raise NotImplementedError("send")

    def close(self) -> None:
        """The connection is gone (either side closed it): nothing more is sent or handled."""
        raise NotImplementedError("close")


def _check_kind(kind: str) -> None:
    if kind not in ("request", "notification"):
        raise ValueError(f"kind must be 'request' or 'notification', not {kind!r}")


# =================================================================================================
# Exercise 3 · Capability negotiation
# =================================================================================================
#
# "Both parties MUST only use capabilities that were successfully negotiated" (basic/lifecycle,
# "Operation"). Each capability, when declared, opens some methods:
#
# declared by the SERVER (in the initialize result)      what it opens
#   tools                       the client may request  tools/list, tools/call
#   tools.listChanged: true     the server may notify   notifications/tools/list_changed
#   resources                   the client may request  resources/list, resources/read,
#                                                       resources/templates/list
#   resources.subscribe: true   the client may request  resources/subscribe, resources/unsubscribe
#                               the server may notify   notifications/resources/updated
#   resources.listChanged: true the server may notify   notifications/resources/list_changed
#   prompts                     the client may request  prompts/list, prompts/get
#   prompts.listChanged: true   the server may notify   notifications/prompts/list_changed
#   logging                     the client may request  logging/setLevel
#                               the server may notify   notifications/message
#   completions                 the client may request  completion/complete
#
# declared by the CLIENT (in the initialize request)
#   roots                       the server may request  roots/list
#   roots.listChanged: true     the client may notify   notifications/roots/list_changed
#   sampling                    the server may request  sampling/createMessage
#   elicitation                 the server may request  elicitation/create
#   elicitation.url             the server may notify   notifications/elicitation/complete
#
# Always open, whatever was declared: the request ``ping`` both ways, and the notifications
# ``notifications/cancelled`` and ``notifications/progress`` both ways.
#
# A capability is declared only when its value is a JSON object (a dict): ``"tools": {}`` declares
# tools, ``"tools": true`` or ``"tools": null`` does not. A flag (listChanged, subscribe) counts
# only when it is exactly ``true``. Capabilities nobody knows (``experimental``, ``tasks``,
# ``x-foo``) open nothing here.
#
# Elicitation has *modes*: ``elicitation.form`` and ``elicitation.url``, each declared by an object.
# An elicitation object that declares no mode, such as ``"elicitation": {}``, means form mode only
# (the spec's rule for backwards compatibility).

ALWAYS_REQUESTS = frozenset({"ping"})
ALWAYS_NOTIFICATIONS = frozenset({"notifications/cancelled", "notifications/progress"})


@dataclass(frozen=True)
class Permissions:
    """What each side may use once the handshake is over."""

    client_requests: frozenset[str]  # requests the client may send to the server
    server_requests: frozenset[str]  # requests the server may send to the client
    client_notifications: frozenset[str]  # notifications the client may send
    server_notifications: frozenset[str]  # notifications the server may send
    # "form" and/or "url"; empty when elicitation was not declared
    elicitation_modes: frozenset[str]


def negotiated(
    client_capabilities: dict[str, Any], server_capabilities: dict[str, Any]
) -> Permissions:
    """Read both ``capabilities`` objects and return what each side may use (see the table above).

    Both arguments must be dicts (anything else: ``TypeError``). Every set includes what is always
    open (``ALWAYS_REQUESTS`` / ``ALWAYS_NOTIFICATIONS``), except ``elicitation_modes``.
    """
    # TODO: check both are dicts; add what each side opens to the ALWAYS sets
    raise NotImplementedError("negotiated")


def _opened_by_server(capabilities: dict[str, Any]) -> tuple[set[str], set[str]]:
    """What the server's ``capabilities`` open, besides what is always open: the requests the
    client may send, and the notifications the server may send."""
    # TODO: one `if` per capability declared (a dict), one per flag (exactly true)
    raise NotImplementedError("_opened_by_server")


def _opened_by_client(capabilities: dict[str, Any]) -> tuple[set[str], set[str], set[str]]:
    """What the client's ``capabilities`` open, besides what is always open: the requests the
    server may send, the notifications the client may send, and the elicitation modes (what a
    mode opens for the server is for :func:`negotiated` to add)."""
    # TODO: roots, sampling, elicitation (its modes: {} alone means form)
    raise NotImplementedError("_opened_by_client")


def may_send(permissions: Permissions, sender: str, method: str) -> bool:
    """May ``sender`` (``"client"`` or ``"server"``; anything else: ``ValueError``) send ``method``?

    A method whose name starts with ``notifications/`` is a notification; any other is a request.
    """
    # TODO: pick the set by sender and by the "notifications/" prefix
    raise NotImplementedError("may_send")
