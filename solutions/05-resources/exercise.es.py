"""Ejercicio de la lección 05: tres cosas que un servidor de recursos y su anfitrión necesitan, más
allá de lo que hace minimcp.

1. **Plantillas de URI más allá del nivel 1.** ``minimcp.server.uri_templates`` solo encaja
   ``{id}``. Los servidores reales quieren ``file:///{+path}`` (un valor que puede contener ``/``)
   y ``search://courses{?q,level}`` (parámetros de query opcionales). Escribe ``expand`` (valores →
   URI, como dice la RFC 6570) y ``match`` (URI → valores, las mismas reglas recorridas al revés).
2. **Un resolvedor seguro para un árbol ``file://`` virtual.** La especificación dice que los
   recursos ``file://`` "no tienen por qué corresponder a un sistema de ficheros físico real".
   Aquí ``file:///notes/a.txt`` significa ``<root>/notes/a.txt``: la ruta de la URI es *relativa a
   una carpeta raíz*. Escribe ``safe_join`` de modo que ninguna URI, se codifique como se
   codifique, llegue nunca a un fichero fuera de esa raíz.
3. **Un router que puntúa.** El «if» por palabras clave del anfitrión pega ``courses://all`` cada
   vez que un mensaje *contiene* "curso", así que "what is a cursor?" («¿qué es un cursor?») recibe
   el catálogo entero. Escribe un router que compare palabras enteras con los metadatos de cada
   recurso (nombre, título, descripción), les dé una puntuación y elija los mejores, pocos y
   siempre en el mismo orden.

Comprueba tu trabajo con ``python tools/check.py 05 --lang es``. Solo hace falta la biblioteca
estándar.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

# =================================================================================================
# Parte 1 · Plantillas de URI: {var}, {+var} y {?a,b} (RFC 6570, niveles 1 a 3, en parte)
# =================================================================================================
#
# Una plantilla es texto literal con *expresiones* entre llaves. Se admiten tres tipos de expresión:
#
#   {name}      expansión simple: el valor, con cada carácter que no esté en UNRESERVED codificado
#               con porcentaje (bytes UTF-8, hexadecimal en mayúsculas: "Hello World!" ->
#               "Hello%20World%21").
#   {+name}     expansión reservada: como {name}, pero los caracteres RESERVED (como "/" y ":") se
#               quedan tal cual, igual que cualquier triplete "%XX" que ya estuviera en el valor
#               ("/foo/bar" -> "/foo/bar", "50%" -> "50%25", "a%20b" -> "a%20b").
#   {?a,b,...}  query al estilo de formulario: "?a=1&b=2" con los nombres en el orden de la
#               plantilla; cada valor se codifica como en {name}; una variable sin valor se deja
#               fuera, una cadena vacía da "a="; y si ninguna variable tiene valor, la expresión
#               entera es "" (sin "?").
#
# En `expand`, una variable está *indefinida* cuando falta en `values` o vale None. Un {name} o un
# {+name} indefinido se expande a "".
#
# `match` recorre la expansión al revés y devuelve las variables, decodificadas (UTF-8), o None:
#
#   * un {name} encaja con uno o más caracteres UNRESERVED o tripletes "%XX";
#   * un {+name} encaja con uno o más caracteres de ruta: UNRESERVED, "/", ":", "@", los SUB_DELIMS
#     o tripletes "%XX". No "?" ni "#": una variable de ruta termina donde empieza la query o el
#     fragmento;
#   * un {?a,b} encaja con "" (y entonces no hay ninguna variable de query en el resultado), o con
#     "?" seguido de uno o más pares "nombre=valor" unidos por "&": cada nombre es uno de los de la
#     expresión, ninguno dos veces, en cualquier orden; cada valor son cero o más caracteres
#     UNRESERVED o tripletes "%XX". Cualquier otra cosa en la query ("?", "?a", "?a=1&&b=2",
#     "?zzz=1", "?a=1&a=2", un espacio) significa que no encaja;
#   * el texto literal tiene que encajar exactamente; un valor cuyos bytes "%XX" no son UTF-8
#     válido significa que no encaja.
#
# Plantillas que `expand` y `match` rechazan con ValueError: un "{" o un "}" fuera de una
# expresión, una expresión vacía, cualquier otro operador ("{#x}", "{/x}", "{.x}", "{;x}",
# "{&x}"), un modificador ("{x*}", "{x:3}"), un nombre que no sea un identificador al estilo de
# Python, el mismo nombre dos veces en una plantilla, más de un nombre en {name} o {+name}, y un
# {?...} que no esté justo al final de la plantilla.

UNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
GEN_DELIMS = ":/?#[]@"
SUB_DELIMS = "!$&'()*+,;="
RESERVED = GEN_DELIMS + SUB_DELIMS

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TRIPLET = re.compile(r"%[0-9A-Fa-f]{2}")
_SIMPLE_VALUE = r"(?:[A-Za-z0-9\-._~]|%[0-9A-Fa-f]{2})"
_PATH_VALUE = r"(?:[A-Za-z0-9\-._~/:@!$&'()*+,;=]|%[0-9A-Fa-f]{2})"


def parse_template(template: str) -> list[str | tuple[str, list[str]]]:
    """La plantilla como una lista de partes: cadenas literales, y ``(operator, names)`` para las
    expresiones.

    ``operator`` es ``""`` para {name}, ``"+"`` para {+name} y ``"?"`` para {?a,b}. Lanza
    ValueError para todo lo que rechazan las reglas de arriba.

    >>> parse_template("courses://{id}{?level}")
    ['courses://', ('', ['id']), ('?', ['level'])]
    """
    # BEGIN SOLUTION: parte por {...}; comprueba los literales, el operador, los nombres y el {?...}
    parts: list[str | tuple[str, list[str]]] = []
    seen: set[str] = set()

    def add_literal(text: str) -> None:
        if "{" in text or "}" in text:
            raise ValueError(f"{template!r}: unbalanced brace in {text!r}")
        if text:
            parts.append(text)

    position = 0
    for found in re.finditer(r"\{([^{}]*)\}", template):
        add_literal(template[position : found.start()])
        body = found.group(1)
        if not body or body[0] in "#/.;&=,!@|":  # vacía, o un operador de nivel 3/4 no admitido
            raise ValueError(f"{template!r}: unsupported expression {{{body}}}")
        operator = body[0] if body[0] in "+?" else ""
        names = body[len(operator) :].split(",")
        for name in names:
            if not _NAME.fullmatch(name):  # también atrapa los modificadores {x*} y {x:3}
                raise ValueError(f"{template!r}: bad variable name {name!r}")
            if name in seen:
                raise ValueError(f"{template!r}: variable {name!r} used twice")
            seen.add(name)
        if operator != "?" and len(names) != 1:
            raise ValueError(f"{template!r}: {{{body}}} may name only one variable")
        parts.append((operator, names))
        position = found.end()
    add_literal(template[position:])
    for part in parts[:-1]:
        if isinstance(part, tuple) and part[0] == "?":
            raise ValueError(f"{template!r}: {{?...}} must come last")
    return parts
    # END SOLUTION


def expand(template: str, values: Mapping[str, str | None]) -> str:
    """La URI a la que se expande ``template`` con ``values`` (las reglas de la RFC 6570, arriba).

    >>> expand("courses://{id}", {"id": "AI 101"})
    'courses://AI%20101'
    >>> expand("file:///{+path}", {"path": "docs/intro.md"})
    'file:///docs/intro.md'
    >>> expand("search://courses{?q,level}", {"q": "sql", "level": None})
    'search://courses?q=sql'
    """
    # BEGIN SOLUTION: literales tal cual; {x} codifica salvo UNRESERVED; {+x} deja RESERVED y %XX
    out = []
    for part in parse_template(template):
        if isinstance(part, str):
            out.append(part)
            continue
        operator, names = part
        defined = [(name, values[name]) for name in names if values.get(name) is not None]
        if operator == "?":
            if defined:
                out.append(
                    "?" + "&".join(f"{name}={quote(str(v), safe='')}" for name, v in defined)
                )
        elif operator == "+":
            for _, value in defined:
                pieces, position = [], 0
                for triplet in _TRIPLET.finditer(str(value)):  # deja los %XX que ya había
                    pieces.append(quote(str(value)[position : triplet.start()], safe=RESERVED))
                    pieces.append(triplet.group())
                    position = triplet.end()
                pieces.append(quote(str(value)[position:], safe=RESERVED))
                out.append("".join(pieces))
        else:
            out += [quote(str(value), safe="") for _, value in defined]
    return "".join(out)
    # END SOLUTION


def match(template: str, uri: str) -> dict[str, str] | None:
    """Las variables de ``uri`` (decodificadas), o None si ``template`` no puede expandirse a ella.

    >>> match("courses://{id}", "courses://AI%20101")
    {'id': 'AI 101'}
    >>> match("file:///{+path}", "file:///docs/intro.md")
    {'path': 'docs/intro.md'}
    >>> match("search://courses{?q,level}", "search://courses?q=sql&level=Advanced")
    {'q': 'sql', 'level': 'Advanced'}
    >>> match("courses://{id}", "courses://a/b") is None
    True
    """
    # BEGIN SOLUTION: un grupo por {x}/{+x}, uno para toda la query; luego comprueba y decodifica
    pattern, names, query_names = "", [], None
    for part in parse_template(template):
        if isinstance(part, str):
            pattern += re.escape(part)
        elif part[0] == "?":
            query_names = part[1]
            pattern += r"(\?[^#]*)?"
        else:
            names.append(part[1][0])
            pattern += f"({_PATH_VALUE if part[0] == '+' else _SIMPLE_VALUE}+)"
    found = re.fullmatch(pattern, uri)
    if found is None:
        return None
    groups = found.groups()
    raw = dict(zip(names, groups[: len(names)], strict=True))
    if query_names is not None and groups[-1] is not None:
        for pair in groups[-1][1:].split("&"):  # [1:]: tras el "?"
            name, equals, value = pair.partition("=")
            well_formed = equals and re.fullmatch(f"{_SIMPLE_VALUE}*", value)
            # Mal formado, desconocido o repetido: no encaja.
            if not well_formed or name not in query_names or name in raw:
                return None
            raw[name] = value
    try:
        return {name: unquote(value, errors="strict") for name, value in raw.items()}
    except UnicodeDecodeError:
        return None
    # END SOLUTION


# =================================================================================================
# Parte 2 · safe_join: una URI file://, relativa a una carpeta raíz, que nunca puede salir de ella
# =================================================================================================
#
# ``safe_join(root, uri)`` devuelve la ruta real (resuelta del todo) del fichero normal que nombra
# la URI dentro de ``root``. La ruta de la URI se lee *relativa a la raíz*: ``file:///notes/a.txt``
# es ``<root>/notes/a.txt`` y ``file:///`` es la propia raíz.
#
# Lanza ValueError (una URI que este servidor rechaza) cuando:
#   * el esquema no es "file" (da igual en mayúsculas o minúsculas: "FILE" es "file"), o la URI
#     tiene un host que no es "localhost", una query ("?...") o un fragmento ("#...");
#   * la ruta, partida por "/" *antes* de decodificarla, tiene un segmento vacío (aparte de la "/"
#     inicial y una "/" final opcional): "file:////etc/passwd", "file:///a//b";
#   * un segmento decodificado es "..", contiene "/", "\\" o un carácter NUL, o parece una unidad
#     de Windows ("C:", "c:foo"); o un segmento no es UTF-8 válido una vez decodificado;
#   * la ruta sin decodificar contiene una barra invertida;
#   * el fichero que nombra al final, tras seguir todos los enlaces simbólicos, está fuera de la
#     raíz.
# Un segmento "." simplemente se salta. Cada segmento se decodifica exactamente una vez:
# "%252e%252e" es el inofensivo nombre de fichero "%2e%2e", no "..".
#
# Lanza FileNotFoundError cuando la URI es aceptable pero ahí no hay ningún fichero normal (no hay
# nada, hay una carpeta, un enlace simbólico roto que se queda dentro, o un bucle de enlaces).

_DRIVE = re.compile(r"^[A-Za-z]:")


def safe_join(root: str | Path, uri: str) -> Path:
    """La ruta real del fichero normal que ``uri`` nombra bajo ``root``; o ValueError o
    FileNotFoundError."""
    # BEGIN SOLUTION: revisa la URI; decodifica y revisa cada segmento una vez; resuelve; compara
    real_root = Path(root).resolve(strict=True)
    parts = urlsplit(uri)
    if parts.scheme.lower() != "file":
        raise ValueError(f"not a file:// URI: {uri!r}")
    if parts.netloc.lower() not in ("", "localhost"):
        raise ValueError(f"a file:// URI here has no host but localhost: {uri!r}")
    if "?" in uri or "#" in uri:  # incluso una query o un fragmento vacíos
        raise ValueError(f"a file:// URI here has no query or fragment: {uri!r}")
    if "\\" in parts.path:
        raise ValueError(f"backslash in {uri!r}")
    raw_segments = parts.path.split("/")
    if raw_segments[0] == "":  # la "/" inicial
        raw_segments = raw_segments[1:]
    if raw_segments and raw_segments[-1] == "":  # una "/" final
        raw_segments = raw_segments[:-1]
    segments = []
    for raw in raw_segments:
        if raw == "":
            raise ValueError(f"empty path segment in {uri!r}")
        try:
            segment = unquote(raw, errors="strict")
        except UnicodeDecodeError:
            raise ValueError(f"{raw!r} is not UTF-8 once decoded") from None
        if segment == "..":
            raise ValueError(f"'..' in {uri!r}")
        if any(char in segment for char in "/\\\0") or _DRIVE.match(segment):
            raise ValueError(f"unsafe path segment {segment!r} in {uri!r}")
        if segment != ".":
            segments.append(segment)
    try:
        real = real_root.joinpath(*segments).resolve()
    except (OSError, RuntimeError):  # un bucle de enlaces (Python < 3.13 lanza RuntimeError)
        raise FileNotFoundError(uri) from None
    if real != real_root and real_root not in real.parents:
        raise ValueError(f"{uri!r} leads outside the root")
    if not real.is_file():
        raise FileNotFoundError(uri)
    return real
    # END SOLUTION


# =================================================================================================
# Parte 3 · Un router que puntúa los recursos frente al mensaje del usuario
# =================================================================================================
#
# words(text): las palabras con contenido de ``text``, sin repetir, en el orden en que aparecen
# por primera vez:
#   1. pásalo a minúsculas (casefold) y quita los acentos (normalización NFKD, sin las marcas
#      combinantes);
#   2. toma las secuencias de letras y dígitos ASCII ([a-z0-9]+); todo lo demás separa palabras;
#   3. quita las palabras de STOPWORDS (se comprueba antes del paso 4);
#   4. quita el plural: una palabra de más de 3 caracteres que termina en "s" pero no en "ss"
#      pierde esa "s" ("courses" -> "course", "users" -> "user"; "class" y "bus" se quedan igual).
#
# score(message, resource): para cada palabra del mensaje, el mayor WEIGHTS[field] de entre los
# campos del recurso (name, title, description; un campo que falta o vale None cuenta como "")
# cuyas palabras la incluyen, o 0; la puntuación es la suma sobre las palabras del mensaje. Cada
# palabra distinta cuenta una vez.
#
# route(message, resources, limit=2, threshold=2, exclude=()): las URI de los recursos cuya
# puntuación es como mínimo ``threshold`` y cuya URI no está en ``exclude``, la mejor puntuación
# primero, los empates en el orden de las URI (el orden normal de las cadenas), como mucho
# ``limit`` de ellas. Una URI que aparece dos veces se tiene en cuenta una sola vez (su primera
# entrada). Un ``limit`` menor que 0 es un ValueError.
#
# Las palabras de STOPWORDS, y las de los ejemplos, están en inglés: son las que usan las pruebas.

STOPWORDS = frozenset(
    "a about all an and any are as at be can do does for from get give how i in is it list me my "
    "of on or please show tell that the there this to what which who with you your".split()
)

WEIGHTS = {"name": 3, "title": 2, "description": 1}


def words(text: str) -> list[str]:
    """Las palabras con contenido de ``text``, sin repetir (mira las reglas de arriba).

    >>> words("Which COURSES are there? Courses, please!")
    ['course']
    """
    # BEGIN SOLUTION: casefold, sin acentos, [a-z0-9]+, sin stopwords, sin plurales, sin repetidas
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(char for char in decomposed if not unicodedata.combining(char))
    out: list[str] = []
    for word in re.findall(r"[a-z0-9]+", plain):
        if word in STOPWORDS:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        if word not in out:
            out.append(word)
    return out
    # END SOLUTION


def score(message: str, resource: Mapping[str, Any]) -> int:
    """Lo bien que encaja ``resource`` (una entrada de ``resources/list``) con ``message``.

    >>> courses = {"uri": "courses://all", "name": "courses", "title": "All Courses"}
    >>> score("Which courses are there?", courses)
    3
    """
    # BEGIN SOLUTION: las palabras de cada campo; por palabra, el mayor peso de un campo con ella
    fields = {field: set(words(str(resource.get(field) or ""))) for field in WEIGHTS}
    return sum(
        max((WEIGHTS[field] for field in WEIGHTS if word in fields[field]), default=0)
        for word in words(message)
    )
    # END SOLUTION


def route(
    message: str,
    resources: Iterable[Mapping[str, Any]],
    *,
    limit: int = 2,
    threshold: int = 2,
    exclude: Iterable[str] = (),
) -> list[str]:
    """Las URI de los recursos que vale la pena pegar antes de ``message``: la mejor primero, como
    mucho ``limit``.

    >>> catalogue = [
    ...     {"uri": "courses://all", "name": "courses"},
    ...     {"uri": "users://all", "name": "users"},
    ... ]
    >>> route("Which courses are there?", catalogue)
    ['courses://all']
    >>> route("What is a cursor?", catalogue)
    []
    """
    # BEGIN SOLUTION: puntúa cada URI nueva; filtra por umbral; ordena por (-score, uri); corta
    if limit < 0:
        raise ValueError(f"limit must be 0 or more, not {limit}")
    skip = set(exclude)
    scored: dict[str, int] = {}
    for resource in resources:
        uri = resource["uri"]
        if uri in scored or uri in skip:
            continue
        scored[uri] = score(message, resource)
    best = sorted((-points, uri) for uri, points in scored.items() if points >= threshold)
    return [uri for _, uri in best[:limit]]
    # END SOLUTION
