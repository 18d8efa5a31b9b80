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
  (:class:`InFlight`);
* a client that leaves more than ``MAX_UNSENT`` bytes of its stream unread loses its request: the
  stream ends with an error once it has read what came before (:class:`Reply`).
"""

from __future__ import annotations

import asyncio
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
    RequestId,
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
from minimcp.transports.http.streams import Said, sse_response
from minimcp.transports.sse import format_event

JSON = "application/json"
#: Bytes a request may have said that its client has not read yet. A client that reads slower than
#: the server speaks (a listener that never reads its notices) would otherwise hold the difference
#: in the server's memory, and more each time.
MAX_UNSENT = 4 * 1024 * 1024
TOO_SLOW = f"Client too slow: more than {MAX_UNSENT} bytes were left unread; the request ends"

log = logging.getLogger("minimcp.http")


class AloneServer(Protocol):
    """What this module needs of the server: a tool's input schema, and the answer to a request
    that arrives alone (lesson 12's :func:`~minimcp.session.alone.answer_alone`)."""

    def input_schema(self, tool: str) -> dict[str, Any] | None: ...

    def answer_alone(
        self, request: Request, say: Callable[[Message], Awaitable[None]], principal: str | None, /
    ) -> Awaitable[Response | ErrorResponse]: ...


class InFlight:
    """The 2026-07-28 requests being answered right now.

    A 2026-07-28 stream has no event ids: a client whose stream ends without an answer cannot
    resume it, and never learns what became of its request. So a server that stops gives each
    request still in flight a last answer, -32000 "shutting down" (try again: later, or elsewhere),
    and refuses the ones that come after with the same words, as lesson 08 refuses a new session.
    """

    def __init__(self) -> None:
        self.stopping = False
        self._replies: dict[Reply, Request] = {}

    def open(self, request: Request, reply: Reply) -> None:
        if self.stopping:
            raise Refusal(503, SHUTTING_DOWN, SERVER_BUSY, request_id=request.id)
        self._replies[reply] = request

    def done(self, reply: Reply) -> None:
        self._replies.pop(reply, None)

    def stop(self) -> None:
        """The server stops: each request's last answer, now."""
        self.stopping = True
        for reply, request in list(self._replies.items()):
            reply.end(Said.of(ErrorResponse(request.id, SERVER_BUSY, SHUTTING_DOWN)))


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
    """Serve one 2026-07-28 POST: check its headers, answer it, and write what it says.

    The answer is worked out here, in the POST's own task: a quick answer that says nothing first
    is written as JSON at once, with no other task to start and to wait for. Only a request that
    speaks first, or runs past ``stream_after``, gets a stream, and a task to write it. A server
    that stops answers it at once, through ``in_flight``.
    """
    if not isinstance(message, Request):  # 2026-07-28 defines no client notification over HTTP
        await send_response(send, 202)
        return
    check_headers(request, message)
    if message.method == "tools/call":
        tool = str((message.params or {}).get("name"))
        check_param_headers(request, message, server.input_schema(tool))
    reply = Reply(send, receive, keepalive, message.id)
    in_flight = in_flight or InFlight()
    in_flight.open(message, reply)
    if stream_after <= 0:  # a stream always, even for an answer ready at once (as lesson 08)
        reply.stream()
    late = asyncio.get_running_loop().call_later(stream_after, reply.stream)
    try:
        # Who sent it, if lesson 10's guard stands in front: the request state is bound to them
        answered = await server.answer_alone(message, reply.say, request.principal)
        answer: Said | None = said_answer(message, answered)
    except asyncio.CancelledError:
        if not reply.ended():  # cancelled from elsewhere: no stream is left open
            reply.abandon()
            raise
        answer = reply.last_word  # the server's, as it stops; None: the client left
    finally:
        reply.settle()
        late.cancel()
        in_flight.done(reply)
    if answer is not None:
        # One turn of the event loop before writing: the requests that arrived with this one are
        # worked out first, and their answers leave together. Under load that keeps each turn of
        # the loop full (bench/workers.py, 16 connections: about +30 %); a lone request pays one
        # turn.
        await asyncio.sleep(0)
        await reply.finish(answer)


class Reply:
    """The HTTP answer to one POST: one JSON body if the answer is all there is (lesson 08's
    rule, :func:`~minimcp.transports.http.routing.answer_as`), else an SSE stream, written by a
    task of its own while the request goes on. The client closing that stream cancels the
    request; so does a server that stops, which gives the request its last word, and so does a
    client that leaves too much unread (``MAX_UNSENT``)."""

    said: asyncio.Queue[Said]  # what the stream carries, the answer last: made with the stream

    def __init__(
        self, send: Send, receive: Receive, keepalive: float, request_id: RequestId
    ) -> None:
        self.send, self.receive, self.keepalive = send, receive, keepalive
        self.request_id = request_id  # for the error that ends it, if its client reads too slowly
        self.unsent = 0  # bytes in ``said``: said, and not written yet
        self.streaming: asyncio.Task[bool] | None = None  # its result: was the answer written?
        # The request's task, to cancel if it is ended; None once its handler is done
        self.answering = asyncio.current_task()
        self.ending = False  # ended from outside (the client left, the server stops) or too slow
        self.last_word: Said | None = None  # the answer given then, if any

    def stream(self) -> None:
        """Answer with a stream: the request said something first, or its answer is late."""
        if self.streaming is None:
            self.said = asyncio.Queue()
            self.streaming = asyncio.create_task(self._write_stream())

    async def say(self, message: Message) -> None:
        """What the request says before its answer: it goes on the stream, each encoded once. Past
        ``MAX_UNSENT`` bytes unread, the request ends instead, an error its last word."""
        said = Said.of(message)
        if self.ending:
            return  # ended already: nothing more goes on its stream
        if self.unsent + len(said.text) > MAX_UNSENT:
            self.end(Said.of(ErrorResponse(self.request_id, SERVER_BUSY, TOO_SLOW)))
            return
        self.stream()
        self.unsent += len(said.text)
        self.said.put_nowait(said)

    async def take(self) -> Said:
        """The next thing the stream carries (its writer takes them one by one)."""
        said = await self.said.get()
        self.unsent -= len(said.text)
        return said

    async def finish(self, answer: Said) -> None:
        """The answer: the JSON body if nothing was streamed, else the stream's last event."""
        if self.streaming is None:
            await send_response(self.send, status_of(answer.message), answer.text.encode(), JSON)
            return
        self.said.put_nowait(answer)
        await self.streaming

    def settle(self) -> None:
        """The handler is done: nothing cancels it now. (Letting go of the task also breaks the
        cycle task → coroutine → reply → task, which only the garbage collector could free.)"""
        self.answering = None

    def end(self, last_word: Said | None) -> None:
        """Stop the handler from outside, with the answer to give instead (None: no answer)."""
        if not self.ending and self.answering is not None:
            self.ending, self.last_word = True, last_word
            self.answering.cancel()

    def ended(self) -> bool:
        """Whether the request was ended from outside: that cancellation is handled here."""
        if self.ending and self.answering is not None:
            self.answering.uncancel()
        return self.ending

    def abandon(self) -> None:
        """The request will never be answered: end its stream, if it has one."""
        if self.streaming is not None:
            self.streaming.cancel()

    async def _write_stream(self) -> bool:
        answered = await stream(self.send, self.receive, self.take, self.keepalive)
        if not answered:
            self.end(None)  # the client went away: nobody wants the answer any more
        return answered


def said_answer(request: Request, answer: Response | ErrorResponse) -> Said:
    """The answer, encoded once; a result that is not JSON is the server's bug: -32603."""
    try:
        return Said.of(answer)
    except (TypeError, ValueError):
        log.exception("the result of %s is not JSON", request.method)
        return Said.of(internal_error(request))


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
    send: Send, receive: Receive, take: Callable[[], Awaitable[Said]], keepalive: float
) -> bool:
    """An SSE response with no event ids: what the request says, then its answer, then the end.
    Lesson 08's SSE writer does the rest: keep-alive comments, and the end when the client goes.
    True if the answer was written; False if the client went away first."""
    async with sse_response(send, receive, {"x-accel-buffering": "no"}) as connection:
        while True:
            next_said = await connection.next(take, keepalive)
            if next_said is None:
                return False  # the client went away
            await connection.write(format_event(next_said.text))
            if next_said.final:
                return True
