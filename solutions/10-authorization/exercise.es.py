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
    # BEGIN SOLUTION: rechaza los secretos cortos; base64url sin relleno
    if len(secret) < 32:
        raise ValueError("a verifier needs at least 32 bytes of randomness")
    return base64.urlsafe_b64encode(secret).rstrip(b"=").decode("ascii")
    # END SOLUTION


def s256(verifier: str) -> str:
    """El code_challenge S256 de un verificador."""
    # BEGIN SOLUTION: sha256 de los bytes ASCII, base64url sin relleno
    return (
        base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii")).digest())
        .rstrip(b"=")
        .decode("ascii")
    )
    # END SOLUTION


def check_pkce(verifier: str, challenge: str | None, method: str | None) -> None:
    """Lanza PkceError salvo que ``verifier`` demuestre ser de la petición que envió ``challenge``
    con ``method``."""
    # BEGIN SOLUTION: las cuatro comprobaciones, en el orden del comentario de arriba
    if not challenge:
        raise PkceError("PKCE is required")
    if method != "S256":
        raise PkceError("only S256 is accepted")
    if not VERIFIER.fullmatch(verifier):
        raise PkceError("malformed code_verifier")
    if s256(verifier) != challenge:
        raise PkceError("code_verifier does not match")
    # END SOLUTION


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
    # BEGIN SOLUTION: alterna: un parámetro si empieza aquí (y hay un desafío abierto), o un esquema
    challenges: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    position = 0
    while position < len(header):
        param = PARAM.match(header, position)
        if param is not None and current is not None:
            value = param.group(2)
            if value.startswith('"'):
                value = re.sub(r"\\(.)", r"\1", value[1:-1])
            current[param.group(1).lower()] = value
            position = param.end()
            continue
        scheme = SCHEME.match(header, position)
        if scheme is None:
            break
        current = challenges.setdefault(scheme.group(1).lower(), {})
        position = scheme.end()
    return challenges
    # END SOLUTION


def next_step(status: int, header: str) -> str:
    """Lo que hace el cliente con la respuesta de un servidor protegido."""
    # BEGIN SOLUTION: 401 autoriza; 403 insufficient_scope con scope hace step-up; si no, rendirse
    if status == 401:
        return "authorize"
    bearer = parse_challenges(header).get("bearer", {})
    if status == 403 and bearer.get("error") == "insufficient_scope" and bearer.get("scope"):
        return "step-up:" + bearer["scope"]
    return "give-up"
    # END SOLUTION


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
    # BEGIN SOLUTION: divide; rechaza sin esquema, sin host o con fragmento; rehazla canónica
    parts = urlsplit(uri)
    if not parts.scheme or not parts.hostname:
        raise ValueError(f"{uri!r} has no scheme or no host")
    if parts.fragment or uri.endswith("#"):
        raise ValueError(f"{uri!r} has a fragment")
    scheme = parts.scheme.lower()
    netloc = parts.hostname.lower()
    if parts.port is not None and parts.port != DEFAULT_PORTS.get(scheme):
        netloc += f":{parts.port}"
    path = parts.path.rstrip("/")
    query = f"?{parts.query}" if parts.query else ""
    return f"{scheme}://{netloc}{path}{query}"
    # END SOLUTION


def audience_ok(aud: str | list[str] | None, resource: str) -> bool:
    """Si un token con este claim ``aud`` va destinado a ``resource``."""
    # BEGIN SOLUTION: los valores de aud, canónicos, frente al recurso canónico; los malos no valen
    values = [aud] if isinstance(aud, str) else list(aud or [])
    wanted = canonical(resource)
    for value in values:
        try:
            if canonical(value) == wanted:
                return True
        except ValueError:
            continue
    return False
    # END SOLUTION
