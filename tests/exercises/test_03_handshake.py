"""Lesson 03's exercise: version negotiation, the lifecycle guard, capability negotiation.

Each test's docstring is the hint ``python tools/check.py 03`` shows when the test fails.
"""

from __future__ import annotations

import datetime

import pytest

MINIMCP_ORDER = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")  # newest first
SDK_ORDER = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")  # oldest first


# -- Exercise 1 · Version negotiation --------------------------------------------------------------


def test_parse_version_reads_a_date(exercise):
    """parse_version("2025-11-25") returns datetime.date(2025, 11, 25): the revision's date."""
    assert exercise.parse_version("2025-11-25") == datetime.date(2025, 11, 25)
    assert exercise.parse_version("2024-11-05") == datetime.date(2024, 11, 5)
    assert exercise.parse_version("2024-02-29") == datetime.date(2024, 2, 29)  # a leap day exists


@pytest.mark.parametrize(
    "text",
    [
        "2025-3-26",
        "2025/03/26",
        "20250326",
        " 2025-03-26",
        "2025-03-26 ",
        "2025-03-26\n",
        "1.0.0",
        "latest",
        "",
        "２０２５-11-25",
        "2025-11-25T00:00:00",
    ],
)
def test_parse_version_rejects_text_of_the_wrong_shape(exercise, text):
    """A version is exactly YYYY-MM-DD with ASCII digits: use re.fullmatch (not match, not $) and
    [0-9] (not \\d)."""
    with pytest.raises(exercise.MalformedVersion):
        exercise.parse_version(text)


@pytest.mark.parametrize(
    "text", ["2025-02-30", "2025-13-01", "2025-00-10", "2025-04-31", "0000-01-01"]
)
def test_parse_version_rejects_dates_that_do_not_exist(exercise, text):
    """The shape is not enough: datetime.date(...) raises ValueError for month 13 or February 30th;
    turn it into MalformedVersion."""
    with pytest.raises(exercise.MalformedVersion):
        exercise.parse_version(text)


@pytest.mark.parametrize("value", [None, 20251125, b"2025-11-25", ["2025-11-25"]])
def test_parse_version_rejects_what_is_not_a_string(exercise, value):
    """Only a str can be a version: anything else raises MalformedVersion (a ValueError), never
    TypeError."""
    with pytest.raises(ValueError) as caught:
        exercise.parse_version(value)
    assert isinstance(caught.value, exercise.MalformedVersion)


def test_latest_compares_dates_not_positions(exercise):
    """latest() returns the newest date whatever the order of the list (minimcp lists newest first,
    the SDK oldest first)."""
    assert exercise.latest(MINIMCP_ORDER) == "2025-11-25"
    assert exercise.latest(SDK_ORDER) == "2025-11-25"
    assert exercise.latest(["2024-11-05", "2025-11-25", "2025-06-18"]) == "2025-11-25"
    assert exercise.latest(v for v in ("2025-03-26", "2024-11-05")) == "2025-03-26"  # any iterable


def test_latest_skips_malformed_entries(exercise):
    """latest() ignores entries parse_version rejects: junk such as "2099-1-1" or "draft" never
    wins."""
    assert exercise.latest(["2025-11-25", "2099-1-1", "draft", None, "2026-02-30"]) == "2025-11-25"
    assert exercise.latest(["9999", "2024-11-05"]) == "2024-11-05"


def test_latest_without_a_single_version_raises(exercise):
    """latest() raises ValueError when no entry is a well-formed version (an empty list too)."""
    with pytest.raises(ValueError):
        exercise.latest([])
    with pytest.raises(ValueError):
        exercise.latest(["draft", "2025-13-01", None])


def test_server_choice_answers_the_requested_version_when_supported(exercise):
    """The server MUST answer with the same version when it supports the one requested."""
    assert exercise.server_choice("2024-11-05", MINIMCP_ORDER) == "2024-11-05"
    assert exercise.server_choice("2025-06-18", SDK_ORDER) == "2025-06-18"
    assert exercise.server_choice("2025-11-25", ["2025-11-25"]) == "2025-11-25"


def test_server_choice_answers_its_latest_otherwise(exercise):
    """A version the server does not support gets the server's latest
    (by date, not the list's first entry)."""
    assert exercise.server_choice("2099-01-01", SDK_ORDER) == "2025-11-25"
    assert exercise.server_choice("1999-01-01", ["2024-11-05", "2025-03-26"]) == "2025-03-26"
    assert exercise.server_choice("2025-06-18", ["2025-03-26", "2025-11-25"]) == "2025-11-25"


