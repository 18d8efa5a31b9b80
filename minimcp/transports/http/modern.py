"""Streamable HTTP without sessions: one POST, one request, one answer (MCP 2026-07-28, lesson 12).

Lesson 08's endpoint keeps sessions, streams and stored events, and lesson 11 shares them between
workers. A 2026-07-28 request needs none of it: it carries its own envelope, so the server answers
it with one call (its ``answer_alone``: lesson 12's :func:`~minimcp.session.alone.answer_alone`),
with no session around it, and nothing to forget afterwards. Any worker can serve any request;
nothing to share, nothing to resume (basic/transports/streamable-http):

* POST only: ``GET`` and ``DELETE`` are ``405``, for a client that speaks 2026-07-28;
* the headers say what the body says, so that a gateway can route without reading the body
  (:mod:`~minimcp.transports.http.modern_headers`). A header that is missing or says otherwise is
  ``400``, error ``-32020``;
* the answer is one JSON body, or, if the request says something first (progress, a log line), an
  SSE stream with no event ids: a broken stream is not resumed, the client sends the request again;
* the client closing that stream cancels the request; the server stopping answers it
  (:class:`InFlight`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from minimcp.rpc.answering import internal_error
from minimcp.rpc.jsonrpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    ErrorResponse,
    Message,
    Request,
    Response,
)
from minimcp.rpc.limits import SERVER_BUSY
from minimcp.rpc.mcp import MODERN_ERRORS
from minimcp.transports.http.asgi import (
    SHUTTING_DOWN,
    HttpRequest,
    Receive,
    Refusal,
    Send,
    send_response,
)
from minimcp.transports.http.modern_headers import check_headers, check_param_headers
from minimcp.transports.http.routing import First, answer_as
from minimcp.transports.http.streams import Said, sse_response
from minimcp.transports.sse import format_event

JSON = "application/json"

log = logging.getLogger("minimcp.http")


class AloneServer(Protocol):
    """What this module needs of the server: a tool's input schema, and the answer to a request
    that arrives alone (lesson 12's :func:`~minimcp.session.alone.answer_alone`)."""

    def input_schema(self, tool: str) -> dict[str, Any] | None: ...

    def answer_alone(
        self, request: Request, say: Callable[[Message], Awaitable[None]], /
    ) -> Awaitable[Response | ErrorResponse]: ...


class InFlight:
    """The 2026-07-28 requests being answered right now, each with the queue its answer goes to.

    A 2026-07-28 stream has no event ids: a client whose stream ends without an answer cannot
    resume it, and never learns what became of its request. So a server that stops gives each
    request still in flight a last answer, -32000 "shutting down" (try again: later, or elsewhere),
    and refuses the ones that come after with the same words, as lesson 08 refuses a new session.
    """

    def __init__(self) -> None:
        self.stopping = False
        self._answers: dict[asyncio.Queue[Said], Request] = {}

    def open(self, request: Request, said: asyncio.Queue[Said]) -> None:
        if self.stopping:
            raise Refusal(503, SHUTTING_DOWN, SERVER_BUSY, request_id=request.id)
        self._answers[said] = request

    def done(self, said: asyncio.Queue[Said]) -> None:
        self._answers.pop(said, None)

    def stop(self) -> None:
        """The server stops: each request's answer, now (the one its handler gives later is
        ignored: only the first answer of a request is written)."""
        self.stopping = True
        for said, request in self._answers.items():
            said.put_nowait(Said.of(ErrorResponse(request.id, SERVER_BUSY, SHUTTING_DOWN)))


# --8<-- [start:serve]
async def serve_one(
    server: AloneServer,
    request: HttpRequest,
    message: Message,
    send: Send,
    receive: Receive,
    stream_after: float,
    keepalive: float,
    in_flight: InFlight | None = None,
) -> None:
    """Serve one 2026-07-28 POST: check its headers, answer it, and write what it says (a server
    that stops answers it at once, through ``in_flight``)."""
    if not isinstance(message, Request):  # 2026-07-28 defines no client notification over HTTP
        await send_response(send, 202)
        return
    check_headers(request, message)
    if message.method == "tools/call":
        tool = str((message.params or {}).get("name"))
        check_param_headers(request, message, server.input_schema(tool))
    said: asyncio.Queue[Said] = asyncio.Queue()  # what it says, its answer last
    in_flight = in_flight or InFlight()
    in_flight.open(message, said)
    answering = asyncio.create_task(answer_into(server, message, said))
    try:
        first: Said | None = None  # still working, with nothing said yet: stream it
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(stream_after):  # (wait_for would start a task of its own)
                first = await said.get()
        spoke: First | None = None if first is None else "answer" if first.final else "message"
        if first is not None and answer_as(spoke) == "json":  # lesson 08's rule
            await send_response(send, status_of(first.message), first.text.encode(), JSON)
            return
        await stream(send, receive, said, first, keepalive)
    finally:
        in_flight.done(said)
        if not answering.done():  # the client left before the answer: nobody wants it any more
            answering.cancel()
            await asyncio.gather(answering, return_exceptions=True)


async def answer_into(server: AloneServer, request: Request, said: asyncio.Queue[Said]) -> None:
    """The server's answer to ``request``, after whatever it says meanwhile, into ``said``: each
    message encoded once, as it is said (:class:`~minimcp.transports.http.streams.Said`)."""

    async def say(message: Message) -> None:
        said.put_nowait(Said.of(message))

    answer = await server.answer_alone(request, say)
    try:
        said.put_nowait(Said.of(answer))
    except (TypeError, ValueError):  # the handler returned something that is not JSON
        log.exception("the result of %s is not JSON", request.method)
        said.put_nowait(Said.of(internal_error(request)))


# --8<-- [end:serve]


def status_of(answer: Message) -> int:
    """The HTTP status of a JSON answer: 404 for an unknown method, 400 for a wrong request."""
    if not isinstance(answer, ErrorResponse):
        return 200
    if answer.code == METHOD_NOT_FOUND:
        return 404
    if answer.code in (INVALID_REQUEST, INVALID_PARAMS, *MODERN_ERRORS):
        return 400
    return 200


async def stream(
    send: Send,
    receive: Receive,
    said: asyncio.Queue[Said],
    first: Said | None,
    keepalive: float,
) -> None:
    """An SSE response with no event ids: what the request says, then its answer, then the end.
    Lesson 08's SSE writer does the rest: keep-alive comments, and the end when the client goes."""
    async with sse_response(send, receive, {"x-accel-buffering": "no"}) as connection:
        pending = [first] if first is not None else []
        while True:
            next_said = pending.pop() if pending else await connection.next(said.get, keepalive)
            if next_said is None:
                return  # the client went away: the caller cancels the request
            await connection.write(format_event(next_said.text))
            if next_said.final:
                return
