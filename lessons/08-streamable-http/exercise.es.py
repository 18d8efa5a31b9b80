# ----------------------------------------------------------------------------------------
# Lección 08-streamable-http: tu ejercicio.
#
# 1. Lee los docstrings de abajo: cada parte te dice exactamente qué construir.
# 2. Sustituye cada `raise NotImplementedError(...)`, bajo su POR HACER, por tu código.
# 3. Comprueba tu trabajo, tantas veces como quieras:  python tools/check.py 08 --lang es
#
# ¿Atascado del todo? Hay una solución resuelta en solutions/08-streamable-http/exercise.es.py.
# Este archivo es tuyo: una versión nueva del curso puede reemplazarlo, así que guarda una copia.
# ----------------------------------------------------------------------------------------
"""Ejercicio de la lección 08: tres piezas de Streamable HTTP, cada una un paso más allá de lo que
hace minimcp.

1. **Un flujo reanudable, desde el lado del cliente.** ``minimcp.transports.http.client`` lee un
   flujo SSE con ``SSEParser`` y, cuando se cae la conexión, vuelve con ``Last-Event-ID`` tras
   ``retry`` milisegundos. Escribe tú la contabilidad de uno de esos flujos, a lo largo de tantas
   conexiones como haga falta: las reglas de líneas del estándar HTML, cada mensaje exactamente una
   vez y en orden, el id desde el que reanudar (el del último evento *completo*, nunca el de uno
   cortado por la mitad) y cuánto esperar antes de cada reconexión (``retry``, y luego cada vez más
   mientras las conexiones no traigan nada nuevo).
2. **Un almacén de eventos con un presupuesto de bytes.**
   ``minimcp.transports.event_store.MemoryEventStore`` cuenta eventos. Un mensaje puede tener 50
   bytes o 4 MiB, así que cuenta bytes: por flujo, por sesión y en total, olvidando primero la
   sesión que lleve más tiempo sin usarse cuando se acaba la memoria, con una caducidad que marca
   un reloj que puedes pasarle, y una respuesta exacta cuando una reproducción es imposible.
3. **Accept, al pie de la letra del RFC 9110.** ``minimcp.transports.http`` comprueba que
   ``Accept`` enumere los dos tipos (o un comodín) e ignora los pesos: ``application/json;q=0`` se
   cuela. Analiza la cabecera con sus valores ``q``, sus parámetros y sus cadenas entre comillas, y
   decide entre 406, JSON y SSE.

Comprueba tu trabajo con ``python tools/check.py 08 --lang es``. Solo hace falta la biblioteca
estándar.
"""

from __future__ import annotations

import codecs
import json
import re
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

