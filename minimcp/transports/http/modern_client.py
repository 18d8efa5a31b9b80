"""The 2026-07-28 headers of the client's HTTP transport (lesson 12).

A 2026-07-28 request stands alone: it carries its envelope in ``params._meta``, belongs to no
session, and repeats what its body says in headers a gateway can read (``MCP-Protocol-Version``,
``MCP-Method``, ``MCP-Name``, and a tool's ``x-mcp-header`` arguments as ``Mcp-Param-*``).

Lesson 08's :class:`~minimcp.transports.http.client.HttpClientTransport` knows none of this: it
offers a seam, ``request_headers=``, and :class:`ModernHeaders` plugs into it::

    HttpClientTransport(url, request_headers=ModernHeaders())

For a request with an envelope it chooses the headers (and the transport then sends no session
id); for any other it says nothing, and the request travels as lesson 08 taught.
"""

from __future__ import annotations

from minimcp.rpc.jsonrpc import Message, Request, Response
from minimcp.rpc.mcp import has_envelope
from minimcp.transports.http.modern_headers import header_parameters, request_headers


class ModernHeaders:
    """The headers of 2026-07-28 requests, and which tool arguments also travel as headers."""

    def __init__(self) -> None:
        # each tool → its arguments also sent as headers (path to the argument → header name)
        self.header_params: dict[str, dict[tuple[str, ...], str]] = {}

    def headers_for(self, request: Request) -> dict[str, str] | None:
        """A request with an envelope: its 2026-07-28 headers. Any other: None, the session's."""
        if not has_envelope(request.params):
            return None
        return request_headers(request, self.header_params)

    def received(self, message: Message) -> None:
        """Learn from a ``tools/list`` answer which arguments of each tool travel as headers."""
        result = message.result if isinstance(message, Response) else None
        if not (isinstance(result, dict) and isinstance(result.get("tools"), list)):
            return
        for tool in result["tools"]:
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                self.header_params[tool["name"]] = header_parameters(tool.get("inputSchema"))
