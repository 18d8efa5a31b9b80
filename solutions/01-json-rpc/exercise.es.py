"""Ejercicio de la lección 01: JSON-RPC 2.0 a mano.

Tres piezas, cada una una variación de algo que ya hace ``minimcp``:

1. :func:`validate_message` -- un validador *estricto* que enumera **todos** los problemas de un
   mensaje. ``minimcp.rpc.jsonrpc.parse`` se detiene en el primero, porque solo necesita un código
   de error con el que responder; un validador pensado para personas (un linter, una prueba, un
   proxy para depurar) debe decir de una vez todo lo que está mal.
2. :class:`PendingRequests` -- la tabla que guarda cada extremo de sus propias peticiones que aún
   esperan respuesta: reparte ids, empareja cada respuesta con su id (pueden llegar en cualquier
   orden), rechaza las respuestas que nadie espera y hace fallar todo cuando se cierra la conexión.
   Es el corazón de ``minimcp.rpc.connection.Connection.request``, sacado aparte.
3. :func:`answer_batch` -- los *lotes* (batches) de JSON-RPC 2.0, respondidos como se hacía en
   JSON-RPC a secas (y en la revisión 2025-03-26 de MCP). MCP quitó los lotes en la revisión
   2025-06-18, y ``minimcp`` los rechaza: constrúyelos una vez, para ver qué se quitó.

Comprueba tu trabajo con ``python tools/check.py 01 --lang es``.
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
# 1. Un validador estricto
# ----------------------------------------------------------------------------------------------


def validate_message(obj: Any) -> list[str]:
    """Todos los problemas que impiden que ``obj`` (ya decodificado de JSON) sea un mensaje MCP
    válido.

    Devuelve una lista vacía cuando ``obj`` es una petición, una notificación, un resultado o una
    respuesta de error válidos. Si no, devuelve una cadena por problema, escrita exactamente como
    abajo y en los docstrings de las dos funciones auxiliares (el texto tras ``->``), cada una como
    mucho una vez, en cualquier orden (las pruebas las ordenan). Las cadenas están en inglés: son
    las que comprueban las pruebas.

    **El conjunto.** Si se da uno de estos casos, devuélvelo solo:

    * una lista -> ``batch: MCP sends one message at a time``
    * cualquier otra cosa que no sea un dict -> ``not an object``

    **La versión**, para cualquier tipo de mensaje:

    * no hay miembro ``jsonrpc`` -> ``missing "jsonrpc"``
    * ``jsonrpc`` no es exactamente la cadena ``"2.0"`` -> ``"jsonrpc" must be "2.0"``

    **El tipo** lo deciden los miembros presentes, y cada tipo tiene su función auxiliar:

    * un ``method`` lo convierte en una petición (con ``id``) o en una notificación (sin él):
      añade los problemas que encuentre :func:`request_problems`;
    * si no, un ``result`` o un ``error`` lo convierten en una respuesta: añade los problemas que
      encuentre :func:`response_problems`;
    * si no -> ``no "method", "result" or "error"``.
    """
    # BEGIN SOLUTION: primero la forma; luego "jsonrpc"; luego el tipo, con lo que halle su función
    if isinstance(obj, list):
        return ["batch: MCP sends one message at a time"]
    if not isinstance(obj, dict):
        return ["not an object"]

    problems: list[str] = []
    if "jsonrpc" not in obj:
        problems.append('missing "jsonrpc"')
    elif obj["jsonrpc"] != "2.0":
        problems.append('"jsonrpc" must be "2.0"')

    # "method" decide primero: una petición que además lleva un "result" se juzga igualmente como
    # petición, y request_problems le dice que ese "result" es un miembro de más.
    if "method" in obj:
        problems += request_problems(obj)
    elif "result" in obj or "error" in obj:
        problems += response_problems(obj)
    else:
        problems.append('no "method", "result" or "error"')
    return problems
    # END SOLUTION


def request_problems(message: dict[str, Any]) -> list[str]:
    """Los problemas de una petición o de una notificación: un ``message`` (un dict) que tiene
    ``method``.

    :func:`validate_message` ya ha comprobado la forma y ``jsonrpc``; mira solo los miembros de
    abajo. Devuelve una cadena por problema, escrita exactamente como tras ``->``:

    * ``method`` no es una cadena -> ``"method" must be a string``
    * ``method`` empieza por ``rpc.`` (JSON-RPC se reserva esos nombres)
      -> ``"method" names starting with "rpc." are reserved``
    * tiene un ``id`` que no es una cadena ni un entero (``null``, ``true``, ``1.5``, una lista...)
      -> ``"id" must be a string or an integer``
    * tiene ``params`` que no es un objeto (un array, ``null``, una cadena...)
      -> ``"params" must be an object``
    * ``params`` es un objeto cuyo miembro ``_meta`` no es un objeto
      -> ``"params._meta" must be an object``
    * tiene además ``result`` o ``error``
      -> ``a request or notification has no "result" or "error"``

    Cuidado: en Python ``True`` es un ``int``, pero el ``true`` de JSON no es un entero; y el
    ``1.0`` de JSON se decodifica como float, que tampoco es un entero (:func:`_is_id`, abajo,
    tiene en cuenta las dos cosas).
    """
    # BEGIN SOLUTION: un `if` por regla, que añade a una lista
    problems: list[str] = []
    method = message["method"]
    if not isinstance(method, str):
        problems.append('"method" must be a string')
    elif method.startswith("rpc."):
        problems.append('"method" names starting with "rpc." are reserved')
    if "id" in message and not _is_id(message["id"]):  # sin "id" alguno: una notificación
        problems.append('"id" must be a string or an integer')
    if "params" in message:
        params = message["params"]
        if not isinstance(params, dict):
            problems.append('"params" must be an object')
        elif "_meta" in params and not isinstance(params["_meta"], dict):
            problems.append('"params._meta" must be an object')
    if "result" in message or "error" in message:
        problems.append('a request or notification has no "result" or "error"')
    return problems
    # END SOLUTION


def response_problems(message: dict[str, Any]) -> list[str]:
    """Los problemas de una respuesta: un ``message`` (un dict) sin ``method`` y con un ``result``
    o un ``error`` (o los dos, por error).

    :func:`validate_message` ya ha comprobado la forma y ``jsonrpc``; mira solo los miembros de
    abajo. Devuelve una cadena por problema, escrita exactamente como tras ``->``:

    * tiene ``result`` y ``error`` a la vez -> ``a response has "result" or "error", not both``
    * tiene ``result`` y no tiene ``id`` -> ``missing "id"``
    * su ``id`` no es una cadena ni un entero -> ``"id" must be a string or an integer``;
      salvo que una respuesta con ``error`` y sin ``result`` puede tener ``"id": null`` o no
      tener ``id``: así responde un extremo a un mensaje cuyo id no pudo leer
    * ``result`` no es un objeto (los resultados de MCP son objetos)
      -> ``"result" must be an object``
    * ``error`` no es un objeto -> ``"error" must be an object``
    * ``error`` es un objeto cuyo ``code`` falta o no es un entero
      -> ``"error.code" must be an integer``
    * ``error`` es un objeto cuyo ``message`` falta o no es una cadena
      -> ``"error.message" must be a string``

    Cuidado: en Python ``True`` es un ``int``, pero el ``true`` de JSON no es un entero; y el
    ``1.0`` de JSON se decodifica como float, que tampoco es un entero (:func:`_is_id` y
    :func:`_is_int`, abajo, tienen en cuenta las dos cosas).
    """
    # BEGIN SOLUTION: antes "result" e "id" (un error puede no llevar id); luego "error"
    problems: list[str] = []
    if "result" in message and "error" in message:
        problems.append('a response has "result" or "error", not both')
    if "result" in message:
        if "id" not in message:
            problems.append('missing "id"')
        elif not _is_id(message["id"]):
            problems.append('"id" must be a string or an integer')
        if not isinstance(message["result"], dict):
            problems.append('"result" must be an object')
    elif message.get("id") is not None and not _is_id(message["id"]):
        problems.append('"id" must be a string or an integer')
    if "error" in message:
        error = message["error"]
        if not isinstance(error, dict):
            problems.append('"error" must be an object')
        else:
            if not _is_int(error.get("code")):
                problems.append('"error.code" must be an integer')
            if not isinstance(error.get("message"), str):
                problems.append('"error.message" must be a string')
    return problems
    # END SOLUTION


def _is_int(value: Any) -> bool:
    """Un entero de JSON: un ``int`` que no es un ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool)


