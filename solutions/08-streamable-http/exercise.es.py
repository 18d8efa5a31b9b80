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
        # BEGIN SOLUTION: ajustes; last_event_id, done; los ids entregados; el estado por conexión
        self.request_id = request_id
        self.retry_ms = retry_ms  # el tiempo de reconexión: el `retry` del servidor lo sustituye
        self.max_fruitless = max_fruitless
        self.max_wait_ms = max_wait_ms
        self.last_event_id: str | None = None
        self.done = False
        self._delivered: set[str] = set()  # los ids de los eventos cuyo mensaje se devolvió
        self._fruitless = 0
        self._start_connection()
        # END SOLUTION

    def _start_connection(self) -> None:
        """Una conexión nueva: decodificador nuevo, nueva comprobación de la BOM, nada a medio
        leer; el búfer del id es last_event_id."""
        # BEGIN SOLUTION: reinicia el estado de la conexión; apunta last_event_id (¿fructífera?)
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._started = False  # el primer carácter de una conexión puede ser una BOM
        self._text = ""  # decodificado, aún sin cortar en líneas
        self._id_buffer = self.last_event_id or ""
        self._own_id = False  # ¿tuvo el evento que se está leyendo una línea id propia?
        self._data: list[str] = []
        self._id_at_start = self.last_event_id
        # END SOLUTION

    def feed(self, chunk: bytes) -> list[str]:
        """Los bytes siguientes de la conexión actual; los mensajes que completan, en orden."""
        # BEGIN SOLUTION: decodifica, salta una BOM inicial, corta líneas enteras, trata cada una
        text = self._decoder.decode(chunk)
        if not self._started and text:
            self._started = True
            text = text.removeprefix("\ufeff")
        self._text += text
        messages: list[str] = []
        while True:
            end = re.search(r"\r\n|\r|\n", self._text)
            if end is None or (end.group() == "\r" and end.end() == len(self._text)):
                break  # aún no hay una línea entera (un "\r" final puede ser media "\r\n")
            line, self._text = self._text[: end.start()], self._text[end.end() :]
            message = self._line(line)
            if message is not None and not self.done:
                messages.append(message)
                self._check_done(message)
        return messages
        # END SOLUTION

    def _line(self, line: str) -> str | None:
        """Una línea entera (sin su fin de línea); el mensaje que completa, si completa alguno."""
        # BEGIN SOLUTION: en blanco → despacha; ":" → comentario; si no, campo y valor (quita 1 " ")
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "id" and "\0" not in value:
            self._id_buffer, self._own_id = value, True
        elif name == "retry" and value.isascii() and value.isdigit():
            self.retry_ms = int(value)
        return None
        # END SOLUTION

    def _dispatch(self) -> str | None:
        """Una línea en blanco: el evento está completo. Su mensaje, salvo que no tenga o que ya se
        entregara."""
        # BEGIN SOLUTION: last_event_id ← búfer del id; sin datos, "" o id visto: None; si no, datos
        data, own_id = self._data, self._own_id
        self._data, self._own_id = [], False
        self.last_event_id = self._id_buffer
        if not data or data == [""]:
            return None  # sin línea data, o con datos vacíos: un evento de cebado
        if own_id:
            if self.last_event_id in self._delivered:
                return None  # reproducido una vez de más
            self._delivered.add(self.last_event_id)
        return "\n".join(data)
        # END SOLUTION

    def _check_done(self, message: str) -> None:
        """Marca done si ``message`` es la respuesta JSON-RPC a request_id."""
        # BEGIN SOLUTION: un dict con id == request_id y un "result" o un "error"
        if self.request_id is None:
            return
        try:
            decoded = json.loads(message)
        except ValueError:
            return
        if (
            isinstance(decoded, dict)
            and decoded.get("id") == self.request_id
            and ("result" in decoded or "error" in decoded)
        ):
            self.done = True
        # END SOLUTION

    def connection_ended(self) -> int | None:
        """La conexión ha terminado (cortada, o cerrada por el servidor): milisegundos que esperar,
        o None: parar."""
        # BEGIN SOLUTION: tira el evento a medias; done/sin id → None; cuenta; espera; o abandona
        fruitful = self.last_event_id != self._id_at_start
        self._start_connection()
        if self.done or not self.last_event_id:
            return None
        self._fruitless = 0 if fruitful else self._fruitless + 1
        if self._fruitless > self.max_fruitless:
            return None
        return min(self.retry_ms * 2**self._fruitless, self.max_wait_ms)
        # END SOLUTION


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
    # BEGIN SOLUTION: un ResumableStream; dale los trozos; por conexión: para, o apunta la espera
    stream = ResumableStream(request_id, **options)
    messages: list[str] = []
    resumptions: list[tuple[str, int]] = []
    for connection in connections:
        for chunk in connection:
            messages += stream.feed(chunk)
        wait = stream.connection_ended()
        if wait is None:
            break
        assert stream.last_event_id is not None
        resumptions.append((stream.last_event_id, wait))
    return Followed(messages, resumptions, stream.done)
    # END SOLUTION


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
        # BEGIN SOLUTION: comprueba y guarda presupuestos, el reloj, las sesiones (LRU), un contador
        if not 0 < stream_bytes <= session_bytes <= total_bytes or ttl <= 0:
            raise ValueError(
                "budgets must be 0 < stream_bytes <= session_bytes <= total_bytes, and ttl > 0"
            )
        self.stream_bytes = stream_bytes
        self.session_bytes = session_bytes
        self.total_bytes = total_bytes
        self.ttl = ttl
        self._clock = clock
        self._sessions: OrderedDict[str, _Session] = OrderedDict()  # la menos usada, primero
        self._owner: dict[str, str] = {}  # id del flujo → su sesión
        self._order = 0  # el puesto de cada evento en el orden de los append, entre flujos
        # END SOLUTION

    def append(self, session_id: str, stream_id: str, data: str) -> str:
        """Guarda el siguiente evento de ``stream_id`` (en ``session_id``); devuelve su id."""
        # BEGIN SOLUTION: caduca; comprueba; guarda; recorta el flujo, luego la sesión; echa a otras
        now = self._clock()
        self._expire(now)
        if not stream_id or "-" in stream_id:
            raise ValueError(f"bad stream id {stream_id!r}: not empty, no '-'")
        owner = self._owner.get(stream_id)
        if owner is not None and owner != session_id:
            raise ValueError(f"stream {stream_id!r} belongs to another session")
        size = len(data.encode("utf-8"))
        if size > self.stream_bytes:
            raise ValueError(
                f"an event of {size} bytes is over the stream budget of {self.stream_bytes}"
            )
        session = self._sessions.setdefault(session_id, _Session())
        stream = session.streams.setdefault(stream_id, _Stream())
        self._owner[stream_id] = session_id
        event_id = f"{stream_id}-{stream.next_number}"
        stream.events.append(_Event(event_id, stream.next_number, data, size, self._order))
        stream.next_number += 1
        stream.bytes += size
        session.bytes += size
        self._order += 1
        while stream.bytes > self.stream_bytes:
            self._drop_oldest(session, stream)
        while session.bytes > self.session_bytes:
            oldest = min(
                (s for s in session.streams.values() if s.events), key=lambda s: s.events[0].order
            )
            self._drop_oldest(session, oldest)
        session.last_used = now
        self._sessions.move_to_end(session_id)
        while self.size() > self.total_bytes:
            # La primera nunca es esta sesión: se acaba de mover al final.
            self._forget(next(iter(self._sessions)))
        return event_id
        # END SOLUTION

    def events_after(self, session_id: str, event_id: str) -> list[tuple[str, str]]:
        """El (id, data) de cada evento posterior a ``event_id`` en su flujo, o CannotReplay."""
        # BEGIN SOLUTION: caduca; analiza; el flujo en esta sesión; ¿se descartó algo posterior?
        now = self._clock()
        self._expire(now)
        stream_id, _, number = event_id.rpartition("-")
        if not stream_id or not (number.isascii() and number.isdigit()):
            raise CannotReplay("malformed", event_id)
        after = int(number)
        session = self._sessions.get(session_id)
        stream = session.streams.get(stream_id) if session is not None else None
        if session is None or stream is None or after >= stream.next_number:
            raise CannotReplay("unknown", event_id)
        first_kept = stream.events[0].number if stream.events else stream.next_number
        if after + 1 < first_kept:
            raise CannotReplay("forgotten", event_id)
        session.last_used = now
        self._sessions.move_to_end(session_id)
        return [(event.id, event.data) for event in stream.events if event.number > after]
        # END SOLUTION

    def forget_session(self, session_id: str) -> None:
        """Quita una sesión y todos sus flujos (el cliente la terminó)."""
        # BEGIN SOLUTION
        if session_id in self._sessions:
            self._forget(session_id)
        # END SOLUTION

    def size(self, session_id: str | None = None) -> int:
        """Bytes guardados: en total, o en una sesión."""
        # BEGIN SOLUTION
        if session_id is None:
            return sum(session.bytes for session in self._sessions.values())
        session = self._sessions.get(session_id)
        return session.bytes if session is not None else 0
        # END SOLUTION

    def _drop_oldest(self, session: _Session, stream: _Stream) -> None:
        """Descarta el evento más antiguo de ``stream`` (en ``session``), y sus bytes de las dos
        cuentas."""
        # BEGIN SOLUTION
        event = stream.events.popleft()
        stream.bytes -= event.size
        session.bytes -= event.size
        # END SOLUTION

    def _forget(self, session_id: str) -> None:
        """Olvida una sesión, entera: sus eventos, y qué flujos eran suyos."""
        # BEGIN SOLUTION
        session = self._sessions.pop(session_id)
        for stream_id in session.streams:
            del self._owner[stream_id]
        # END SOLUTION

    def _expire(self, now: float) -> None:
        """Olvida cada sesión sin usar durante más de ttl segundos."""
        # BEGIN SOLUTION
        for session_id, session in list(self._sessions.items()):
            if now - session.last_used > self.ttl:
                self._forget(session_id)
        # END SOLUTION


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
    # BEGIN SOLUTION: parte por "," fuera de comillas; cada uno: tipo/subtipo, parámetros, el peso
    if header is None:
        return [MediaRange("*", "*")]
    ranges = []
    for element in _split(header, ","):
        if not element.strip(" \t"):
            continue
        kind, *parameters = _split(element, ";")
        media_type, slash, subtype = kind.strip(" \t").partition("/")
        if not (slash and _is_token(media_type) and _is_token(subtype)) or (
            media_type == "*" != subtype
        ):
            raise ValueError(f"bad media range {kind.strip()!r}")
        params: list[tuple[str, str]] = []
        q: float | None = None
        for parameter in parameters:
            if q is not None:
                raise ValueError(f"a parameter after the weight in {element.strip()!r}")
            name, value = _parameter(parameter)
            if name == "q":
                if not re.fullmatch(r"0(\.\d{0,3})?|1(\.0{0,3})?", value):
                    raise ValueError(f"bad weight q={value!r}")
                q = float(value)
            else:
                params.append((name, value))
        ranges.append(
            MediaRange(media_type.lower(), subtype.lower(), tuple(params), 1.0 if q is None else q)
        )
    return ranges
    # END SOLUTION


