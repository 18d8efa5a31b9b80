# ----------------------------------------------------------------------------------------
# Lección 10-authorization: tu ejercicio.
#
# 1. Lee los docstrings de abajo: cada parte te dice exactamente qué construir.
# 2. Sustituye cada `raise NotImplementedError(...)`, bajo su POR HACER, por tu código.
# 3. Comprueba tu trabajo, tantas veces como quieras:  python tools/check.py 10 --lang es
#
# ¿Atascado del todo? Hay una solución resuelta en solutions/10-authorization/exercise.es.py.
# Este archivo es tuyo: una versión nueva del curso puede reemplazarlo, así que guarda una copia.
# ----------------------------------------------------------------------------------------
"""Ejercicio de la lección 10: tres reglas que hacen segura la autorización de MCP, escritas a mano.

1. **PKCE, en los dos extremos** (RFC 7636). El cliente crea un verificador secreto y, con la
   petición de autorización, envía solo su hash S256; después, el servidor de autorización
   comprueba que el verificador de la petición de token da ese hash. Escribe las reglas del
   verificador, el hash y la comprobación del servidor, que rechaza lo que rebaja la protección
   (``plain``, o ningún desafío).
2. **¿Qué hace ahora el cliente?** Un servidor protegido responde ``401`` o ``403`` con un desafío
   ``WWW-Authenticate``. Léelo (varios desafíos, cadenas entre comillas, escapes) y decide el
   siguiente paso del cliente: autorizar, hacer step-up a más scopes, o rendirse.
3. **Este token, ¿es para mí?** Un servidor de recursos tiene que rechazar un token emitido para
   otro recurso (el confused deputy). Compara el ``aud`` de un token con la URI canónica de este
   servidor como lo describen el RFC 8707 y la especificación: esquema y host sin distinguir
   mayúsculas de minúsculas, puertos por defecto, sin barra final, nunca un fragmento.

Comprueba tu trabajo con ``python tools/check.py 10 --lang es``. Solo hace falta la biblioteca
estándar.
"""

from __future__ import annotations

import base64
import hashlib
import re
from urllib.parse import urlsplit

# =================================================================================================
# Parte 1 · PKCE, en los dos extremos (RFC 7636, secciones 4.1 a 4.6)
# =================================================================================================
#
#   * un verificador tiene de 43 a 128 caracteres de [A-Z] [a-z] [0-9] "-" "." "_" "~" (sección 4.1)
#   * make_verifier(secret): la codificación base64url de los bytes del secreto, sin el relleno "=";
#     al menos 32 bytes de secreto (si no, ValueError: el verificador tiene que llevar aleatoriedad
#     suficiente)
#   * s256(verifier) = BASE64URL(SHA256(ASCII(verifier))), sin relleno (sección 4.2)
#   * check_pkce(verifier, challenge, method): lo que decide el endpoint de tokens; lanza PkceError
#     con el motivo, palabra por palabra (en inglés: son las cadenas que comprueban las pruebas):
#       - no se envió ningún desafío ................. "PKCE is required"
#       - method no es "S256" ("plain", "", ...) ..... "only S256 is accepted"
#       - el verificador incumple la sección 4.1 ..... "malformed code_verifier"
#       - s256(verifier) != challenge ................ "code_verifier does not match"

VERIFIER = re.compile(r"[A-Za-z0-9\-._~]{43,128}")


class PkceError(ValueError):
    """La petición de token no supera PKCE; el mensaje dice por qué."""


def make_verifier(secret: bytes) -> str:
    """Un code_verifier a partir de al menos 32 bytes aleatorios."""
    # POR HACER: rechaza los secretos cortos; base64url sin relleno
    raise NotImplementedError("make_verifier")


def s256(verifier: str) -> str:
    """El code_challenge S256 de un verificador."""
    # POR HACER: sha256 de los bytes ASCII, base64url sin relleno
    raise NotImplementedError("s256")


def check_pkce(verifier: str, challenge: str | None, method: str | None) -> None:
    """Lanza PkceError salvo que ``verifier`` demuestre ser de la petición que envió ``challenge``
    con ``method``."""
    # POR HACER: las cuatro comprobaciones, en el orden del comentario de arriba
    raise NotImplementedError("check_pkce")


# =================================================================================================
# Parte 2 · ¿Qué hace ahora el cliente? (RFC 6750, sección 3; RFC 9110, sección 11.6.1)
# =================================================================================================
#
# parse_challenges(header) -> {esquema (en minúsculas): {parámetro (en minúsculas): valor}}
#   Una cabecera lleva uno o más desafíos: un esquema y después parámetros "nombre=valor" separados
#   por comas; un valor es un token o una "cadena entre comillas" en la que \x representa x. Un
#   esquema nuevo empieza un desafío nuevo.
#     'Basic realm="x", Bearer scope="a b", error="insufficient_scope"'
#       -> {"basic": {"realm": "x"}, "bearer": {"scope": "a b", "error": "insufficient_scope"}}
#
# next_step(status, header) -> una cadena:
#   * status 401 ................................. "authorize"  (aún no hay token, o es malo:
#                                                                se empieza de nuevo)
#   * status 403 con error Bearer insufficient_scope y un scope ... "step-up:" + el scope
#   * cualquier otra cosa (403 por otros motivos, 500, 200...) .... "give-up"

PARAM = re.compile(r'\s*([A-Za-z0-9_\-.]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s,"]+)\s*(?:,|$)')
SCHEME = re.compile(r"\s*,?\s*([A-Za-z0-9_\-.]+)(?=\s|,|$)")


def parse_challenges(header: str) -> dict[str, dict[str, str]]:
    """Los desafíos de una cabecera WWW-Authenticate."""
    # POR HACER: alterna: un parámetro si empieza aquí (y hay un desafío abierto), o un esquema
    raise NotImplementedError("parse_challenges")


def next_step(status: int, header: str) -> str:
    """Lo que hace el cliente con la respuesta de un servidor protegido."""
    # POR HACER: 401 autoriza; 403 insufficient_scope con scope hace step-up; si no, rendirse
    raise NotImplementedError("next_step")


# =================================================================================================
# Parte 3 · Este token, ¿es para mí? (RFC 8707, y la "Canonical Server URI" de la especificación)
# =================================================================================================
#
# canonical(uri): la forma en la que se comparan dos URI; ValueError si no es una URI canónica
#   * tiene que tener esquema y host ("mcp.example.com" a secas: ValueError), y ningún fragmento
#     (ValueError)
#   * esquema y host en minúsculas; la ruta conserva sus mayúsculas y minúsculas
#   * se quita el puerto por defecto (":443" para https, ":80" para http)
#   * se quita la "/" final ("https://x.com/" y "https://x.com" son el mismo recurso)
#   canonical("HTTPS://MCP.Example.com:443/Tools/") == "https://mcp.example.com/Tools"
#
# audience_ok(aud, resource): el claim aud del token (una cadena, o una lista de cadenas) nombra
# este recurso.
#   Compara formas canónicas; un aud que no es una URI canónica simplemente no coincide (sin
#   error).

DEFAULT_PORTS = {"https": 443, "http": 80}


def canonical(uri: str) -> str:
    """Una URI en la forma en la que se comparan los recursos."""
    # POR HACER: divide; rechaza sin esquema, sin host o con fragmento; rehazla canónica
    raise NotImplementedError("canonical")


def audience_ok(aud: str | list[str] | None, resource: str) -> bool:
    """Si un token con este claim ``aud`` va destinado a ``resource``."""
    # POR HACER: los valores de aud, canónicos, frente al recurso canónico; los malos no valen
    raise NotImplementedError("audience_ok")