def _is_id(value: Any) -> TypeGuard[RequestId]:
    """Un id de petición de MCP: una cadena o un entero, nunca null. (``TypeGuard``: donde devuelve
    True, un comprobador de tipos sabe que ``value`` es un :data:`~minimcp.rpc.RequestId`.)"""
    return isinstance(value, str) or _is_int(value)


# ----------------------------------------------------------------------------------------------
# 2. La tabla de peticiones pendientes
# ----------------------------------------------------------------------------------------------


class UnknownAnswer(Exception):
    """Una respuesta cuyo id no corresponde a ninguna petición en curso: nunca se envió, ya se
    respondió o se dio por perdida."""


class PendingRequests:
    """Las peticiones que un extremo ha enviado y cuya respuesta aún espera, por id.

    Se usa así, como lo hace ``Connection.request``::

        request_id, future = pending.open()          # un id nuevo y un future que esperar
        await send(Request(request_id, "read_events", {"date": "2025-03-21"}))
        result = await future                        # se resuelve cuando llega la respuesta

    y, en el bucle de lectura, para cada ``Response`` o ``ErrorResponse`` que llega::

        pending.resolve(answer)

    Reglas:

    * los ids son los enteros 1, 2, 3... en el orden de :meth:`open`, y **nunca se reutilizan**,
      ni siquiera después de responderse su petición (la especificación: un id "MUST NOT have
      been previously used by the requestor within the same session");
    * las respuestas pueden llegar en cualquier orden: cada una despierta exactamente el future de
      su propio id;
    * un ``id`` coincide por valor **y** por tipo: la respuesta ``"1"`` (una cadena) no es la
      respuesta a la petición ``1`` (un entero), y ``True`` tampoco (en Python ``True == 1``,
      pero el ``true`` de JSON no es un id);
    * la tabla guarda solo las peticiones que aún esperan: ``len(pending)`` dice cuántas.
    """

    def __init__(self) -> None:
        # BEGIN SOLUTION: un contador de ids, un dict id -> future y un indicador de "cerrada"
        self._ids = itertools.count(1)
        self._waiting: dict[RequestId, asyncio.Future[Any]] = {}
        self._closed = False
        # END SOLUTION

    def __len__(self) -> int:
        """Cuántas peticiones esperan aún su respuesta."""
        # BEGIN SOLUTION
        return len(self._waiting)
        # END SOLUTION

    def open(self) -> tuple[int, asyncio.Future[Any]]:
        """Reparte el siguiente id y un future nuevo para su respuesta (llámalo dentro de un bucle
        de eventos en marcha).

        Lanza :class:`~minimcp.rpc.connection.ConnectionClosed` una vez llamado :meth:`close`.
        """
        # BEGIN SOLUTION: asyncio.get_running_loop().create_future()
        if self._closed:
            raise ConnectionClosed("the connection is closed")
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = future
        return request_id, future
        # END SOLUTION

    def resolve(self, answer: Response | ErrorResponse) -> None:
        """Despierta la petición a la que responde ``answer``, y deja de seguirla.

        * una :class:`~minimcp.rpc.jsonrpc.Response`: el resultado de su future es
          ``answer.result``;
        * una :class:`~minimcp.rpc.jsonrpc.ErrorResponse`: su future lanza
          ``RpcError(answer.code, answer.message, answer.data, id=answer.id)``;
        * una respuesta cuyo id no está esperando (desconocido, ya respondido, abandonado con
          :meth:`forget`, o ``None``) lanza :class:`UnknownAnswer` y no cambia nada.
        """
        # BEGIN SOLUTION: saca el future por id (ojo: true no es 1); fija su resultado o excepción
        answer_id = answer.id
        # Solo las cadenas y los enteros son ids. Comprobarlo antes importa: en un dict, True y 1.0
        # encontrarían el future de la petición 1 (son iguales a 1 y tienen su mismo hash).
        future = self._waiting.pop(answer_id, None) if _is_id(answer_id) else None
        if future is None:
            raise UnknownAnswer(f"no request with id {answer_id!r} is waiting for an answer")
        if future.done():  # quien esperaba se rindió (cancelado) antes de que llegara la respuesta
            raise UnknownAnswer(f"nobody waits for the answer to request {answer_id!r} any more")
        if isinstance(answer, Response):
            future.set_result(answer.result)
        else:
            future.set_exception(RpcError(answer.code, answer.message, answer.data, id=answer_id))
        # END SOLUTION

    def forget(self, request_id: RequestId) -> None:
        """Deja de esperar ``request_id`` (un tiempo de espera lo dio por perdido): cancela su
        future y sácalo de la tabla.

        Una respuesta posterior a él es entonces una :class:`UnknownAnswer`. Olvidar un id que no
        está esperando no hace nada.
        """
        # BEGIN SOLUTION
        future = self._waiting.pop(request_id, None)
        if future is not None and not future.done():
            future.cancel()
        # END SOLUTION

    def close(self) -> None:
        """La conexión se ha ido: cada future que espera falla con ``ConnectionClosed``.

        Después la tabla queda vacía, y :meth:`open` lanza ``ConnectionClosed`` desde entonces.
        """
        # BEGIN SOLUTION
        self._closed = True
        waiting, self._waiting = self._waiting, {}
        for future in waiting.values():
            if not future.done():
                future.set_exception(
                    ConnectionClosed("the connection closed before the answer came")
                )
        # END SOLUTION

    async def call(
        self,
        send: Callable[[Request], Awaitable[None]],
        method: str,
        params: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> Any:
        """Envía una petición con ``send`` y devuelve su resultado: ``Connection.request`` en
        pequeño.

        Abre un id, envía ``Request(id, method, params)``, espera la respuesta como mucho
        ``timeout`` segundos (``asyncio.wait_for``; si se agota el tiempo lanza
        ``asyncio.TimeoutError``) y, pase lo que pase -- respuesta, error, tiempo agotado --, deja
        la tabla sin ese id.
        """
        # BEGIN SOLUTION: open, send, wait_for, y forget en un `finally`
        request_id, future = self.open()
        try:
            await send(Request(request_id, method, params))
            return await asyncio.wait_for(future, timeout)
        finally:
            self.forget(request_id)
        # END SOLUTION


# ----------------------------------------------------------------------------------------------
# 3. Lotes, respondidos como los responde JSON-RPC 2.0 a secas
# ----------------------------------------------------------------------------------------------

Handler = Callable[[Request | Notification], Awaitable[Any]]


async def answer_batch(text: str | bytes, handler: Handler) -> str | None:
    """Responde a un texto entrante como lo haría un servidor JSON-RPC 2.0, lotes incluidos.

    La revisión 2025-03-26 de MCP lo exigía ("MUST support receiving JSON-RPC batches"); la
    revisión 2025-06-18 quitó los lotes, y ``minimcp.rpc.jsonrpc.parse`` los rechaza. Aquí los
    construyes tú. Devuelve el texto que se envía de vuelta, o ``None`` cuando no hay que enviar
    nada.

    Esta función decodifica el texto y junta las respuestas; :func:`answer_one` (abajo) responde
    a cada mensaje, llamando a ``handler``. Las reglas
    (https://www.jsonrpc.org/specification#batch):

    * no es JSON en absoluto -> un único objeto de error, ``-32700`` (``PARSE_ERROR``), id
      ``null``;
    * un array vacío ``[]`` -> un único objeto de error (no un array), ``-32600``
      (``INVALID_REQUEST``), id ``null``;
    * un objeto (no un array) -> se trata por sí solo: su respuesta como un único objeto, o
      ``None``;
    * un array no vacío -> cada elemento se trata como si hubiera llegado solo, y sus respuestas
      vuelven juntas en **un único array JSON**, en el orden de los elementos. Un elemento sin
      respuesta (una notificación, por ejemplo) no tiene entrada en el array, y si ningún elemento
      tiene respuesta, devuelve ``None``: nunca un array vacío.

    Ejecuta los elementos de un lote **de forma concurrente** (``asyncio.gather``), como permite
    JSON-RPC: una petición lenta no debe retrasar a las demás. Codifica cada respuesta con
    ``minimcp.rpc.jsonrpc.to_dict`` y la respuesta entera con ``json.dumps``.
    """

    # BEGIN SOLUTION: json.loads (ojo con ValueError); luego answer_one para el mensaje o cada uno
    def dumps(value: Any) -> str:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)

    try:
        decoded = json.loads(text)
    except (ValueError, RecursionError) as exc:  # un anidamiento muy profundo lanza RecursionError
        return dumps(to_dict(ErrorResponse(None, PARSE_ERROR, f"Parse error: {exc}")))
    if not isinstance(decoded, list):
        answer = await answer_one(decoded, handler)
        return None if answer is None else dumps(to_dict(answer))
    if not decoded:
        return dumps(
            to_dict(ErrorResponse(None, INVALID_REQUEST, "An empty batch is an invalid request"))
        )

    # gather ejecuta los elementos a la vez y aun así devuelve sus respuestas en el orden del lote.
    answers = await asyncio.gather(*(answer_one(element, handler) for element in decoded))
    replies = [to_dict(answer) for answer in answers if answer is not None]
    return dumps(replies) if replies else None
    # END SOLUTION


