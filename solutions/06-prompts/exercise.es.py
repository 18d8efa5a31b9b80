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
    # BEGIN SOLUTION: busca los marcadores; un "{{" que queda tras quitarlos es un ValueError
    if "{{" in PLACEHOLDER.sub("", text):
        raise ValueError(f"a '{{{{' that is not a placeholder in {text!r}")
    names: list[str] = []
    for name in PLACEHOLDER.findall(text):
        if name not in names:
            names.append(name)
    return names
    # END SOLUTION


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
    # BEGIN SOLUTION: la plantilla (ValueError), los argumentos (PromptError), y una sola pasada
    declared = [argument["name"] for argument in prompt.get("arguments") or []]
    defaults = dict(defaults or {})
    _check_template(prompt["name"], template, declared, defaults)
    given = _checked_arguments(prompt, arguments)
    values = {argument: given.get(argument, defaults.get(argument, "")) for argument in declared}
    messages = [
        {
            "role": role,
            "content": {
                "type": "text",
                "text": PLACEHOLDER.sub(lambda m: values[m.group(1)], text),
            },
        }
        for role, text in template
    ]
    if prompt.get("description"):
        return {"description": prompt["description"], "messages": messages}
    return {"messages": messages}
    # END SOLUTION


def _check_template(
    name: str, template: Sequence[tuple[str, str]], declared: list[str], defaults: Mapping[str, str]
) -> None:
    """Lanza ValueError si la plantilla del prompt ``name`` está rota (mira las reglas de arriba):
    un rol que no es ni "user" ni "assistant", un marcador o un valor por defecto para un argumento
    que no está en ``declared``."""
    # BEGIN SOLUTION: cada rol, cada marcador de cada texto, y luego cada valor por defecto
    for role, text in template:
        if role not in ("user", "assistant"):
            raise ValueError(f"prompt {name}: role {role!r} is neither 'user' nor 'assistant'")
        for used in placeholders(text):
            if used not in declared:
                raise ValueError(
                    f"prompt {name}: the placeholder {{{{{used}}}}} is not an argument"
                )
    for default in defaults:
        if default not in declared:
            raise ValueError(f"prompt {name}: a default for {default!r}, which is not an argument")
    # END SOLUTION


def _checked_arguments(prompt: Mapping[str, Any], arguments: Any) -> dict[str, str]:
    """Los ``arguments`` del cliente para ``prompt`` (None: ninguno), o PromptError (mira las
    reglas de arriba): no son un objeto de cadenas, hay un argumento que el prompt no tiene, o
    falta uno obligatorio."""
    # BEGIN SOLUTION: el tipo, luego los nombres desconocidos (ordenados), luego los obligatorios
    name = prompt["name"]
    declared = [argument["name"] for argument in prompt.get("arguments") or []]
    required = [
        argument["name"] for argument in prompt.get("arguments") or [] if argument.get("required")
    ]
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict) or not all(
        isinstance(key, str) and isinstance(value, str) for key, value in arguments.items()
    ):
        raise PromptError('"arguments" must be an object of strings')
    unknown = sorted(set(arguments) - set(declared))
    if unknown:
        raise PromptError(f"Unknown argument(s) for prompt {name}: {', '.join(unknown)}")
    missing = [argument for argument in required if not arguments.get(argument, "").strip()]
    if missing:
        raise PromptError(f"Missing required argument(s) for prompt {name}: {', '.join(missing)}")
    return arguments
    # END SOLUTION


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
    # BEGIN SOLUTION: casefold, NFKD sin marcas combinantes, tramos no alfanuméricos a un espacio
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(char for char in decomposed if not unicodedata.combining(char))
    return " ".join("".join(char if char.isalnum() else " " for char in plain).split())
    # END SOLUTION


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
    # BEGIN SOLUTION: parte, limpia, sáltate repetidos; reglas en orden; ids, ambiguous o unknown
    courses = [
        (course["id"], normalise(course["id"]), normalise(course["name"])) for course in catalogue
    ]
    result = Resolution()
    seen: set[str] = set()
    for name in (part.strip() for part in names.split(",")):
        key = normalise(name)
        if not name or key in seen:
            continue
        seen.add(key)
        found = _candidates(key, courses)
        if not found:
            result.unknown.append(name)
        elif len(found) == 1:
            if found[0] not in result.ids:
                result.ids.append(found[0])
        else:
            result.ambiguous[name] = found
    return result
    # END SOLUTION


