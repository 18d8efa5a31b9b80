"""Streamable HTTP (lesson 08), one job a module.

:mod:`~minimcp.transports.http.asgi` (HTTP in and out), :mod:`~minimcp.transports.http.routing`
(where each message goes, and JSON or SSE: decisions with no I/O), :mod:`~minimcp.transports.http.streams`
(SSE streams and their connections), :mod:`~minimcp.transports.http.sessions` (sessions and their
expiry), :mod:`~minimcp.transports.http.app` (the endpoint), :mod:`~minimcp.transports.http.server`
(uvicorn) and :mod:`~minimcp.transports.http.client` (the client's side, on httpx).
"""
