"""Ejercicio de la lección 09: un cliente que responde a las preguntas del servidor, y solo a las
que ofreció.

1. **Declara lo que respondes.** Un cliente ofrece sampling, elicitation y roots declarándolos en
   ``initialize``. Escribe ``ClientAnswers.capabilities()``, que declara exactamente aquello para
   lo que se le dio al cliente una forma de responder, y nada más.
2. **Responde, o rechaza con el código correcto.** El servidor envía una petición; el cliente la
   responde, o la rechaza con el error que nombra la especificación: ``-32601`` para lo que nunca
   se declaró, ``-32602`` para un modo o una funcionalidad que no declaró, ``-1`` cuando el usuario
   dijo que no. Escribe ``refusal()`` (qué error, si hay alguno) y ``respond()`` (la respuesta
   JSON-RPC entera).
3. **Una pregunta dentro de un tools/call.** El servidor pregunta *mientras* responde: llama al
   modelo, o le pregunta al usuario, en mitad de la ejecución de una herramienta. Escribe
   ``call_tool()``, que envía un ``tools/call`` y, hasta que llega su respuesta, responde a cada
   petición que envía el servidor.

Es el corazón de ``minimcp/client/answers.py``, sin sus comprobaciones de la forma de cada mensaje.
Comprueba tu trabajo con ``python tools/check.py 09 --lang es``. Solo hace falta la biblioteca
estándar.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Protocol

#: Los códigos de este ejercicio (especificación 2025-11-25: los de JSON-RPC, y el código de ejemplo
#: de sampling).
METHOD_NOT_FOUND = -32601  # una petición que el cliente no declaró (en roots, DEBE (MUST) ser este)
INVALID_PARAMS = -32602  # un modo de elicitation, o sampling con herramientas, que no se declaró
USER_REJECTED = -1  # el usuario rechazó una petición de sampling

#: Un manejador recibe los params de la petición y devuelve su resultado.
Handler = Callable[[dict[str, Any]], dict[str, Any]]


class Refused(Exception):
    """La lanza un manejador de sampling cuando el usuario dice que no: el servidor recibe el error
    -1, y el motivo."""


# =================================================================================================
# Parte 1 · Declara lo que respondes (especificación 2025-11-25, basic/lifecycle, "Capability
#           Negotiation")
# =================================================================================================
#
# ClientAnswers(sampling=..., sampling_tools=..., elicitation=..., elicitation_modes=...,
# roots=...) guarda un manejador para cada petición que acepta el cliente (None: no se ofrece).
# capabilities() devuelve lo que declara `initialize`, con una clave por cada cosa ofrecida:
#
#   * se da sampling ....................... "sampling": {}   ({"tools": {}} con sampling_tools)
#   * se da elicitation .................... "elicitation": {"form": {}}, una clave por modo de
#                                              elicitation_modes, p. ej. {"form": {}, "url": {}}
#   * se dan roots (una lista, aunque vacía)  "roots": {}     (este cliente nunca los cambia, así
#                                              que no promete "listChanged")
#   * no se da nada ........................ {}               (nunca una clave con valor null)


class ClientAnswers:
    """Las peticiones del servidor que acepta este cliente, las capacidades que lo dicen, y las
    respuestas."""

    def __init__(
        self,
        *,
        sampling: Handler | None = None,
        sampling_tools: bool = False,
        elicitation: Handler | None = None,
        elicitation_modes: Iterable[str] = ("form",),
        roots: Iterable[dict[str, Any]] | None = None,
    ) -> None:
        self.sampling = sampling
        self.sampling_tools = sampling_tools
        self.elicitation = elicitation
        self.elicitation_modes = tuple(elicitation_modes)
        self.roots = None if roots is None else list(roots)

    def capabilities(self) -> dict[str, Any]:
        """Lo que declara ``initialize``: exactamente las peticiones que responde este objeto."""
        # BEGIN SOLUTION: una clave por manejador dado; sampling.tools y los modos, dentro
        declared: dict[str, Any] = {}
        if self.sampling is not None:
            declared["sampling"] = {"tools": {}} if self.sampling_tools else {}
        if self.elicitation is not None:
            declared["elicitation"] = {mode: {} for mode in self.elicitation_modes}
        if self.roots is not None:
            declared["roots"] = {}
        return declared
        # END SOLUTION

    # =============================================================================================
    # Parte 2 · Responde, o rechaza con el código correcto (client/sampling, client/elicitation,
    #           client/roots, basic/utilities/ping)
    # =============================================================================================
    #
    # refusal(method, params) -> None cuando el cliente puede responder; si no, (code, message):
    #
    #   * "ping" ........................................ None: siempre se responde, con {}
    #   * un método cuyo manejador no se dio, o un método que este cliente no conoce en absoluto
    #                                                     (METHOD_NOT_FOUND, "Method not found: m")
    #   * "sampling/createMessage" con "tools" o "toolChoice" en sus params, y sin
    #     sampling_tools ................................ (INVALID_PARAMS, cualquier mensaje)
    #   * "elicitation/create" cuyo "mode" (sin modo significa "form") no está en
    #     elicitation_modes                               (INVALID_PARAMS, cualquier mensaje)
    #
    # respond(message) -> la respuesta JSON-RPC a una petición del servidor, un dict:
    #
    #   * rechazada ...... {"jsonrpc": "2.0", "id": <su id>, "error": {"code": c, "message": m}}
    #   * respondida ..... {"jsonrpc": "2.0", "id": <su id>, "result": r}, donde r es {} para
    #                      ping, {"roots": [...]} para roots/list y, si no, lo que devuelve el
    #                      manejador
    #   * un manejador de sampling que lanza Refused ... el error USER_REJECTED, con el texto de la
    #                      excepción como mensaje ("User rejected sampling request" si no tiene)
    #                      (los mensajes van en inglés: viajan por el protocolo)

    def refusal(self, method: str, params: dict[str, Any]) -> tuple[int, str] | None:
        """Por qué el cliente no puede responder a ``method``, como ``(code, message)``; None si
        puede."""
        # BEGIN SOLUTION: ping primero; luego "¿se declaró?"; luego lo que la declaración dejó fuera
        if method == "ping":
            return None
        offered = {
            "sampling/createMessage": self.sampling,
            "elicitation/create": self.elicitation,
            "roots/list": self.roots,
        }
        if offered.get(method) is None:
            return METHOD_NOT_FOUND, f"Method not found: {method}"
        if method == "sampling/createMessage" and not self.sampling_tools:
            if "tools" in params or "toolChoice" in params:
                return INVALID_PARAMS, "This client did not declare sampling.tools"
        if method == "elicitation/create":
            mode = params.get("mode", "form")
            if mode not in self.elicitation_modes:
                return INVALID_PARAMS, f"This client did not declare elicitation mode {mode!r}"
        return None
        # END SOLUTION

    def respond(self, message: dict[str, Any]) -> dict[str, Any]:
        """La respuesta JSON-RPC a ``message``, una petición que envió el servidor: un resultado o
        un error."""
        # BEGIN SOLUTION: primero el rechazo; luego la respuesta de cada método; Refused da error -1
        request_id, method = message["id"], message["method"]
        params: dict[str, Any] = message.get("params") or {}
        refused = self.refusal(method, params)
        if refused is not None:
            return error_response(request_id, *refused)
        result: dict[str, Any] = {}
        if method == "roots/list":
            result = {"roots": list(self.roots or [])}
        elif method == "sampling/createMessage" and self.sampling is not None:
            try:
                result = self.sampling(params)
            except Refused as refusal:
                text = str(refusal) or "User rejected sampling request"
                return error_response(request_id, USER_REJECTED, text)
        elif method == "elicitation/create" and self.elicitation is not None:
            result = self.elicitation(params)
        return {"jsonrpc": "2.0", "id": request_id, "result": result}
        # END SOLUTION


def error_response(request_id: Any, code: int, message: str) -> dict[str, Any]:
    """Una respuesta de error JSON-RPC (te la damos hecha: es la de la lección 01)."""
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


# =================================================================================================
# Parte 3 · Una pregunta dentro de un tools/call (especificación 2025-11-25, client/sampling y
#           client/elicitation: el servidor pregunta "en mitad de" una llamada a una herramienta)
# =================================================================================================
#
# call_tool(wire, answers, request_id, name, arguments) envía
#     {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
#      "params": {"name": name, "arguments": arguments}}
# y después lee del cable, mensaje a mensaje, hasta que llega la respuesta a *ese* id:
#
#   * una petición del servidor (tiene "method" e "id") ........ envía answers.respond(ella) ya:
#                                                                 la herramienta la está esperando
#   * una notificación (un "method", sin "id") ................. ignórala
#   * una respuesta a otro id .................................. ignórala
#   * la respuesta a request_id: su "result" .................... devuélvelo
#                                su "error" ..................... lanza ToolCallFailed(code,
#                                                                 message)


class Wire(Protocol):
    """Una conexión con el servidor, mensaje a mensaje (la de la lección 01, como dicts)."""

    def send(self, message: dict[str, Any]) -> Awaitable[None]: ...

    def receive(self) -> Awaitable[dict[str, Any]]: ...


class ToolCallFailed(Exception):
    """El servidor respondió al tools/call con un error."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


async def call_tool(
    wire: Wire, answers: ClientAnswers, request_id: Any, name: str, arguments: dict[str, Any]
) -> dict[str, Any]:
    """Llama a una herramienta, respondiendo a las peticiones del servidor hasta que llega la
    respuesta de la propia herramienta."""
    # BEGIN SOLUTION: envía la llamada; en bucle: responde peticiones, salta el resto, para en tu id
    params = {"name": name, "arguments": arguments}
    await wire.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})
    while True:
        message = await wire.receive()
        if "method" in message:
            if "id" in message:  # el servidor pregunta mientras responde: nos espera
                await wire.send(answers.respond(message))
            continue  # una notificación: nada que responder
        if message.get("id") != request_id:
            continue  # una respuesta a otra cosa
        if "error" in message:
            failure = message["error"]
            raise ToolCallFailed(failure["code"], failure["message"])
        result: dict[str, Any] = message["result"]
        return result
    # END SOLUTION
