# ----------------------------------------------------------------------------------------
# Lección 06-prompts: tu ejercicio.
#
# 1. Lee los docstrings de abajo: cada parte te dice exactamente qué construir.
# 2. Sustituye cada `raise NotImplementedError(...)`, bajo su POR HACER, por tu código.
# 3. Comprueba tu trabajo, tantas veces como quieras:  python tools/check.py 06 --lang es
#
# ¿Atascado del todo? Hay una solución resuelta en solutions/06-prompts/exercise.es.py.
# Este archivo es tuyo: una versión nueva del curso puede reemplazarlo, así que guarda una copia.
# ----------------------------------------------------------------------------------------
"""Ejercicio de la lección 06: tres piezas alrededor de los prompts que minimcp hace de forma más
sencilla, o no hace.

1. **Un renderizador de plantillas de prompt.** ``minimcp`` escribe cada prompt como una función
   de Python. Muchos servidores guardan en cambio sus prompts como *texto*, con marcadores
   ``{{argumento}}``. Escribe ``placeholders`` y ``render``: comprueba los argumentos de un
   ``prompts/get`` como quiere la especificación (un argumento obligatorio que falta es -32602, y
   también uno que el prompt no tiene), rellena los valores por defecto de los opcionales y
   responde con ``messages`` con la forma de la especificación, sin dejar nunca que un valor
   inyecte un marcador.
2. **Entran nombres, salen IDs, y di qué salió mal.** El ``course-similar-by-name`` del servidor
   del curso busca cursos por una simple subcadena y se queda sin avisar con todas las
   coincidencias: "SQL" trae dos cursos. Escribe ``normalise``, ``resolve`` e ``instruction``:
   busca por ID, por nombre exacto, por prefijos de palabra y por parecido en la escritura, y dile
   al modelo (y, a través de él, al usuario) qué nombres eran ambiguos y cuáles no encontraron
   nada.
3. **El lado del cliente: de un comando de barra a lo que lee el modelo.** El usuario escribe
   ``/course-similar-by-name names="SQL Views, Caché"``. Escribe ``parse_command``, que convierte
   esa línea en los ``params`` de un ``prompts/get`` (comprobados contra el resultado de
   ``prompts/list``), y ``to_chat``, que convierte el ``GetPromptResult`` del servidor en los
   mensajes sencillos que recibe la API de un modelo de chat.

Comprueba tu trabajo con ``python tools/check.py 06 --lang es``. Solo hace falta la biblioteca
estándar.
"""

from __future__ import annotations

import base64
import binascii
import difflib
import re
import shlex
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: El "Invalid params" de JSON-RPC: lo que pide la especificación para un prompt desconocido o un
#: argumento que falta.
INVALID_PARAMS = -32602


