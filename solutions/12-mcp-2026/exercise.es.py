"""Ejercicio de la lección 12: tres reglas de MCP 2026-07-28, escritas a mano.

1. **Volver a preguntar hasta que la respuesta esté completa.** Un servidor de 2026-07-28 que
   necesita algo del cliente (el modelo, el usuario, las roots) no envía una petición propia:
   responde ``input_required``, con sus preguntas y un ``requestState``. Escribe el bucle del
   cliente: contesta a las preguntas y vuelve a enviar la petición con las respuestas y el estado
   exactamente como llegó, como una petición nueva en cada ronda, y ríndete tras un número acotado
   de rondas.
2. **Un estado que lleva el cliente y que no puede falsificar.** Sella con HMAC-SHA256 un
   ``requestState`` de una petición de varias idas y vueltas, atado a la petición a la que
   pertenece y a una caducidad, y abre solo lo que tú sellaste.
3. **¿De qué época es este servidor?** La decisión que toma un cliente de dos épocas a partir de la
   respuesta a su sonda ``server/discover``: seguir en la época moderna, probar otra versión, volver
   a ``initialize``, o rendirse.

Comprueba tu trabajo con ``python tools/check.py 12 --lang es``. Solo hace falta la biblioteca
estándar.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

INTERNAL_ERROR = -32603


class ProtocolError(Exception):
    """Un error JSON-RPC: su ``code``, su ``message`` (el texto de la excepción) y su ``data``."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.data = data


# =================================================================================================
# Parte 1 · Volver a preguntar hasta que la respuesta esté completa (basic/patterns/mrtr,
#           "Multi Round-Trip Requests")
# =================================================================================================
#
# Un resultado puede decir {"resultType": "input_required", "inputRequests": {key: {"method": ...,
# "params": {...}}, ...}, "requestState": "<opaque>"}: el servidor necesita antes esas respuestas.
#
# retry_params(params, result, answer) -> los params del siguiente intento:
#   * una copia de `params` (los del primer intento: su sobre "_meta", su nombre y sus argumentos;
#     el dict que se recibe nunca cambia), más
#   * "inputResponses": {key: await answer(question["method"], question.get("params", {}))} para
#     cada clave de los "inputRequests" de este resultado (solo las preguntas de esta ronda: lo que
#     se respondió en rondas anteriores lo guarda el servidor en su estado), más
#   * "requestState": el del resultado, exactamente como llegó (nunca se lee, nunca se cambia); sin
#     ningún "requestState" cuando el resultado no trae ninguno
#
# request(send, method, params, answer, ids, max_rounds=MAX_ROUNDS) -> el resultado completo.
#   Cada ronda envía {"jsonrpc": "2.0", "id": next(ids), "method": method, "params": p} con
#   `await send(message)`, que devuelve la respuesta del servidor (un dict); p es `params` la
#   primera vez, y después retry_params(params, el último resultado, answer). Cada ronda es una
#   petición NUEVA: un id nuevo.
#   * la respuesta tiene un "error" .......... ProtocolError(code, message, data) (data puede
#                                              faltar: None)
#   * su resultado no tiene "resultType", o es "complete" ..... devuelve el resultado
#   * "input_required" ........................................ contesta, y otra ronda
#   * cualquier otro resultType ............................... ProtocolError(INTERNAL_ERROR, ...)
#   * max_rounds peticiones, todas respondidas input_required . ProtocolError(INTERNAL_ERROR, ...):
#     no envíes ninguna más (un servidor que no deja de preguntar no debe retener al cliente para
#     siempre)

MAX_ROUNDS = 10

#: ``answer(method, params)``: la respuesta a una de las preguntas del servidor (los manejadores
#: de la lección 09).
Answer = Callable[[str, dict[str, Any]], Awaitable[Any]]


async def retry_params(
    params: dict[str, Any], result: dict[str, Any], answer: Answer
) -> dict[str, Any]:
    """Los params del siguiente intento: los del primero, las respuestas de esta ronda y el estado
    devuelto tal cual."""
    # BEGIN SOLUTION: un dict nuevo; contesta cada pregunta de esta ronda; copia el estado si lo hay
    answers = {}
    for key, question in (result.get("inputRequests") or {}).items():
        answers[key] = await answer(question["method"], question.get("params", {}))
    retry = {**params, "inputResponses": answers}
    if "requestState" in result:
        retry["requestState"] = result["requestState"]
    return retry
    # END SOLUTION


async def request(
    send: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]],
    method: str,
    params: dict[str, Any],
    answer: Answer,
    ids: Iterator[Any],
    max_rounds: int = MAX_ROUNDS,
) -> dict[str, Any]:
    """Envía ``method`` hasta que su resultado esté completo, contestando a las preguntas del
    servidor."""
    # BEGIN SOLUTION: hasta max_rounds rondas, un id nuevo en cada una; error o tipo raro: lanza
    sent = params
    for _ in range(max_rounds):
        response = await send({"jsonrpc": "2.0", "id": next(ids), "method": method, "params": sent})
        if "error" in response:
            error = response["error"]
            raise ProtocolError(error["code"], error["message"], error.get("data"))
        result: dict[str, Any] = response["result"]
        kind = result.get("resultType", "complete")
        if kind == "complete":
            return result
        if kind != "input_required":
            raise ProtocolError(INTERNAL_ERROR, f"unknown resultType {kind!r}")
        sent = await retry_params(params, result, answer)
    raise ProtocolError(INTERNAL_ERROR, f"{method}: still input_required after {max_rounds} rounds")
    # END SOLUTION


