# ----------------------------------------------------------------------------------------
# Lección 03-handshake: tu ejercicio.
#
# 1. Lee los docstrings de abajo: cada parte te dice exactamente qué construir.
# 2. Sustituye cada `raise NotImplementedError(...)`, bajo su POR HACER, por tu código.
# 3. Comprueba tu trabajo, tantas veces como quieras:  python tools/check.py 03 --lang es
#
# ¿Atascado del todo? Hay una solución resuelta en solutions/03-handshake/exercise.es.py.
# Este archivo es tuyo: una versión nueva del curso puede reemplazarlo, así que guarda una copia.
# ----------------------------------------------------------------------------------------
"""Lección 03 · El handshake: ejercicios.

La sesión de minimcp (``minimcp/session/``) lleva el ciclo de vida de la forma más sencilla que es
correcta. Estos tres ejercicios hacen lo que ella deja fuera, una pieza de la especificación cada
vez (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle):

1. **Negociación de la versión, en los dos lados** -- ``parse_version``, ``latest``,
   ``server_choice`` y ``negotiate``: un cliente que habla varias revisiones elige cuál pedir, un
   servidor elige con cuál responder, y el cliente decide si puede vivir con la respuesta. Las
   versiones son fechas, así que se comparan como fechas, y un texto que no es una fecha nunca es
   una versión.
2. **Una guarda del ciclo de vida** -- ``LifecycleGuard``: la máquina de estados ``new →
   initializing → ready → closed`` que decide, para cada mensaje que un lado envía o recibe, si el
   ciclo de vida lo permite en ese momento, y qué error se gana una petición rechazada. Para el
   papel de servidor y para el de cliente.
3. **Negociación de capacidades** -- ``negotiated`` y ``may_send``: a partir de los dos objetos
   ``capabilities`` del handshake, qué peticiones y notificaciones puede usar cada lado después.

Comprueba tu trabajo con:  python tools/check.py 03 --lang es
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from minimcp.rpc.jsonrpc import INVALID_REQUEST

# =================================================================================================
# Ejercicio 1 · Negociación de la versión
# =================================================================================================
#
# Una versión del protocolo MCP es la fecha de su revisión, escrita AAAA-MM-DD: "2024-11-05",
# "2025-03-26", "2025-06-18", "2025-11-25". La especificación (basic/lifecycle, "Version
# Negotiation"):
#
# * el cliente envía una versión que admite, que DEBERÍA (SHOULD) ser la más reciente;
# * el servidor responde con la misma versión si la admite; si no, con otra versión que admita,
#   que DEBERÍA ser la más reciente;
# * si el cliente no admite la versión de la respuesta, DEBERÍA desconectarse.
#
# Las listas de versiones llegan en cualquier orden (minimcp las pone de la más nueva a la más
# antigua, el SDK oficial al revés), así que "la más reciente" es la *fecha* más nueva, nunca "la
# primera de la lista".


class MalformedVersion(ValueError):
    """Un texto que no es una versión del protocolo: no es una fecha real escrita AAAA-MM-DD."""


def parse_version(version: object) -> datetime.date:
    """Convierte una versión del protocolo en la fecha que nombra, o lanza
    :class:`MalformedVersion`.

    Una versión tiene exactamente diez caracteres: cuatro dígitos ASCII, ``-``, dos, ``-``, dos; y
    tiene que ser una fecha que exista::

        parse_version("2025-11-25")  ->  datetime.date(2025, 11, 25)

    Mal formadas (cada una lanza MalformedVersion): ``"2025-3-26"``, ``"2025/03/26"``,
    ``"20250326"``, ``" 2025-03-26"``, ``"2025-03-26\\n"``, ``"2025-02-30"``, ``"2025-13-01"``,
    ``"1.0.0"``, ``"latest"``, ``""``, y cualquier cosa que no sea una cadena (``None``,
    ``20251125``).
    """
    # POR HACER: la forma con re.fullmatch y [0-9], luego el calendario con datetime.date
    raise NotImplementedError("parse_version")


def latest(versions: Iterable[object]) -> str:
    """La versión bien formada más reciente de ``versions``, por fecha.

    Las entradas mal formadas se saltan (la lista de otro extremo puede traer basura; la basura
    nunca gana). El orden de la lista no importa. Lanza ``ValueError`` cuando ninguna entrada está
    bien formada (también con una lista vacía)::

        latest(["2024-11-05", "2025-11-25", "2025-06-18"])   ->  "2025-11-25"
        latest(["2025-11-25", "2099-1-1", "draft"])          ->  "2025-11-25"
    """
    # POR HACER: quédate con lo que acepta parse_version, y luego con la fecha más reciente
    raise NotImplementedError("latest")


def server_choice(requested: object, server_versions: Iterable[object]) -> str:
    """La regla del servidor: la versión pedida si el servidor la admite; si no, la más reciente
    del servidor.

    Solo cuentan como admitidas las versiones bien formadas, en los dos lados: una ``requested``
    mal formada nunca está "admitida" (aunque la misma basura esté en la lista del servidor), así
    que el servidor responde con su más reciente. Lanza ``ValueError`` cuando el servidor no tiene
    ninguna versión bien formada::

        server_choice("2024-11-05", ["2025-11-25", "2024-11-05"])  ->  "2024-11-05"
        server_choice("2099-01-01", ["2024-11-05", "2025-11-25"])  ->  "2025-11-25"
    """
    # POR HACER: latest(servidor) lanza por ti; ¿está requested bien formada y en la lista?
    raise NotImplementedError("server_choice")


def negotiate(client_versions: Iterable[object], server_versions: Iterable[object]) -> str | None:
    """Juega una negociación entera; devuelve la versión acordada, o None cuando el cliente debe
    desconectarse.

    1. El cliente pide su versión bien formada más reciente (``latest``; ValueError si no tiene
       ninguna).
    2. El servidor responde con ``server_choice``.
    3. El cliente acepta la respuesta solo si es una de sus propias versiones bien formadas.

    Hay una sola ronda, exactamente como en la especificación, así que dos extremos que comparten
    una versión *más antigua* pueden aun así fallar: un cliente que habla 2025-06-18 y 2024-11-05
    pide 2025-06-18; un servidor que habla 2025-11-25 y 2024-11-05 responde 2025-11-25; el cliente
    no la sabe hablar -> None.
    """
    # POR HACER: pide latest(cliente), responde server_choice(pedida, servidor); ¿la habla?
    raise NotImplementedError("negotiate")


# =================================================================================================
# Ejercicio 2 · Una guarda del ciclo de vida
# =================================================================================================

NEW, INITIALIZING, READY, CLOSED = "new", "initializing", "ready", "closed"

#: Los mensajes de las peticiones rechazadas (úsalos con .format(method=...)). Están en inglés:
#: son los que viajan por el protocolo, y los que comprueban las pruebas.
BEFORE_INITIALIZE = "Received {method!r} before initialization: send 'initialize' first"
ALREADY_INITIALIZED = "The session is already initialized"
NOT_READY = "Received {method!r} before the session is ready"


@dataclass(frozen=True)
class Verdict:
    """Qué hacer con un mensaje entrante.

    ``action`` es ``"allow"`` (tratarlo), ``"refuse"`` (responder a la petición con el error
    JSON-RPC ``code`` y ``message``) o ``"drop"`` (ignorarlo: una notificación nunca recibe
    respuesta, y una vez cerrada la sesión ya no se puede responder nada).
    """

    action: str
    code: int | None = None
    message: str | None = None


ALLOW = Verdict("allow")
DROP = Verdict("drop")


def refuse(code: int, message: str) -> Verdict:
    return Verdict("refuse", code, message)


class LifecycleGuard:
    """El ciclo de vida como máquina de estados, para un lado de una sesión.

    ``role`` es ``"server"`` o ``"client"`` (cualquier otra cosa: ``ValueError``). El estado
    empieza en ``"new"``. Cada mensaje se describe por su ``kind`` (``"request"`` o
    ``"notification"``; cualquier otra cosa: ``ValueError``) y su ``method``. :meth:`receive`
    juzga lo que nos envió el otro extremo; :meth:`send` dice si podemos enviar algo ahora;
    :meth:`close` termina la sesión.

    **Papel de servidor**, ``receive`` (lo que envía el cliente), en el orden en que se aplican
    las reglas:

    * estado ``closed``: todo → DROP;
    * petición ``ping`` → ALLOW, en cualquier otro estado (ping funciona antes, durante y después
      del handshake);
    * petición ``initialize``: en ``new`` → ALLOW, y el estado pasa a ``initializing``;
      en cualquier estado posterior → refuse(-32600, ALREADY_INITIALIZED);
    * cualquier otra petición: en ``new`` → refuse(-32600, BEFORE_INITIALIZE.format(method=method));
      en ``initializing`` o ``ready`` → ALLOW (el servidor ya ha respondido a initialize);
    * notificación ``notifications/initialized``: en ``initializing`` → ALLOW, y el estado pasa a
      ``ready``; si no → DROP;
    * cualquier otra notificación: en ``new`` → DROP; si no → ALLOW.

    **Papel de servidor**, ``send`` (True: permitido). El servidor NO DEBERÍA (SHOULD NOT) enviar
    peticiones que no sean pings, ni notificaciones que no sean de logging, antes de haber
    recibido ``notifications/initialized``:

    * estado ``closed`` → False;
    * petición ``ping`` → True;
    * cualquier otra petición → True solo en ``ready``;
    * notificación ``notifications/message`` (logging) → True en ``initializing`` o ``ready``;
    * cualquier otra notificación → True solo en ``ready``.

    **Papel de cliente**, ``send``. El cliente empieza el handshake, así que sus propios envíos
    hacen avanzar su estado:

    * estado ``closed`` → False;
    * petición ``initialize``: en ``new`` → True, y el estado pasa a ``initializing``; si no,
      False;
    * petición ``ping`` → True;
    * cualquier otra petición → True solo en ``ready`` (el cliente NO DEBERÍA enviar peticiones
      que no sean pings antes de que el servidor haya respondido a initialize);
    * notificación ``notifications/initialized``: en ``initializing`` → True, y el estado pasa a
      ``ready`` (el cliente la envía cuando ha aceptado la respuesta del servidor); si no, False;
    * cualquier otra notificación: en ``new`` → False; si no, True.

    **Papel de cliente**, ``receive`` (lo que envía el servidor):

    * estado ``closed``: todo → DROP;
    * petición ``ping`` → ALLOW;
    * cualquier otra petición: en ``ready`` → ALLOW; si no → refuse(-32600,
      NOT_READY.format(method=method));
    * notificación ``notifications/message`` (logging): en ``initializing`` o ``ready`` → ALLOW;
      en ``new`` → DROP;
    * cualquier otra notificación: en ``ready`` → ALLOW; si no → DROP.

    Un rechazo (``send`` que devuelve False, o un veredicto de ``receive`` que no es ALLOW) nunca
    cambia el estado.
    """

    def __init__(self, role: str) -> None:
        # POR HACER: comprueba el papel, recuérdalo, empieza en NEW
        raise NotImplementedError("__init__")

    def receive(self, kind: str, method: str) -> Verdict:
        """Juzga un mensaje que nos envió el otro extremo; avanza el estado cuando lo dicen las
        reglas."""
        # POR HACER: comprueba kind; closed lo descarta todo; luego las reglas de self.role
        raise NotImplementedError("receive")

    def send(self, kind: str, method: str) -> bool:
        """¿Podemos enviar este mensaje ahora? True (y el estado avanza cuando lo dicen las reglas)
        o False."""
        # POR HACER: comprueba kind; closed no envía nada; luego las reglas de self.role
        raise NotImplementedError("send")

    def close(self) -> None:
        """La conexión se ha ido (la cerró cualquiera de los dos lados): ya no se envía ni se trata
        nada."""
        raise NotImplementedError("close")


def _check_kind(kind: str) -> None:
    if kind not in ("request", "notification"):
        raise ValueError(f"kind must be 'request' or 'notification', not {kind!r}")


# =================================================================================================
# Ejercicio 3 · Negociación de capacidades
# =================================================================================================
#
# "Both parties MUST only use capabilities that were successfully negotiated" (basic/lifecycle,
# "Operation"): cada lado solo puede usar las capacidades negociadas. Cada capacidad, cuando se
# declara, abre algunos métodos:
#
# declarada por el SERVIDOR (en el resultado de initialize)   lo que abre
#   tools                       el cliente puede pedir      tools/list, tools/call
#   tools.listChanged: true     el servidor puede notificar notifications/tools/list_changed
#   resources                   el cliente puede pedir      resources/list, resources/read,
#                                                           resources/templates/list
#   resources.subscribe: true   el cliente puede pedir      resources/subscribe,
#                                                           resources/unsubscribe
#                               el servidor puede notificar notifications/resources/updated
#   resources.listChanged: true el servidor puede notificar notifications/resources/list_changed
#   prompts                     el cliente puede pedir      prompts/list, prompts/get
#   prompts.listChanged: true   el servidor puede notificar notifications/prompts/list_changed
#   logging                     el cliente puede pedir      logging/setLevel
#                               el servidor puede notificar notifications/message
#   completions                 el cliente puede pedir      completion/complete
#
# declarada por el CLIENTE (en la petición initialize)
#   roots                       el servidor puede pedir     roots/list
#   roots.listChanged: true     el cliente puede notificar  notifications/roots/list_changed
#   sampling                    el servidor puede pedir     sampling/createMessage
#   elicitation                 el servidor puede pedir     elicitation/create
#   elicitation.url             el servidor puede notificar notifications/elicitation/complete
#
# Siempre abiertos, se declare lo que se declare: la petición ``ping`` en los dos sentidos, y las
# notificaciones ``notifications/cancelled`` y ``notifications/progress`` en los dos sentidos.
#
# Una capacidad solo está declarada cuando su valor es un objeto JSON (un dict): ``"tools": {}``
# declara tools; ``"tools": true`` o ``"tools": null``, no. Un indicador (listChanged, subscribe)
# solo cuenta cuando vale exactamente ``true``. Las capacidades que nadie conoce
# (``experimental``, ``tasks``, ``x-foo``) aquí no abren nada.
#
# La elicitación tiene *modos*: ``elicitation.form`` y ``elicitation.url``, cada uno declarado por
# un objeto. Un objeto elicitation que no declara ningún modo, como ``"elicitation": {}``,
# significa solo el modo form (la regla de la especificación para la compatibilidad hacia atrás).

ALWAYS_REQUESTS = frozenset({"ping"})
ALWAYS_NOTIFICATIONS = frozenset({"notifications/cancelled", "notifications/progress"})


@dataclass(frozen=True)
class Permissions:
    """Lo que cada lado puede usar una vez terminado el handshake."""

    client_requests: frozenset[str]  # peticiones que el cliente puede enviar al servidor
    server_requests: frozenset[str]  # peticiones que el servidor puede enviar al cliente
    client_notifications: frozenset[str]  # notificaciones que el cliente puede enviar
    server_notifications: frozenset[str]  # notificaciones que el servidor puede enviar
    # "form" y/o "url"; vacío cuando no se declaró elicitation
    elicitation_modes: frozenset[str]


def negotiated(
    client_capabilities: dict[str, Any], server_capabilities: dict[str, Any]
) -> Permissions:
    """Lee los dos objetos ``capabilities`` y devuelve lo que cada lado puede usar (mira la tabla
    de arriba).

    Los dos argumentos tienen que ser dicts (cualquier otra cosa: ``TypeError``). Cada conjunto
    incluye lo que siempre está abierto (``ALWAYS_REQUESTS`` / ``ALWAYS_NOTIFICATIONS``), salvo
    ``elicitation_modes``.
    """
    # POR HACER: ¿los dos son dicts?; añade a los conjuntos ALWAYS lo que abre cada lado
    raise NotImplementedError("negotiated")


def _opened_by_server(capabilities: dict[str, Any]) -> tuple[set[str], set[str]]:
    """Lo que abren las ``capabilities`` del servidor, además de lo que siempre está abierto: las
    peticiones que puede enviar el cliente y las notificaciones que puede enviar el servidor."""
    # POR HACER: un `if` por capacidad declarada (un dict), uno por indicador (solo true)
    raise NotImplementedError("_opened_by_server")


def _opened_by_client(capabilities: dict[str, Any]) -> tuple[set[str], set[str], set[str]]:
    """Lo que abren las ``capabilities`` del cliente, además de lo que siempre está abierto: las
    peticiones que puede enviar el servidor, las notificaciones que puede enviar el cliente y los
    modos de elicitación (lo que un modo abre para el servidor lo añade :func:`negotiated`)."""
    # POR HACER: roots, sampling, elicitation (sus modos: {} a secas significa form)
    raise NotImplementedError("_opened_by_client")


def may_send(permissions: Permissions, sender: str, method: str) -> bool:
    """¿Puede ``sender`` (``"client"`` o ``"server"``; cualquier otra cosa: ``ValueError``) enviar
    ``method``?

    Un método cuyo nombre empieza por ``notifications/`` es una notificación; cualquier otro es una
    petición.
    """
    # POR HACER: elige el conjunto por emisor y por el prefijo "notifications/"
    raise NotImplementedError("may_send")
