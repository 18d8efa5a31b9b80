"""What the server streams to the client, read to the end and resumed after each drop (lesson 08).

A request's answer comes back as one JSON object or as an SSE stream on its POST; the GET's
announcement channel is a stream too. A stream may drop at any moment (a proxy, a restart, the
server closing the connection on purpose). The client remembers the last event id of every stream,
and after a drop comes back after the server's ``retry`` delay with ``GET`` and ``Last-Event-ID``:
the server replays what came after that event. It tries a bounded number of times in a row (a
``502``, ``503`` or ``504`` on the way, a gateway or a busy server, counts as one more try, not the
end), and a server that cannot resume the stream ends it at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Literal

import httpx2

from minimcp.rpc.jsonrpc import (
    INTERNAL_ERROR,
    ErrorResponse,
    Message,
    Request,
    Response,
    RpcError,
    parse,
)
from minimcp.transports.http.handshake import SessionExpired, content_type
from minimcp.transports.sse import SSEParser

log = logging.getLogger("minimcp.http_client")

#: Statuses that say "not now" rather than "never": a gateway that found no live server behind it
#: (502, 504), or a server that cannot serve this moment (503, e.g. lesson 11's workers without
#: Redis).
TRY_AGAIN = (502, 503, 504)

#: ``GET`` with this ``Last-Event-ID``: the stream resumed (SessionExpired if the session is gone).
Reconnect = Callable[[str], Awaitable[httpx2.Response]]
#: What one connection of a stream brought: the answer, some events, or nothing at all.
Brought = Literal["answer", "events", "nothing"]


# --8<-- [start:read_answer]
class StreamFollower:
    """Reads the answers to the client's requests, and its streams, resumed after each drop."""

    def __init__(
        self,
        reconnect: Reconnect,
        deliver: Callable[[Message], None],
        give_up: Callable[[Request, str], None],
        max_retries: int,
    ) -> None:
        self.reconnect = reconnect
        self.deliver = deliver  # a message from the server, parsed once, for the connection
        self.give_up = give_up  # a request that will never be answered, and why
        self.max_retries = max_retries  # reconnections in a row before a stream is given up
        self.last_event_ids: dict[str, str] = {}  # "get …", or "request <id>" → last event id seen
        self.closed = False  # the transport is closing: resume nothing more

    async def read_answer(self, request: Request, response: httpx2.Response) -> None:
        """Read a POSTed request's answer: one JSON object, or an SSE stream resumed as needed."""
        try:
            if response.status_code >= 400:
                self.deliver(await error_for(request, response))
                return
            if content_type(response) == "application/json":
                self.deliver(parse(await response.aread()))  # RpcError: no answer, said below
                return
            if content_type(response) != "text/event-stream":
                raise RpcError(
                    INTERNAL_ERROR, f"unexpected Content-Type {content_type(response)!r}"
                )
            key = f"request {request.id}"
            try:
                if not await self.follow(key, response, until_answer=True):
                    self.give_up(request, "the answer's stream dropped and could not be resumed")
            finally:
                self.last_event_ids.pop(key, None)
        except Exception as error:  # the connection failed: the request will never be answered
            # The network failed, or the server sent something broken: to be expected
            if isinstance(error, (httpx2.HTTPError, RpcError)):
                log.debug("reading the answer to #%s failed: %s", request.id, error)
            else:
                # Anything else is a bug here: say so loudly (the caller still gets an error answer)
                log.warning("reading the answer to #%s failed", request.id, exc_info=error)
            self.give_up(request, f"{type(error).__name__}: {error}")
        finally:
            await response.aclose()

    async def follow(
        self, key: str, response: httpx2.Response | None, *, until_answer: bool
    ) -> bool:
        """Read one SSE stream to its end; on a drop, resume it with ``Last-Event-ID``.

        True once the stream is complete (for a POST: its answer arrived); False after
        ``max_retries`` failed reconnections in a row, or when there is nothing to resume from.
        """
        retry_ms, failures = 1000, 0
        while True:
            if response is not None:
                parser = SSEParser()
                brought = await self.read_connection(key, response, parser, until_answer)
                if brought == "answer":
                    return True
                if brought == "events":  # this connection brought something: count again
                    failures = 0
                response = None
                retry_ms = parser.retry if parser.retry is not None else retry_ms
                # Ended without the answer, on purpose or not: come back after retry_ms
                failures += 1
            last_event_id = self.last_event_ids.get(key)
            if self.closed or last_event_id is None or failures > self.max_retries:
                return False
            await asyncio.sleep(retry_ms / 1000)
            try:
                response = await self.reconnect(last_event_id)
            except SessionExpired:
                return False
            except httpx2.HTTPError as error:
                log.debug("resuming %s failed: %s", key, error)
                failures += 1
                continue
            # A gateway or a busy server: the stream may resume later
            if response.status_code in TRY_AGAIN:
                await response.aclose()
                response = None
                failures += 1
                continue
            if response.status_code != 200:  # the server cannot resume this stream
                await response.aclose()
                return False

    async def read_connection(
        self, key: str, response: httpx2.Response, parser: SSEParser, until_answer: bool
    ) -> Brought:
        """Read one connection of stream ``key`` until it ends, delivering every message."""
        brought: Brought = "nothing"
        try:
            async for chunk in response.aiter_bytes():
                for event in parser.feed(chunk):
                    brought = "events"
                    if event.id is not None:
                        self.last_event_ids[key] = event.id
                    if not event.data:  # a priming event: only its id (and retry) matter
                        continue
                    message = parse(event.data)  # RpcError: the stream is broken
                    self.deliver(message)
                    if until_answer and isinstance(message, (Response, ErrorResponse)):
                        return "answer"
        except (httpx2.HTTPError, RpcError) as error:
            log.debug("stream %s dropped: %s", key, error)
        finally:
            await response.aclose()
        return brought


# --8<-- [end:read_answer]


async def error_for(request: Request, response: httpx2.Response) -> ErrorResponse:
    """An HTTP error as the JSON-RPC error answering ``request`` (the server's own, if any)."""
    body = await response.aread()
    try:
        kind = parse(body)
    except RpcError:
        kind = None
    if isinstance(kind, ErrorResponse):
        return ErrorResponse(request.id, kind.code, kind.message, kind.data)
    return ErrorResponse(
        request.id,
        INTERNAL_ERROR,
        f"HTTP {response.status_code}: {body.decode(errors='replace')[:200]}",
    )
