# ----------------------------------------------------------------------------------------
# Lesson 01-json-rpc: your exercise.
#
# 1. Read the docstrings below: each part says exactly what to build.
# 2. Replace each `raise NotImplementedError(...)`, under its TODO, with your code.
# 3. Check your work, as often as you like:  python tools/check.py 01
#
# Stuck for good? A worked answer is in solutions/01-json-rpc/exercise.py.
# This file is yours: a new version of the course may replace it, so keep a copy of your work.
# ----------------------------------------------------------------------------------------
"""Lesson 01 exercise: JSON-RPC 2.0 by hand.

Three pieces, each a variation on something ``minimcp`` does:

1. :func:`validate_message` -- a *strict* checker that lists **every** problem of a message.
   ``minimcp.rpc.jsonrpc.parse`` stops at the first problem, because it only needs one error code to
   answer with; a validator for humans (a linter, a test, a debugging proxy) should say everything
   that is wrong at once.
2. :class:`PendingRequests` -- the table a peer keeps of its own requests still waiting for an
   answer: it issues ids, matches answers by id (they may arrive in any order), rejects answers
   nobody is waiting for, and fails everything when the connection closes. It is the heart of
   ``minimcp.rpc.connection.Connection.request``, taken out on its own.
3. :func:`answer_batch` -- JSON-RPC 2.0 *batches*, answered the way plain JSON-RPC (and MCP revision
   2025-03-26) did. MCP removed batches in revision 2025-06-18, and ``minimcp`` refuses them: build
   them once, to see what was removed.

Check your work with ``python tools/check.py 01``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeGuard

from minimcp.rpc import (
    ConnectionClosed,
    ErrorResponse,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
    RpcError,
)
from minimcp.rpc.jsonrpc import INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR, from_dict, to_dict

# ----------------------------------------------------------------------------------------------
# 1. A strict validator
# ----------------------------------------------------------------------------------------------


def validate_message(obj: Any) -> list[str]:
    """Every problem that keeps ``obj`` (already decoded from JSON) from being a valid MCP message.

    Return an empty list when ``obj`` is a valid request, notification, result or error response.
    Otherwise return one string per problem, written exactly as below and in the two helpers'
    docstrings (the text after ``->``), each at most once, in any order (the tests sort them).

    **The whole thing.** If one of these applies, return it alone:

    * a list -> ``batch: MCP sends one message at a time``
    * anything else that is not a dict -> ``not an object``

    **The version**, for every kind of message:

    * no ``jsonrpc`` member -> ``missing "jsonrpc"``
    * ``jsonrpc`` is not exactly the string ``"2.0"`` -> ``"jsonrpc" must be "2.0"``

    **The kind** is decided by the members present, and each kind has its own helper:

    * a ``method`` makes it a request (with an ``id``) or a notification (without): add the
      problems :func:`request_problems` finds;
    * otherwise a ``result`` or an ``error`` makes it a response: add the problems
      :func:`response_problems` finds;
    * otherwise -> ``no "method", "result" or "error"``.
    """
    # TODO: the shape first; then "jsonrpc"; then the kind, adding what its helper finds
    raise NotImplementedError("validate_message")


def request_problems(message: dict[str, Any]) -> list[str]:
    """The problems of a request or a notification: a ``message`` (a dict) that has a ``method``.

    :func:`validate_message` has checked the shape and ``jsonrpc`` already; look only at the
    members below. Return one string per problem, written exactly as after ``->``:

    * ``method`` is not a string -> ``"method" must be a string``
    * ``method`` starts with ``rpc.`` (JSON-RPC reserves those names for itself)
      -> ``"method" names starting with "rpc." are reserved``
    * it has an ``id`` that is not a string or an integer (``null``, ``true``, ``1.5``, a list...)
      -> ``"id" must be a string or an integer``
    * it has ``params`` that is not an object (an array, ``null``, a string...)
      -> ``"params" must be an object``
    * ``params`` is an object whose ``_meta`` member is not an object
      -> ``"params._meta" must be an object``
    * it also has ``result`` or ``error``
      -> ``a request or notification has no "result" or "error"``

    Careful: in Python ``True`` is an ``int``, but JSON's ``true`` is no integer; and JSON's
    ``1.0`` decodes to a float, which is no integer either (:func:`_is_id`, below, minds both).
    """
    # TODO: one `if` per rule, appending to a list
    raise NotImplementedError("request_problems")


def response_problems(message: dict[str, Any]) -> list[str]:
    """The problems of a response: a ``message`` (a dict) with no ``method`` and a ``result`` or an
    ``error`` (or both, wrongly).

    :func:`validate_message` has checked the shape and ``jsonrpc`` already; look only at the
    members below. Return one string per problem, written exactly as after ``->``:

    * both ``result`` and ``error`` -> ``a response has "result" or "error", not both``
    * it has a ``result`` and no ``id`` -> ``missing "id"``
    * its ``id`` is not a string or an integer -> ``"id" must be a string or an integer``;
      except that a response with an ``error`` and no ``result`` may have ``"id": null`` or no
      ``id`` at all: that is how a peer answers a message whose id it could not read
    * ``result`` is not an object (MCP results are objects) -> ``"result" must be an object``
    * ``error`` is not an object -> ``"error" must be an object``
    * ``error`` is an object whose ``code`` is missing or not an integer
      -> ``"error.code" must be an integer``
    * ``error`` is an object whose ``message`` is missing or not a string
      -> ``"error.message" must be a string``

    Careful: in Python ``True`` is an ``int``, but JSON's ``true`` is no integer; and JSON's
    ``1.0`` decodes to a float, which is no integer either (:func:`_is_id` and :func:`_is_int`,
    below, mind both).
    """
    # TODO: "result" and "id" first (an error-only answer may lack an id), then "error"
    raise NotImplementedError("response_problems")


def _is_int(value: Any) -> bool:
    """A JSON integer: an ``int`` that is not a ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool)


