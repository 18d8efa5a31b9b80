"""Streamable HTTP (lesson 08): the same server over POST, GET and DELETE, with resumable SSE.

One URL, the **MCP endpoint** (``http://127.0.0.1:8000/mcp``), and three HTTP methods
(spec 2025-11-25, basic/transports, "Streamable HTTP"):

* **POST** carries one JSON-RPC message from the client. A notification or a response is answered
  ``202 Accepted``. A request is answered either with one JSON object (``application/json``) or with
  an SSE stream (``text/event-stream``) that carries the request's progress and ends with its
  response. The server chooses: a request answered quickly gets JSON; one that sends something
  before its answer (progress, a log line, a question back) or that is still running after
  ``stream_after`` seconds gets a stream.
* **GET** opens the *announcement channel*: an SSE stream for what the server says on its own, such
  as ``notifications/tools/list_changed``. With a ``Last-Event-ID`` header it instead *resumes* a
  stream that dropped (a POST's or the GET's own): the server replays what came after that event.
* **DELETE** ends the session.

One job a module:

:mod:`~minimcp.transports.http.asgi` (HTTP in and out), :mod:`~minimcp.transports.http.routing`
(where each message goes, and JSON or SSE: decisions with no I/O),
:mod:`~minimcp.transports.http.streams` (SSE streams and their connections),
:mod:`~minimcp.transports.http.session_transport` (the cable under one session),
:mod:`~minimcp.transports.http.sessions` (sessions and their expiry),
:mod:`~minimcp.transports.http.seams` (what the endpoint needs; where later lessons plug in),
:mod:`~minimcp.transports.http.app` (the endpoint), :mod:`~minimcp.transports.http.answers` and
:mod:`~minimcp.transports.http.get_streams` (what a POST and a GET get back),
:mod:`~minimcp.transports.http.server` (uvicorn)
and :mod:`~minimcp.transports.http.client` (the client's side, on httpx2, which reads the server's
streams with :mod:`~minimcp.transports.http.following`).
"""
