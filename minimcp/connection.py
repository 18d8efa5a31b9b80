"""A symmetric JSON-RPC connection over any transport (lesson 01).

In MCP both sides send requests: the client calls ``tools/call``, the server may call ``ping`` or
``sampling/createMessage`` back. So there is no "client connection" and "server connection", only
one :class:`Connection` that does four jobs:

1. **send requests** and wait for their answers: each request gets a fresh id and a future; when a
   response with that id arrives, the future is resolved. Answers may arrive in any order.
2. **answer incoming requests** through a handler; each runs in its own task, so a slow one never
   blocks a quick one, and an exception becomes an error response, never a dead connection.
3. **deliver notifications** to a handler.
4. **fail cleanly**: when the other side goes away, every pending request fails with
   :class:`ConnectionClosed` instead of waiting forever.

The connection moves *text* through a :class:`Transport` and never looks at how the text travels.
That is the course's one idea: the messages stay, only the cable changes.

Run ``python -m minimcp.connection`` to watch two connections talk over an in-memory cable.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
import logging
import sys
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, Protocol

from .jsonrpc import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    ErrorResponse,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
    RpcError,
    describe,
    encode,
    parse,
)

log = logging.getLogger("minimcp.connection")


# --8<-- [start:transport]
class Transport(Protocol):
    """Moves whole messages, as text, between two peers. Knows nothing of JSON-RPC or MCP.

    ``receive`` returns one message's text, or None when the other side has gone for good. It may
    raise :class:`~minimcp.jsonrpc.RpcError` for one bad frame (too large, not UTF-8) and still be
    usable afterwards: the connection answers the error and reads on.
    """

    async def send(self, message: str) -> None: ...

    async def receive(self) -> str | None: ...

    async def close(self) -> None: ...
# --8<-- [end:transport]


# --8<-- [start:defaults]
class ConnectionClosed(Exception):
    """The other side went away (or we closed) before the answer came."""


RequestHandler = Callable[[Request], Awaitable[Any]]
NotificationHandler = Callable[[Notification], Awaitable[None]]

# --8<-- [start:answering]
#: The request the current task is answering, and the transport it arrived on. Only a transport that
#: must route what it sends needs it (lesson 08's Streamable HTTP puts a request's progress on that
#: request's own stream): it asks :func:`request_being_answered`.
_answering: contextvars.ContextVar[tuple[Transport, Request] | None] = contextvars.ContextVar(
    "answering", default=None)


def request_being_answered(transport: Transport) -> Request | None:
    """The request the current task is answering, if it came in over ``transport``; otherwise None.

    A handler of one client may send to *another* client (a broadcast): the transport check keeps
    the other client's transport from taking that message for part of its own request's answer.
    """
    answering = _answering.get()
    if answering is None or answering[0] is not transport:
        return None
    return answering[1]


@contextlib.contextmanager
def unrelated_to_any_request() -> Iterator[None]:
    """Messages sent inside this block answer no request: announcements such as ``list_changed``."""
    token = _answering.set(None)
    try:
        yield
    finally:
        _answering.reset(token)
# --8<-- [end:answering]


async def no_such_method(request: Request) -> Any:
    """The default request handler: nothing is served yet."""
    raise RpcError(METHOD_NOT_FOUND, f"Method not found: {request.method}")


async def ignore(notification: Notification) -> None:
    """The default notification handler: notifications nobody asked for are dropped."""
# --8<-- [end:defaults]


# --8<-- [start:connection]
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
        self._tasks: set[asyncio.Task[None]] = set()  # a reference, so no running task is garbage-collected
        self._transport_closed = False
        #: how long requests already received may still run once the other side stops sending
        self.grace_period = 1.0
        self.closed = asyncio.Event()

    # -- sending ---------------------------------------------------------------------------------
    async def request(self, method: str, params: dict[str, Any] | None = None,
                      timeout: float | None = None) -> Any:
        """Send a request and return its ``result``; raise :class:`RpcError` if it failed."""
        if self.closed.is_set():
            raise ConnectionClosed("the connection is closed")
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            await self.send(Request(request_id, method, params))
            return await asyncio.wait_for(future, timeout)
        finally:
            self._pending.pop(request_id, None)

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send a notification: fire and forget."""
        await self.send(Notification(method, params))

    async def send(self, message: Message) -> None:
        await self.transport.send(encode(message))
    # --8<-- [end:connection]

    # -- receiving -------------------------------------------------------------------------------
    # --8<-- [start:run]
    async def run(self) -> None:
        """Read messages until the transport ends, then fail whatever is still waiting."""
        try:
            while True:
                try:
                    text = await self.transport.receive()
                    if text is None:  # end of stream: the other side has stopped sending
                        await self._finish_answers()
                        break
                    message = parse(text)
                except RpcError as err:  # a bad frame or bad JSON: answer it and read on
                    await self._reject(err)
                    continue
                if isinstance(message, Notification):
                    # Delivered in the reading loop itself, so notifications keep their order (progress
                    # 1, 2, 3 must not arrive as 1, 3, 2). A handler must therefore be quick, and must
                    # never wait for an answer on this same connection: start a task for that.
                    await self._deliver(message)
                else:
                    self._dispatch(message)
        finally:
            self._shut_down()

    def _dispatch(self, message: Request | Response | ErrorResponse) -> None:
        if isinstance(message, Request):
            if message.id in self._handling:  # ids must be unique among requests in flight
                error = RpcError(INVALID_REQUEST, f"Request id {message.id!r} is already in use",
                                 id=message.id)
                self._spawn(self._reject(error))
                return
            task = self._spawn(self._answer(message))
            self._handling[message.id] = task
            task.add_done_callback(lambda _t, i=message.id: self._handling.pop(i, None))
        else:  # Response or ErrorResponse: wake up whoever sent the request
            future = self._pending.get(message.id) if message.id is not None else None
            if future is None or future.done():
                log.warning("dropping an answer nobody is waiting for: %s", describe(message))
            elif isinstance(message, Response):
                future.set_result(message.result)
            else:
                future.set_exception(RpcError(message.code, message.message, message.data, id=message.id))
    # --8<-- [end:run]

    # --8<-- [start:answer]
    async def _answer(self, request: Request) -> None:
        """Run the handler for one request and send back exactly one answer."""
        _answering.set((self.transport, request))  # this task's own copy of the context
        try:
            result = await self.on_request(request)
            answer: Message = Response(request.id, {} if result is None else result)
        except RpcError as err:
            answer = ErrorResponse(request.id, err.code, err.message, err.data)
        except asyncio.CancelledError:
            return  # cancelled on shutdown: nobody is left to answer
        except Exception:  # a bug in a handler must never take the connection down
            # The traceback goes to our log; the peer learns only that we failed, not our internals.
            log.exception("handler for %s failed", request.method)
            answer = ErrorResponse(request.id, INTERNAL_ERROR,
                                   f"Internal error while handling {request.method!r}")
        try:
            await self.send(answer)
        except (TypeError, ValueError):  # the handler returned something that is not JSON
            log.exception("the result of %s is not JSON", request.method)
            await self._reject(RpcError(INTERNAL_ERROR, f"Internal error while handling {request.method!r}",
                                        id=request.id))
        except Exception as exc:  # the other side may be gone already; nothing more to do
            log.debug("could not send the answer to #%s: %s", request.id, exc)
    # --8<-- [end:answer]

    def _spawn(self, work: Awaitable[None]) -> asyncio.Task[None]:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _deliver(self, notification: Notification) -> None:
        try:
            await self.on_notification(notification)
        except Exception:
            log.exception("notification handler for %s failed", notification.method)

    async def _reject(self, err: RpcError) -> None:
        if not err.answerable:
            log.warning("dropping a broken message that expects no answer: %s", err.message)
            return
        try:
            await self.send(err.to_response())
        except Exception as exc:
            log.debug("could not send an error response: %s", exc)

    # -- lifetime --------------------------------------------------------------------------------
    def start(self) -> asyncio.Task[None]:
        """Run the reading loop in the background (a client does this; a server usually awaits run)."""
        if self._reader is None:
            self._reader = asyncio.ensure_future(self.run())
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
        """At end of stream, let the requests already received finish, for a moment.

        A client that pipes a request and closes its end at once (``printf ... | python -m minimcp
        serve``) still gets its answer. Our own requests can never be answered now: fail them first.
        """
        self._fail_pending()
        if self._handling:
            await asyncio.wait(set(self._handling.values()), timeout=self.grace_period)

    def _fail_pending(self) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ConnectionClosed("the connection closed before the answer came"))

    def _shut_down(self) -> None:
        """The other side is gone: fail every pending request, stop every handler."""
        if self.closed.is_set():
            return
        self.closed.set()
        self._fail_pending()
        for task in self._handling.values():
            task.cancel()
    # --8<-- [end:shutdown]