def test_server_choice_treats_a_malformed_request_as_unsupported(exercise):
    """A malformed requested version is never "supported", even when the same junk is in the
    server's list."""
    assert exercise.server_choice("1.0.0", MINIMCP_ORDER) == "2025-11-25"
    assert exercise.server_choice("draft", ["draft", "2025-06-18"]) == "2025-06-18"
    assert exercise.server_choice(None, ["2024-11-05"]) == "2024-11-05"


def test_server_choice_without_versions_raises(exercise):
    """A server with no well-formed version cannot answer at all: ValueError."""
    with pytest.raises(ValueError):
        exercise.server_choice("2025-11-25", [])
    with pytest.raises(ValueError):
        exercise.server_choice("2025-11-25", ["latest"])


def test_negotiate_agrees_on_a_version(exercise):
    """negotiate(): the client asks for its latest, the server answers with server_choice, the
    client accepts what it speaks."""
    assert exercise.negotiate(MINIMCP_ORDER, SDK_ORDER) == "2025-11-25"
    assert exercise.negotiate(["2024-11-05"], MINIMCP_ORDER) == "2024-11-05"
    # a newer client: it asks for 2026-07-28, gets 2025-11-25, and speaks that too
    assert exercise.negotiate(["2026-07-28", "2025-11-25"], SDK_ORDER) == "2025-11-25"
    assert exercise.negotiate(["draft", "2025-03-26"], ["2025-03-26"]) == "2025-03-26"


def test_negotiate_returns_none_when_the_client_must_disconnect(exercise):
    """When the server's answer is not one of the client's own versions,
    the client disconnects: return None."""
    assert exercise.negotiate(("1999-01-01",), MINIMCP_ORDER) is None
    # One round only: both speak 2024-11-05, but the client asked for 2025-06-18 and got 2025-11-25.
    assert exercise.negotiate(["2025-06-18", "2024-11-05"], ["2025-11-25", "2024-11-05"]) is None


def test_negotiate_needs_versions_on_both_sides(exercise):
    """negotiate() raises ValueError when either side has no well-formed version
    (latest/server_choice do it for you)."""
    with pytest.raises(ValueError):
        exercise.negotiate([], MINIMCP_ORDER)
    with pytest.raises(ValueError):
        exercise.negotiate(["2025-11-25"], ["latest"])


# -- Exercise 2 · A lifecycle guard ----------------------------------------------------------------

REQ, NOTE = "request", "notification"
BEFORE = "Received 'tools/list' before initialization: send 'initialize' first"
ALREADY = "The session is already initialized"


def verdict(v):
    """A Verdict as a plain tuple, for readable assertion messages."""
    return (v.action, v.code, v.message)


ALLOWED = ("allow", None, None)
DROPPED = ("drop", None, None)


def server_in(exercise, state):
    """A server-role guard brought to ``state`` by the real handshake messages."""
    guard = exercise.LifecycleGuard("server")
    if state in ("initializing", "ready"):
        guard.receive(REQ, "initialize")
    if state == "ready":
        guard.receive(NOTE, "notifications/initialized")
    return guard


def client_in(exercise, state):
    """A client-role guard brought to ``state`` by the real handshake messages."""
    guard = exercise.LifecycleGuard("client")
    if state in ("initializing", "ready"):
        guard.send(REQ, "initialize")
    if state == "ready":
        guard.send(NOTE, "notifications/initialized")
    return guard


def test_guard_starts_new_and_checks_its_role(exercise):
    """LifecycleGuard(role) accepts "server" or "client" (ValueError otherwise) and starts in state
    "new"."""
    assert exercise.LifecycleGuard("server").state == "new"
    assert exercise.LifecycleGuard("client").state == "new"
    with pytest.raises(ValueError):
        exercise.LifecycleGuard("host")


def test_server_walks_through_the_handshake(exercise):
    """Server role: receiving initialize moves new -> initializing; receiving
    notifications/initialized moves on to ready."""
    guard = exercise.LifecycleGuard("server")
    assert verdict(guard.receive(REQ, "initialize")) == ALLOWED
    assert guard.state == "initializing"
    assert verdict(guard.receive(NOTE, "notifications/initialized")) == ALLOWED
    assert guard.state == "ready"