def _is_id(value: Any) -> TypeGuard[RequestId]:
    """An MCP request id: a string or an integer, never null. (``TypeGuard``: where it returns
    True, a type checker knows ``value`` is a :data:`~minimcp.rpc.RequestId`.)"""
    return isinstance(value, str) or _is_int(value)


# ----------------------------------------------------------------------------------------------
# 2. The table of pending requests
# ----------------------------------------------------------------------------------------------


class UnknownAnswer(Exception):
    """An answer whose id matches no request in flight: never sent, already answered, or given
    up."""


class PendingRequests:
    """The requests one peer has sent and is still waiting for, keyed by id.

    Usage, as ``Connection.request`` does it::

        request_id, future = pending.open()          # a fresh id and a future to wait on
        await send(Request(request_id, "read_events", {"date": "2025-03-21"}))
        result = await future                        # resolved when the answer comes in

    and, in the reading loop, for every incoming ``Response`` or ``ErrorResponse``::

        pending.resolve(answer)

    Rules:

    * ids are the integers 1, 2, 3... in the order of :meth:`open`, and are **never reused**, not
      even after their request was answered (the spec: an id "MUST NOT have been previously used by
      the requestor within the same session");
    * answers may come in any order: each one wakes exactly the future of its own id;
    * an ``id`` matches by value **and** type: the answer ``"1"`` (a string) is not the answer to
      request ``1`` (an integer), and neither is ``True`` (Python's ``True == 1``, but JSON's
      ``true`` is no id);
    * the table holds only requests still waiting: ``len(pending)`` is how many.
    """

    def __init__(self) -> None:
        # TODO: an id counter, a dict id -> future, and a "closed" flag
        raise NotImplementedError("__init__")

    def __len__(self) -> int:
        """How many requests are still waiting for their answer."""
        raise NotImplementedError("__len__")

    def open(self) -> tuple[int, asyncio.Future[Any]]:
        """Issue the next id and a fresh future for its answer (call it inside a running event
        loop).

        Raise :class:`~minimcp.rpc.connection.ConnectionClosed` once :meth:`close` has been called.
        """
        # TODO: asyncio.get_running_loop().create_future()
        raise NotImplementedError("open")

    def resolve(self, answer: Response | ErrorResponse) -> None:
        """Wake the request that ``answer`` answers, and stop tracking it.

        * a :class:`~minimcp.rpc.jsonrpc.Response`: its future's result is ``answer.result``;
        * an :class:`~minimcp.rpc.jsonrpc.ErrorResponse`: its future raises
          ``RpcError(answer.code, answer.message, answer.data, id=answer.id)``;
        * an answer whose id is not waiting (unknown, answered already, given up with
          :meth:`forget`, or ``None``) raises :class:`UnknownAnswer` and changes nothing.
        """
        # TODO: pop the future by id (mind true vs 1); set its result or its exception
        raise NotImplementedError("resolve")

    def forget(self, request_id: RequestId) -> None:
        """Stop waiting for ``request_id`` (a timeout gave up on it): cancel its future, drop it.

        A later answer to it is then an :class:`UnknownAnswer`. Forgetting an id that is not
        waiting does nothing.
        """
        raise NotImplementedError("forget")

    def close(self) -> None:
        """The connection is gone: every waiting future fails with ``ConnectionClosed``.

        The table is empty afterwards, and :meth:`open` raises ``ConnectionClosed`` from now on.
        """
        raise NotImplementedError("close")

    async def call(
        self,
        send: Callable[[Request], Awaitable[None]],
        method: str,
        params: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> Any:
        """Send one request with ``send`` and return its result: ``Connection.request`` in small.

        Open an id, send ``Request(id, method, params)``, wait for the answer at most ``timeout``
        seconds (``asyncio.wait_for``; on time-out it raises ``asyncio.TimeoutError``), and in
        every case -- answer, error, time-out -- leave the table without that id.
        """
        # TODO: open, send, wait_for, and forget in a `finally`
        raise NotImplementedError("call")


# ----------------------------------------------------------------------------------------------
# 3. Batches, the way plain JSON-RPC 2.0 answers them
# ----------------------------------------------------------------------------------------------

Handler = Callable[[Request | Notification], Awaitable[Any]]


async def answer_batch(text: str | bytes, handler: Handler) -> str | None:
    """Answer one incoming text as a JSON-RPC 2.0 server would, batches included.

    MCP revision 2025-03-26 required this ("MUST support receiving JSON-RPC batches"); revision
    2025-06-18 removed batches, and ``minimcp.rpc.jsonrpc.parse`` refuses them. Here you build them.
    Return the text to send back, or ``None`` when nothing must be sent.

    This function decodes the text and puts the answers together; :func:`answer_one` (below)
    answers each message, calling ``handler``. The rules
    (https://www.jsonrpc.org/specification#batch):

    * not JSON at all -> a single error object, ``-32700`` (``PARSE_ERROR``), id ``null``;
    * an empty array ``[]`` -> a single error object (not an array), ``-32600``
      (``INVALID_REQUEST``), id ``null``;
    * one object (not an array) -> handled on its own: its answer as a single object, or ``None``;
    * a non-empty array -> every element is handled as if it had arrived on its own, and their
      answers go back together in **one JSON array**, in the order of the elements. An element
      with no answer (a notification, say) has no entry in the array, and if no element has an
      answer at all, return ``None``: never an empty array.

    Run a batch's elements **concurrently** (``asyncio.gather``), as JSON-RPC allows: one slow
    request must not hold up the others. Encode each answer with ``minimcp.rpc.jsonrpc.to_dict`` and
    the whole reply with ``json.dumps``.
    """

    # TODO: json.loads (mind ValueError); then answer_one for the message or each element
    raise NotImplementedError("answer_batch")


async def answer_one(element: Any, handler: Handler) -> Message | None:
    """The answer to one message (a lone one, or one element of a batch), or ``None`` if it gets
    none.

    ``element`` is already decoded from JSON. What it gets:

    * a valid request -> ``handler`` is awaited with it. Its return value is the ``result`` of a
      ``Response`` (``None`` becomes ``{}``); if it raises ``RpcError`` the answer is an
      ``ErrorResponse`` with that code, message and data; any other exception becomes ``-32603``
      (``INTERNAL_ERROR``) with the message ``"Internal error: <the exception>"``;
    * a notification -> ``handler`` is awaited with it too, but its return value and any exception
      are ignored: a notification is never answered (``None``);
    * not an object -> a ``-32600`` (``INVALID_REQUEST``) error with id ``None``;
    * an object that is not a valid message -> the error ``minimcp.rpc.jsonrpc.from_dict`` raises,
      with its code and its id (``RpcError.id``, ``None`` if unreadable) -- unless the
      ``RpcError`` says it is not ``answerable`` (a broken notification): then ``None``;
    * a response (``Response``/``ErrorResponse``): this exercise plays the server's side, so it
      is ignored (``None``).
    """
    # TODO: not a dict; then from_dict (mind RpcError); then a branch per kind of message
    raise NotImplementedError("answer_one")
