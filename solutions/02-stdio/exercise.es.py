"""Ejercicio de la lección 02: corta un flujo de bytes en tramas, y drena otro sin bloquearlo nunca.

minimcp corta en mensajes el flujo stdio de MCP con saltos de línea
(``minimcp/transports/framing.py``) y sigue leyendo el stderr de un hijo para que el hijo no se
bloquee nunca (``minimcp/transports/process.py``). Tú construyes tres variaciones sobre esas dos
ideas:

1. **Tramas con prefijo de longitud**: una longitud de 4 bytes en big-endian y después exactamente
   esa cantidad de bytes. Admite datos binarios, y es el framing de muchos protocolos binarios.
   ¿Qué hace con una trama demasiado grande, y de qué *no* puede recuperarse?
2. **Secuencias de textos JSON** (RFC 7464): ``RS`` (el byte 0x1E), un texto JSON, ``LF``. ``RS``
   no puede aparecer nunca dentro de JSON, así que un lector que pierde el hilo encuentra el
   siguiente texto en el siguiente ``RS``.
3. **StderrTail**: lee un flujo hasta el final, guarda solo sus últimas líneas, con memoria acotada,
   y no deja nunca de leer, haga lo que haga el flujo o un callback.

El transporte stdio de MCP no usa ninguno de estos framings: su regla es un mensaje JSON por línea.
Cada uno está aquí porque compararlos enseña qué tiene que decidir un framing.

Comprueba tu trabajo con ``python tools/check.py 02 --lang es``.
"""

from __future__ import annotations

import collections
import json
from collections.abc import Callable
from typing import Any, Protocol

# =============================================================================================
# 1. Tramas con prefijo de longitud
# =============================================================================================

#: Bytes de la cabecera de longitud que va delante de cada trama.
HEADER_SIZE = 4


class FrameTooLarge(ValueError):
    """Una trama es mayor que el límite acordado."""


class TruncatedFrame(ValueError):
    """El flujo terminó a mitad de una trama."""


def encode_frame(payload: bytes, max_frame: int = 1 << 20) -> bytes:
    """Pon ``payload`` en una trama: su longitud en 4 bytes big-endian, y después el propio payload.

    ``encode_frame(b"hi") == b"\\x00\\x00\\x00\\x02hi"``. Quien envía se niega a enviar lo que el
    receptor rechazaría: lanza :class:`FrameTooLarge` cuando ``len(payload) > max_frame``.
    """
    # BEGIN SOLUTION: rechaza lo que pase de max_frame; antepón len(payload).to_bytes(4, "big")
    if len(payload) > max_frame:
        raise FrameTooLarge(f"a frame of {len(payload)} bytes exceeds the limit of {max_frame}")
    return len(payload).to_bytes(HEADER_SIZE, "big") + payload
    # END SOLUTION