def test_server_refuses_requests_before_initialize(exercise):
    """Server role, state new: a request other than initialize or ping is refused with -32600 and
    BEFORE_INITIALIZE."""
    guard = exercise.LifecycleGuard("server")
    assert verdict(guard.receive(REQ, "tools/list")) == ("refuse", -32600, BEFORE)
    assert verdict(guard.receive(REQ, "server/discover")) == (
        "refuse",
        -32600,
        "Received 'server/discover' before initialization: send 'initialize' first",
    )
    assert guard.state == "new"  # a refusal never moves the state


def test_ping_is_always_allowed_while_open(exercise):
    """A ping request is allowed in new, initializing and ready, for both roles,
    and never changes the state."""
    for state in ("new", "initializing", "ready"):
        server, client = server_in(exercise, state), client_in(exercise, state)
        assert verdict(server.receive(REQ, "ping")) == ALLOWED, state
        assert verdict(client.receive(REQ, "ping")) == ALLOWED, state
        assert server.send(REQ, "ping") is True, state
        assert client.send(REQ, "ping") is True, state
        assert (server.state, client.state) == (state, state)


def test_server_refuses_a_second_initialize(exercise):
    """Server role: initialize after the first one is refused with -32600 "The session is already
    initialized"."""
    for state in ("initializing", "ready"):
        guard = server_in(exercise, state)
        assert verdict(guard.receive(REQ, "initialize")) == ("refuse", -32600, ALREADY), state
        assert guard.state == state


def test_server_serves_requests_once_it_has_answered_initialize(exercise):
    """Server role: in initializing and ready, other requests are allowed (the server has answered
    initialize)."""
    assert verdict(server_in(exercise, "initializing").receive(REQ, "tools/list")) == ALLOWED
    assert verdict(server_in(exercise, "ready").receive(REQ, "tools/call")) == ALLOWED


def test_server_drops_notifications_out_of_place(exercise):
    """Server role: notifications in new are dropped; initialized counts only in initializing; other
    ones are allowed after new."""
    guard = exercise.LifecycleGuard("server")
    assert verdict(guard.receive(NOTE, "notifications/initialized")) == DROPPED
    assert verdict(guard.receive(NOTE, "notifications/cancelled")) == DROPPED
    assert guard.state == "new"
    guard = server_in(exercise, "initializing")
    assert verdict(guard.receive(NOTE, "notifications/cancelled")) == ALLOWED
    assert guard.state == "initializing"
    guard = server_in(exercise, "ready")
    assert verdict(guard.receive(NOTE, "notifications/initialized")) == DROPPED
    assert verdict(guard.receive(NOTE, "notifications/roots/list_changed")) == ALLOWED
    assert guard.state == "ready"


def test_server_sends_only_pings_and_logging_before_initialized(exercise):
    """Server role, send: before ready only ping (and, once initializing, notifications/message); in
    ready everything."""
    new = exercise.LifecycleGuard("server")
    assert new.send(REQ, "sampling/createMessage") is False
    assert new.send(NOTE, "notifications/message") is False
    assert new.send(NOTE, "notifications/tools/list_changed") is False
    initializing = server_in(exercise, "initializing")
    assert initializing.send(NOTE, "notifications/message") is True
    assert initializing.send(NOTE, "notifications/tools/list_changed") is False
    assert initializing.send(REQ, "roots/list") is False
    ready = server_in(exercise, "ready")
    assert ready.send(REQ, "roots/list") is True
    assert ready.send(NOTE, "notifications/tools/list_changed") is True
    assert ready.send(NOTE, "notifications/message") is True


def test_client_walks_through_the_handshake_by_sending(exercise):
    """Client role: sending initialize moves new -> initializing; sending notifications/initialized
    moves on to ready."""
    guard = exercise.LifecycleGuard("client")
    assert guard.send(REQ, "initialize") is True
    assert guard.state == "initializing"
    assert guard.send(REQ, "initialize") is False  # only once
    assert guard.send(REQ, "tools/list") is False  # not before the server has answered
    assert guard.send(NOTE, "notifications/initialized") is True
    assert guard.state == "ready"
    assert guard.send(NOTE, "notifications/initialized") is False  # only once
    assert guard.send(REQ, "tools/list") is True
    assert guard.state == "ready"


def test_client_sends_nothing_but_initialize_and_ping_while_new(exercise):
    """Client role, state new: only initialize and ping may be sent; no notification at all."""
    guard = exercise.LifecycleGuard("client")
    assert guard.send(REQ, "tools/list") is False
    assert guard.send(NOTE, "notifications/initialized") is False
    assert guard.send(NOTE, "notifications/cancelled") is False
    assert guard.state == "new"
    assert client_in(exercise, "initializing").send(NOTE, "notifications/cancelled") is True


