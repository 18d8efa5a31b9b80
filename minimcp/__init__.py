"""minimcp: the Model Context Protocol, built by hand in the course MCP from Scratch.

One module per lesson, each importing only the layers below it:

* :mod:`minimcp.jsonrpc` and :mod:`minimcp.connection` (lesson 01): messages and a symmetric connection;
* :mod:`minimcp.framing` and :mod:`minimcp.stdio` (lesson 02): the stdio transport;
* :mod:`minimcp.session` (lesson 03): the lifecycle;
* :mod:`minimcp.server` and :mod:`minimcp.client`: the server registry and the client;
* :mod:`minimcp.tools` (lesson 04), :mod:`minimcp.resources` (05), :mod:`minimcp.prompts` (06) and
  :mod:`minimcp.pagination`: what a server offers;
* :mod:`minimcp.host` (lessons 04–06): the application around clients, with a rule-based model.
* :mod:`minimcp.websocket` (lesson 07): the same server over WebSocket, one session per socket.
* :mod:`minimcp.sse`, :mod:`minimcp.event_store`, :mod:`minimcp.http` and :mod:`minimcp.http_client`
  (lesson 08): the same server over Streamable HTTP, with resumable SSE streams.
* :mod:`minimcp.logs`, :mod:`minimcp.completion`, :mod:`minimcp.sampling` and
  :mod:`minimcp.elicitation` (taught in "the client talks back"): log messages and suggestions
  for the client, and the server's own requests to the client's model and to its user.
"""

__version__ = "0.1.0"
