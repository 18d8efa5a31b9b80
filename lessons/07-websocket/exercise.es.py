# ----------------------------------------------------------------------------------------
# Lección 07-websocket: tu ejercicio.
#
# 1. Lee los docstrings de abajo: cada parte te dice exactamente qué construir.
# 2. Sustituye cada `raise NotImplementedError(...)`, bajo su POR HACER, por tu código.
# 3. Comprueba tu trabajo, tantas veces como quieras:  python tools/check.py 07 --lang es
#
# ¿Atascado del todo? Hay una solución resuelta en solutions/07-websocket/exercise.es.py.
# Este archivo es tuyo: una versión nueva del curso puede reemplazarlo, así que guarda una copia.
# ----------------------------------------------------------------------------------------
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
    # POR HACER: el byte i del resultado es data[i] ^ key[i % 4]
    raise NotImplementedError("apply_mask")


def encode_frame(frame: Frame, mask_key: bytes | None = None) -> bytes:
    """Los bytes de ``frame`` tal como viajan, enmascarados con ``mask_key`` si se da una.

    Lanza ValueError para una trama que nadie puede enviar: un opcode desconocido, una trama de
    control fragmentada (fin False) o de más de 125 bytes, o una clave de máscara que no tiene 4
    bytes.

    >>> encode_frame(Frame(TEXT, b"Hello")).hex()
    '810548656c6c6f'
    """
    # POR HACER: byte 1 FIN|opcode; byte 2 MASK|longitud (7 bits; 126 + 2 bytes; 127 + 8)
    raise NotImplementedError("encode_frame")


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
    # POR HACER: la cabecera paso a paso (None si falta), cada regla, y luego desenmascara
    raise NotImplementedError("decode_frame")


def _payload_length(buffer: bytes) -> tuple[int, int] | None:
    """La longitud de la carga útil que da la cabecera del principio de ``buffer``, y dónde sigue
    la cabecera después (la clave de enmascaramiento, o la carga útil); None mientras falten los
    bytes de la longitud.

    Los 7 bits del segundo byte son la longitud, o 126 (y entonces la llevan 2 bytes más) o 127
    (y entonces 8 más). Lanza ProtocolError para una longitud que no está codificada en el menor
    número de bytes, y para una longitud de 64 bits con el bit más alto activo.
    """
    # POR HACER: 126: desempaqueta 2 bytes más ("!H"); 127: 8 más ("!Q"); ¿hacían falta?
    raise NotImplementedError("_payload_length")


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
    # POR HACER: comprueba el código, empaquétalo big-endian, añade el motivo, mide la longitud
    raise NotImplementedError("close_payload")


def parse_close(payload: bytes) -> tuple[int, str]:
    """El código y el motivo de la carga útil de una trama de cierre: ``(1005, "")`` si está vacía.

    Lanza ProtocolError 1002 para una carga de 1 byte o un código que nadie puede enviar, y
    ProtocolError 1007 para un motivo que no es UTF-8.

    >>> parse_close(bytes.fromhex("03e8627965"))
    (1000, 'bye')
    """
    # POR HACER: vacía → 1005; un byte → error; si no, desempaqueta y comprueba; decodifica
    raise NotImplementedError("parse_close")


def fragment(opcode: int, payload: bytes, size: int) -> list[Frame]:
    """Un mensaje como tramas de como mucho ``size`` bytes de carga: la primera trama lleva
    ``opcode``, las demás CONTINUATION, y solo la última lleva FIN. Una carga vacía es una sola
    trama.

    Lanza ValueError para un opcode de control (las tramas de control nunca se fragmentan) o un
    tamaño menor que 1.

    >>> fragment(TEXT, b"Hello", 3)
    [Frame(opcode=1, payload=b'Hel', fin=False), Frame(opcode=0, payload=b'lo', fin=True)]
    """
    # POR HACER: corta la carga cada `size` bytes; opcode en la primera, FIN en la última
    raise NotImplementedError("fragment")


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
        # POR HACER: recuerda el límite, el opcode del mensaje sin terminar y sus trozos
        raise NotImplementedError("__init__")

    def feed(self, frame: Frame) -> tuple[int, bytes] | None:
        # POR HACER: las de control pasan; las de datos empiezan, siguen y acaban un mensaje
        raise NotImplementedError("feed")


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
    # POR HACER: sha1((key + GUID) en ASCII), y luego el base64 del resumen de 20 bytes
    raise NotImplementedError("accept_key")


def header_values(headers: Headers, name: str) -> list[str]:
    """Todos los valores de la cabecera ``name`` (con mayúsculas o minúsculas), en orden: cada
    lista separada por comas, partida; cada elemento, sin espacios en los extremos; los vacíos,
    fuera.

    >>> header_values([("Connection", "keep-alive, Upgrade"), ("connection", " x ,")], "CONNECTION")
    ['keep-alive', 'Upgrade', 'x']
    """
    # POR HACER: las de ese nombre (sin mirar mayúsculas), parte cada valor por ",", strip
    raise NotImplementedError("header_values")


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
    # POR HACER: las ocho comprobaciones, en orden; luego las cuatro cabeceras de la respuesta
    raise NotImplementedError("check_upgrade")


def _origin_allowed(origin: str, allowed_origins: Iterable[str]) -> bool:
    # POR HACER: en la lista (normalizado), o http(s) en un host de loopback
    raise NotImplementedError("_origin_allowed")


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
        # POR HACER: un nombre, un deque, marcas de "echado" e "ido", cómo despertar al lector
        raise NotImplementedError("__init__")

    @property
    def pending(self) -> int:
        raise NotImplementedError("pending")

    async def next(self) -> str | None:
        """El siguiente mensaje, esperando a que llegue; None una vez que este miembro ha sido
        echado o se ha ido."""
        # POR HACER: bucle: un mensaje → devuélvelo; ido → None; si no, espera a que te avisen
        raise NotImplementedError("next")


class Hub:
    """Reparto con una cola acotada por miembro: a un miembro lento se le echa, nunca se le
    espera."""

    def __init__(self, limit: int = 8) -> None:
        # POR HACER: el límite, y los miembros en orden de entrada (un dict guarda el orden)
        raise NotImplementedError("__init__")

    @property
    def members(self) -> list[str]:
        raise NotImplementedError("members")

    def join(self, name: str) -> Member:
        # POR HACER: rechaza un nombre cogido; añade un Member con el límite de este hub
        raise NotImplementedError("join")

    def leave(self, name: str) -> None:
        # POR HACER: quita el miembro y termínalo (cola vacía, lectores despiertos)
        raise NotImplementedError("leave")

    def publish(self, message: str) -> list[str]:
        """Pone ``message`` en la cola de cada miembro; echa a los que la tienen llena. Devuelve los
        nombres echados."""
        # POR HACER: por miembro: llena → échalo (y apunta su nombre); si no, añade el mensaje
        raise NotImplementedError("publish")

    def _end(self, member: Member) -> None:
        raise NotImplementedError("_end")