# --8<-- [start:memory]
class MemoryTransport:
    """The simplest cable: two queues in one process. Tests and notebooks use it."""

    def __init__(self, inbox: asyncio.Queue[str | None], outbox: asyncio.Queue[str | None]) -> None:
        self._inbox = inbox
        self._outbox = outbox
        self._closed = False

    async def send(self, message: str) -> None:
        if self._closed:
            raise ConnectionClosed("this end of the cable is closed")
        await self._outbox.put(message)

    async def receive(self) -> str | None:
        if self._closed:
            return None
        return await self._inbox.get()

    async def close(self) -> None:
        if not self._closed:
            self._closed = True
            await self._outbox.put(None)  # the other side reads "end of stream"
            await self._inbox.put(None)  # and so does our own reader


def memory_pair() -> tuple[MemoryTransport, MemoryTransport]:
    """Two connected transports: what one sends, the other receives."""
    a_to_b: asyncio.Queue[str | None] = asyncio.Queue()
    b_to_a: asyncio.Queue[str | None] = asyncio.Queue()
    return MemoryTransport(b_to_a, a_to_b), MemoryTransport(a_to_b, b_to_a)
# --8<-- [end:memory]


# --8<-- [start:tracing]
class TracingTransport:
    """Wraps a transport and records every message that crosses it, as text, in order.

    The notebooks use it to show real traffic: ``trace`` is called with ``("->", text)`` for what
    this side sends and ``("<-", text)`` for what it receives.
    """

    def __init__(self, inner: Transport, trace: Callable[[str, str], None]) -> None:
        self.inner = inner
        self.trace = trace

    async def send(self, message: str) -> None:
        self.trace("->", message)
        await self.inner.send(message)

    async def receive(self) -> str | None:
        message = await self.inner.receive()
        if message is not None:
            self.trace("<-", message)
        return message

    async def close(self) -> None:
        await self.inner.close()
# --8<-- [end:tracing]


async def _demo() -> None:
    """Two peers on one in-memory cable: each can call the other."""
    left_cable, right_cable = memory_pair()

    async def right_answers(request: Request) -> Any:
        if request.method == "add":
            params = request.params or {}
            return {"sum": params.get("a", 0) + params.get("b", 0)}
        raise RpcError(METHOD_NOT_FOUND, f"Method not found: {request.method}")

    left = Connection(TracingTransport(left_cable, lambda d, m: print("left ", d, m)))
    right = Connection(right_cable, on_request=right_answers)
    left.start()
    right.start()
    print("add ->", await left.request("add", {"a": 2, "b": 3}, timeout=5))
    try:
        await left.request("multiply", {"a": 2, "b": 3}, timeout=5)
    except RpcError as err:
        print("multiply ->", err.code, err.message)
    await left.close()
    await right.close()


if __name__ == "__main__":
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    asyncio.run(_demo())