def test_client_refuses_server_requests_until_ready(exercise):
    """Client role, receive: a server request other than ping before ready is refused with -32600
    and NOT_READY."""
    for state in ("new", "initializing"):
        guard = client_in(exercise, state)
        assert verdict(guard.receive(REQ, "sampling/createMessage")) == (
            "refuse",
            -32600,
            "Received 'sampling/createMessage' before the session is ready",
        ), state
        assert guard.state == state
    assert verdict(client_in(exercise, "ready").receive(REQ, "sampling/createMessage")) == ALLOWED


def test_client_accepts_logging_early_and_other_notifications_when_ready(exercise):
    """Client role, receive: notifications/message is allowed from initializing on; other
    notifications only in ready."""
    new = exercise.LifecycleGuard("client")
    assert verdict(new.receive(NOTE, "notifications/message")) == DROPPED
    initializing = client_in(exercise, "initializing")
    assert verdict(initializing.receive(NOTE, "notifications/message")) == ALLOWED
    assert verdict(initializing.receive(NOTE, "notifications/tools/list_changed")) == DROPPED
    ready = client_in(exercise, "ready")
    assert verdict(ready.receive(NOTE, "notifications/tools/list_changed")) == ALLOWED


def test_a_closed_guard_drops_and_sends_nothing(exercise):
    """close() moves any state to "closed": then every message received is dropped (even ping) and
    send() is False."""
    for make in (server_in, client_in):
        for state in ("new", "ready"):
            guard = make(exercise, state)
            guard.close()
            assert guard.state == "closed"
            assert verdict(guard.receive(REQ, "ping")) == DROPPED
            assert verdict(guard.receive(REQ, "initialize")) == DROPPED
            assert verdict(guard.receive(NOTE, "notifications/initialized")) == DROPPED
            assert guard.send(REQ, "ping") is False
            assert guard.send(NOTE, "notifications/progress") is False
            assert guard.state == "closed"


def test_kind_is_request_or_notification(exercise):
    """receive() and send() raise ValueError for a kind other than "request" or "notification"."""
    guard = exercise.LifecycleGuard("server")
    with pytest.raises(ValueError):
        guard.receive("response", "initialize")
    with pytest.raises(ValueError):
        guard.send("result", "ping")
    assert guard.state == "new"


# -- Exercise 3 · Capability negotiation -----------------------------------------------------------

ALWAYS_NOTES = {"notifications/cancelled", "notifications/progress"}


def test_nothing_declared_leaves_ping_and_the_utilities(exercise):
    """With {} on both sides only ping (both ways) and notifications/cancelled and /progress (both
    ways) are open."""
    p = exercise.negotiated({}, {})
    assert p.client_requests == {"ping"}
    assert p.server_requests == {"ping"}
    assert p.client_notifications == ALWAYS_NOTES
    assert p.server_notifications == ALWAYS_NOTES
    assert p.elicitation_modes == frozenset()


def test_the_servers_capabilities_open_the_clients_requests(exercise):
    """Server capabilities open client requests: tools, resources (3 methods), prompts, logging,
    completions."""
    server = {"tools": {}, "resources": {}, "prompts": {}, "logging": {}, "completions": {}}
    p = exercise.negotiated({}, server)
    assert p.client_requests == {
        "ping",
        "tools/list",
        "tools/call",
        "resources/list",
        "resources/read",
        "resources/templates/list",
        "prompts/list",
        "prompts/get",
        "logging/setLevel",
        "completion/complete",
    }
    assert p.server_notifications == ALWAYS_NOTES | {"notifications/message"}  # logging
    assert p.server_requests == {"ping"}


def test_flags_count_only_when_exactly_true(exercise):
    """listChanged and subscribe open their methods only when they are exactly true (not 1, not
    "yes", not false)."""
    p = exercise.negotiated(
        {},
        {
            "tools": {"listChanged": True},
            "prompts": {"listChanged": False},
            "resources": {"listChanged": 1, "subscribe": "yes"},
        },
    )
    assert "notifications/tools/list_changed" in p.server_notifications
    assert "notifications/prompts/list_changed" not in p.server_notifications
    assert "notifications/resources/list_changed" not in p.server_notifications
    assert "resources/subscribe" not in p.client_requests
    assert "resources/read" in p.client_requests


def test_resource_subscriptions(exercise):
    """resources.subscribe: true lets the client (un)subscribe and the server send
    notifications/resources/updated."""
    p = exercise.negotiated({}, {"resources": {"subscribe": True, "listChanged": True}})
    assert {"resources/subscribe", "resources/unsubscribe"} <= p.client_requests
    assert "notifications/resources/updated" in p.server_notifications
    assert "notifications/resources/list_changed" in p.server_notifications