# =================================================================================================
# Parte 1 · Un flujo SSE reanudable, desde el lado del cliente
# =================================================================================================
#
# Un flujo (la respuesta a un POST, o el canal de anuncios del GET) puede llegar a lo largo de
# varias conexiones. `ResumableStream` lo sigue: `feed` recibe los bytes de cada conexión, en
# trozos cortados por cualquier sitio, y devuelve los mensajes JSON-RPC que completan;
# `connection_ended` dice qué hacer cuando termina una conexión: esperar esos milisegundos y luego
# hacer un GET con `Last-Event-ID: <last_event_id>`, o parar (None).
#
# Las líneas (el estándar HTML, "Parsing an event stream"):
#
#   * una línea termina en "\r\n", "\n" o un "\r" suelto. Un "\r" al final de un trozo y un "\n" al
#     principio del siguiente son UN solo fin de línea. Un carácter UTF-8 también puede quedar
#     cortado entre dos trozos (decodifica de forma incremental); los bytes que nunca son UTF-8
#     válido se convierten en U+FFFD.
#   * una marca de orden de bytes (U+FEFF) al principio de todo de los bytes de una conexión se
#     salta;
#   * una línea que empieza por ":" es un comentario: se ignora;
#   * "nombre:valor" es un campo; se quita un espacio tras los dos puntos ("data: x" y "data:x" son
#     lo mismo); una línea sin dos puntos es un campo con el valor vacío ("data" es "data:");
#   * "data": el valor se añade a los datos del evento (varias líneas data se unen con "\n");
#   * "id": si el valor no contiene NUL (U+0000), pasa a ser el *búfer del id*; si no, se ignora;
#   * "retry": si el valor son solo dígitos ASCII, pasa a ser el tiempo de reconexión enseguida
#     (aunque el evento nunca se complete); si no, se ignora;
#   * cualquier otro campo ("event" incluido: MCP solo usa el tipo por defecto) se ignora;
#   * una línea en blanco *despacha* el evento: `last_event_id` pasa a ser el búfer del id (el búfer
#     no se vacía: un evento sin línea id conserva el anterior); después, si el evento tuvo al menos
#     una línea data, sus datos están completos. Luego se vacían los datos para el evento siguiente.
#
# Los mensajes:
#
#   * un evento con los datos vacíos (el evento de *cebado* del servidor) no lleva ningún mensaje;
#   * un evento que tiene su propia línea "id", con un id ya entregado, es un duplicado (un servidor
#     puede reproducir *desde* el id en lugar de después de él): sáltatelo;
#   * los demás se devuelven, con sus datos tal cual, en orden;
#   * con un `request_id`, el flujo está completo (`done`) una vez devuelta una respuesta JSON-RPC a
#     esa petición (un objeto con ese "id" y un "result" o un "error"); a partir de entonces `feed`
#     no devuelve nada. El flujo del GET (`request_id=None`) nunca está completo.
#
# El final de una conexión (`connection_ended`):
#
#   * un evento que no completó una línea en blanco se descarta, con su id (el cliente nunca lo vio
#     entero: reanudar después de él lo perdería); lo mismo una línea sin terminar. Una conexión
#     nueva empieza un flujo de bytes nuevo (un decodificador nuevo, una nueva comprobación de la
#     BOM), con el búfer del id puesto a `last_event_id`;
#   * done: None. Sin `last_event_id` (None o ""): None, no hay desde dónde reanudar;
#   * una conexión es *fructífera* si `last_event_id` cambió durante ella. Tras una fructífera,
#     espera `retry` milisegundos (el último valor recibido, en cualquier conexión; si no,
#     `retry_ms`). Cada conexión infructuosa seguida duplica la espera: retry, 2*retry, 4*retry...
#     nunca más de `max_wait_ms`. Tras más de `max_fruitless` conexiones infructuosas seguidas:
#     None.
#
# Los métodos cuyo nombre empieza por "_" son una forma de repartir el trabajo: úsalos, cámbialos o
# bórralos. Las pruebas solo llaman a `feed`, `connection_ended`, `last_event_id`, `done` y
# `follow`.


class ResumableStream:
    """El lado del cliente de un flujo SSE reanudable, a lo largo de tantas conexiones como haga
    falta."""

    def __init__(
        self,
        request_id: int | str | None = None,
        *,
        retry_ms: int = 1000,
        max_fruitless: int = 3,
        max_wait_ms: int = 30_000,
    ) -> None:
        # POR HACER: ajustes; last_event_id, done; los ids entregados; el estado por conexión
        raise NotImplementedError("__init__")

    def _start_connection(self) -> None:
        """Una conexión nueva: decodificador nuevo, nueva comprobación de la BOM, nada a medio
        leer; el búfer del id es last_event_id."""
        # POR HACER: reinicia el estado de la conexión; apunta last_event_id (¿fructífera?)
        raise NotImplementedError("_start_connection")

    def feed(self, chunk: bytes) -> list[str]:
        """Los bytes siguientes de la conexión actual; los mensajes que completan, en orden."""
        # POR HACER: decodifica, salta una BOM inicial, corta líneas enteras, trata cada una
        raise NotImplementedError("feed")

    def _line(self, line: str) -> str | None:
        """Una línea entera (sin su fin de línea); el mensaje que completa, si completa alguno."""
        # POR HACER: en blanco → despacha; ":" → comentario; si no, campo y valor (quita 1 " ")
        raise NotImplementedError("_line")

    def _dispatch(self) -> str | None:
        """Una línea en blanco: el evento está completo. Su mensaje, salvo que no tenga o que ya se
        entregara."""
        # POR HACER: last_event_id ← búfer del id; sin datos, "" o id visto: None; si no, datos
        raise NotImplementedError("_dispatch")

    def _check_done(self, message: str) -> None:
        """Marca done si ``message`` es la respuesta JSON-RPC a request_id."""
        # POR HACER: un dict con id == request_id y un "result" o un "error"
        raise NotImplementedError("_check_done")

    def connection_ended(self) -> int | None:
        """La conexión ha terminado (cortada, o cerrada por el servidor): milisegundos que esperar,
        o None: parar."""
        # POR HACER: tira el evento a medias; done/sin id → None; cuenta; espera; o abandona
        raise NotImplementedError("connection_ended")