def _split(text: str, separator: str) -> list[str]:
    """``text`` cortado por cada ``separator`` que esté fuera de una cadena entre comillas
    (ValueError si queda una abierta)."""
    # BEGIN SOLUTION: recorre los caracteres, recordando "entre comillas" y "tras una barra"
    pieces: list[str] = []
    current: list[str] = []
    quoted, escaped = False, False
    for char in text:
        if escaped:
            escaped = False
        elif quoted and char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char == separator and not quoted:
            pieces.append("".join(current))
            current = []
            continue
        current.append(char)
    if quoted:
        raise ValueError(f"an unterminated quoted string in {text!r}")
    pieces.append("".join(current))
    return pieces
    # END SOLUTION


def _is_token(text: str) -> bool:
    """Uno o más caracteres, todos de TCHAR."""
    # BEGIN SOLUTION
    return bool(text) and all(char in TCHAR for char in text)
    # END SOLUTION


def _parameter(text: str) -> tuple[str, str]:
    """``' Name="v"'`` → ``("name", "v")``: un token, "=", un token o una cadena entre comillas;
    si no, ValueError."""
    # BEGIN SOLUTION
    name, equals, value = text.strip(" \t").partition("=")
    if not equals or not _is_token(name):
        raise ValueError(f"bad parameter {text.strip()!r}")
    if value.startswith('"'):
        return name.lower(), _unquote(value)
    if not _is_token(value):
        raise ValueError(f"bad parameter value {value!r}")
    return name.lower(), value
    # END SOLUTION


