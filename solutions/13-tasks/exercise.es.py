"""Ejercicio de la lección 13: la vida de una tarea, desde sus dos extremos, escrita a mano.

1. **La máquina de estados de una tarea.** La extensión de tareas
   (``io.modelcontextprotocol/tasks``) da a una tarea cinco estados y unos pocos movimientos entre
   ellos; de una tarea terminada no sale nada. Escribe los movimientos permitidos y los rechazados,
   ``tasks/cancel`` (una tarea terminada se queda como está: cancelar dos veces no es un error) y
   lo que muestra ``tasks/get`` en cada estado. Los nombres son los de
   ``minimcp/server/task_model.py``, el lado del servidor del curso: lee el uno junto al otro.
2. **Seguir una tarea: el bucle de sondeo del cliente, con sus límites.** Un cliente que tiene el
   identificador de una tarea pregunta con ``tasks/get`` hasta que la tarea termina: tan a menudo
   como sugiere el servidor, pero nunca más a menudo ni más de tarde en tarde de lo que permite el
   cliente, contestando por el camino a las preguntas de la tarea, y rindiéndose tras un número
   acotado de sondeos o al llegar un plazo. El tiempo se recibe como parámetro (``sleep`` y
   ``clock``): las pruebas nunca esperan de verdad.

Los mensajes de las excepciones están en inglés, como los del resto de ``minimcp``.

Comprueba tu trabajo con ``python tools/check.py 13 --lang es``. Solo hace falta la biblioteca
estándar.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

# =================================================================================================
# Parte 1 · La máquina de estados de una tarea (la extensión de tareas, "Task Status")
# =================================================================================================
#
# Cinco estados. Una tarea empieza en `working`; los tres últimos son TERMINALES (TERMINAL): una
# tarea que llega a uno ha terminado, y su estado ya no cambia nunca.
#
#     working ──────────► input_required      (el trabajo necesita una respuesta del cliente)
#     input_required ───► working             (todas las preguntas respondidas: el trabajo sigue)
#     working, input_required ──► completed | failed | cancelled     (el final)
#
# No hay más movimientos que esos: nada sale de un estado terminal, y no hay movimiento al mismo
# estado (de `working` a `working` no cambia nada, y quien lo pide ha perdido la pista de la tarea).
#
# allowed(status, to) -> True si la extensión permite el movimiento, False si no (también para un
#   estado que no conoce).
#
# move(task, to, message=None): el movimiento, o MoveRefused("a task cannot go from 'x' to 'y'")
#   con la tarea exactamente como estaba. Un movimiento fija `status` y `status_message` (None lo
#   borra); todo movimiento que no sea a input_required vacía `questions` (se respondieron, o no
#   se responderán nunca).
#
# cancel(tasks, task_id) -> lo que hace tasks/cancel con tasks[task_id]:
#   * no hay tal tarea .......................... UnknownTask (en el cable: -32602, el único error)
#   * una tarea terminada (un estado terminal) .. False, y nada cambia: una tarea completada
#                                                 conserva su resultado, una cancelada sigue así
#   * working o input_required .................. True, una vez movida a cancelled
#
# detailed(task) -> la tarea como la muestra tasks/get: {"taskId", "status", "pollIntervalMs"},
#   más "statusMessage" cuando lo hay, más lo que lleva su estado:
#   input_required: "inputRequests" (sus preguntas, por clave) · completed: "result" ·
#   failed: "error"

WORKING = "working"
INPUT_REQUIRED = "input_required"
COMPLETED = "completed"
FAILED = "failed"
CANCELLED = "cancelled"
#: Una tarea en uno de estos ha terminado: su estado ya no cambia nunca.
TERMINAL = (COMPLETED, FAILED, CANCELLED)


class MoveRefused(Exception):
    """Un movimiento que la máquina de estados no permite (desde un estado terminal, o al mismo)."""


class UnknownTask(LookupError):
    """Ninguna tarea tiene este id (nunca creada, u olvidada): ``tasks/cancel`` responde
    ``-32602``."""


@dataclass
class Task:
    """Lo que un servidor guarda de una tarea (unos pocos campos de ``task_model.TaskRecord``)."""

    id: str
    status: str = WORKING
    status_message: str | None = None
    poll_interval_ms: int = 1_000  # cada cuánto debería preguntar el cliente, como mucho
    #: input_required: las preguntas que espera el trabajo, por clave (lo que tasks/get muestra al
    #: cliente).
    questions: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] | None = None  # una vez completed: el resultado de la petición
    error: dict[str, Any] | None = None  # una vez failed: el error JSON-RPC


def allowed(status: str, to: str) -> bool:
    """Si una tarea puede pasar de ``status`` a ``to``."""
    # BEGIN SOLUTION: solo working e input_required tienen movimientos: enuméralos
    moves = {
        WORKING: (INPUT_REQUIRED, COMPLETED, FAILED, CANCELLED),
        INPUT_REQUIRED: (WORKING, COMPLETED, FAILED, CANCELLED),
    }
    return to in moves.get(status, ())
    # END SOLUTION


def move(task: Task, to: str, message: str | None = None) -> None:
    """Mueve ``task`` a ``to``, o rechaza con :class:`MoveRefused` sin cambiar nada."""
    # BEGIN SOLUTION: primero el rechazo; luego el estado, su mensaje y las preguntas que deja
    if not allowed(task.status, to):
        raise MoveRefused(f"a task cannot go from {task.status!r} to {to!r}")
    task.status = to
    task.status_message = message
    if to != INPUT_REQUIRED:
        task.questions = {}
    # END SOLUTION


def cancel(tasks: dict[str, Task], task_id: str) -> bool:
    """``tasks/cancel``: True si esta llamada canceló la tarea, False si ya había terminado."""
    # BEGIN SOLUTION: un id desconocido es el único error; una tarea terminada no se toca
    task = tasks.get(task_id)
    if task is None:
        raise UnknownTask(task_id)
    if task.status in TERMINAL:
        return False
    move(task, CANCELLED)
    return True
    # END SOLUTION


def detailed(task: Task) -> dict[str, Any]:
    """La tarea como la muestra ``tasks/get`` (``DetailedTask``): con lo que lleva su estado."""
    # BEGIN SOLUTION: los campos de todo estado, el mensaje si lo hay, y un campo según el estado
    shown: dict[str, Any] = {
        "taskId": task.id,
        "status": task.status,
        "pollIntervalMs": task.poll_interval_ms,
    }
    if task.status_message:
        shown["statusMessage"] = task.status_message
    if task.status == INPUT_REQUIRED:
        shown["inputRequests"] = dict(task.questions)
    elif task.status == COMPLETED:
        shown["result"] = task.result
    elif task.status == FAILED:
        shown["error"] = task.error
    return shown
    # END SOLUTION


# =================================================================================================
# Parte 2 · Seguir una tarea: el bucle de sondeo del cliente, con sus límites (la extensión de
#           tareas, "Polling")
# =================================================================================================
#
# Un tools/call respondido con una tarea da al cliente un identificador (handle): {"resultType":
# "task", "taskId", "status", "pollIntervalMs", ...}, nunca el resultado en sí. Después el cliente
# pregunta con tasks/get, que responde la tarea como la muestra detailed(), hasta que termina.
#
# interval(task, polling) -> cuántos segundos esperar antes del siguiente tasks/get:
#   * la sugerencia del servidor, task["pollIntervalMs"] / 1000, cuando es un entero positivo (no
#     un bool: True es un int en Python); si falta, o es None, 0, negativo o no entero:
#     polling.default;
#   * y después acotada: nunca menos que polling.floor (un servidor no debe hacer que el cliente lo
#     acribille a peticiones), nunca más que polling.ceiling (ni hacerle esperar para siempre).
#
# follow(handle, get, answer, sleep, clock, polling) -> el resultado de la tarea. El bucle:
#   1. espera `await sleep(interval(lo último que dijo el servidor, polling))` (primero, el handle),
#   2. `task = await get(task_id)` (un sondeo), y según su estado:
#      * completed ....... devuelve task["result"] (una herramienta que informó de un error,
#                          "isError": true, también completó: su resultado se devuelve, no se
#                          lanza)
#      * failed .......... lanza TaskFailed(task_id, task["error"])
#      * cancelled ....... lanza TaskCancelled(task_id, "...")
#      * input_required .. `await answer(task_id, questions)` con las preguntas de
#                          task["inputRequests"] cuya clave no se respondió antes (una clave se usa
#                          una sola vez en la vida de una tarea; el servidor puede seguir mostrando
#                          una ya respondida hasta que recoja la respuesta), como mucho una vez por
#                          clave; después sigue desde 1
#      * cualquier otro .. sigue desde 1 (working)
#   Límites, comprobados antes de cada espera: tras polling.max_polls sondeos, o cuando el
#   siguiente sondeo llegaría después del plazo (clock() + la espera > el reloj al empezar +
#   polling.deadline), lanza TaskStillRunning(task_id, "..."), sin dormir ni sondear otra vez.
#   Puede que la tarea siga en marcha: quien llamó puede volver a seguirla más tarde, o cancelarla.

#: ``get(task_id)``: la tarea como la responde ``tasks/get``.
Get = Callable[[str], Awaitable[dict[str, Any]]]
#: ``answer(task_id, questions)``: contesta a las preguntas, por clave (un cliente de verdad envía
#: las respuestas con ``tasks/update``, cada una dada por los manejadores de la lección 09).
Answer = Callable[[str, dict[str, Any]], Awaitable[None]]


@dataclass(frozen=True)
class Polling:
    """Cómo sigue un cliente una tarea, sugiera lo que sugiera el servidor. Tiempos en segundos."""

    floor: float = 0.1  # nunca preguntar más a menudo que esto
    ceiling: float = 30.0  # nunca esperar más que esto entre dos sondeos
    default: float = 1.0  # cuando el servidor no sugiere intervalo
    max_polls: int = 1_000  # como mucho, estos tasks/get
    deadline: float | None = None  # rendirse a este tiempo del inicio (None: sin plazo)


DEFAULT_POLLING = Polling()


class TaskError(Exception):
    """Una tarea seguida sin obtener su resultado; ``task_id`` dice cuál."""

    def __init__(self, task_id: str, message: str) -> None:
        super().__init__(message)
        self.task_id = task_id


class TaskFailed(TaskError):
    """La tarea acabó ``failed``: el ``code``, el ``message`` y el ``data`` de su error JSON-RPC."""

    def __init__(self, task_id: str, error: dict[str, Any]) -> None:
        super().__init__(task_id, f"task {task_id} failed: {error.get('message')}")
        self.code = error.get("code")
        self.data = error.get("data")


class TaskCancelled(TaskError):
    """La tarea acabó ``cancelled``: alguien llamó a ``tasks/cancel``."""


class TaskStillRunning(TaskError):
    """El cliente dejó de seguir una tarea sin terminar (demasiados sondeos, o el plazo)."""


def interval(task: dict[str, Any], polling: Polling = DEFAULT_POLLING) -> float:
    """Segundos de espera antes del siguiente ``tasks/get``: la sugerencia del servidor, acotada."""
    # BEGIN SOLUTION: un int positivo (no un bool) en ms, o el valor por defecto; luego los topes
    suggested = task.get("pollIntervalMs")
    if isinstance(suggested, int) and not isinstance(suggested, bool) and suggested > 0:
        seconds = suggested / 1000
    else:
        seconds = polling.default
    return min(max(seconds, polling.floor), polling.ceiling)
    # END SOLUTION


async def follow(
    handle: dict[str, Any],
    get: Get,
    answer: Answer,
    sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
    polling: Polling = DEFAULT_POLLING,
) -> dict[str, Any]:
    """Sondea la tarea de ``handle`` hasta que termine: su resultado, o el motivo de no tenerlo."""
    # BEGIN SOLUTION: límites, espera, sondeo; actúa según el estado; cada clave una sola vez
    task_id = handle["taskId"]
    deadline = None if polling.deadline is None else clock() + polling.deadline
    task = handle
    polls = 0
    answered: set[str] = set()  # las claves de las preguntas ya respondidas
    while True:
        wait = interval(task, polling)
        if polls >= polling.max_polls:
            raise TaskStillRunning(task_id, f"task {task_id}: not over after {polls} polls")
        if deadline is not None and clock() + wait > deadline:
            raise TaskStillRunning(task_id, f"task {task_id}: not over at the deadline")
        await sleep(wait)
        task = await get(task_id)
        polls += 1
        status = task.get("status")
        if status == COMPLETED:
            result: dict[str, Any] = task["result"]
            return result
        if status == FAILED:
            raise TaskFailed(task_id, task["error"])
        if status == CANCELLED:
            raise TaskCancelled(task_id, f"task {task_id} was cancelled")
        if status == INPUT_REQUIRED:
            asked = task.get("inputRequests") or {}
            new = {key: question for key, question in asked.items() if key not in answered}
            if new:
                answered.update(new)
                await answer(task_id, new)
    # END SOLUTION
