"""The lifecycle's rules, with no connection and no event loop (minimcp.session.lifecycle)."""

from __future__ import annotations

import pytest

from minimcp.rpc.jsonrpc import INVALID_PARAMS, INVALID_REQUEST, RpcError
from minimcp.session.lifecycle import LATEST_PROTOCOL_VERSION, Lifecycle, negotiate_version

GOOD = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "c", "version": "1"},
}


def test_the_three_states() -> None:
    lifecycle = Lifecycle()
    assert lifecycle.state == "new"
    agreed = lifecycle.initialize(GOOD)
    assert (lifecycle.state, agreed.protocol_version) == ("initializing", "2025-06-18")
    lifecycle.initialized()
    assert lifecycle.state == "ready"


def test_only_initialize_and_ping_before_initialize() -> None:
    lifecycle = Lifecycle()
    lifecycle.check_request("ping")
    lifecycle.check_request("initialize")
    with pytest.raises(RpcError) as caught:
        lifecycle.check_request("tools/list")
    assert (caught.value.code, caught.value.message) == (
        INVALID_REQUEST,
        "Received 'tools/list' before initialization: send 'initialize' first",
    )
    lifecycle.initialize(GOOD)
    # answered once initialize was: initialized may still be on its way
    lifecycle.check_request("tools/list")


def test_initialized_may_overtake_its_initialize() -> None:
    lifecycle = Lifecycle()
    lifecycle.initialized()  # pipelined right behind initialize, handled first
    assert lifecycle.state == "new"
    lifecycle.initialize(GOOD)
    assert lifecycle.state == "ready"


def test_a_second_initialize_is_refused_and_changes_nothing() -> None:
    lifecycle = Lifecycle()
    lifecycle.initialize(GOOD)
    with pytest.raises(RpcError) as caught:
        lifecycle.initialize(GOOD)
    assert (caught.value.code, caught.value.message) == (
        INVALID_REQUEST,
        "The session is already initialized",
    )
    assert lifecycle.state == "initializing"


def test_bad_params_leave_the_session_new() -> None:
    lifecycle = Lifecycle()
    with pytest.raises(RpcError) as caught:
        lifecycle.initialize({**GOOD, "capabilities": []})
    assert (caught.value.code, caught.value.message) == (
        INVALID_PARAMS,
        'initialize needs "capabilities" (an object)',
    )
    assert lifecycle.state == "new"
    assert lifecycle.initialize(GOOD).client_info == {"name": "c", "version": "1"}


def test_an_unknown_version_gets_the_server_latest() -> None:
    assert negotiate_version("1999-01-01") == LATEST_PROTOCOL_VERSION
    assert (
        Lifecycle().initialize({**GOOD, "protocolVersion": "1999-01-01"}).protocol_version
        == LATEST_PROTOCOL_VERSION
    )
