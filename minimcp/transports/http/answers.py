"""How a POSTed request is answered: one JSON body if it is quick, an SSE stream if not (lesson 08).

The endpoint (:class:`~minimcp.transports.http.app.StreamableHTTP`) hands each POSTed request to its
session, then waits for the first thing the request says, and asks
:func:`~minimcp.transports.http.routing.answer_as` what that makes of the answer: the response
itself, quickly, goes as plain JSON; anything else opens a stream the client can resume.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

from minimcp.rpc.jsonrpc import ErrorResponse, Request, RequestId
from minimcp.transports.http.asgi import SESSION_HEADER, Receive, Refusal, Send, send_response
from minimcp.transports.http.routing import answer_as
from minimcp.transports.http.sessions import HttpSession
from minimcp.transports.http.streams import Cancelled, CloseConnection, Exchange, Said, pump


class Pacing(Protocol):
    """The endpoint's timings (:class:`~minimcp.transports.http.app.StreamableHTTP` has them)."""

    stream_after: float  # seconds a request may take and still be answered as JSON
    retry_ms: int  # what a stream's priming event tells clients to wait before reconnecting
    keepalive: float  # seconds of silence before a stream gets a keep-alive comment


# --8<-- [start:answer]
async def answer(
    session: HttpSession,
    request: Request,
    exchange: Exchange,
    send: Send,
    receive: Receive,
    pacing: Pacing,
) -> None:
    """Answer a POSTed request: as one JSON object if it is quick, as an SSE stream if not."""
    # Only the initialize that opened this session may end it (if it fails) or name it (if it
    # works): a second initialize on a live session is refused by the session, and changes
    # nothing here.
    initialize = request.method == "initialize" and session.opening
    session.opening = False
    # initialize is always quick and never streams: its answer must say if a session exists
    try:
        async with asyncio.timeout(None if initialize else pacing.stream_after):
            await exchange.arrived
    except TimeoutError:
        pass  # still running, with nothing said yet: stream it
    how = answer_as(exchange.first())
    if how == "gone":
        raise Refusal(404, "Session not found: it was ended while the request ran")
    if how == "json":
        await answer_json(session, exchange.answer(), initialize, send)
    else:
        await answer_sse(session, exchange, initialize, send, receive, request.id, pacing)


async def answer_json(session: HttpSession, answer: Said, initialize: bool, send: Send) -> None:
    """The answer came before anything else: one plain JSON body, its text as it was encoded."""
    headers = {}
    if initialize:
        if isinstance(answer.message, ErrorResponse):
            await session.end()  # a failed handshake opens no session
        else:
            headers[SESSION_HEADER] = session.id
    await send_response(send, 200, answer.text.encode(), "application/json", headers)


async def answer_sse(
    session: HttpSession,
    exchange: Exchange,
    initialize: bool,
    send: Send,
    receive: Receive,
    request_id: RequestId,
    pacing: Pacing,
) -> None:
    """A stream. Its first event primes the client with an id to resume from; then comes what
    the request said while we waited, then (route() sends straight to the stream from now on)
    the rest."""
    stream = exchange.stream = session.new_stream(request_id)
    closing: list[CloseConnection] = []
    cancelled: list[Cancelled] = []

    def earlier() -> list[tuple[str, bool]]:
        waiting, exchange.pending = exchange.pending, []
        closing.extend(item for item in waiting if isinstance(item, CloseConnection))
        cancelled.extend(item for item in waiting if isinstance(item, Cancelled))
        return [(item.text, item.final) for item in waiting if isinstance(item, Said)]

    listener, priming = await stream.open(earlier)
    if cancelled:  # cancelled before it said anything: the stream ends with no answer
        stream.end()
    elif closing:
        stream.close_connection(closing[0].retry_ms)
    headers = {SESSION_HEADER: session.id} if initialize else {}
    await pump(
        send, receive, stream, listener, [priming], headers, pacing.retry_ms, pacing.keepalive
    )


# --8<-- [end:answer]