async def answer_one(element: Any, handler: Handler) -> Message | None:
    """La respuesta a un mensaje (uno suelto, o un elemento de un lote), o ``None`` si no lleva
    respuesta.

    ``element`` ya está decodificado de JSON. Lo que recibe:

    * una petición válida -> se espera a ``handler`` con ella. Lo que devuelva es el ``result``
      de una ``Response`` (``None`` se convierte en ``{}``); si lanza ``RpcError``, la respuesta
      es una ``ErrorResponse`` con ese código, ese mensaje y esos datos; cualquier otra excepción
      se convierte en ``-32603`` (``INTERNAL_ERROR``) con el mensaje
      ``"Internal error: <la excepción>"``;
    * una notificación -> también se espera a ``handler`` con ella, pero se ignoran lo que
      devuelva y cualquier excepción: una notificación nunca se responde (``None``);
    * algo que no es un objeto -> un error ``-32600`` (``INVALID_REQUEST``) con id ``None``;
    * un objeto que no es un mensaje válido -> el error que lanza
      ``minimcp.rpc.jsonrpc.from_dict``, con su código y su id (``RpcError.id``, ``None`` si no
      se pudo leer) -- salvo que el ``RpcError`` diga que no es ``answerable`` (una notificación
      rota): entonces ``None``;
    * una respuesta (``Response``/``ErrorResponse``): este ejercicio hace el papel del servidor,
      así que se ignora (``None``).
    """
    # BEGIN SOLUTION: si no es un dict; luego from_dict (ojo con RpcError); luego una rama por tipo
    if not isinstance(element, dict):
        return ErrorResponse(None, INVALID_REQUEST, "A JSON-RPC message must be a JSON object")
    try:
        message = from_dict(element)
    except RpcError as err:
        return err.to_response() if err.answerable else None
    if isinstance(message, Notification):
        try:
            await handler(message)
        except Exception:  # nadie espera una respuesta, así que no hay a quién avisar
            pass
        return None
    if not isinstance(message, Request):  # una Response o ErrorResponse: no nos toca responderla
        return None
    try:
        result = await handler(message)
    except RpcError as err:
        return ErrorResponse(message.id, err.code, err.message, err.data)
    except Exception as exc:
        return ErrorResponse(message.id, INTERNAL_ERROR, f"Internal error: {exc}")
    return Response(message.id, {} if result is None else result)
    # END SOLUTION
