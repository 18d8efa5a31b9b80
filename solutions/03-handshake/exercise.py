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
    # BEGIN SOLUTION: the shape by re.fullmatch with [0-9], then the calendar by datetime.date
    if not isinstance(version, str) or not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", version):
        raise MalformedVersion(f"not a protocol version (YYYY-MM-DD): {version!r}")
    try:
        return datetime.date(int(version[0:4]), int(version[5:7]), int(version[8:10]))
    except ValueError:  # month 13, February 30th...
        raise MalformedVersion(f"not a real date: {version!r}") from None
    # END SOLUTION


def latest(versions: Iterable[object]) -> str:
    """The newest well-formed version in ``versions``, by date.

    Malformed entries are skipped (a peer's list may hold junk; it never wins). The order of the
    list does not matter. Raise ``ValueError`` when no entry is well-formed (an empty list too)::

        latest(["2024-11-05", "2025-11-25", "2025-06-18"])   ->  "2025-11-25"
        latest(["2025-11-25", "2099-1-1", "draft"])          ->  "2025-11-25"
    """
    # BEGIN SOLUTION: keep the entries parse_version accepts, then take the one with the latest date
    best: str | None = None
    best_date: datetime.date | None = None
    for version in versions:
        try:
            date = parse_version(version)
        except MalformedVersion:
            continue
        if best_date is None or date > best_date:
            best, best_date = str(version), date
    if best is None:
        raise ValueError("no well-formed protocol version in the list")
    return best
    # END SOLUTION


def server_choice(requested: object, server_versions: Iterable[object]) -> str:
    """The server's rule: the requested version if the server supports it, else the server's latest.

    Only well-formed versions count as supported, on both sides: a malformed ``requested`` is never
    "supported" (even if the same junk is in the server's list), so the server answers its latest.
    Raise ``ValueError`` when the server has no well-formed version at all::

        server_choice("2024-11-05", ["2025-11-25", "2024-11-05"])  ->  "2024-11-05"
        server_choice("2099-01-01", ["2024-11-05", "2025-11-25"])  ->  "2025-11-25"
    """
    # BEGIN SOLUTION: the server's latest (it raises for you); is requested well-formed and listed?
    versions = list(server_versions)
    newest = latest(versions)
    try:
        parse_version(requested)
    except MalformedVersion:
        return newest
    return str(requested) if requested in versions else newest
    # END SOLUTION


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
    # BEGIN SOLUTION: ask latest(client), answer server_choice(ask, server); client must speak it
    mine = list(client_versions)
    ask = latest(mine)
    answer = server_choice(ask, server_versions)
    speaks = set()
    for version in mine:
        try:
            parse_version(version)
        except MalformedVersion:
            continue
        speaks.add(version)
    return answer if answer in speaks else None
    # END SOLUTION


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
        # BEGIN SOLUTION: check the role, remember it, start in NEW
        if role not in ("server", "client"):
            raise ValueError(f"role must be 'server' or 'client', not {role!r}")
        self.role = role
        self.state = NEW
        # END SOLUTION

    def receive(self, kind: str, method: str) -> Verdict:
        """Judge one message the peer sent us; move the state on when the rules say so."""
        # BEGIN SOLUTION: check kind; closed drops everything; then self.role's rules, top to bottom
        _check_kind(kind)
        if self.state == CLOSED:
            return DROP
        if kind == "request":
            if method == "ping":
                return ALLOW
            if self.role == "server":
                if method == "initialize":
                    if self.state != NEW:
                        return refuse(INVALID_REQUEST, ALREADY_INITIALIZED)
                    self.state = INITIALIZING
                    return ALLOW
                if self.state == NEW:
                    return refuse(INVALID_REQUEST, BEFORE_INITIALIZE.format(method=method))
                return ALLOW
            if self.state == READY:
                return ALLOW
            return refuse(INVALID_REQUEST, NOT_READY.format(method=method))
        # a notification
        if self.role == "server":
            if method == "notifications/initialized":
                if self.state == INITIALIZING:
                    self.state = READY
                    return ALLOW
                return DROP
            return DROP if self.state == NEW else ALLOW
        if method == "notifications/message":
            return ALLOW if self.state in (INITIALIZING, READY) else DROP
        return ALLOW if self.state == READY else DROP
        # END SOLUTION

    def send(self, kind: str, method: str) -> bool:
        """May we send this message now? True (and the state moves on when the rules say so) or
        False."""
        # BEGIN SOLUTION: check kind; closed sends nothing; then self.role's rules, top to bottom
        _check_kind(kind)
        if self.state == CLOSED:
            return False
        if self.role == "server":
            if kind == "request":
                return method == "ping" or self.state == READY
            if method == "notifications/message":
                return self.state in (INITIALIZING, READY)
            return self.state == READY
        if kind == "request":
            if method == "initialize":
                if self.state == NEW:
                    self.state = INITIALIZING
                    return True
                return False
            return method == "ping" or self.state == READY
        if method == "notifications/initialized":
            if self.state == INITIALIZING:
                self.state = READY
                return True
            return False
        return self.state != NEW
        # END SOLUTION

    def close(self) -> None:
        """The connection is gone (either side closed it): nothing more is sent or handled."""
        # BEGIN SOLUTION
        self.state = CLOSED
        # END SOLUTION


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
    # BEGIN SOLUTION: check both are dicts; add what each side opens to the ALWAYS sets
    if not isinstance(client_capabilities, dict) or not isinstance(server_capabilities, dict):
        raise TypeError("capabilities must be JSON objects (dicts)")
    client_requests, server_notes = _opened_by_server(server_capabilities)
    server_requests, client_notes, modes = _opened_by_client(client_capabilities)
    if "url" in modes:  # the server says when a URL elicitation is complete
        server_notes.add("notifications/elicitation/complete")
    return Permissions(
        frozenset(ALWAYS_REQUESTS | client_requests),
        frozenset(ALWAYS_REQUESTS | server_requests),
        frozenset(ALWAYS_NOTIFICATIONS | client_notes),
        frozenset(ALWAYS_NOTIFICATIONS | server_notes),
        frozenset(modes),
    )
    # END SOLUTION