class LengthPrefixDecoder:
    """Corta un flujo de bytes en tramas con prefijo de longitud. Sans-IO: entran bytes, salen
    tramas enteras.

    Las reglas:

    * Una trama es una longitud ``N`` de 4 bytes en big-endian seguida de exactamente ``N`` bytes.
      ``N`` puede ser 0.
    * Los bytes llegan en fragmentos cualesquiera: una cabecera puede quedar partida entre dos
      fragmentos, y un fragmento puede traer varias tramas y el principio de la siguiente.
    * Una trama más larga que ``max_frame`` se *rechaza*: avisa de ella una vez, añadiendo
      ``f"frame of {N} bytes exceeds the limit of {max_frame}"`` a :attr:`errors`, y después
      salta sus ``N`` bytes a medida que llegan, sin guardarlos. Las tramas que vienen detrás se
      decodifican con normalidad. (A diferencia de una línea, una trama rechazada es fácil de
      saltar: su cabecera dice exactamente cuánto mide.)
    * No hay ninguna otra forma de recuperarse. Nada en los bytes marca dónde empieza una trama,
      así que una sola longitud equivocada (un fallo, un ``print`` perdido en el flujo) desplaza
      todas las tramas que la siguen. El límite es la única defensa: una longitud basura suele ser
      enorme, y se rechaza en lugar de esperarla.

    Los mensajes de :attr:`errors` están en inglés: son los que comprueban las pruebas.
    """

    def __init__(self, max_frame: int = 1 << 20) -> None:
        self.max_frame = max_frame
        #: Un mensaje por trama rechazada, en orden.
        self.errors: list[str] = []
        self._buffer = bytearray()  # bytes recibidos y aún no devueltos: guarda aquí todo el estado
        # BEGIN SOLUTION: tu estado (p. ej. bytes por saltar de una trama rechazada); borra el raise
        self._skip = 0  # bytes de una trama rechazada que aún hay que tirar
        # END SOLUTION

    @property
    def buffered(self) -> int:
        """Cuántos bytes guarda el decodificador en este momento (nunca mucho más de ``max_frame +
        4``)."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[bytes]:
        """Recibe los siguientes bytes del flujo; devuelve las tramas que completan, en orden."""
        # BEGIN SOLUTION: salta el resto de una rechazada; bucle: cabecera, límite, ¿cuerpo entero?
        self._buffer += data
        frames: list[bytes] = []
        while True:
            if self._skip:  # tira el resto de una trama rechazada, a medida que llega
                dropped = min(self._skip, len(self._buffer))
                del self._buffer[:dropped]
                self._skip -= dropped
                if self._skip:
                    return frames
            if len(self._buffer) < HEADER_SIZE:
                return frames
            length = int.from_bytes(self._buffer[:HEADER_SIZE], "big")
            if length > self.max_frame:
                del self._buffer[:HEADER_SIZE]
                self._skip = length
                self.errors.append(f"frame of {length} bytes exceeds the limit of {self.max_frame}")
                continue
            if len(self._buffer) < HEADER_SIZE + length:
                return frames  # el cuerpo aún no ha llegado entero
            frames.append(bytes(self._buffer[HEADER_SIZE : HEADER_SIZE + length]))
            del self._buffer[: HEADER_SIZE + length]
        # END SOLUTION

    def finish(self) -> None:
        """El flujo ha terminado. Lanza :class:`TruncatedFrame` salvo que terminara entre dos
        tramas."""
        # BEGIN SOLUTION: algo aún guardado, o por saltar, es que el flujo paró a mitad de una trama
        if self._buffer or self._skip:
            raise TruncatedFrame(
                f"the stream ended inside a frame ({len(self._buffer)} bytes pending)"
            )
        # END SOLUTION


# =============================================================================================
# 2. Secuencias de textos JSON (RFC 7464)
# =============================================================================================

#: El separador de registros: el primer byte de cada texto de una secuencia de textos JSON.
RS = b"\x1e"
LF = b"\n"


def encode_json_seq(value: Any) -> bytes:
    """Un elemento de una secuencia de textos JSON: ``RS``, ``value`` como JSON UTF-8 compacto,
    ``LF``.

    ``encode_json_seq({"a": 1}) == b'\\x1e{"a":1}\\n'``. Deja los caracteres no ASCII en UTF-8
    (``ensure_ascii=False``): JSON sigue escapando todos los caracteres de control, ``RS``
    incluido.
    """
    # BEGIN SOLUTION
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return RS + text.encode("utf-8") + LF
    # END SOLUTION


class JsonSeqDecoder:
    """Decodifica una secuencia de textos JSON de la RFC 7464, y se recupera de cualquier basura que
    encuentre.

    ``RS`` no puede aparecer nunca dentro de un texto JSON: JSON escapa los caracteres de control
    de las cadenas y entre dos tokens solo admite espacio, tabulador, CR y LF. Así que un ``RS``
    siempre empieza un texto nuevo, y un lector que se topa con basura descarta los bytes hasta el
    siguiente ``RS`` y sigue adelante.

    Las reglas:

    * Un texto empieza tras un ``RS``. Varios ``RS`` seguidos no son un problema; un elemento vacío
      o hecho solo de espacios en blanco se ignora.
    * Un texto está completo en cuanto termina en ``LF`` y sus bytes (UTF-8) se analizan como JSON:
      devuelve su valor en ese mismo momento, sin esperar al siguiente ``RS``. Un texto con sangría
      lleva varios ``LF``: intenta analizarlo en cada uno; si aún no se puede, sigue leyendo.
    * El ``LF`` es lo que completa un texto: ``RS 1 2`` seguido de ``RS`` es un ``123``
      *truncado*, no el número 12.
    * Cuando llega un ``RS`` o el final del flujo y el texto en curso no está completo, descártalo
      y avisa con ``"truncated"`` si no termina en ``LF``, o con ``"invalid"`` si termina en él
      (termina en ``LF`` y aun así no se puede analizar, o no es UTF-8).
    * Los bytes anteriores al primer ``RS``, y los que no son espacios en blanco entre un texto
      completo y el siguiente ``RS``, se descartan y se avisa de ellos con ``"garbage"`` (una vez
      por cada tramo seguido de ellos).
    * Un texto que crece más allá de ``max_text`` bytes sin completarse se avisa una vez como
      ``"too large"`` y se salta hasta el siguiente ``RS`` sin guardarlo.

    Cada aviso añade su palabra (``"garbage"``, ``"truncated"``, ``"invalid"`` o ``"too large"``)
    a :attr:`errors`. Las palabras están en inglés: son las que comprueban las pruebas.
    """

    def __init__(self, max_text: int = 1 << 20) -> None:
        self.max_text = max_text
        #: Una palabra por cada trozo descartado del flujo, en orden.
        self.errors: list[str] = []
        self._buffer = bytearray()  # el texto en curso (tras su RS), hasta donde ha llegado
        # BEGIN SOLUTION: estado: ¿aún sin RS?, ¿en un texto?, ¿tras uno?, ¿saltando? Borra el raise
        # Dónde estamos: "start" (aún no se ha visto ningún RS), "text" (dentro de un texto),
        # "after" (el texto estaba completo; solo pueden seguir espacios en blanco), "skip"
        # (descartando un texto demasiado grande).
        self._state = "start"
        self._reported = False  # ya se ha avisado del tramo de basura en curso
        self._scanned = 0  # bytes del texto en curso en los que ya se ha buscado LF
        # END SOLUTION

    @property
    def buffered(self) -> int:
        """Cuántos bytes guarda el decodificador en este momento (nunca mucho más de
        ``max_text``)."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[Any]:
        """Recibe los siguientes bytes del flujo; devuelve los valores de los textos que
        completan."""
        # BEGIN SOLUTION: parte los datos en cada RS; trata lo anterior a cada RS según tu estado
        values: list[Any] = []
        pieces = bytes(data).split(RS)
        for index, piece in enumerate(pieces):
            if index > 0:  # antes de este trozo llegó un RS: lo que estuviera en curso acaba aquí
                self._end_element()
                self._state, self._reported = "text", False
            self._take(piece, values)
        return values

    def _take(self, piece: bytes, values: list[Any]) -> None:
        """Bytes sin ningún RS, en el estado en curso."""
        if self._state == "skip" or not piece:
            return
        if self._state in ("start", "after"):
            if piece.strip() and not self._reported:  # los espacios entre textos no hacen daño
                self.errors.append("garbage")
                self._reported = True
            return
        self._buffer += piece
        while True:  # dentro de un texto: ¿está completo en alguno de los LF nuevos?
            end = self._buffer.find(LF, self._scanned)
            if end < 0:
                self._scanned = len(self._buffer)
                if len(self._buffer) > self.max_text:
                    self.errors.append("too large")
                    self._buffer.clear()
                    self._scanned = 0
                    self._state = "skip"
                return
            self._scanned = end + 1
            if end + 1 > self.max_text:
                self.errors.append("too large")
                self._buffer.clear()
                self._scanned = 0
                self._state = "skip"
                return
            candidate = bytes(self._buffer[: end + 1])
            if not candidate.strip():
                continue  # de momento, solo espacios en blanco
            try:
                value = json.loads(candidate.decode("utf-8"))
            except ValueError:  # aún incompleto (o lo estará siempre: lo decide el próximo RS)
                continue
            values.append(value)
            rest = bytes(self._buffer[end + 1 :])
            self._buffer.clear()
            self._scanned = 0
            self._state, self._reported = "after", False
            self._take(rest, values)  # hasta el siguiente RS solo pueden venir espacios en blanco
            return

    def _end_element(self) -> None:
        """Un RS o el final del flujo: de un texto sin terminar se avisa, y se descarta."""
        if self._state == "text" and self._buffer.strip():
            self.errors.append("invalid" if self._buffer.endswith(LF) else "truncated")
        self._buffer.clear()
        self._scanned = 0
        # END SOLUTION

    def finish(self) -> None:
        """El flujo ha terminado: avisa del texto sin terminar, si lo hay (mira las reglas)."""
        # BEGIN SOLUTION
        self._end_element()
        self._state, self._reported = "start", False
        # END SOLUTION


