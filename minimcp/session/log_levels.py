"""The eight log levels of MCP's logging utility, and their order (lesson 09).

They are the syslog severities of RFC 5424, least severe first. A client picks the least severe
level it wants to hear: for its session with ``logging/setLevel`` (:mod:`minimcp.server.logs`), or,
in revision 2026-07-28, for one request in its envelope (:mod:`minimcp.session.envelope`, lesson
12). Both read this one list, so it lives in the session layer, below the server's features.
"""

from __future__ import annotations

# --8<-- [start:levels]
#: RFC 5424's severities, least severe first: a level's position is its rank.
LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
SEVERITY = {level: rank for rank, level in enumerate(LEVELS)}


def is_level(value: object) -> bool:
    """Whether ``value`` is the name of one of the eight levels."""
    return isinstance(value, str) and value in SEVERITY


# --8<-- [end:levels]