def _opened_by_server(capabilities: dict[str, Any]) -> tuple[set[str], set[str]]:
    """What the server's ``capabilities`` open, besides what is always open: the requests the
    client may send, and the notifications the server may send."""
    # BEGIN SOLUTION: one `if` per capability declared (a dict), one per flag (exactly true)
    requests: set[str] = set()
    notes: set[str] = set()
    if isinstance(tools := capabilities.get("tools"), dict):
        requests |= {"tools/list", "tools/call"}
        if tools.get("listChanged") is True:
            notes.add("notifications/tools/list_changed")
    if isinstance(resources := capabilities.get("resources"), dict):
        requests |= {"resources/list", "resources/read", "resources/templates/list"}
        if resources.get("subscribe") is True:
            requests |= {"resources/subscribe", "resources/unsubscribe"}
            notes.add("notifications/resources/updated")
        if resources.get("listChanged") is True:
            notes.add("notifications/resources/list_changed")
    if isinstance(prompts := capabilities.get("prompts"), dict):
        requests |= {"prompts/list", "prompts/get"}
        if prompts.get("listChanged") is True:
            notes.add("notifications/prompts/list_changed")
    if isinstance(capabilities.get("logging"), dict):
        requests.add("logging/setLevel")
        notes.add("notifications/message")
    if isinstance(capabilities.get("completions"), dict):
        requests.add("completion/complete")
    return requests, notes
    # END SOLUTION


def _opened_by_client(capabilities: dict[str, Any]) -> tuple[set[str], set[str], set[str]]:
    """What the client's ``capabilities`` open, besides what is always open: the requests the
    server may send, the notifications the client may send, and the elicitation modes (what a
    mode opens for the server is for :func:`negotiated` to add)."""
    # BEGIN SOLUTION: roots, sampling, elicitation (its modes: {} alone means form)
    requests: set[str] = set()
    notes: set[str] = set()
    modes: set[str] = set()
    if isinstance(roots := capabilities.get("roots"), dict):
        requests.add("roots/list")
        if roots.get("listChanged") is True:
            notes.add("notifications/roots/list_changed")
    if isinstance(capabilities.get("sampling"), dict):
        requests.add("sampling/createMessage")
    if isinstance(elicitation := capabilities.get("elicitation"), dict):
        requests.add("elicitation/create")
        modes = {mode for mode in ("form", "url") if isinstance(elicitation.get(mode), dict)}
        if not modes:
            modes = {"form"}  # "elicitation": {} means form mode
    return requests, notes, modes
    # END SOLUTION


def may_send(permissions: Permissions, sender: str, method: str) -> bool:
    """May ``sender`` (``"client"`` or ``"server"``; anything else: ``ValueError``) send ``method``?

    A method whose name starts with ``notifications/`` is a notification; any other is a request.
    """
    # BEGIN SOLUTION: pick the set by sender and by the "notifications/" prefix
    if sender not in ("client", "server"):
        raise ValueError(f"sender must be 'client' or 'server', not {sender!r}")
    notification = method.startswith("notifications/")
    if sender == "client":
        allowed = permissions.client_notifications if notification else permissions.client_requests
    else:
        allowed = permissions.server_notifications if notification else permissions.server_requests
    return method in allowed
    # END SOLUTION