# =============================================================================================
# 3. StderrTail: drenar un flujo sin bloquearlo nunca
# =============================================================================================


class ByteReader(Protocol):
    """Cualquier cosa con ``await read(n)`` que devuelva hasta ``n`` bytes, y ``b""`` al final.

    ``asyncio.StreamReader`` (el ``process.stderr`` de un hijo) es una de ellas.
    """

    async def read(self, n: int) -> bytes: ...


class StderrTail:
    """Lee un flujo (el stderr de un hijo) hasta el final del todo, y guarda solo sus últimas
    líneas.

    Un hijo que escribe en un pipe que nadie lee se bloquea en cuanto se llena el buffer del pipe
    (64 KiB en Linux). Así que el lector tiene que seguir leyendo *pase lo que pase*, con una
    memoria que siga acotada *escriba lo que escriba* el hijo. Las reglas:

    * :meth:`drain` lee con ``await reader.read(chunk_size)`` hasta que devuelve ``b""``. Nunca
      ``readline()``: en un ``asyncio.StreamReader`` lanza ``ValueError`` con una línea más larga
      que el límite del lector, y eso detendría el drenaje.
    * Una línea termina en ``LF``; un ``CR`` justo antes se quita. Al final del flujo, una última
      línea sin ``LF`` también cuenta (si no está vacía).
    * Decodifica cada *línea* como UTF-8 con ``errors="replace"``, no cada fragmento: un carácter
      cuyos bytes quedan partidos entre dos lecturas tiene que salir entero.
    * Guarda solo las últimas ``max_lines`` líneas (:attr:`lines`).
    * Una línea de más de ``max_line_bytes`` bytes se guarda recortada: sus primeros
      ``max_line_bytes`` bytes, decodificados, seguidos de ``"…"``. El resto de esa línea se lee y
      se tira, sin guardarlo nunca.
    * ``on_line(line)`` se llama para cada línea, en orden, con el mismo texto que recibe
      :attr:`lines`. Si lanza una excepción, suma uno a :attr:`callback_errors` y sigue: un
      callback roto no debe detener nunca el drenaje (el hijo se bloquearía).
    """

    def __init__(
        self,
        max_lines: int = 20,
        max_line_bytes: int = 1000,
        on_line: Callable[[str], None] | None = None,
        chunk_size: int = 64 * 1024,
    ) -> None:
        self.max_lines = max_lines
        self.max_line_bytes = max_line_bytes
        self.on_line = on_line
        self.chunk_size = chunk_size
        #: Cuántas veces lanzó una excepción ``on_line``.
        self.callback_errors = 0
        # BEGIN SOLUTION: tu estado: líneas guardadas (deque con maxlen), línea a medias, ¿cortada?
        self._lines: collections.deque[str] = collections.deque(maxlen=max_lines)
        self._partial = bytearray()  # la línea en curso hasta ahora, como mucho max_line_bytes
        self._cut = False  # la línea en curso era más larga que max_line_bytes
        # END SOLUTION

    @property
    def lines(self) -> list[str]:
        """Las últimas ``max_lines`` líneas, de la más antigua a la más nueva."""
        # BEGIN SOLUTION
        return list(self._lines)
        # END SOLUTION

    async def drain(self, reader: ByteReader) -> None:
        """Lee ``reader`` hasta el final, línea a línea, siguiendo las reglas de arriba."""
        # BEGIN SOLUTION: read(chunk_size) hasta b""; parte cada fragmento en LF; limita la línea
        while True:
            chunk = await reader.read(self.chunk_size)
            if not chunk:
                break
            start = 0
            while True:
                end = chunk.find(LF, start)
                if end < 0:
                    self._append(chunk[start:])
                    break
                self._append(chunk[start:end])
                self._end_line()
                start = end + 1
        if self._partial or self._cut:  # la última línea no tenía LF: cuenta igualmente
            self._end_line()

    def _append(self, data: bytes) -> None:
        """Añade bytes a la línea en curso, guardando como mucho max_line_bytes (+1, por un CR)."""
        room = self.max_line_bytes + 1 - len(self._partial)
        if len(data) > room:
            self._cut = True
        self._partial += data[: max(room, 0)]

    def _end_line(self) -> None:
        raw = bytes(self._partial)
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        cut = self._cut or len(raw) > self.max_line_bytes
        line = raw[: self.max_line_bytes].decode("utf-8", "replace") + ("…" if cut else "")
        self._partial.clear()
        self._cut = False
        self._lines.append(line)
        if self.on_line is not None:
            try:
                self.on_line(line)
            except Exception:  # un callback no detiene nunca el drenaje
                self.callback_errors += 1
        # END SOLUTION
