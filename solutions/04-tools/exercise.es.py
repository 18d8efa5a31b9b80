"""Ejercicio de la lección 04: describe una herramienta, comprueba sus argumentos y enruta las
herramientas de muchos servidores.

minimcp deduce el ``inputSchema`` de una herramienta a partir de su firma de Python, valida los
argumentos con la biblioteca ``jsonschema``, y su anfitrión pone a cada herramienta el nombre de su
servidor como prefijo (``minimcp/server/schema.py``, ``minimcp/server/tools.py``,
``minimcp/host/host.py``). Tú construyes tres variaciones que van más lejos:

1. **Un esquema a partir de una firma**, para más tipos de Python de los que conoce minimcp:
   parámetros enum, dataclass y ``TypedDict``, tuplas (con el ``prefixItems`` de JSON Schema
   2020-12), ``str | None`` como lista de tipos, y descripciones de los parámetros leídas del
   docstring.
2. **Un comprobador de argumentos** para una pequeña parte de JSON Schema, cuyos mensajes están
   escritos para un modelo: cada uno nombra el argumento, dice qué se esperaba y sugiere la
   propiedad que probablemente quería decir.
3. **Un router de herramientas** para un anfitrión con varios servidores: da a cada herramienta un
   nombre que acepte la API de un modelo (``calendar__read_events``), mantiene esos nombres estables
   cuando cambia la lista de un servidor, y traduce la llamada de un modelo al servidor y al nombre
   real de la herramienta.

Las partes son independientes: las pruebas las comprueban una a una.

Comprueba tu trabajo con ``python tools/check.py 04 --lang es``.
"""

from __future__ import annotations

import dataclasses
import difflib
import enum
import hashlib
import inspect
import json
import re
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

# =============================================================================================
# 1. Un JSON Schema a partir de la firma de una función
# =============================================================================================

#: Los tipos de Python que corresponden a un solo tipo de JSON.
SIMPLE_TYPES: dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
    None: "null",
}

#: ``typing.Required`` / ``typing.NotRequired`` existen desde Python 3.11: quítalos si aparecen.
_REQUIRED_MARKERS = tuple(
    m
    for m in (getattr(typing, "Required", None), getattr(typing, "NotRequired", None))
    if m is not None
)


def json_value(value: Any) -> Any:
    """Un miembro de un enum se convierte en su valor; cualquier otra cosa se devuelve tal cual."""
    return value.value if isinstance(value, enum.Enum) else value


def is_json_scalar(value: Any) -> bool:
    """True para los valores que un esquema puede llevar como ``default``: str, int, float, bool,
    None."""
    return value is None or isinstance(value, (str, int, float, bool))


def _enum_schema(values: list[Any]) -> dict[str, Any]:
    """``{"enum": values}``, más ``"type"`` cuando todos los valores tienen el mismo tipo JSON."""
    schema: dict[str, Any] = {"enum": values}
    kinds = {SIMPLE_TYPES.get(type(value)) for value in values}
    if len(kinds) == 1 and None not in kinds:
        schema["type"] = kinds.pop()
    return schema


