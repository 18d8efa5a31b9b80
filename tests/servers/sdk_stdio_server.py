"""An official-SDK server over stdio: the oracle minimcp's client is checked against.

Run as ``python -m tests.servers.sdk_stdio_server`` (the tests do it); minimcp never imports
``mcp``.
"""

from mcp.server.mcpserver import MCPServer

server = MCPServer("sdk-oracle", instructions="The official SDK's server, for interop tests.")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


if __name__ == "__main__":
    server.run("stdio")