class PromptError(Exception):
    """Un ``prompts/get`` que el servidor rechaza. Un servidor de verdad lo envía como un error
    JSON-RPC: ``{"code": self.code, "message": self.message}``. Los mensajes están en inglés: son
    los que viajan por el protocolo, y los que comprueban las pruebas."""

    def __init__(self, message: str, code: int = INVALID_PARAMS) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def or_list(items: Sequence[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``: una lista corta dentro de una frase (te la damos hecha: la
    usan las partes 2 y 3; dice "or" porque las frases que forma están en inglés).

    >>> or_list(["SQL Views (v1ws)", "SQL from Scratch (sq1x)"])
    'SQL Views (v1ws) or SQL from Scratch (sq1x)'
    """
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " or " + items[-1]


# =================================================================================================
# Parte 1 · Un renderizador de plantillas de prompt
# =================================================================================================
#
# Una *plantilla* es una lista de pares ``(rol, texto)``. Cada texto puede llevar marcadores:
#
#   "{{" + espacios opcionales + un nombre + espacios opcionales + "}}"  p. ej. "{{names}}",
#                                                                        "{{ names }}"
#
# donde un nombre empieza por una letra o "_" y sigue con letras, dígitos, "_" o "-" (los nombres de
# argumento como "course-id" son habituales). Un "{{" que no empieza un marcador así es un
# ValueError ("{{ 1x }}", "{{names}", "{{}}"); un "}}" suelto es texto normal (JSON tiene muchos).
#
# ``render(prompt, template, arguments, defaults)`` responde a un ``prompts/get``:
#
#   * ``prompt`` es la definición del prompt, exactamente como la muestra ``prompts/list``: un
#     "name", quizá una "description", quizá "arguments", una lista de {"name", "description"?,
#     "required"?}. Un argumento sin "required" es opcional (la especificación no da un valor por
#     defecto; si falta se lee como false, como hace el SDK oficial de Python).
#   * Primero se comprueba la *plantilla*, porque una plantilla rota es un fallo del autor del
#     servidor, envíe lo que envíe el cliente. ValueError cuando: un rol no es "user" ni
#     "assistant" (los únicos roles de un PromptMessage; no hay "system"), un marcador nombra un
#     argumento que el prompt no declara, o ``defaults`` nombra un argumento que el prompt no
#     declara.
#   * Después los *argumentos* del cliente (None significa ninguno). PromptError (-32602), en este
#     orden:
#       - no es un dict cuyas claves y valores sean todos cadenas:
#                                              '"arguments" must be an object of strings'
#       - nombres que el prompt no declara:    "Unknown argument(s) for prompt NAME: a, b"
#                                              (ordenados)
#       - obligatorios que faltan, o que son solo espacios en blanco ("" cuenta como no dado):
#                                              "Missing required argument(s) for prompt NAME: a, b"
#                                              (en el orden en que los declara el prompt)
#   * Un argumento opcional que no se dio toma su valor de ``defaults``, o "" si no lo tiene ahí.
#   * Cada marcador se sustituye por el valor de su argumento, en UNA sola pasada: un valor se
#     inserta tal cual, y un "{{x}}" dentro de un valor se queda literalmente "{{x}}" (nada de
#     inyectar otros argumentos).
#   * El resultado es un GetPromptResult: {"description": ..., "messages": [...]} ("description"
#     solo si el prompt tiene una), cada mensaje {"role": rol, "content": {"type": "text", "text":
#     texto}}: UN bloque de contenido por mensaje, no una lista de bloques.

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}")


def placeholders(text: str) -> list[str]:
    """Los nombres de argumento que usan los marcadores de ``text``, por orden de primera
    aparición, cada uno una vez.

    >>> placeholders("Compare {{ a }} with {{b}}, then {{a}} again.")
    ['a', 'b']
    """
    # POR HACER: busca los marcadores; un "{{" que queda tras quitarlos es un ValueError
    raise NotImplementedError("placeholders")


def render(
    prompt: Mapping[str, Any],
    template: Sequence[tuple[str, str]],
    arguments: Any = None,
    defaults: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """El ``GetPromptResult`` de ``prompt`` rellenado con ``arguments`` (mira las reglas de
    arriba).

    >>> summary = {"name": "summary", "arguments": [{"name": "topic", "required": True}]}
    >>> render(summary, [("user", "Summarize {{topic}}.")], {"topic": "MCP"})
    {'messages': [{'role': 'user', 'content': {'type': 'text', 'text': 'Summarize MCP.'}}]}
    """
    # POR HACER: la plantilla (ValueError), los argumentos (PromptError), y una sola pasada
    raise NotImplementedError("render")


def _check_template(
    name: str, template: Sequence[tuple[str, str]], declared: list[str], defaults: Mapping[str, str]
) -> None:
    """Lanza ValueError si la plantilla del prompt ``name`` está rota (mira las reglas de arriba):
    un rol que no es ni "user" ni "assistant", un marcador o un valor por defecto para un argumento
    que no está en ``declared``."""
    # POR HACER: cada rol, cada marcador de cada texto, y luego cada valor por defecto
    raise NotImplementedError("_check_template")


def _checked_arguments(prompt: Mapping[str, Any], arguments: Any) -> dict[str, str]:
    """Los ``arguments`` del cliente para ``prompt`` (None: ninguno), o PromptError (mira las
    reglas de arriba): no son un objeto de cadenas, hay un argumento que el prompt no tiene, o
    falta uno obligatorio."""
    # POR HACER: el tipo, luego los nombres desconocidos (ordenados), luego los obligatorios
    raise NotImplementedError("_checked_arguments")


# =================================================================================================
# Parte 2 · Entran nombres, salen IDs: resolver nombres de curso como debería hacerlo un servidor
# =================================================================================================
#
# normalise(text): pásalo a minúsculas con casefold; quita los acentos (normalización NFKD, sin las
# marcas combinantes); cada tramo de caracteres que no son ni letras ni dígitos se convierte en un
# espacio; quita los espacios de los extremos.
#     "Infrastructure Design: Transactions" -> "infrastructure design transactions"
#     "  Caché!! " -> "cache"          "Test-Driven Development" -> "test driven development"
#
# resolve(names, catalogue): ``names`` es el argumento del prompt, una cadena separada por comas;
# el catálogo es una lista de {"id", "name"} (lo que contiene courses://all). Parte por ",", quita
# los espacios de cada nombre, sáltate los vacíos y los nombres cuya forma normalizada ya salió.
# Para cada nombre, los candidatos los encuentra la PRIMERA de estas reglas que encuentre alguno
# (todo se compara después de normalise):
#   1. por ID: el nombre es el ID de un curso ("c4ch", "AI101", "ai101");
#   2. por nombre exacto: el nombre es el nombre de un curso ("sql views");
#   3. por prefijos de palabra: cada palabra del nombre es el principio de alguna palabra del
#      nombre del curso ("sql" -> SQL Views y SQL from Scratch; "cache" -> Cache Strategies;
#      "test dev" -> tdd1);
#   4. por escritura: difflib.SequenceMatcher(None, nombre, nombre del curso).ratio() >=
#      FUZZY_CUTOFF ("chache strategies" -> Cache Strategies; "clen code" -> Clean Code).
# Un nombre que se normaliza en "" no encuentra nada. Después:
#   * ningún candidato: el nombre (sin espacios en los extremos, tal como se escribió) va a
#     ``unknown``;
#   * un candidato: su ID va a ``ids`` (una vez: dos nombres del mismo curso dan un solo ID);
#   * varios: ``ambiguous[nombre] = [sus IDs, en el orden del catálogo]``, y nada va a ``ids``.
#
# instruction(resolution, catalogue, tool): el texto del mensaje de usuario del prompt, hecho de
# estas frases en este orden, unidas por un espacio (en inglés, como las comprueban las pruebas):
#   * si hay ids:
#       'Find similar courses using the tool TOOL with these course IDs: v1ws, c4ch
#       (SQL Views, Cache Strategies).'   (una sola línea: los IDs, y luego los nombres entre
#       paréntesis, unos y otros unidos por ", ")
#   * por cada nombre ambiguo, en orden:
#       '"SQL" is ambiguous: ask the user whether they meant SQL Views (v1ws)
#       or SQL from Scratch (sq1x).'
#   * si hay nombres desconocidos:
#       'No course matched "vistas" or "quantum"; say so.'      (or_list de los nombres entre
#                                                                comillas)
# Si no hay ni ids ni nombres ambiguos, el error es del cliente, no un prompt:
#   PromptError('No course matches "vistas" or "quantum": '
#               'the catalogue is the resource courses://all')

FUZZY_CUTOFF = 0.8


@dataclass
class Resolution:
    """Lo que encontró ``resolve``: IDs seguros, nombres que podrían ser varios cursos y nombres
    que nadie conoce."""

    ids: list[str] = field(default_factory=list)
    ambiguous: dict[str, list[str]] = field(default_factory=dict)
    unknown: list[str] = field(default_factory=list)


def normalise(text: str) -> str:
    """``text`` en minúsculas (casefold), sin acentos, con sus palabras separadas por un solo
    espacio.

    >>> normalise("Infrastructure Design: Transactions")
    'infrastructure design transactions'
    """
    # POR HACER: casefold, NFKD sin marcas combinantes, tramos no alfanuméricos a un espacio
    raise NotImplementedError("normalise")


def resolve(names: str, catalogue: Iterable[Mapping[str, str]]) -> Resolution:
    """Cada nombre de ``names`` (separados por comas) resuelto contra ``catalogue`` (reglas de
    arriba).

    >>> catalogue = [
    ...     {"id": "v1ws", "name": "SQL Views"},
    ...     {"id": "sq1x", "name": "SQL from Scratch"},
    ...     {"id": "c4ch", "name": "Cache Strategies"},
    ... ]
    >>> resolve("Caché, SQL, vistas", catalogue)
    Resolution(ids=['c4ch'], ambiguous={'SQL': ['v1ws', 'sq1x']}, unknown=['vistas'])
    """
    # POR HACER: parte, limpia, sáltate repetidos; reglas en orden; ids, ambiguous o unknown
    raise NotImplementedError("resolve")


def _candidates(key: str, courses: list[tuple[str, str, str]]) -> list[str]:
    """Los IDs que encuentra para ``key`` (ya normalizado) la primera regla que encuentra algo, en
    el orden del catálogo; cada curso es ``(id, id normalizado, nombre normalizado)``."""
    # POR HACER: por ID, nombre exacto, prefijos, escritura: la primera regla que halle algo
    raise NotImplementedError("_candidates")


def instruction(
    resolution: Resolution,
    catalogue: Iterable[Mapping[str, str]],
    tool: str = "find_similar_courses",
) -> str:
    """El texto del prompt para el modelo, o PromptError cuando no hay nada que buscar.

    >>> catalogue = [{"id": "c4ch", "name": "Cache Strategies"}]
    >>> instruction(Resolution(ids=["c4ch"]), catalogue, tool="similar")
    'Find similar courses using the tool similar with these course IDs: c4ch (Cache Strategies).'
    """
    # POR HACER: sin ids ni ambiguos: PromptError; si no, una frase por hallazgo, en orden
    raise NotImplementedError("instruction")


# =================================================================================================
# Parte 3 · El lado del cliente: entra un comando de barra, salen mensajes de chat
# =================================================================================================
#
# parse_command(line, prompts): ``prompts`` es la lista de un resultado de ``prompts/list``. La
# línea, sin los espacios de los extremos, tiene que empezar por "/" (si no, SlashError). El resto
# se parte con las comillas de la shell POSIX (shlex.split: "..." y '...' agrupan palabras, una
# barra invertida escapa); una comilla sin cerrar es un SlashError, y también un comando vacío
# ("/"). La primera palabra es el nombre del prompt; las demás son sus argumentos, cada uno de
# ellos
#   * con nombre, ``clave=valor`` (partido por el primer "="): ``names="SQL Views, Caché"`` da el
#     valor ``SQL Views, Caché``; o
#   * posicional, una palabra sin "=": la i-ésima palabra posicional es el valor del i-ésimo
#     argumento del prompt (en el orden en que los da prompts/list).
# SlashError, con exactamente estos mensajes, comprobados en este orden:
#   * "Unknown prompt: /NAME", seguido de " (did you mean /OTHER?)" cuando
#     difflib.get_close_matches(NAME, los nombres de los prompts, n=1, cutoff=0.6) encuentra uno;
#   * "Unknown argument for /NAME: KEY" para una clave que el prompt no tiene (la primera así);
#   * "/NAME takes at most N argument(s)" para más palabras posicionales que argumentos tiene el
#     prompt;
#   * "Argument given twice: KEY" (con nombre dos veces, o por posición y por nombre);
#   * "Missing required argument(s) for /NAME: a, b" para los argumentos obligatorios que faltan o
#     que son solo espacios en blanco, en el orden en que los declara el prompt.
# El resultado son los ``params`` del ``prompts/get``: {"name": NAME}, más "arguments" (un dict, en
# el orden en que se dieron) cuando se dio al menos un argumento.
#
# to_chat(result): los mensajes de un GetPromptResult como los mensajes de la API de un modelo de
# chat, [{"role": "user" | "assistant", "content": "texto"}]. ValueError para un mensaje cuyo rol
# no es "user" ni "assistant" (nunca dejes que un servidor escriba un mensaje "system"), o cuyo
# "content" no es UN bloque (un dict). Cada bloque se convierte en texto:
#   text            su "text"
#   resource        un recurso incrustado: DEBE (MUST) tener "uri", "mimeType", y "text" o "blob"
#                   (si no, ValueError). Texto:  "[resource URI (MIME)]\n" + su texto
#                   blob: "[resource URI (MIME), N bytes]" (N: la longitud del base64 decodificado)
#   image, audio    "[image MIME, N bytes]", "[audio MIME, N bytes]" (N como arriba, de "data")
#   resource_link   "[resource link URI]"
# Cualquier otro tipo, y un base64 que no se puede decodificar (binascii.Error), es un ValueError.
# Los mensajes consecutivos con el mismo rol se convierten en uno, con sus textos unidos por una
# línea en blanco ("\n\n"): muchas API de chat quieren que user y assistant se vayan turnando.


class SlashError(ValueError):
    """Un comando de barra que el cliente no puede convertir en un ``prompts/get``: muéstraselo al
    usuario."""


def parse_command(line: str, prompts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Los ``params`` del ``prompts/get`` que pide ``line`` (reglas de arriba).

    >>> catalogue = [{"name": "course-overview", "arguments": [{"name": "id", "required": True}]}]
    >>> parse_command("/course-overview c4ch", catalogue)
    {'name': 'course-overview', 'arguments': {'id': 'c4ch'}}
    """
    # POR HACER: la "/", shlex.split, el prompt, palabras con nombre o posicionales, errores
    raise NotImplementedError("parse_command")


def to_chat(result: Mapping[str, Any]) -> list[dict[str, str]]:
    """Un ``GetPromptResult`` como mensajes de chat: roles comprobados, bloques como texto, los
    del mismo rol fusionados.

    >>> to_chat({"messages": [{"role": "user", "content": {"type": "text", "text": "Hi."}}]})
    [{'role': 'user', 'content': 'Hi.'}]
    """
    # POR HACER: comprueba roles y bloques, haz el texto, fúndelo con el anterior del mismo rol
    raise NotImplementedError("to_chat")


def _block_text(block: Mapping[str, Any]) -> str:
    """Un bloque de contenido como texto (mira la tabla de arriba), o ValueError."""
    # POR HACER: una rama por tipo; un recurso incrustado necesita uri, mimeType, text o blob
    raise NotImplementedError("_block_text")


def _size(data: Any) -> int:
    """Cuántos bytes da al decodificarse el texto base64 ``data``; ValueError si no es base64."""
    # POR HACER: base64.b64decode con validate=True; binascii.Error (o TypeError): no vale
    raise NotImplementedError("_size")