def _unquote(value: str) -> str:
    """'"a\\"b"' → 'a"b': sin las comillas, y cada escape con barra invertida sustituido por el
    carácter que escapa."""
    # BEGIN SOLUTION: una comilla de cierre, ninguna comilla suelta dentro, ninguna barra colgando
    if len(value) < 2 or not value.endswith('"'):
        raise ValueError(f"bad quoted string {value!r}")
    out, escaped = [], False
    for char in value[1:-1]:
        if escaped:
            out.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            raise ValueError(f"bad quoted string {value!r}")
        else:
            out.append(char)
    if escaped:
        raise ValueError(f"bad quoted string {value!r}")
    return "".join(out)
    # END SOLUTION


def quality(ranges: list[MediaRange], media_type: str) -> float:
    """El peso que da el cliente a ``media_type``: el del rango más específico que encaja; si no,
    0.0.

    >>> ranges = parse_accept("text/*;q=0.3, text/event-stream;q=0.8, */*;q=0.1")
    >>> quality(ranges, "text/event-stream")
    0.8
    """
    # BEGIN SOLUTION: analiza el tipo; de los que encajan, el más específico (si empatan, el 1.º)
    (wanted,) = parse_accept(media_type)
    offered = dict(wanted.params)
    best: tuple[tuple[int, int, int], MediaRange] | None = None
    for candidate in ranges:
        if candidate.type not in ("*", wanted.type) or candidate.subtype not in (
            "*",
            wanted.subtype,
        ):
            continue
        if any(offered.get(name) != value for name, value in candidate.params):
            continue
        rank = (candidate.type != "*", candidate.subtype != "*", len(candidate.params))
        if best is None or rank > best[0]:
            best = (rank, candidate)
    return best[1].q if best is not None else 0.0
    # END SOLUTION


def negotiate(method: str, accept: str | None, streaming: bool | None = None) -> str | int | None:
    """El tipo de contenido con el que responder, o el estado HTTP de error (406, 400), o None
    (reglas de arriba).

    >>> negotiate("POST", "application/json, text/event-stream", streaming=True)
    'text/event-stream'
    >>> negotiate("POST", "application/json;q=0, text/event-stream")
    406
    """
    # BEGIN SOLUTION: solo POST y GET; analiza (400); los pesos de los dos tipos; 406; y a elegir
    if method not in ("POST", "GET"):
        return None
    try:
        ranges = parse_accept(accept)
    except ValueError:
        return 400
    sse = quality(ranges, "text/event-stream")
    if method == "GET":
        return "text/event-stream" if sse > 0 else 406
    json_q = quality(ranges, "application/json")
    if json_q == 0 or sse == 0:
        return 406
    if streaming is None:
        return "text/event-stream" if sse > json_q else "application/json"
    return "text/event-stream" if streaming else "application/json"
    # END SOLUTION
