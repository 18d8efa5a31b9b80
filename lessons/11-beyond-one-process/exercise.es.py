# ----------------------------------------------------------------------------------------
# Lección 11-beyond-one-process: tu ejercicio.
#
# 1. Lee los docstrings de abajo: cada parte te dice exactamente qué construir.
# 2. Sustituye cada `raise NotImplementedError(...)`, bajo su POR HACER, por tu código.
# 3. Comprueba tu trabajo, tantas veces como quieras:  python tools/check.py 11 --lang es
#
# ¿Atascado del todo? Hay una solución resuelta en solutions/11-beyond-one-process/exercise.es.py.
# Este archivo es tuyo: una versión nueva del curso puede reemplazarlo, así que guarda una copia.
# ----------------------------------------------------------------------------------------
"""Ejercicio de la lección 11: dos piezas de un servidor que corre en varios workers, a mano.

1. **Hacerse cargo de la sesión de un worker muerto, y solo una vez.** Un worker (proceso
   trabajador) ha muerto; sus sesiones siguen vivas en Redis, con su estado guardado. La siguiente
   petición de una de ellas puede llegar a cualquier worker, y dos workers pueden ver la muerte en
   el mismo momento: exactamente uno de ellos tiene que ganar la sesión. Escribe la reclamación
   (un único paso atómico en Redis: «si el dueño sigue siendo el worker que vi morir, ahora el
   dueño soy yo») y, alrededor de ella, el relevo. Las pruebas lo ejecutan contra un
   ``redis-server`` de verdad.
2. **Un enrutador de sesiones a workers.** La otra respuesta a «¿qué worker ejecuta esta sesión?»:
   atar cada sesión a un worker aplicando un hash a su ``Mcp-Session-Id``, como hace un balanceador
   de carga con afinidad. Escríbelo con rendezvous hashing, para que un worker que llega o se va
   mueva solo las sesiones que tiene que mover.

Comprueba tu trabajo con ``python tools/check.py 11 --lang es``. La parte 1 necesita
``redis-server`` en tu PATH (sin él, sus pruebas se saltan) y el paquete ``redis`` de
requirements.txt, cuyo cliente te pasan las pruebas; la parte 2 solo necesita la biblioteca
estándar.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

# =================================================================================================
# Parte 1 · Hacerse cargo de la sesión de un worker muerto, y solo una vez
# =================================================================================================
#
# Cada sesión es un hash de Redis bajo "mcp:session:<id de sesión>" (como en el directorio de
# minimcp), con los campos "owner" (el worker que la ejecuta) y "state" (su estado guardado, en
# JSON). `redis` es un cliente redis.asyncio que decodifica las respuestas a str:
# `await redis.hgetall(key)`, `await redis.eval(script, number_of_keys, *keys_then_args)`,
# `await redis.expire(key, seconds)`.
#
#   * claim(redis, session_id, dead, worker) -> bool
#       En UN paso atómico: si el dueño de la sesión es `dead`, pasa a ser `worker` (True); si no,
#       no cambia nada (False): otro worker fue más rápido, o la sesión no existe. Una lectura
#       seguida de una escritura son dos pasos, y entre ellos dos workers pueden leer `dead`: usa
#       un script Lua (EVAL lo ejecuta sin nada en medio), o WATCH/MULTI/EXEC.
#       Una sesión desconocida sigue siéndolo: la reclamación no debe crear su clave.
#
#   * take_over(redis, session_id, worker, alive, ttl=600) -> el estado de la sesión, o None
#       - la sesión es desconocida (no hay "owner") ................. None
#       - `worker` ya es su dueño ................................... su estado
#       - `await alive(owner)` dice que su dueño sigue vivo ......... None (se le reenvía)
#       - el dueño ha muerto: reclámala; perdida .................... None
#                                        ganada ..................... su estado, tras renovar
#                                          la caducidad de la clave a `ttl` segundos (EXPIRE)


async def claim(redis: Any, session_id: str, dead: str, worker: str) -> bool:
    """Hace a ``worker`` dueño de ``session_id`` si, y solo si, su dueño sigue siendo ``dead``."""
    # POR HACER: un script Lua: compara el dueño y cámbialo, sin nada en medio
    raise NotImplementedError("claim")


async def take_over(
    redis: Any,
    session_id: str,
    worker: str,
    alive: Callable[[str], Awaitable[bool]],
    ttl: int = 600,
) -> dict[str, Any] | None:
    """El estado guardado de ``session_id`` si a partir de ahora la ejecuta ``worker``; None si la
    ejecuta otro."""
    # POR HACER: lee el registro; nuestra, viva o reclamada; la ganadora renueva la caducidad
    raise NotImplementedError("take_over")


# =================================================================================================
# Parte 2 · Un enrutador de sesiones a workers (rendezvous hashing)
# =================================================================================================
#
# Un balanceador de carga con afinidad manda todas las peticiones de una sesión al mismo worker,
# solo a partir del Mcp-Session-Id. "hash(session) % number of workers" lo consigue, pero cuando
# se añade o se quita un worker casi todas las sesiones se mueven (y pierden su estado). El
# rendezvous hashing mueve solo lo que tiene que mover:
#
#   * score(worker, session_id): los primeros 8 bytes del SHA-256 de "<worker>/<id de sesión>"
#     (UTF-8), como entero sin signo big-endian
#   * route(session_id, workers): el worker con la puntuación más alta; en caso de empate, el de
#     nombre mayor. Sin ningún worker: ValueError("no workers")
#   * moves(session_ids, before, after): {id de sesión: (worker antiguo, worker nuevo)} para cada
#     sesión que route() manda a otro worker cuando los workers pasan de `before` a `after`
#
# Así, un worker nuevo se queda solo con las sesiones que ahora gana (alrededor de 1/N de ellas);
# las sesiones de un worker que se quita se reparten entre los demás, y ninguna otra se mueve.


def score(worker: str, session_id: str) -> int:
    """Cuánto quiere ``worker`` a ``session_id``: un número que parece aleatorio pero nunca
    cambia."""
    # POR HACER: sha256 de "worker/session", sus 8 primeros bytes, big-endian
    raise NotImplementedError("score")


def route(session_id: str, workers: list[str]) -> str:
    """El worker que ejecuta ``session_id``: el de la puntuación más alta."""
    # POR HACER: rechaza una lista vacía; el máximo por (puntuación, nombre)
    raise NotImplementedError("route")


def moves(
    session_ids: list[str], before: list[str], after: list[str]
) -> dict[str, tuple[str, str]]:
    """Las sesiones que cambian de worker cuando cambian los workers, con su worker antiguo y el
    nuevo."""
    # POR HACER: enruta cada sesión de las dos maneras; quédate con las que difieren
    raise NotImplementedError("moves")