def type_schema(annotation: Any) -> dict[str, Any]:
    """El JSON Schema (draft 2020-12) de una anotación de tipo.

    Las reglas, comprobadas en este orden:

    * sin anotación (``inspect.Parameter.empty``) o ``Any`` → ``{}`` (cualquier valor JSON);
    * ``Annotated[T, *extras]`` → el esquema de ``T`` y después cada extra, en orden: un ``str``
      fija ``"description"``, un ``dict`` se mezcla con el esquema (``{"minimum": 1}``); los demás
      extras se ignoran;
    * ``str``, ``int``, ``float``, ``bool``, ``None`` → ``{"type": "string"}``, ``"integer"``,
      ``"number"``, ``"boolean"``, ``"null"``;
    * ``Literal[a, b, ...]`` → ``{"enum": [a, b, ...]}``, más ``"type"`` cuando todos los valores
      tienen el mismo tipo JSON (``Literal["a", "b"]`` → ``{"enum": ["a", "b"], "type":
      "string"}``);
    * una subclase de ``enum.Enum`` → lo mismo, con los *valores* de sus miembros, en el orden en
      que se definen;
    * una unión (``Optional[T]``, ``T | None``, ``int | str``), un ``list``, un ``tuple`` o un
      ``dict``, a secas o con parámetros → el esquema que construye :func:`container_schema`
      (abajo);
    * una dataclass o un ``TypedDict`` → un esquema de objeto construido por :func:`object_schema`
      (abajo);
    * cualquier otra cosa → ``TypeError`` que nombre la anotación.
    """
    # BEGIN SOLUTION: prueba cada regla en el orden del docstring; recursión para los tipos internos
    origin, args = get_origin(annotation), get_args(annotation)
    if annotation is inspect.Parameter.empty or annotation is Any:
        return {}
    if origin is Annotated:
        schema = type_schema(args[0])
        for extra in args[1:]:
            if isinstance(extra, str):
                schema["description"] = extra
            elif isinstance(extra, dict):
                schema.update(extra)
        return schema
    if _REQUIRED_MARKERS and origin in _REQUIRED_MARKERS:  # NotRequired[T] dentro de un TypedDict
        return type_schema(args[0])
    if annotation in SIMPLE_TYPES:
        return {"type": SIMPLE_TYPES[annotation]}
    if origin is Literal:
        return _enum_schema(list(args))
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return _enum_schema([member.value for member in annotation])
    # `list` y `dict` a secas no tienen origen; `tuple` a secas no es aquí un contenedor (no se
    # saben su longitud ni los tipos de sus elementos), así que acaba en el TypeError.
    if (
        annotation is list
        or annotation is dict
        or origin in (Union, types.UnionType, list, tuple, dict)
    ):
        return container_schema(annotation)
    is_dataclass = dataclasses.is_dataclass(annotation) and isinstance(annotation, type)
    if is_dataclass or typing.is_typeddict(annotation):
        return object_schema(annotation)
    raise TypeError(f"no JSON Schema for {annotation!r}")
    # END SOLUTION


def container_schema(annotation: Any) -> dict[str, Any]:
    """El JSON Schema de una anotación de unión, ``list``, ``tuple`` o ``dict``.

    :func:`type_schema` solo envía aquí estas; los esquemas de los tipos que llevan dentro salen
    otra vez de :func:`type_schema`. Las reglas:

    * una unión (``Optional[T]``, ``T | None``, ``int | str``) → los esquemas de sus miembros, en
      orden. Si todos son exactamente ``{"type": <nombre>}``, júntalos en una sola lista de tipos,
      cada nombre una vez: ``str | None`` → ``{"type": ["string", "null"]}``. Si no,
      ``{"anyOf": [<esquema>, <esquema>, ...]}``;
    * ``list[T]`` → ``{"type": "array", "items": <esquema de T>}``; ``list`` a secas →
      ``{"type": "array"}``; ``tuple[T, ...]`` es un ``list[T]``;
    * ``tuple[A, B, ...]`` (longitud fija n) → ``{"type": "array", "prefixItems": [<A>, <B>,
      ...], "minItems": n, "maxItems": n}`` (``prefixItems`` es como describe una tupla el draft
      2020-12);
    * ``dict[str, T]`` → ``{"type": "object", "additionalProperties": <esquema de T>}``; ``dict``
      a secas → ``{"type": "object"}``. Las claves de un objeto JSON son cadenas: cualquier otro
      tipo de clave es un ``TypeError``.
    """
    # BEGIN SOLUTION: get_origin y get_args distinguen los cuatro casos; una rama para cada uno
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Union or origin is types.UnionType:
        options = [type_schema(arg) for arg in args]
        if all(list(option) == ["type"] and isinstance(option["type"], str) for option in options):
            names: list[str] = []
            for option in options:
                if option["type"] not in names:
                    names.append(option["type"])
            return {"type": names}
        return {"anyOf": options}
    if annotation is list or origin is list:
        return {"type": "array", "items": type_schema(args[0])} if args else {"type": "array"}
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": type_schema(args[0])}
        return {
            "type": "array",
            "prefixItems": [type_schema(arg) for arg in args],
            "minItems": len(args),
            "maxItems": len(args),
        }
    if annotation is dict or origin is dict:
        if not args:
            return {"type": "object"}
        if args[0] is not str:
            raise TypeError(f"JSON object keys are strings, not {args[0]!r}")
        return {"type": "object", "additionalProperties": type_schema(args[1])}
    raise TypeError(f"no JSON Schema for {annotation!r}")  # type_schema nunca envía otra cosa
    # END SOLUTION


