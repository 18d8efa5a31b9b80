"""Ejercicio de la lección 07: la maquinaria de WebSocket que minimcp deja en manos de la biblioteca
websockets.

1. **Tramas** (RFC 6455, sección 5). minimcp le pasa una cadena a websockets y recibe una cadena;
   entre medias, cada mensaje se corta en tramas: una cabecera de 2 a 14 bytes (FIN, opcode, bit
   de máscara, una longitud de 7, 16 o 64 bits, la clave de enmascaramiento) y la carga útil.
   Escribe el códec de tramas, sin E/S (entran bytes, salen bytes, sin sockets): codificar,
   decodificar, enmascarar, tramas de cierre, fragmentación, y las reglas cuya infracción cierra
   una conexión con 1002, 1007 o 1009.
2. **El handshake de apertura** (RFC 6455, sección 4). Calcula ``Sec-WebSocket-Accept`` y
   comprueba una petición de upgrade como lo hace el servidor de minimcp antes de que exista
   ninguna sesión: la ruta (404), el ``Origin`` (403), las cabeceras de upgrade (426), la clave
   (400) y el subprotocolo ``mcp`` (400).
3. **Enviar a cada sesión, sin esperar a la más lenta.** ``Server.broadcast`` envía una
   notificación a una sesión tras otra y espera a cada una. Un cliente que ha dejado de leer hace
   esperar a todos los que van detrás. Escribe un hub que da a cada cliente una cola acotada y
   echa a un cliente cuya cola está llena, en lugar de bloquear a los demás.

Comprueba tu trabajo con ``python tools/check.py 07 --lang es``. Solo hace falta la biblioteca
estándar.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import struct
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

# =================================================================================================
# Parte 1 · Tramas (RFC 6455, sección 5)
# =================================================================================================
#
# El protocolo básico de tramas, bit a bit:
#
#   byte 0:  FIN (0x80) | RSV1 (0x40) | RSV2 (0x20) | RSV3 (0x10) | opcode (0x0F)
#   byte 1:  MASK (0x80) | longitud de la carga (0x7F): de 0 a 125 es la propia longitud;
#            126 significa "la longitud está en los 2 bytes siguientes" (big-endian, sin signo);
#            127 significa "la longitud está en los 8 bytes siguientes" (big-endian; el bit más
#            alto tiene que ser 0)
#   luego:   la clave de enmascaramiento de 4 bytes, si MASK está activo
#   luego:   la carga útil, con XOR con la clave (el byte i con key[i % 4]) si MASK está activo
#
# Las reglas que hace cumplir `decode_frame`, lanzando ProtocolError con el código de cierre que
# merece:
#   * RSV1, RSV2 y RSV3 tienen que ser 0 (no se ha negociado ninguna extensión) ............. 1002
#   * el opcode tiene que ser uno de los seis de abajo ..................................... 1002
#   * una trama de control (CLOSE, PING, PONG) tiene que llevar FIN y como mucho 125 bytes
#     de carga ............................................................................... 1002
#   * la longitud tiene que usar la forma más corta: 126 solo para 126–65535, 127 solo desde
#     65536 .................................................................................. 1002
#   * el bit más alto de una longitud de 64 bits tiene que ser 0 ........................... 1002
#   * require_mask=True (un servidor que lee a un cliente): se rechaza una trama sin máscara . 1002
#     require_mask=False (un cliente que lee a un servidor): se rechaza una trama con máscara  1002
#     require_mask=None: se aceptan las dos
#   * una carga más larga que max_size se rechaza en cuanto lo dice la cabecera, antes de que
#     lleguen sus bytes (nunca guardes en el búfer lo que vas a rechazar) ..................... 1009

CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
OPCODES = {CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG}
CONTROL = {CLOSE, PING, PONG}


class ProtocolError(Exception):
    """El otro extremo ha roto el protocolo; ``code`` es el código de cierre que hay que enviarle
    (1002, 1007 o 1009). Los mensajes están en inglés, como los demás mensajes de error de este
    archivo."""

    def __init__(self, message: str, code: int = 1002) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Frame:
    """Una trama, con su carga útil ya sin máscara."""

    opcode: int
    payload: bytes = b""
    fin: bool = True


def apply_mask(data: bytes, key: bytes) -> bytes:
    """XOR de ``data`` con la ``key`` de 4 bytes, repetida: enmascarar y desenmascarar son la misma
    operación.

    >>> apply_mask(b"Hello", bytes.fromhex("37fa213d")).hex()
    '7f9f4d5158'
    """
    # BEGIN SOLUTION: el byte i del resultado es data[i] ^ key[i % 4]
    return bytes(byte ^ key[index % 4] for index, byte in enumerate(data))
    # END SOLUTION


def encode_frame(frame: Frame, mask_key: bytes | None = None) -> bytes:
    """Los bytes de ``frame`` tal como viajan, enmascarados con ``mask_key`` si se da una.

    Lanza ValueError para una trama que nadie puede enviar: un opcode desconocido, una trama de
    control fragmentada (fin False) o de más de 125 bytes, o una clave de máscara que no tiene 4
    bytes.

    >>> encode_frame(Frame(TEXT, b"Hello")).hex()
    '810548656c6c6f'
    """
    # BEGIN SOLUTION: byte 1 FIN|opcode; byte 2 MASK|longitud (7 bits; 126 + 2 bytes; 127 + 8)
    if frame.opcode not in OPCODES:
        raise ValueError(f"unknown opcode {frame.opcode:#x}")
    if frame.opcode in CONTROL and (not frame.fin or len(frame.payload) > 125):
        raise ValueError("a control frame has FIN set and at most 125 bytes")
    if mask_key is not None and len(mask_key) != 4:
        raise ValueError("a masking key is 4 bytes")
    head = bytes([(0x80 if frame.fin else 0) | frame.opcode])
    mask_bit = 0x80 if mask_key is not None else 0
    length = len(frame.payload)
    if length < 126:
        head += bytes([mask_bit | length])
    elif length < 1 << 16:
        head += bytes([mask_bit | 126]) + struct.pack("!H", length)
    else:
        head += bytes([mask_bit | 127]) + struct.pack("!Q", length)
    if mask_key is None:
        return head + frame.payload
    return head + mask_key + apply_mask(frame.payload, mask_key)
    # END SOLUTION


def decode_frame(
    buffer: bytes, *, require_mask: bool | None = None, max_size: int | None = None
) -> tuple[Frame, int] | None:
    """La primera trama de ``buffer`` y cuántos bytes ocupa, o None si aún no ha llegado entera.

    Lanza ProtocolError (con su código de cierre) para todo lo que rechazan las reglas de arriba;
    una trama que rompe una regla se rechaza en cuanto su cabecera lo muestra, aunque su carga útil
    aún no haya llegado.

    >>> decode_frame(bytes.fromhex("810548656c6c6f"))
    (Frame(opcode=1, payload=b'Hello', fin=True), 7)
    >>> decode_frame(bytes.fromhex("8105486c")) is None
    True
    """
    # BEGIN SOLUTION: la cabecera paso a paso (None si falta), cada regla, y luego desenmascara
    if len(buffer) < 2:
        return None
    first, second = buffer[0], buffer[1]
    fin = bool(first & 0x80)
    opcode = first & 0x0F
    masked = bool(second & 0x80)
    length = second & 0x7F
    if first & 0x70:
        raise ProtocolError("reserved bits set, but no extension was negotiated")
    if opcode not in OPCODES:
        raise ProtocolError(f"unknown opcode {opcode:#x}")
    if opcode in CONTROL and (not fin or length > 125):
        raise ProtocolError("a control frame must not be fragmented or longer than 125 bytes")
    if require_mask is True and not masked:
        raise ProtocolError("a client's frames must be masked")
    if require_mask is False and masked:
        raise ProtocolError("a server's frames must not be masked")
    found = _payload_length(buffer)
    if found is None:
        return None
    length, position = found
    if max_size is not None and length > max_size:
        raise ProtocolError(f"frame of {length} bytes exceeds the limit of {max_size}", code=1009)
    key = b""
    if masked:
        if len(buffer) < position + 4:
            return None
        key = buffer[position : position + 4]
        position += 4
    if len(buffer) < position + length:
        return None
    payload = buffer[position : position + length]
    if masked:
        payload = apply_mask(payload, key)
    return Frame(opcode, bytes(payload), fin), position + length
    # END SOLUTION


def _payload_length(buffer: bytes) -> tuple[int, int] | None:
    """La longitud de la carga útil que da la cabecera del principio de ``buffer``, y dónde sigue
    la cabecera después (la clave de enmascaramiento, o la carga útil); None mientras falten los
    bytes de la longitud.

    Los 7 bits del segundo byte son la longitud, o 126 (y entonces la llevan 2 bytes más) o 127
    (y entonces 8 más). Lanza ProtocolError para una longitud que no está codificada en el menor
    número de bytes, y para una longitud de 64 bits con el bit más alto activo.
    """
    # BEGIN SOLUTION: 126: desempaqueta 2 bytes más ("!H"); 127: 8 más ("!Q"); ¿hacían falta?
    length = buffer[1] & 0x7F
    if length == 126:
        if len(buffer) < 4:
            return None
        (length,) = struct.unpack("!H", buffer[2:4])
        if length < 126:
            raise ProtocolError("the length must be encoded in the fewest bytes")
        return length, 4
    if length == 127:
        if len(buffer) < 10:
            return None
        (length,) = struct.unpack("!Q", buffer[2:10])
        if length >> 63:
            raise ProtocolError("the top bit of a 64-bit length must be 0")
        if length < 1 << 16:
            raise ProtocolError("the length must be encoded in the fewest bytes")
        return length, 10
    return length, 2
    # END SOLUTION


# La carga útil de una trama de cierre está vacía, o es un código de 2 bytes (big-endian) seguido
# de un motivo en UTF-8. Los códigos que el otro extremo puede poner en una trama de cierre
# (RFC 6455, sección 7.4, y el registro de la IANA): 1000–1003 y 1007–1014 (1004 está reservado;
# 1005, 1006 y 1015 son solo para informar, nunca se envían), y 3000–4999 (registrados y de uso
# privado). 1005 significa "la trama de cierre no traía código".


def valid_close_code(code: int) -> bool:
    return 1000 <= code <= 1003 or 1007 <= code <= 1014 or 3000 <= code <= 4999


def close_payload(code: int, reason: str = "") -> bytes:
    """La carga útil de una trama de cierre: el código en 2 bytes, y luego el motivo en UTF-8.

    Lanza ValueError para un código que nadie puede enviar, o para una carga de más de 125 bytes.

    >>> close_payload(1000, "bye").hex()
    '03e8627965'
    """
    # BEGIN SOLUTION: comprueba el código, empaquétalo big-endian, añade el motivo, mide la longitud
    if not valid_close_code(code):
        raise ValueError(f"{code} may not be sent in a close frame")
    payload = struct.pack("!H", code) + reason.encode("utf-8")
    if len(payload) > 125:
        raise ValueError("a close frame carries at most 125 bytes")
    return payload
    # END SOLUTION


def parse_close(payload: bytes) -> tuple[int, str]:
    """El código y el motivo de la carga útil de una trama de cierre: ``(1005, "")`` si está vacía.

    Lanza ProtocolError 1002 para una carga de 1 byte o un código que nadie puede enviar, y
    ProtocolError 1007 para un motivo que no es UTF-8.

    >>> parse_close(bytes.fromhex("03e8627965"))
    (1000, 'bye')
    """
    # BEGIN SOLUTION: vacía → 1005; un byte → error; si no, desempaqueta y comprueba; decodifica
    if not payload:
        return 1005, ""
    if len(payload) == 1:
        raise ProtocolError("a close payload has a 2-byte code")
    (code,) = struct.unpack("!H", payload[:2])
    if not valid_close_code(code):
        raise ProtocolError(f"invalid close code {code}")
    try:
        return code, payload[2:].decode("utf-8")
    except UnicodeDecodeError:
        raise ProtocolError("the close reason is not UTF-8", code=1007) from None
    # END SOLUTION


def fragment(opcode: int, payload: bytes, size: int) -> list[Frame]:
    """Un mensaje como tramas de como mucho ``size`` bytes de carga: la primera trama lleva
    ``opcode``, las demás CONTINUATION, y solo la última lleva FIN. Una carga vacía es una sola
    trama.

    Lanza ValueError para un opcode de control (las tramas de control nunca se fragmentan) o un
    tamaño menor que 1.

    >>> fragment(TEXT, b"Hello", 3)
    [Frame(opcode=1, payload=b'Hel', fin=False), Frame(opcode=0, payload=b'lo', fin=True)]
    """
    # BEGIN SOLUTION: corta la carga cada `size` bytes; opcode en la primera, FIN en la última
    if opcode not in (TEXT, BINARY):
        raise ValueError("only TEXT and BINARY messages are fragmented")
    if size < 1:
        raise ValueError("a fragment holds at least one byte")
    pieces = [payload[start : start + size] for start in range(0, len(payload), size)] or [b""]
    return [
        Frame(opcode if index == 0 else CONTINUATION, piece, fin=index == len(pieces) - 1)
        for index, piece in enumerate(pieces)
    ]
    # END SOLUTION


class Reassembler:
    """Entran tramas, salen mensajes enteros: lo que hace ``websocket.recv()`` por debajo.

    ``feed(frame)`` devuelve ``(opcode, payload)`` cuando un mensaje está completo; si no, None:

    * una trama de control (CLOSE, PING, PONG) se devuelve enseguida, incluso entre los fragmentos
      de un mensaje (así pasa un ping durante una subida larga);
    * una trama TEXT o BINARY empieza un mensaje; las tramas CONTINUATION le añaden; la trama con
      FIN lo completa, y se devuelve con el opcode de la primera trama;
    * una CONTINUATION sin ningún mensaje empezado, o una TEXT o BINARY mientras hay uno sin
      terminar, es un ProtocolError 1002; un mensaje que crece más allá de ``max_size`` bytes,
      1009; un mensaje TEXT completo que no es UTF-8, 1007.
    """

    def __init__(self, max_size: int | None = None) -> None:
        # BEGIN SOLUTION: recuerda el límite, el opcode del mensaje sin terminar y sus trozos
        self.max_size = max_size
        self._opcode: int | None = None  # el opcode del mensaje sin terminar, o None
        self._pieces: list[bytes] = []
        self._size = 0
        # END SOLUTION

    def feed(self, frame: Frame) -> tuple[int, bytes] | None:
        # BEGIN SOLUTION: las de control pasan; las de datos empiezan, siguen y acaban un mensaje
        if frame.opcode in CONTROL:
            return frame.opcode, frame.payload
        if frame.opcode == CONTINUATION:
            if self._opcode is None:
                raise ProtocolError("a continuation frame, but no message was started")
        elif self._opcode is not None:
            raise ProtocolError("a new message started before the last one finished")
        else:
            self._opcode, self._pieces, self._size = frame.opcode, [], 0
        self._size += len(frame.payload)
        if self.max_size is not None and self._size > self.max_size:
            raise ProtocolError(f"message exceeds the limit of {self.max_size} bytes", code=1009)
        self._pieces.append(frame.payload)
        if not frame.fin:
            return None
        opcode, payload = self._opcode, b"".join(self._pieces)
        self._opcode, self._pieces, self._size = None, [], 0
        if opcode == TEXT:
            try:
                payload.decode("utf-8")
            except UnicodeDecodeError:
                raise ProtocolError("a text message that is not UTF-8", code=1007) from None
        return opcode, payload
        # END SOLUTION


# =================================================================================================
# Parte 2 · El handshake de apertura (RFC 6455, sección 4)
# =================================================================================================
#
# El cliente envía un GET de HTTP/1.1 con estas cabeceras (los nombres no distinguen mayúsculas de
# minúsculas, y una cabecera puede aparecer varias veces; un valor separado por comas es una
# lista):
#
#   Upgrade: websocket                  Connection: Upgrade           Sec-WebSocket-Version: 13
#   Sec-WebSocket-Key: <16 bytes aleatorios, en base64>               Sec-WebSocket-Protocol: mcp
#   Origin: <el origen de la página>  (solo los navegadores)
#
# `check_upgrade` las comprueba en este orden, y lanza HandshakeError con el primer fallo:
#
#   1. el método es GET ........................................ 405, con ("Allow", "GET")
#   2. la ruta, sin query string, es el endpoint ............... 404
#   3. como mucho una cabecera Origin .......................... 400
#      y, si hay una, está permitida ........................... 403
#        permitido: un origen de la lista `allowed_origins` (sin contar mayúsculas/minúsculas ni
#        una "/" final), o http:// o https:// con el host localhost, 127.0.0.1 o [::1], en
#        cualquier puerto
#   4. los valores de Upgrade incluyen "websocket" (sin distinguir mayúsculas) ... 426,
#                                                    con ("Upgrade", "websocket")
#   5. los valores de Connection incluyen "upgrade" (sin distinguir mayúsculas) .. 426,
#                                                    con ("Upgrade", "websocket")
#   6. exactamente un Sec-WebSocket-Version, y es "13" ......... 426,
#                                                    con ("Sec-WebSocket-Version", "13")
#   7. exactamente un Sec-WebSocket-Key, y es el base64 de 16 bytes ..... 400
#   8. los valores de Sec-WebSocket-Protocol incluyen el subprotocolo ... 400
#
# Si todo va bien, devuelve las cabeceras de la respuesta "101 Switching Protocols", en este orden:
#   [("Upgrade", "websocket"), ("Connection", "Upgrade"),
#    ("Sec-WebSocket-Accept", accept_key(key)), ("Sec-WebSocket-Protocol", subprotocol)]

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # la cadena fija del RFC 6455, igual para todos
Headers = Sequence[tuple[str, str]]


class HandshakeError(Exception):
    """Un upgrade rechazado: el ``status`` HTTP con el que responder, y las ``headers`` que lo
    acompañan."""

    def __init__(self, status: int, message: str, headers: Sequence[tuple[str, str]] = ()) -> None:
        super().__init__(message)
        self.status = status
        self.headers = list(headers)


def accept_key(key: str) -> str:
    """``Sec-WebSocket-Accept``: el base64 del SHA-1 de la clave seguida del GUID.

    Demuestra que el servidor leyó *esta* petición como un handshake de WebSocket (una caché o un
    servidor HTTP normal no podrían producirlo); no es un secreto, ni da seguridad.

    >>> accept_key("dGhlIHNhbXBsZSBub25jZQ==")
    's3pPLMBiTxaQ9kYGzzhZRbK+xOo='
    """
    # BEGIN SOLUTION: sha1((key + GUID) en ASCII), y luego el base64 del resumen de 20 bytes
    return base64.b64encode(hashlib.sha1((key + GUID).encode("ascii")).digest()).decode("ascii")
    # END SOLUTION


def header_values(headers: Headers, name: str) -> list[str]:
    """Todos los valores de la cabecera ``name`` (con mayúsculas o minúsculas), en orden: cada
    lista separada por comas, partida; cada elemento, sin espacios en los extremos; los vacíos,
    fuera.

    >>> header_values([("Connection", "keep-alive, Upgrade"), ("connection", " x ,")], "CONNECTION")
    ['keep-alive', 'Upgrade', 'x']
    """
    # BEGIN SOLUTION: las de ese nombre (sin mirar mayúsculas), parte cada valor por ",", strip
    values = []
    for header, value in headers:
        if header.lower() == name.lower():
            values += [item.strip() for item in value.split(",") if item.strip()]
    return values
    # END SOLUTION


def check_upgrade(
    method: str,
    path: str,
    headers: Headers,
    *,
    endpoint: str = "/mcp",
    subprotocol: str = "mcp",
    allowed_origins: Iterable[str] = (),
) -> list[tuple[str, str]]:
    """Las cabeceras de la respuesta 101 a una petición de upgrade válida, o HandshakeError (reglas
    de arriba)."""
    # BEGIN SOLUTION: las ocho comprobaciones, en orden; luego las cuatro cabeceras de la respuesta
    if method != "GET":
        raise HandshakeError(405, f"method {method} is not allowed", [("Allow", "GET")])
    if urlsplit(path).path != endpoint:
        raise HandshakeError(404, f"the endpoint is {endpoint}")
    origins = [value for header, value in headers if header.lower() == "origin"]
    if len(origins) > 1:
        raise HandshakeError(400, "more than one Origin header")
    if origins and not _origin_allowed(origins[0], allowed_origins):
        raise HandshakeError(403, f"origin {origins[0]!r} is not allowed")
    upgrade = [("Upgrade", "websocket")]
    if "websocket" not in [value.lower() for value in header_values(headers, "Upgrade")]:
        raise HandshakeError(426, "Upgrade must be websocket", upgrade)
    if "upgrade" not in [value.lower() for value in header_values(headers, "Connection")]:
        raise HandshakeError(426, "Connection must include Upgrade", upgrade)
    if header_values(headers, "Sec-WebSocket-Version") != ["13"]:
        raise HandshakeError(
            426, "only WebSocket version 13 is spoken", [("Sec-WebSocket-Version", "13")]
        )
    keys = [value for header, value in headers if header.lower() == "sec-websocket-key"]
    if len(keys) != 1:
        raise HandshakeError(400, "exactly one Sec-WebSocket-Key is needed")
    try:
        if len(base64.b64decode(keys[0].strip(), validate=True)) != 16:
            raise ValueError
    except (binascii.Error, ValueError):
        raise HandshakeError(400, "Sec-WebSocket-Key must be 16 bytes in base64") from None
    if subprotocol not in header_values(headers, "Sec-WebSocket-Protocol"):
        raise HandshakeError(400, f"the subprotocol {subprotocol!r} was not offered")
    return [
        ("Upgrade", "websocket"),
        ("Connection", "Upgrade"),
        ("Sec-WebSocket-Accept", accept_key(keys[0].strip())),
        ("Sec-WebSocket-Protocol", subprotocol),
    ]
    # END SOLUTION


def _origin_allowed(origin: str, allowed_origins: Iterable[str]) -> bool:
    # BEGIN SOLUTION: en la lista (normalizado), o http(s) en un host de loopback
    normal = origin.lower().rstrip("/")
    if normal in {allowed.lower().rstrip("/") for allowed in allowed_origins}:
        return True
    parts = urlsplit(origin)
    loopback = ("localhost", "127.0.0.1", "::1")
    return parts.scheme.lower() in ("http", "https") and (parts.hostname or "") in loopback
    # END SOLUTION


# =================================================================================================
# Parte 3 · Enviar a cada sesión, sin esperar a la más lenta
# =================================================================================================
#
# Un Hub reparte mensajes entre sus miembros. Cada miembro tiene su propia cola de como mucho
# `limit` mensajes, y un lector (la tarea que escribe en el socket de ese cliente) los recoge con
# `next()`.
#
#   * `publish(message)` es normal, no async: nunca espera. Pone el mensaje en la cola de cada
#     miembro del hub, en el orden en que entraron. A un miembro cuya cola ya está llena se le
#     *echa* en su lugar (los demás reciben el mensaje igualmente): sale del hub, sus mensajes en
#     cola se tiran, y `publish` devuelve los nombres echados esta vez, en orden de entrada.
#     (Un servidor cerraría ahora el socket de ese cliente; lo que no había leído se pierde.
#     WebSocket no tiene forma de reanudar: eso es la lección siguiente.)
#   * `join(name)` añade un miembro (ValueError si el nombre ya está cogido); `leave(name)` quita
#     uno (KeyError si no existe) y también tira su cola.
#   * `await member.next()` devuelve el siguiente mensaje del miembro, en orden, y espera a que
#     llegue uno si la cola está vacía; una vez echado el miembro, o cuando se ha ido, devuelve
#     None (enseguida, y todas las veces siguientes), y un `next()` que ya estaba esperando se
#     despierta con None.
#   * `member.dropped` es True una vez que el hub lo ha echado (no cuando se fue por su cuenta);
#     `member.pending` es cuántos mensajes esperan en su cola; `hub.members` enumera los nombres
#     que hay en el hub, en orden de entrada.


class Member:
    """Un cliente de un Hub: su cola y el estado que el hub guarda de él."""

    def __init__(self, name: str, limit: int) -> None:
        # BEGIN SOLUTION: un nombre, un deque, marcas de "echado" e "ido", cómo despertar al lector
        self.name = name
        self.limit = limit
        self.dropped = False
        self.gone = False  # echado, o se fue
        self._queue: deque[str] = deque()
        self._wakeup = asyncio.Event()
        # END SOLUTION

    @property
    def pending(self) -> int:
        # BEGIN SOLUTION
        return len(self._queue)
        # END SOLUTION

    async def next(self) -> str | None:
        """El siguiente mensaje, esperando a que llegue; None una vez que este miembro ha sido
        echado o se ha ido."""
        # BEGIN SOLUTION: bucle: un mensaje → devuélvelo; ido → None; si no, espera a que te avisen
        while True:
            if self._queue:
                return self._queue.popleft()
            if self.gone:
                return None
            self._wakeup.clear()
            await self._wakeup.wait()
        # END SOLUTION


class Hub:
    """Reparto con una cola acotada por miembro: a un miembro lento se le echa, nunca se le
    espera."""

    def __init__(self, limit: int = 8) -> None:
        # BEGIN SOLUTION: el límite, y los miembros en orden de entrada (un dict guarda el orden)
        if limit < 1:
            raise ValueError("a queue holds at least one message")
        self.limit = limit
        self._members: dict[str, Member] = {}
        # END SOLUTION

    @property
    def members(self) -> list[str]:
        # BEGIN SOLUTION
        return list(self._members)
        # END SOLUTION

    def join(self, name: str) -> Member:
        # BEGIN SOLUTION: rechaza un nombre cogido; añade un Member con el límite de este hub
        if name in self._members:
            raise ValueError(f"{name!r} is already a member")
        member = Member(name, self.limit)
        self._members[name] = member
        return member
        # END SOLUTION

    def leave(self, name: str) -> None:
        # BEGIN SOLUTION: quita el miembro y termínalo (cola vacía, lectores despiertos)
        member = self._members.pop(name)
        self._end(member)
        # END SOLUTION

    def publish(self, message: str) -> list[str]:
        """Pone ``message`` en la cola de cada miembro; echa a los que la tienen llena. Devuelve los
        nombres echados."""
        # BEGIN SOLUTION: por miembro: llena → échalo (y apunta su nombre); si no, añade el mensaje
        dropped = []
        for member in list(self._members.values()):
            if len(member._queue) >= self.limit:
                del self._members[member.name]
                member.dropped = True
                self._end(member)
                dropped.append(member.name)
            else:
                member._queue.append(message)
                member._wakeup.set()
        return dropped
        # END SOLUTION

    def _end(self, member: Member) -> None:
        # BEGIN SOLUTION
        member.gone = True
        member._queue.clear()
        member._wakeup.set()
        # END SOLUTION