# =================================================================================================
# Parte 2 · Un estado que lleva el cliente y que no puede falsificar (basic/patterns/mrtr,
#           "requestState")
# =================================================================================================
#
# digest(method, params): aquello a lo que se ata un estado. El SHA-256 (en hex) del texto JSON de
#   [method, salient], donde salient son los params sin "_meta", "inputResponses" ni
#   "requestState", escrito con json.dumps(..., sort_keys=True, separators=(",", ":")): la misma
#   petición da siempre el mismo digest.
#
# seal(key, payload, method, params, now, ttl) -> un token "<body>.<tag>":
#   body = el JSON de {"payload": payload, "for": digest(method, params), "exp": now + ttl}
#   (sort_keys, separadores compactos), tag = HMAC-SHA256(key, body); los dos en Base64 urlsafe sin
#   el relleno "=".
#
# open_state(key, token, method, params, now) -> el payload, o StateRefused con el motivo (en
# inglés: son las cadenas que comprueban las pruebas):
#   * no son dos partes Base64 unidas por "." ............ "malformed"
#   * el tag no es HMAC-SHA256(key, body) ................ "tampered"
#                                                          (compáralo con hmac.compare_digest)
#   * "exp" es anterior a now ............................ "expired"
#   * "for" no es digest(method, params) ................. "another request"


class StateRefused(ValueError):
    """Un estado de petición que no se debe usar; el mensaje dice por qué."""


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64(text: str) -> bytes:
    """Estricta: un carácter fuera del alfabeto urlsafe es un error (binascii.Error), no se
    salta."""
    return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)


def digest(method: str, params: dict[str, Any]) -> str:
    """Aquello a lo que se ata un estado de petición: la petición, sin lo que cambia entre sus
    intentos."""
    # BEGIN SOLUTION: quita las tres claves, vuelca [method, salient] en forma canónica, hash
    salient = {
        key: value
        for key, value in params.items()
        if key not in ("_meta", "inputResponses", "requestState")
    }
    return hashlib.sha256(
        json.dumps([method, salient], sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()
    # END SOLUTION


def seal(
    key: bytes, payload: Any, method: str, params: dict[str, Any], now: float, ttl: float
) -> str:
    """Un estado que solo ``key`` puede haber hecho, para esta petición, válido hasta
    ``now + ttl``."""
    # BEGIN SOLUTION: el body como JSON canónico, su HMAC, los dos en Base64
    body = json.dumps(
        {"payload": payload, "for": digest(method, params), "exp": now + ttl},
        sort_keys=True,
        separators=(",", ":"),
    ).encode()
    return f"{b64(body)}.{b64(hmac.new(key, body, hashlib.sha256).digest())}"
    # END SOLUTION


def open_state(key: bytes, token: str, method: str, params: dict[str, Any], now: float) -> Any:
    """El payload de un estado que ``key`` selló para esta misma petición, aún a tiempo."""
    # BEGIN SOLUTION: divide y decodifica, comprueba el tag, luego el tiempo, luego la petición
    try:
        body_text, tag_text = token.split(".")
        body, tag = unb64(body_text), unb64(tag_text)
    except (ValueError, binascii.Error):
        raise StateRefused("malformed") from None
    if not hmac.compare_digest(tag, hmac.new(key, body, hashlib.sha256).digest()):
        raise StateRefused("tampered")
    state = json.loads(body)
    if state["exp"] < now:
        raise StateRefused("expired")
    if state["for"] != digest(method, params):
        raise StateRefused("another request")
    return state["payload"]
    # END SOLUTION


# =================================================================================================
# Parte 3 · ¿De qué época es este servidor? (basic/versioning, "Backward compatibility")
# =================================================================================================
#
# after_probe(answer, modern, legacy) -> el siguiente paso del cliente, según la respuesta a
#   server/discover: answer es {"result": {...}}, {"error": {"code": ..., "data": ...}}, o None
#   (ninguna respuesta a tiempo); modern y legacy son las versiones que habla este cliente en cada
#   época, de la más nueva a la más antigua.
#   * un resultado ............................................ "modern"
#   * el error -32022 cuyo data.supported nombra una versión moderna que hablamos ....
#                                                               "retry:<la primera de ellas>"
#   * el error -32022 que solo nombra versiones de la época del handshake, y hablamos alguna .
#                                                               "initialize"
#   * el error -32022 que no nombra nada que hablemos ......... lanza NoCommonVersion
#   * cualquier otro error propio de 2026-07-28 (-32020, -32021) ... lanza NoCommonVersion: el
#     servidor es moderno, e initialize no serviría de nada
#   * cualquier otro error (-32601, -32602, -32600...), o ninguna respuesta ....
#                                                               "initialize": un servidor antiguo.
#     Nunca según un código concreto: los servidores antiguos responden de formas distintas a un
#     método desconocido.

MODERN_ERRORS = (-32020, -32021, -32022)


class NoCommonVersion(Exception):
    """El servidor no habla ninguna versión que hable este cliente."""


def after_probe(
    answer: dict[str, Any] | None, modern: tuple[str, ...], legacy: tuple[str, ...]
) -> str:
    """Lo que hace a continuación un cliente de dos épocas."""
    # BEGIN SOLUTION: un resultado; el error de versión no admitida y data.supported; luego el resto
    if answer is not None and "result" in answer:
        return "modern"
    error = (answer or {}).get("error") or {}
    code = error.get("code")
    if code == -32022:
        data = error.get("data")
        supported = data.get("supported", []) if isinstance(data, dict) else []
        common = [version for version in supported if version in modern]
        if common:
            return f"retry:{common[0]}"
        if any(version in legacy for version in supported):
            return "initialize"
        raise NoCommonVersion(f"the server speaks {supported}")
    if code in MODERN_ERRORS:
        raise NoCommonVersion(f"a 2026-era server refused the probe with {code}")
    return "initialize"
    # END SOLUTION