def object_schema(cls: type) -> dict[str, Any]:
    """El esquema de una dataclass o de un ``TypedDict``: un objeto JSON con una propiedad por
    campo.

    ``{"type": "object", "properties": {...}, "required": [...], "additionalProperties": False}``:

    * ``properties``: el :func:`type_schema` de cada campo, en el orden en que los declara la clase
      (usa ``get_type_hints(cls, include_extras=True)`` para que sobrevivan las descripciones de
      ``Annotated``);
    * ``required``: en una dataclass, los campos que no tienen ni valor por defecto ni
      ``default_factory``; en un ``TypedDict``, las claves de ``cls.__required_keys__`` (ninguna
      cuando ``total=False``), en el orden en que se declaran. Deja fuera la clave ``"required"``
      cuando no hay nada obligatorio;
    * un campo de una dataclass cuyo valor por defecto es un escalar JSON (str, int, float, bool,
      None) o un miembro de un enum lleva ``"default"`` (el valor del miembro, si es de un enum)
      en su propiedad.
    """
    # BEGIN SOLUTION: una propiedad por campo, de get_type_hints; required y default según la clase
    hints = get_type_hints(cls, include_extras=True)
    properties: dict[str, Any] = {}
    required: list[str] = []
    if dataclasses.is_dataclass(cls):
        for field in dataclasses.fields(cls):
            properties[field.name] = type_schema(hints.get(field.name, Any))
            if (
                field.default is dataclasses.MISSING
                and field.default_factory is dataclasses.MISSING
            ):
                required.append(field.name)
            elif field.default is not dataclasses.MISSING:
                default = json_value(field.default)
                if is_json_scalar(default):
                    properties[field.name]["default"] = default
    else:
        required_keys: frozenset[str] = getattr(cls, "__required_keys__", frozenset())
        for name, hint in hints.items():
            properties[name] = type_schema(hint)
            if name in required_keys:
                required.append(name)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema
    # END SOLUTION


SECTION_HEADER = re.compile(r"^(Args|Arguments|Parameters):\s*$")


def param_descriptions(docstring: str | None) -> dict[str, str]:
    """Las descripciones de los parámetros de la sección ``Args:`` de un docstring al estilo de
    Google.

    ::

        Lee los eventos del calendario.

        Args:
            date: El día que leer,
                como AAAA-MM-DD.
            limit (int): Como mucho, tantos eventos.

    da ``{"date": "El día que leer, como AAAA-MM-DD.", "limit": "Como mucho, tantos eventos."}``.

    Las reglas, para las líneas de la sección (las encuentra :func:`_args_section`):

    * una línea con la misma sangría que la primera entrada de la sección empieza una entrada:
      ``name: texto`` o ``name (tipo): texto``; el tipo se ignora;
    * una línea con más sangría continúa la entrada en curso: añádela con un solo espacio entre
      medias;
    * a las descripciones se les quitan los espacios de los extremos; una entrada sin texto tras
      los dos puntos da ``""``;
    * sin docstring o sin sección → ``{}``.
    """
    # BEGIN SOLUTION: toma la sangría de las entradas de la primera, y después ve recogiéndolas
    entry_indent: int | None = None
    descriptions: dict[str, str] = {}
    current: str | None = None
    for line in _args_section(docstring):
        indent = len(line) - len(line.lstrip())
        if entry_indent is None:
            entry_indent = indent
        if indent <= entry_indent:
            match = re.match(r"\s*(\w+)\s*(?:\([^)]*\))?\s*:(.*)$", line)
            if match is None:  # no es una entrada: no hay nada a lo que añadirla
                current = None
                continue
            current = match.group(1)
            descriptions[current] = match.group(2).strip()
        elif current is not None:
            descriptions[current] = f"{descriptions[current]} {line.strip()}".strip()
    return descriptions
    # END SOLUTION


