"""A symmetric JSON-RPC connection over any transport (lesson 01).

In MCP both sides send requests: the client calls ``tools/call``, the server may call ``ping`` or
``sampling/createMessage`` back. So there is no "client connection" and "server connection", only
one :class:`Connection` that does five jobs:

1. **send requests** and wait for their answers, in any order: each gets a fresh id and a future.
2. **answer incoming requests** through a handler (:mod:`minimcp.rpc.answering`), each in its own
   task, so a slow one never blocks a quick one; an exception becomes an error response.
3. **deliver notifications** to a handler.
4. **fail cleanly**: when the other side goes away, every pending request fails with
   :class:`ConnectionClosed` instead of waiting forever.
5. **give up cleanly**: a request whose caller stops waiting is *abandoned*: ``on_abandon`` hears
   of it (lesson 09 tells the peer), and a late answer is dropped quietly. A request being
   answered (:meth:`Connection.answering`) whose task is cancelled sends no answer at all.

The connection moves *messages* through a :class:`Transport` and never looks at how they travel:
the cable encodes and decodes them at its own edge (the course's one idea: the messages stay, only
the cable changes). Each message sent names the incoming request it belongs to, if any
(``related_request_id``), which lesson 08's Streamable HTTP needs to pick its stream.
``python -m minimcp demo connection`` shows two connections talking over an in-memory cable.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from minimcp.rpc.aio import TaskKeeper
from minimcp.rpc.answering import (
    NotificationHandler,
    RequestHandler,
    answer_of,
    ignore,
    internal_error,
    no_such_method,
)
from minimcp.rpc.jsonrpc import (
    ErrorResponse,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
    RpcError,
    describe,
    id_reused,
)
from minimcp.rpc.limits import DEFAULT_MAX_IN_FLIGHT, Admission, at_most
from minimcp.rpc.transport import ConnectionClosed, Transport, log_send_failure

log = logging.getLogger("minimcp.connection")


# --8<-- [start:connection]
#: Told when we stop waiting for one of our requests, and why ("timed out after 5 s").
AbandonHandler = Callable[[Request, str], Coroutine[Any, Any, None]]
#: How many abandoned request ids a connection remembers, to drop their late answers quietly.
ABANDONED_MEMORY = 1024


class Connection:
    """One end of a JSON-RPC conversation. Call :meth:`run` (or :meth:`start`) to begin reading."""

    def __init__(
        self,
        transport: Transport,
        on_request: RequestHandler = no_such_method,
        on_notification: NotificationHandler = ignore,
    ) -> None:
        self.transport = transport
        self.on_request = on_request
        self.on_notification = on_notification
        self._ids = itertools.count(1)  # 1, 2, 3…: readable in traces, unique for this connection
        self._pending: dict[RequestId, asyncio.Future[Any]] = {}  # our requests awaiting answers
        self._handling: dict[RequestId, asyncio.Task[None]] = {}  # their requests we are answering
        self._reader: asyncio.Task[None] | None = None
        self._tasks = TaskKeeper()  # a reference, so no running task is garbage-collected
        self._transport_closed = False
        #: how long requests already received may still run once the other side stops sending
        self.grace_period = 1.0
        #: the flood limit (:mod:`minimcp.rpc.limits`): which of the peer's requests are refused
        self.admission: Admission = at_most(DEFAULT_MAX_IN_FLIGHT)
        #: called (in a task of its own) when a request of ours is given up; None: nobody is told
        self.on_abandon: AbandonHandler | None = None
        self._abandoned: dict[RequestId, None] = {}  # ids we stopped waiting for, oldest first
        self.closed = asyncio.Event()

    # -- sending ---------------------------------------------------------------------------------
    async def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        timeout: float | None = None,
        related_request_id: RequestId | None = None,
    ) -> Any:
        """Send a request and return its ``result``; raise :class:`RpcError` if it failed."""
        if self.closed.is_set():
            raise ConnectionClosed("the connection is closed")
        request = Request(next(self._ids), method, params)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request.id] = future
        try:
            await self.send(request, related_request_id)
            async with asyncio.timeout(timeout):  # None: wait as long as it takes
                return await future
        except TimeoutError:
            self._abandon(request)
            # The peer hears before our caller
            if self.on_abandon is not None and not self.closed.is_set():
                await self.on_abandon(request, f"no answer within {timeout:g} s")
            raise
        except asyncio.CancelledError:
            self._abandon(request)
            # In a task of its own: we are being cancelled
            if self.on_abandon is not None and not self.closed.is_set():
                self._spawn(self.on_abandon(request, "the caller stopped waiting"))
            raise
        finally:
            self._pending.pop(request.id, None)

    def _abandon(self, request: Request) -> None:
        """We stop waiting for ``request``: remember its id, so that its answer, if it still comes,
        is dropped quietly, and tell ``on_abandon`` why (MCP's session tells the peer, lesson 09).
        """
        self._abandoned[request.id] = None
        if len(self._abandoned) > ABANDONED_MEMORY:
            del self._abandoned[next(iter(self._abandoned))]

    def answering(self, request_id: RequestId) -> asyncio.Task[None] | None:
        """The task answering the peer's request ``request_id``, if any (lesson 09 cancels it)."""
        return self._handling.get(request_id)

    async def notify(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        related_request_id: RequestId | None = None,
    ) -> None:
        """Send a notification: fire and forget."""
        await self.send(Notification(method, params), related_request_id)

    async def send(self, message: Message, related_request_id: RequestId | None = None) -> None:
        await self.transport.send(message, related_request_id)  # the cable encodes it

    # --8<-- [end:connection]

    # -- receiving -------------------------------------------------------------------------------
    # --8<-- [start:run]
    async def run(self) -> None:
        """Read messages until the transport ends, then fail whatever is still waiting."""
        hands_in = self.transport.abilities.hands_in
        if hands_in is not None:  # a cable others bring messages to (lesson 08): take them directly
            hands_in.hand_to(self.take)
        try:
            while True:
                try:
                    message = await self.transport.receive()  # parsed once, at the cable's edge
                except RpcError as err:  # a bad frame or bad JSON: answer it and read on
                    await self._reject(err)
                    continue
                if message is None:  # end of stream: the other side has stopped sending
                    await self._finish_answers()
                    break
                await self.take(message)
        finally:
            self._shut_down()

    async def take(self, message: Message) -> None:
        """One message from the other side: a request answered in a task of its own, an answer
        handed to whoever waits for it, a notification delivered now."""
        if self.closed.is_set():  # nothing is taken in once the connection is over
            return
        if not isinstance(message, Notification):
            self._dispatch(message)
            return
        # Delivered here, not in a task, so notifications keep their order (progress 1, 2, 3 must
        # not arrive as 1, 3, 2). A handler must be quick, and never wait for an answer on this
        # same connection: it starts a task for that.
        try:
            await self.on_notification(message)
        except Exception:
            log.exception("notification handler for %s failed", message.method)

    def _dispatch(self, message: Request | Response | ErrorResponse) -> None:
        if isinstance(message, Request):
            refused = self.admission(message, len(self._handling))  # a flood: refuse, not grow
            if refused is not None:
                self._spawn(self._reject(refused, message.id))  # HTTP: on that request's POST
                return
            if message.id in self._handling:  # ids must be unique among requests in flight
                self._spawn(self._reject(id_reused(message.id)))
                return
            request_id = message.id
            task = self._handling[request_id] = self._spawn(self._answer(message))
            # Answered or cancelled: its id may be used again
            task.add_done_callback(lambda _task: self._handling.pop(request_id, None))
        else:  # Response or ErrorResponse: wake up whoever sent the request
            future = self._pending.get(message.id) if message.id is not None else None
            if future is None and message.id in self._abandoned:  # we gave up on it: a late answer
                log.debug(
                    "dropping a late answer to a request we stopped waiting for: %s",
                    describe(message),
                )
            elif future is None or future.done():
                log.warning("dropping an answer nobody is waiting for: %s", describe(message))
            elif isinstance(message, Response):
                future.set_result(message.result)
            else:
                future.set_exception(
                    RpcError(message.code, message.message, message.data, id=message.id)
                )

    # --8<-- [end:run]

    # --8<-- [start:answer]
    async def _answer(self, request: Request) -> None:
        """Run the handler for one request and send back exactly one answer."""
        try:
            answer = await answer_of(request, self.on_request)
        except asyncio.CancelledError:
            return  # cancelled by the peer, or on shutdown: no answer
        current = asyncio.current_task()
        if current is not None and current.cancelling():  # cancelled, yet the handler returned:
            return  # still no answer
        try:
            await self.send(answer, related_request_id=request.id)
        except (TypeError, ValueError):  # not JSON: the cable could not encode the result
            log.exception("the result of %s is not JSON", request.method)
            failed = internal_error(request)
            await self._reject(RpcError(failed.code, failed.message, id=request.id), request.id)
        except Exception as error:  # the other side may be gone already; nothing more to do
            log_send_failure(f"the answer to #{request.id}", error)

    # --8<-- [end:answer]

    def _spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        return self._tasks.spawn(work)

    async def _reject(self, err: RpcError, related_request_id: RequestId | None = None) -> None:
        if not err.answerable:
            log.warning("dropping a broken message that expects no answer: %s", err.message)
            return
        try:
            await self.send(err.to_response(), related_request_id)
        except Exception as error:
            log_send_failure("an error response", error)

    # -- lifetime --------------------------------------------------------------------------------
    def start(self) -> asyncio.Task[None]:
        """Run the reading loop in the background (a client does; a server usually awaits run)."""
        if self._reader is None:
            self._reader = asyncio.create_task(self.run())
        return self._reader

    async def close(self) -> None:
        """Close the transport and stop reading. Pending requests fail with ConnectionClosed."""
        if self._transport_closed:
            return
        self._transport_closed = True
        try:
            await self.transport.close()
        finally:
            if self._reader is not None and not self._reader.done():
                self._reader.cancel()
                await asyncio.gather(self._reader, return_exceptions=True)
            self._shut_down()

    # --8<-- [start:shutdown]
    async def _finish_answers(self) -> None:
        """At end of stream, let the requests already received finish: for a moment, or, where the
        other side still reads (a pipe: ``printf ... | python -m minimcp serve``), all of them.
        Our own requests can never be answered now: fail them first."""
        self._fail_pending()
        if self._handling:
            grace = None if self.transport.abilities.reads_after_end else self.grace_period
            await asyncio.wait(set(self._handling.values()), timeout=grace)

    def _fail_pending(self) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_exception(
                    ConnectionClosed("the connection closed before the answer came")
                )

    def _shut_down(self) -> None:
        """The other side is gone: fail every pending request, stop every handler."""
        if self.closed.is_set():
            return
        self.closed.set()
        self._fail_pending()
        for task in self._handling.values():
            task.cancel()

    # --8<-- [end:shutdown]