def _candidates(key: str, courses: list[tuple[str, str, str]]) -> list[str]:
    """Los IDs que encuentra para ``key`` (ya normalizado) la primera regla que encuentra algo, en
    el orden del catálogo; cada curso es ``(id, id normalizado, nombre normalizado)``."""
    # BEGIN SOLUTION: por ID, nombre exacto, prefijos, escritura: la primera regla que halle algo
    if not key:
        return []
    words = key.split()

    def by_prefixes(course_name: str) -> bool:
        return all(any(part.startswith(word) for part in course_name.split()) for word in words)

    rules = (
        lambda course_id, course_name: course_id == key,
        lambda course_id, course_name: course_name == key,
        lambda course_id, course_name: by_prefixes(course_name),
        lambda course_id, course_name: (
            difflib.SequenceMatcher(None, key, course_name).ratio() >= FUZZY_CUTOFF
        ),
    )
    for rule in rules:
        found = [course[0] for course in courses if rule(course[1], course[2])]
        if found:
            return found
    return []
    # END SOLUTION


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
    # BEGIN SOLUTION: sin ids ni ambiguos: PromptError; si no, una frase por hallazgo, en orden
    names = {course["id"]: course["name"] for course in catalogue}
    quoted = [f'"{name}"' for name in resolution.unknown]
    if not resolution.ids and not resolution.ambiguous:
        raise PromptError(
            f"No course matches {or_list(quoted)}: the catalogue is the resource courses://all"
        )
    sentences = []
    if resolution.ids:
        sentences.append(
            f"Find similar courses using the tool {tool} with these course IDs: "
            f"{', '.join(resolution.ids)} ({', '.join(names[i] for i in resolution.ids)})."
        )
    for name, ids in resolution.ambiguous.items():
        sentences.append(
            f'"{name}" is ambiguous: ask the user whether they meant '
            f"{or_list([f'{names[i]} ({i})' for i in ids])}."
        )
    if resolution.unknown:
        sentences.append(f"No course matched {or_list(quoted)}; say so.")
    return " ".join(sentences)
    # END SOLUTION


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
    # BEGIN SOLUTION: la "/", shlex.split, el prompt, palabras con nombre o posicionales, errores
    line = line.strip()
    if not line.startswith("/"):
        raise SlashError(f"not a command (it starts with '/'): {line!r}")
    try:
        words = shlex.split(line[1:])
    except ValueError as exc:  # "No closing quotation", "No escaped character"
        raise SlashError(f"cannot read {line!r}: {exc}") from None
    if not words:
        raise SlashError("empty command: type / and a prompt's name")
    name, words = words[0], words[1:]
    by_name = {prompt["name"]: prompt for prompt in prompts}
    if name not in by_name:
        close = difflib.get_close_matches(name, list(by_name), n=1, cutoff=0.6)
        hint = f" (did you mean /{close[0]}?)" if close else ""
        raise SlashError(f"Unknown prompt: /{name}{hint}")
    declared = by_name[name].get("arguments") or []
    order = [argument["name"] for argument in declared]

    named = [word.partition("=") for word in words if "=" in word]
    positional = [word for word in words if "=" not in word]
    for key, _, _ in named:
        if key not in order:
            raise SlashError(f"Unknown argument for /{name}: {key}")
    if len(positional) > len(order):
        raise SlashError(f"/{name} takes at most {len(order)} argument(s)")

    arguments: dict[str, str] = {}
    given = [*zip(order, positional, strict=False), *((key, value) for key, _, value in named)]
    for key, value in given:
        if key in arguments:
            raise SlashError(f"Argument given twice: {key}")
        arguments[key] = value
    missing = [
        a["name"]
        for a in declared
        if a.get("required") and not arguments.get(a["name"], "").strip()
    ]
    if missing:
        raise SlashError(f"Missing required argument(s) for /{name}: {', '.join(missing)}")
    return {"name": name, "arguments": arguments} if arguments else {"name": name}
    # END SOLUTION


def to_chat(result: Mapping[str, Any]) -> list[dict[str, str]]:
    """Un ``GetPromptResult`` como mensajes de chat: roles comprobados, bloques como texto, los
    del mismo rol fusionados.

    >>> to_chat({"messages": [{"role": "user", "content": {"type": "text", "text": "Hi."}}]})
    [{'role': 'user', 'content': 'Hi.'}]
    """
    # BEGIN SOLUTION: comprueba roles y bloques, haz el texto, fúndelo con el anterior del mismo rol
    chat: list[dict[str, str]] = []
    for message in result.get("messages", []):
        role, content = message.get("role"), message.get("content")
        if role not in ("user", "assistant"):
            raise ValueError(f"role {role!r} is neither 'user' nor 'assistant'")
        if not isinstance(content, dict):
            raise ValueError(
                f"a prompt message has ONE content block (a dict), not {type(content).__name__}"
            )
        text = _block_text(content)
        if chat and chat[-1]["role"] == role:
            chat[-1]["content"] += "\n\n" + text
        else:
            chat.append({"role": role, "content": text})
    return chat
    # END SOLUTION


def _block_text(block: Mapping[str, Any]) -> str:
    """Un bloque de contenido como texto (mira la tabla de arriba), o ValueError."""
    # BEGIN SOLUTION: una rama por tipo; un recurso incrustado necesita uri, mimeType, text o blob
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return block["text"]
    if kind == "resource":
        inner = block.get("resource") or {}
        if (
            "uri" not in inner
            or "mimeType" not in inner
            or ("text" not in inner and "blob" not in inner)
        ):
            raise ValueError(
                f"an embedded resource needs uri, mimeType and text or blob: {inner!r}"
            )
        if "text" in inner:
            return f"[resource {inner['uri']} ({inner['mimeType']})]\n{inner['text']}"
        return f"[resource {inner['uri']} ({inner['mimeType']}), {_size(inner['blob'])} bytes]"
    if kind in ("image", "audio"):
        if "mimeType" not in block or "data" not in block:
            raise ValueError(f"an {kind} block needs data and mimeType: {block!r:.80}")
        return f"[{kind} {block['mimeType']}, {_size(block['data'])} bytes]"
    if kind == "resource_link" and "uri" in block:
        return f"[resource link {block['uri']}]"
    raise ValueError(f"not a content block this client knows: {block!r:.80}")
    # END SOLUTION


def _size(data: Any) -> int:
    """Cuántos bytes da al decodificarse el texto base64 ``data``; ValueError si no es base64."""
    # BEGIN SOLUTION: base64.b64decode con validate=True; binascii.Error (o TypeError): no vale
    try:
        return len(base64.b64decode(data, validate=True))
    except (binascii.Error, TypeError):
        raise ValueError(f"not base64: {data!r:.40}") from None
    # END SOLUTION