def _args_section(docstring: str | None) -> list[str]:
    """Las líneas de la sección ``Args:`` de un docstring tras su cabecera, sin las que están en
    blanco; ``[]`` cuando no hay docstring o no hay tal sección.

    * limpia antes el docstring con ``inspect.cleandoc`` (quita la sangría común);
    * la sección empieza en una línea que es exactamente ``Args:``, ``Arguments:`` o
      ``Parameters:`` (sin contar los espacios de alrededor) y termina en la primera línea no vacía
      que no tenga más sangría que esa cabecera.
    """
    # BEGIN SOLUTION: cleandoc; busca la cabecera; guarda las de más sangría hasta la primera que no
    if not docstring:
        return []
    lines = inspect.cleandoc(docstring).splitlines()
    start = next((i for i, line in enumerate(lines) if SECTION_HEADER.match(line.strip())), None)
    if start is None:
        return []
    header_indent = len(lines[start]) - len(lines[start].lstrip())
    section: list[str] = []
    for line in lines[start + 1 :]:
        if not line.strip():
            continue
        if len(line) - len(line.lstrip()) <= header_indent:
            break
        section.append(line)
    return section
    # END SOLUTION


def schema_from_signature(function: Callable[..., Any]) -> dict[str, Any]:
    """El ``inputSchema`` de una herramienta escrita como una función de Python.

    ``{"type": "object", "properties": {...}, "required": [...], "additionalProperties": False}``:

    * una propiedad por parámetro, en el orden de la firma, construida por :func:`type_schema` a
      partir de las anotaciones de tipo (``get_type_hints(function, include_extras=True)``);
    * un parámetro llamado ``context`` se omite: lo rellena el servidor, el modelo no lo ve nunca;
    * ``*args`` o ``**kwargs`` → ``TypeError`` (los argumentos de una herramienta tienen nombre, uno
      a uno);
    * una propiedad sin ``"description"`` recibe la que encuentre :func:`param_descriptions` en el
      docstring de la función, si la hay (una descripción de ``Annotated`` tiene preferencia);
    * un parámetro sin valor por defecto es obligatorio (``"required"`` los enumera en el orden de
      la firma, y se deja fuera cuando no hay ninguno); un valor por defecto que es un escalar JSON
      (str, int, float, bool, None) o un miembro de un enum se convierte en ``"default"`` (el valor
      del miembro, si es de un enum); los demás valores por defecto no se muestran.
    """
    # BEGIN SOLUTION: recorre los parámetros de la firma; reutiliza type_schema y param_descriptions
    hints = get_type_hints(function, include_extras=True)
    documented = param_descriptions(inspect.getdoc(function))
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, parameter in inspect.signature(function).parameters.items():
        if name == "context":
            continue
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise TypeError(f"*{name} cannot be a tool argument: name every argument")
        schema = type_schema(hints.get(name, inspect.Parameter.empty))
        if "description" not in schema and name in documented:
            schema["description"] = documented[name]
        if parameter.default is parameter.empty:
            required.append(name)
        else:
            default = json_value(parameter.default)
            if is_json_scalar(default):
                schema["default"] = default
        properties[name] = schema
    result: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        result["required"] = required
    result["additionalProperties"] = False
    return result
    # END SOLUTION


# =============================================================================================
# 2. Comprobar argumentos, con mensajes que un modelo pueda aprovechar
# =============================================================================================


def json_type(value: Any) -> str:
    """El nombre del tipo JSON de un valor de Python: "null", "boolean", "integer", "number",
    "string", "array" (list o tuple), "object" (dict); para cualquier otra cosa, el nombre del tipo
    de Python."""
    # BEGIN SOLUTION: bool antes que int (True es un int en Python, no en JSON)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__
    # END SOLUTION


def is_type(value: Any, name: str) -> bool:
    """¿Tiene ``value`` el tipo JSON ``name``, tal como cuenta JSON Schema?

    Como :func:`json_type`, con dos diferencias que hace JSON Schema: un float sin parte decimal
    *es* un ``"integer"`` (``3.0``), y todo entero es también un ``"number"``. Un booleano nunca
    es un número. Un nombre de tipo desconocido → False.
    """
    # BEGIN SOLUTION: parte de json_type, y luego amplía integer y number
    kind = json_type(value)
    if name == "integer":
        return kind == "integer" or (kind == "number" and float(value).is_integer())
    if name == "number":
        return kind in ("integer", "number")
    return kind == name
    # END SOLUTION