def test_the_clients_capabilities_open_the_servers_requests(exercise):
    """Client capabilities open server requests: roots/list, sampling/createMessage,
    elicitation/create."""
    p = exercise.negotiated({"roots": {"listChanged": True}, "sampling": {}, "elicitation": {}}, {})
    assert p.server_requests == {
        "ping",
        "roots/list",
        "sampling/createMessage",
        "elicitation/create",
    }
    assert p.client_notifications == ALWAYS_NOTES | {"notifications/roots/list_changed"}
    assert p.client_requests == {"ping"}
    p = exercise.negotiated({"roots": {}}, {})
    assert "notifications/roots/list_changed" not in p.client_notifications


def test_elicitation_modes(exercise):
    """Elicitation modes are the objects "form"/"url" inside it; none declared ({}) means form only;
    "url" opens notifications/elicitation/complete."""
    assert exercise.negotiated({"elicitation": {}}, {}).elicitation_modes == {"form"}
    url_only = exercise.negotiated({"elicitation": {"url": {}}}, {})
    assert url_only.elicitation_modes == {"url"}
    assert "notifications/elicitation/complete" in url_only.server_notifications
    both = exercise.negotiated({"elicitation": {"form": {}, "url": {}}}, {})
    assert both.elicitation_modes == {"form", "url"}
    form = exercise.negotiated({"elicitation": {"form": {}}}, {})
    assert "notifications/elicitation/complete" not in form.server_notifications


def test_a_capability_is_declared_only_by_an_object(exercise):
    """A capability whose value is true, null or [] is not declared: only a dict value declares
    one."""
    client = {"sampling": True, "roots": None}
    p = exercise.negotiated(client, {"tools": True, "prompts": None, "resources": []})
    assert p.client_requests == {"ping"}
    assert p.server_requests == {"ping"}


def test_unknown_capabilities_open_nothing(exercise):
    """experimental, tasks and made-up capabilities open no method here."""
    p = exercise.negotiated(
        {"experimental": {"x": {}}, "tasks": {}}, {"x-foo": {}, "experimental": {}}
    )
    assert p.client_requests == {"ping"} and p.server_requests == {"ping"}
    assert p.client_notifications == ALWAYS_NOTES and p.server_notifications == ALWAYS_NOTES


def test_capabilities_must_be_objects(exercise):
    """negotiated() raises TypeError when either capabilities argument is not a dict."""
    with pytest.raises(TypeError):
        exercise.negotiated(None, {})
    with pytest.raises(TypeError):
        exercise.negotiated({}, ["tools"])


def test_the_notes_handshake(exercise):
    """The notes' server (tools.listChanged true, prompts/resources false) and a client
    with no capabilities."""
    p = exercise.negotiated(
        {},
        {
            "tools": {"listChanged": True},
            "prompts": {"listChanged": False},
            "resources": {"listChanged": False},
        },
    )
    assert exercise.may_send(p, "client", "tools/call") is True
    assert exercise.may_send(p, "client", "resources/templates/list") is True
    assert exercise.may_send(p, "client", "resources/subscribe") is False
    assert exercise.may_send(p, "client", "logging/setLevel") is False
    assert exercise.may_send(p, "server", "notifications/tools/list_changed") is True
    assert exercise.may_send(p, "server", "notifications/prompts/list_changed") is False
    # the client declared no sampling:
    assert exercise.may_send(p, "server", "sampling/createMessage") is False
    assert exercise.may_send(p, "server", "ping") is True


def test_may_send_picks_the_set_by_sender_and_kind(exercise):
    """may_send(): "notifications/..." is looked up among the sender's notifications, anything else
    among its requests; a bad sender is a ValueError."""
    p = exercise.negotiated({"roots": {"listChanged": True}}, {"logging": {}})
    assert exercise.may_send(p, "client", "notifications/roots/list_changed") is True
    assert exercise.may_send(p, "server", "notifications/roots/list_changed") is False
    assert exercise.may_send(p, "server", "notifications/message") is True
    assert exercise.may_send(p, "client", "notifications/message") is False
    assert exercise.may_send(p, "server", "roots/list") is True
    assert exercise.may_send(p, "client", "roots/list") is False
    assert exercise.may_send(p, "client", "logging/setLevel") is True
    with pytest.raises(ValueError):
        exercise.may_send(p, "host", "ping")