@dataclass
class Followed:
    """Lo que dio seguir un flujo a lo largo de varias conexiones."""

    messages: list[str]  # cada mensaje, una vez, en orden
    # por cada reconexión: (el Last-Event-ID que enviar, la espera en ms)
    resumptions: list[tuple[str, int]]
    done: bool  # el flujo está completo


def follow(
    connections: Iterable[Iterable[bytes]], request_id: int | str | None = None, **options: int
) -> Followed:
    """Sigue un flujo a lo largo de conexiones sucesivas, cada una dada como los trozos que trajo.

    Tras cada conexión, pregunta a ``connection_ended()``: None significa parar (aunque queden
    conexiones); una espera significa "reconecta": apunta ``(last_event_id, espera)`` y lee la
    conexión siguiente. Las ``options`` van a ResumableStream.
    """
    # POR HACER: un ResumableStream; dale los trozos; por conexión: para, o apunta la espera
    raise NotImplementedError("follow")


# =================================================================================================
# Parte 2 · Un almacén de eventos con un presupuesto de bytes
# =================================================================================================
#
# El servidor guarda cada evento antes de enviarlo, para que un cliente pueda volver a pedirlo.
# Aquí la memoria se cuenta en bytes: un evento cuesta len(data.encode("utf-8")) (su id no cuenta).
#
#   * los ids de evento son "<id del flujo>-<n>", n = 0, 1, 2... por flujo. Un id de flujo no está
#     vacío y no tiene "-" (si no, ValueError). Un flujo pertenece a la sesión que añadió a él por
#     primera vez; que otra sesión añada a él es un ValueError.
#   * los presupuestos, comprobados en __init__ (ValueError salvo que 0 < stream_bytes <=
#     session_bytes <= total_bytes y ttl > 0):
#       - un evento más grande que `stream_bytes` se rechaza (ValueError), y no se guarda nada;
#       - tras añadir uno, mientras su flujo guarde más de `stream_bytes`, se va su evento más
#         antiguo;
#       - luego, mientras su sesión guarde más de `session_bytes`, se va el evento más antiguo de
#         la sesión (el primero que se añadió, sea del flujo que sea);
#       - luego, mientras el almacén guarde más de `total_bytes`, se olvida entera la *otra* sesión
#         que lleve más tiempo sin usarse.
#   * una sesión se *usa* con un append, y con un `events_after` que sale bien. Una sesión sin usar
#     durante más de `ttl` segundos (ahora - último uso > ttl, según `clock()`) se olvida entera:
#     compruébalo al principio de `append` y de `events_after`.
#   * un flujo cuyos eventos se han descartado todos sigue siendo conocido (para que el almacén
#     pueda decir "forgotten").
#   * `events_after(session, event_id)` devuelve los pares (id, data) posteriores a ese evento, en
#     orden, o lanza CannotReplay con uno de tres motivos:
#       - "malformed": no es "<id del flujo>-<dígitos>" (dígitos ASCII);
#       - "unknown": ese flujo no existe en esta sesión (nunca existió, es de otra sesión, o se
#         olvidó con su sesión), o un número al que el flujo nunca llegó;
#       - "forgotten": se descartó algún evento posterior: una reproducción exacta es imposible.
#   * `forget_session` quita una sesión (el cliente envió DELETE); `size()` son los bytes guardados
#     en total, `size(session)` en una sesión (0 para una que el almacén no conoce).
#
# Como en la parte 1, los métodos con "_" y las clases pequeñas que siguen al almacén son una
# sugerencia, tuya para cambiarla.


class CannotReplay(LookupError):
    """Una reproducción exacta después de ``event_id`` es imposible, por ``reason``: malformed,
    unknown o forgotten."""

    def __init__(self, reason: str, event_id: str) -> None:
        super().__init__(f"cannot replay after {event_id!r}: {reason}")
        self.reason = reason
        self.event_id = event_id


