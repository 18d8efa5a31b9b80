"""The tasks extension's names on the wire, for the server and the client alike (lesson 13).

A server keeps tasks (:mod:`minimcp.server.task_model`); a client follows them
(:mod:`minimcp.client.task_handle`). Both speak of the same extension and the same five statuses,
and neither may import the other (they are the same layer), so the names live here, below both,
as lesson 12's :mod:`minimcp.rpc.mcp` keeps the names of the core protocol.
"""

from __future__ import annotations

#: The extension's name, in both sides' ``capabilities.extensions``.
EXTENSION = "io.modelcontextprotocol/tasks"

# --8<-- [start:statuses]
WORKING = "working"
INPUT_REQUIRED = "input_required"
COMPLETED = "completed"
FAILED = "failed"
CANCELLED = "cancelled"
#: A task in one of these is over: its status never changes again.
TERMINAL = (COMPLETED, FAILED, CANCELLED)
# --8<-- [end:statuses]