def same_json_value(a: Any, b: Any) -> bool:
    """La igualdad tal como la ve JSON: ``1 == 1.0``, pero ``1 != True`` y ``0 != False``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_json_value(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json_value(a[k], b[k]) for k in a)
    return a == b


def check_arguments(schema: dict[str, Any], value: Any, path: str = "arguments") -> list[str]:
    """Todas las formas en que ``value`` incumple ``schema``, como mensajes que un modelo pueda
    aprovechar. ``[]`` significa válido.

    Palabras clave admitidas: ``type`` (un nombre, o una lista de nombres: vale cualquiera de
    ellos), ``enum``, ``minimum``, ``maximum``, ``minLength``, ``maxLength``, ``pattern``,
    ``required``, ``properties``, ``additionalProperties`` (``False`` o un esquema) e ``items`` (un
    esquema para todos los elementos). Cualquier otra palabra clave (``description``, ``default``,
    ``$schema``…) se ignora.

    ``path`` nombra el valor en los mensajes: las propiedades se unen con puntos y los índices de
    un array se escriben entre corchetes: ``arguments.ids[2]``. Las comprobaciones, en este orden,
    y sus mensajes exactos (en inglés: son los que comprueban las pruebas, y los que lee el
    modelo):

    1. ``type`` (mira :func:`is_type`): ``"{path}: expected {names}, got {json_type(value)}"``,
       donde ``names`` es el nombre, o los nombres unidos con ``" or "`` (``expected string or
       null``). Si el tipo es incorrecto, para aquí: ningún otro mensaje para este valor;
    2. las palabras clave que juzgan el propio valor, ``enum``, ``minimum``, ``maximum``,
       ``minLength``, ``maxLength`` y ``pattern``: los mensajes que da :func:`value_problems`;
    3. solo en objetos (dicts), las palabras clave que juzgan lo que llevan dentro, ``required``,
       ``properties`` y ``additionalProperties``: los mensajes que da :func:`object_problems`;
    4. solo en arrays (listas): con ``items``, cada elemento en ``{path}[{index}]``.
    """
    # BEGIN SOLUTION: primero type (para si falla); luego los grupos, en el orden del docstring
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(is_type(value, name) for name in names):
            # Basta un mensaje: "must be >= 1" no le dice nada a un valor del tipo equivocado.
            return [f"{path}: expected {' or '.join(names)}, got {json_type(value)}"]
    problems = value_problems(schema, value, path)
    if isinstance(value, dict):
        problems += object_problems(schema, value, path)
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            problems += check_arguments(schema["items"], item, f"{path}[{index}]")
    return problems
    # END SOLUTION


def value_problems(schema: dict[str, Any], value: Any, path: str) -> list[str]:
    """Lo que dicen ``enum``, ``minimum``, ``maximum``, ``minLength``, ``maxLength`` y ``pattern``
    de ``value`` (cuyo tipo ya ha comprobado :func:`check_arguments`), en este orden:

    1. ``enum`` (compara con :func:`same_json_value`): ``"{path}: must be one of {options}"``,
       con las opciones escritas como JSON y unidas con ``", "``: ``must be one of "celsius",
       "fahrenheit"``;
    2. solo números (enteros y floats, nunca booleanos): ``minimum`` → ``"{path}: must be >=
       {minimum}"``, ``maximum`` → ``"{path}: must be <= {maximum}"``;
    3. solo cadenas: ``minLength`` → ``"{path}: must be at least {n} characters long"``,
       ``maxLength`` → ``"{path}: must be at most {n} characters long"``, ``pattern`` (buscado en
       cualquier parte de la cadena, como ``re.search``) → ``"{path}: must match the pattern
       {pattern}"``.

    Una palabra clave que no se aplica al tipo del valor se salta: ``minimum`` no dice nada de una
    cadena. ``[]`` cuando se cumplen todas las palabras clave.
    """
    # BEGIN SOLUTION: enum para cualquier valor; luego las palabras clave de números y de cadenas
    problems: list[str] = []
    if "enum" in schema and not any(same_json_value(value, option) for option in schema["enum"]):
        options = ", ".join(json.dumps(option, ensure_ascii=False) for option in schema["enum"])
        problems.append(f"{path}: must be one of {options}")
    if json_type(value) in ("integer", "number"):  # json_type, para que True no sea un número
        if "minimum" in schema and value < schema["minimum"]:
            problems.append(f"{path}: must be >= {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            problems.append(f"{path}: must be <= {schema['maximum']}")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            problems.append(f"{path}: must be at least {schema['minLength']} characters long")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            problems.append(f"{path}: must be at most {schema['maxLength']} characters long")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            problems.append(f"{path}: must match the pattern {schema['pattern']}")
    return problems
    # END SOLUTION


def object_problems(schema: dict[str, Any], value: dict[str, Any], path: str) -> list[str]:
    """Lo que dicen ``required``, ``properties`` y ``additionalProperties`` del objeto ``value``,
    en este orden:

    1. cada nombre de ``required`` que falta en el objeto, en el orden del esquema:
       ``'{path}: missing required property "{name}"'``;
    2. después, cada clave del objeto, en el orden del objeto: una clave que está en
       ``properties`` se comprueba contra su esquema con :func:`check_arguments` en
       ``{path}.{key}``; si no, cuando ``additionalProperties`` es ``False``: ``'{path}:
       unexpected property "{key}"'``, seguido de ``' (did you mean "{name}"?)'`` cuando
       ``difflib.get_close_matches(key, <los nombres de properties>, n=1, cutoff=0.6)`` encuentra
       un nombre; si es un esquema, el valor se comprueba contra él en ``{path}.{key}``. Sin
       ``additionalProperties``, se admite cualquier otra clave.
    """
    # BEGIN SOLUTION: primero required; luego una pasada por las claves, con check_arguments
    problems: list[str] = []
    properties = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in value:
            problems.append(f'{path}: missing required property "{name}"')
    extra = schema.get("additionalProperties", True)  # lo que JSON Schema da por defecto: todo vale
    for key, item in value.items():
        if key in properties:
            problems += check_arguments(properties[key], item, f"{path}.{key}")
        elif extra is False:
            message = f'{path}: unexpected property "{key}"'
            close = difflib.get_close_matches(key, list(properties), n=1, cutoff=0.6)
            if close:
                message += f' (did you mean "{close[0]}"?)'
            problems.append(message)
        elif isinstance(extra, dict):
            problems += check_arguments(extra, item, f"{path}.{key}")
    return problems
    # END SOLUTION


# =============================================================================================
# 3. Enrutar las herramientas de varios servidores
# =============================================================================================

#: Lo que aceptan muchas API de modelos en el nombre de una herramienta (función): letras, dígitos,
#: "_" y "-".
SAFE_NAME = re.compile(r"[A-Za-z0-9_-]+")


def sanitize(name: str) -> str:
    """``name`` con cada carácter que no sea una letra, un dígito, ``_`` o ``-`` cambiado por
    ``_``.

    ``sanitize("admin.tools.list") == "admin_tools_list"``. MCP admite puntos en los nombres de las
    herramientas; muchas API de modelos no.
    """
    # BEGIN SOLUTION: un re.sub
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)
    # END SOLUTION


class ToolRouter:
    """Las herramientas de varios servidores bajo un solo conjunto de nombres que un modelo puede
    usar, y el camino de vuelta.

    ``router.set_tools("calendar", tools)`` recibe el ``tools/list`` de un servidor (una lista de
    dicts de herramientas); ``router.tools()`` da todas las herramientas, renombradas;
    ``router.resolve("calendar__read_events")`` devuelve ``("calendar", "read_events")``: el
    servidor al que preguntar y el nombre real de la herramienta.

    El nombre de una herramienta (el nombre *expuesto*):

    * la base es ``sanitize(server) + separator + sanitize(nombre de la herramienta)``;
    * si la base tiene más de ``max_length`` caracteres, quédate con sus primeros ``max_length -
      9`` caracteres y añade ``"_"`` y los 8 primeros dígitos hexadecimales de
      ``hashlib.sha256(f"{server}/{tool}".encode())`` (los nombres *reales*), para que los
      nombres largos sigan siendo únicos y salgan siempre iguales;
    * si otra herramienta (de cualquier servidor) ya tiene ese nombre, prueba ``_2``, ``_3``, …
      por turno: el nombre (tras la regla de la longitud) con el sufijo añadido, recortado antes
      si hace falta para que nombre + sufijo quepan en ``max_length``; quédate con el primero
      libre.

    Estabilidad: un nombre, una vez dado, sigue con su herramienta mientras la herramienta
    exista. Llamar otra vez a ``set_tools`` para un servidor (llegó su ``list_changed``) conserva
    los nombres expuestos de las herramientas que siguen en la lista, libera los nombres de las
    que ya no están y pone nombre a las nuevas, en el orden de la lista.

    Errores: un ``separator`` vacío o que no esté hecho de letras, dígitos, ``_`` y ``-`` →
    ``ValueError``; un nombre de servidor vacío → ``ValueError``; dos herramientas con el mismo
    nombre en una lista → ``ValueError``; :meth:`resolve` de un nombre que el router no dio →
    ``KeyError``; :meth:`remove_server` de un servidor desconocido → ``KeyError``.
    """

    def __init__(self, separator: str = "__", max_length: int = 64) -> None:
        # BEGIN SOLUTION: comprueba el separador; tu estado: los nombres de cada servidor, en orden
        if not SAFE_NAME.fullmatch(separator):
            raise ValueError(f"separator {separator!r}: use letters, digits, '_' or '-'")
        self.separator = separator
        self.max_length = max_length
        # servidor → [(expuesto, herramienta)]
        self._servers: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        self._routes: dict[str, tuple[str, str]] = {}  # expuesto → (servidor, nombre real)
        # END SOLUTION

    def set_tools(self, server: str, tools: list[dict[str, Any]]) -> None:
        """Añade ``server`` con sus ``tools``, o sustituye sus herramientas (las que siguen
        conservan su nombre)."""
        # BEGIN SOLUTION: comprueba; libera nombres de las ausentes, guarda el resto, nombra nuevas
        if not server:
            raise ValueError("a server name must not be empty")
        names = [tool["name"] for tool in tools]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ValueError(
                f"server {server!r} lists the same tool twice: {', '.join(duplicates)}"
            )
        kept = {self._routes[exposed][1]: exposed for exposed, _ in self._servers.get(server, [])}
        for real, exposed in kept.items():
            if real not in names:
                del self._routes[exposed]
        entries = []
        for tool in tools:
            exposed = kept.get(tool["name"]) or self._new_name(server, tool["name"])
            self._routes[exposed] = (server, tool["name"])
            entries.append((exposed, tool))
        self._servers[server] = entries
        # END SOLUTION

    def _new_name(self, server: str, tool: str) -> str:
        # BEGIN SOLUTION: nombre base, regla de la longitud, y luego el primer sufijo libre
        base = sanitize(server) + self.separator + sanitize(tool)
        if len(base) > self.max_length:
            digest = hashlib.sha256(f"{server}/{tool}".encode()).hexdigest()[:8]
            base = f"{base[: self.max_length - 9]}_{digest}"
        if base not in self._routes:
            return base
        number = 2
        while True:
            suffix = f"_{number}"
            candidate = base[: self.max_length - len(suffix)] + suffix
            if candidate not in self._routes:
                return candidate
            number += 1
        # END SOLUTION

    def remove_server(self, server: str) -> None:
        """Olvida ``server`` y libera los nombres de sus herramientas."""
        # BEGIN SOLUTION
        for exposed, _ in self._servers.pop(server):
            del self._routes[exposed]
        # END SOLUTION

    def tools(self) -> list[dict[str, Any]]:
        """Todas las herramientas, los servidores en el orden en que se añadieron por primera vez y
        las herramientas de cada servidor en el orden de su lista: una copia de cada dict de
        herramienta con ``"name"`` cambiado por el nombre expuesto (los originales no se tocan
        nunca)."""
        # BEGIN SOLUTION
        return [
            {**tool, "name": exposed}
            for entries in self._servers.values()
            for exposed, tool in entries
        ]
        # END SOLUTION

    def resolve(self, exposed: str) -> tuple[str, str]:
        """``(servidor, nombre real de la herramienta)`` de un nombre expuesto; ``KeyError`` si el
        router nunca lo dio."""
        # BEGIN SOLUTION
        return self._routes[exposed]
        # END SOLUTION