class BudgetEventStore:
    """Eventos guardados por sesión y por flujo, dentro de presupuestos de bytes; la primera en
    salir, la sesión que lleva más tiempo sin usarse."""

    def __init__(
        self,
        *,
        stream_bytes: int,
        session_bytes: int,
        total_bytes: int,
        ttl: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        # POR HACER: comprueba y guarda presupuestos, el reloj, las sesiones (LRU), un contador
        raise NotImplementedError("__init__")

    def append(self, session_id: str, stream_id: str, data: str) -> str:
        """Guarda el siguiente evento de ``stream_id`` (en ``session_id``); devuelve su id."""
        # POR HACER: caduca; comprueba; guarda; recorta el flujo, luego la sesión; echa a otras
        raise NotImplementedError("append")

    def events_after(self, session_id: str, event_id: str) -> list[tuple[str, str]]:
        """El (id, data) de cada evento posterior a ``event_id`` en su flujo, o CannotReplay."""
        # POR HACER: caduca; analiza; el flujo en esta sesión; ¿se descartó algo posterior?
        raise NotImplementedError("events_after")

    def forget_session(self, session_id: str) -> None:
        """Quita una sesión y todos sus flujos (el cliente la terminó)."""
        raise NotImplementedError("forget_session")

    def size(self, session_id: str | None = None) -> int:
        """Bytes guardados: en total, o en una sesión."""
        raise NotImplementedError("size")

    def _drop_oldest(self, session: _Session, stream: _Stream) -> None:
        """Descarta el evento más antiguo de ``stream`` (en ``session``), y sus bytes de las dos
        cuentas."""
        raise NotImplementedError("_drop_oldest")

    def _forget(self, session_id: str) -> None:
        """Olvida una sesión, entera: sus eventos, y qué flujos eran suyos."""
        raise NotImplementedError("_forget")

    def _expire(self, now: float) -> None:
        """Olvida cada sesión sin usar durante más de ttl segundos."""
        raise NotImplementedError("_expire")


# Clases auxiliares del almacén, tuyas para cambiarlas (las pruebas solo usan la clase de arriba).
@dataclass
class _Event:
    id: str
    number: int  # su puesto en su flujo
    data: str
    size: int  # bytes de data, en UTF-8
    order: int  # su puesto entre todos los append


@dataclass
class _Stream:
    events: deque[_Event] = field(default_factory=deque)
    next_number: int = 0
    bytes: int = 0


@dataclass
class _Session:
    streams: dict[str, _Stream] = field(default_factory=dict)
    bytes: int = 0
    last_used: float = 0.0


# =================================================================================================
# Parte 3 · Accept, al pie de la letra del RFC 9110 (sección 12.5.1)
# =================================================================================================
#
#   Accept: application/json;q=0.9, text/event-stream, */*;q=0
#
# La cabecera es una lista de rangos de tipos de medio, separados por comas; cada uno puede tener
# parámetros, separados por punto y coma; el parámetro "q" es su *peso*, de 0 a 1, donde 0
# significa "no aceptable".
#
# `parse_accept(header)`:
#   * None (no hay ninguna cabecera Accept) significa "cualquier cosa": [MediaRange("*", "*", (),
#     1.0)];
#   * parte por "," (pero nunca dentro de una cadena entre comillas); sáltate los elementos vacíos o
#     con solo espacios y tabuladores ("a/b,,c/d" son dos rangos; "" no es ninguno);
#   * cada elemento es "tipo/subtipo" seguido de parámetros ";nombre=valor"; se permiten espacios y
#     tabuladores alrededor de ";" y en los dos extremos. El tipo, el subtipo y los nombres de los
#     parámetros son *tokens* (uno o más de los caracteres de TCHAR), que se comparan sin distinguir
#     mayúsculas: guárdalos en minúsculas. "*/*" y "tipo/*" son comodines; "*/subtipo" no se
#     permite;
#   * un valor es un token o una cadena entre comillas: "..." en la que una barra invertida escapa
#     el carácter siguiente ('"a\"b"' es a"b); guárdalo sin comillas, tal cual (con sus mayúsculas).
#     Un parámetro sin "=" o con el valor vacío es un error;
#   * el primer parámetro llamado "q" (con mayúsculas o minúsculas) es el peso: "0", "0." y hasta
#     tres decimales ("0.5", "0.125"), o "1", "1." y hasta tres ceros ("1.000"). Cualquier otra cosa
#     ("1.5", "0.1234", ".5", "-1") es un error, y también cualquier parámetro tras el peso. Sin
#     peso, vale 1.0;
#   * los errores lanzan ValueError.
#
# `quality(ranges, media_type)`: cuánto quiere el cliente `media_type` ("tipo/subtipo", quizá con
# parámetros, nunca con un peso). Un rango *encaja* con él si su tipo y su subtipo son iguales o
# "*", y cada uno de los parámetros del rango está entre los del tipo de medio, con un valor igual
# (los nombres sin distinguir mayúsculas, los valores exactamente). De los rangos que encajan,
# decide el más específico: "tipo/subtipo" gana a "tipo/*", que gana a "*/*"; entre dos de la
# misma clase, más parámetros gana a menos; entre dos igual de específicos, el primero de la lista.
# Si no encaja ninguno: 0.0.
#
# `negotiate(method, accept, streaming)`: lo que debería responder minimcp.
#   * "POST": un cliente tiene que aceptar tanto application/json como text/event-stream (un peso
#     mayor que 0 para cada uno): si no, 406. Después decide `streaming`: True (la respuesta será un
#     flujo) → "text/event-stream"; False → "application/json"; None (vale cualquiera) → el de
#     mayor peso, y "application/json" si empatan;
#   * "GET": text/event-stream con un peso mayor que 0 → "text/event-stream"; si no, 406;
#   * una cabecera Accept que no se puede analizar: 400 (para POST y para GET);
#   * cualquier otro método: None (no se negocia nada: la respuesta a DELETE no tiene cuerpo).
#
# Las funciones con "_" que siguen a parse_accept son, otra vez, una forma de repartir el trabajo.

TCHAR = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class MediaRange:
    type: str
    subtype: str
    # pares (nombre, valor), los nombres en minúsculas, sin el peso
    params: tuple[tuple[str, str], ...] = ()
    q: float = 1.0


def parse_accept(header: str | None) -> list[MediaRange]:
    """Los rangos de tipos de medio de una cabecera ``Accept``, en orden (reglas de arriba);
    ValueError si está mal formada.

    >>> parse_accept('text/event-stream;q=0.5')
    [MediaRange(type='text', subtype='event-stream', params=(), q=0.5)]
    """
    # POR HACER: parte por "," fuera de comillas; cada uno: tipo/subtipo, parámetros, el peso
    raise NotImplementedError("parse_accept")


def _split(text: str, separator: str) -> list[str]:
    """``text`` cortado por cada ``separator`` que esté fuera de una cadena entre comillas
    (ValueError si queda una abierta)."""
    # POR HACER: recorre los caracteres, recordando "entre comillas" y "tras una barra"
    raise NotImplementedError("_split")


def _is_token(text: str) -> bool:
    """Uno o más caracteres, todos de TCHAR."""
    raise NotImplementedError("_is_token")


def _parameter(text: str) -> tuple[str, str]:
    """``' Name="v"'`` → ``("name", "v")``: un token, "=", un token o una cadena entre comillas;
    si no, ValueError."""
    raise NotImplementedError("_parameter")


def _unquote(value: str) -> str:
    """'"a\\"b"' → 'a"b': sin las comillas, y cada escape con barra invertida sustituido por el
    carácter que escapa."""
    # POR HACER: una comilla de cierre, ninguna comilla suelta dentro, ninguna barra colgando
    raise NotImplementedError("_unquote")


def quality(ranges: list[MediaRange], media_type: str) -> float:
    """El peso que da el cliente a ``media_type``: el del rango más específico que encaja; si no,
    0.0.

    >>> ranges = parse_accept("text/*;q=0.3, text/event-stream;q=0.8, */*;q=0.1")
    >>> quality(ranges, "text/event-stream")
    0.8
    """
    # POR HACER: analiza el tipo; de los que encajan, el más específico (si empatan, el 1.º)
    raise NotImplementedError("quality")


def negotiate(method: str, accept: str | None, streaming: bool | None = None) -> str | int | None:
    """El tipo de contenido con el que responder, o el estado HTTP de error (406, 400), o None
    (reglas de arriba).

    >>> negotiate("POST", "application/json, text/event-stream", streaming=True)
    'text/event-stream'
    >>> negotiate("POST", "application/json;q=0, text/event-stream")
    406
    """
    # POR HACER: solo POST y GET; analiza (400); los pesos de los dos tipos; 406; y a elegir
    raise NotImplementedError("negotiate")
