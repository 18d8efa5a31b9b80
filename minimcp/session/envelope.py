"""Every request stands alone: the ``_meta`` envelope of MCP 2026-07-28 (lesson 12).

Until 2025-11-25, a client said once, in ``initialize``, which protocol version it speaks, what it
can do and who it is, and the server remembered it for the whole session (lesson 03). Revision
2026-07-28 has no handshake and no session: **every request** carries the same facts in its
``params._meta`` (spec 2026-07-28, basic/index, "Request metadata"):

* ``io.modelcontextprotocol/protocolVersion`` (required): the revision this request speaks;
* ``io.modelcontextprotocol/clientCapabilities`` (required): what the client can do, for this
  request;
* ``io.modelcontextprotocol/clientInfo`` (optional): who the client says it is;
* ``io.modelcontextprotocol/logLevel`` (optional): the least severe log line it wants for this
  request (none at all without it).

A request without the required keys is malformed (``-32602``); a version the server does not serve
gets ``-32022`` with the versions it does. The errors the revision adds have codes of their own,
which a client recognises as "a modern server": that is how it tells a modern server from an older
one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from minimcp.rpc.jsonrpc import INVALID_PARAMS, RpcError
from minimcp.rpc.mcp import (
    CLIENT_CAPABILITIES,
    CLIENT_INFO,
    HEADER_MISMATCH,
    LOG_LEVEL,
    MISSING_CLIENT_CAPABILITY,
    PROTOCOL_VERSION,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from minimcp.session.log_levels import LEVELS
from minimcp.session.server import ForTheClient

#: The revisions without a handshake that minimcp serves, newest first.
MODERN_PROTOCOL_VERSIONS = ("2026-07-28",)


@dataclass(frozen=True)
class Envelope:
    """What one request says about its client: the facts a session used to remember."""

    protocol_version: str
    client_capabilities: dict[str, Any]
    client_info: dict[str, Any]
    log_level: str | None


# --8<-- [start:read_envelope]
def read_envelope(
    params: Any, supported: tuple[str, ...], also_supported: tuple[str, ...] = ()
) -> Envelope:
    """The envelope of a request's ``params``, or the error it earns.

    ``supported`` are the modern versions served; ``also_supported`` the older ones this server also
    speaks (with ``initialize``), listed in the ``-32022`` error so that a client can choose.
    """
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict):
        raise RpcError(
            INVALID_PARAMS,
            f'Invalid params: every request needs "_meta" with "{PROTOCOL_VERSION}" '
            f'and "{CLIENT_CAPABILITIES}"',
        )
    version = meta.get(PROTOCOL_VERSION)
    if not isinstance(version, str):
        raise RpcError(
            INVALID_PARAMS, f'Invalid params: "_meta" needs "{PROTOCOL_VERSION}" (a string)'
        )
    capabilities = meta.get(CLIENT_CAPABILITIES)
    if not isinstance(capabilities, dict):
        raise RpcError(
            INVALID_PARAMS, f'Invalid params: "_meta" needs "{CLIENT_CAPABILITIES}" (an object)'
        )
    if version not in supported:
        raise unsupported_version(version, supported + also_supported)
    info = meta.get(CLIENT_INFO, {})
    if not isinstance(info, dict):
        raise RpcError(INVALID_PARAMS, f'Invalid params: "{CLIENT_INFO}" must be an object')
    level = meta.get(LOG_LEVEL)
    if level is not None and level not in LEVELS:
        raise RpcError(
            INVALID_PARAMS, f'Invalid params: "{LOG_LEVEL}" must be one of {", ".join(LEVELS)}'
        )
    return Envelope(version, capabilities, info, level)


# --8<-- [end:read_envelope]


def unsupported_version(requested: str, supported: tuple[str, ...]) -> RpcError:
    return RpcError(
        UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
        {"supported": list(supported), "requested": requested},
    )


class MissingCapability(RpcError, ForTheClient):
    """-32021, raised inside a handler too (a question the client cannot answer): for the client."""


def missing_capability(name: str, options: dict[str, Any] | None = None) -> RpcError:
    """-32021: the request needs the client capability ``name``, which its envelope lacks."""
    return MissingCapability(
        MISSING_CLIENT_CAPABILITY,
        f"Server requires the {name} capability for this request",
        {"requiredCapabilities": {name: options or {}}},
    )


def header_mismatch(message: str) -> RpcError:
    return RpcError(HEADER_MISMATCH, f"Header mismatch: {message}")


def with_envelope(params: dict[str, Any] | None, envelope: Envelope) -> dict[str, Any]:
    """A client's request params, its envelope added to their ``_meta`` (a progress token stays)."""
    meta = {
        PROTOCOL_VERSION: envelope.protocol_version,
        CLIENT_CAPABILITIES: envelope.client_capabilities,
        CLIENT_INFO: envelope.client_info,
    }
    if envelope.log_level is not None:
        meta[LOG_LEVEL] = envelope.log_level
    params = dict(params or {})
    params["_meta"] = {**params.get("_meta", {}), **meta}
    return params
