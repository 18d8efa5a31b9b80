"""minimcp: the Model Context Protocol, built by hand in the course MCP from Scratch.

One sub-package per layer, each importing only the layers below it (``tests/test_layers.py`` keeps
it so):

1. :mod:`minimcp.rpc` (lesson 01): JSON-RPC messages and a symmetric connection;
2. :mod:`minimcp.transports` (lessons 02, 07, 08): the cables: stdio, WebSocket, Streamable HTTP;
3. :mod:`minimcp.session` (lesson 03): the lifecycle, initialize to ready;
4. :mod:`minimcp.server` (lessons 04–06) and :mod:`minimcp.client`: what a server offers, and the
   client that uses it;
5. :mod:`minimcp.host` (lessons 04–06): the application around the clients, with a rule-based model;
6. :mod:`minimcp.cli` and :mod:`minimcp.examples`: the one command line, the course's servers.

This file imports nothing, so that every layer may read the version below.
"""

__version__ = "0.1.0"
