"""What the conformance suite's tasks scenarios ask of the server, by their names (lesson 13).

The suite's pre-release (0.2.0-alpha.12) tests the tasks extension (SEP-2663) with ten server
scenarios; each needs some of these tools (the scenarios' own descriptions say which):

* ``greet``: an ordinary tool, never a task: ``Hello, {name}!``;
* ``slow_compute``: sleeps ``seconds``, then answers; a task when the client can take one and the
  call outlasts the server's grace (``seconds: 0`` is answered at once). A ``tasks/cancel`` while
  it sleeps stops it: the task ends ``cancelled``;
* ``failing_job``: runs only as a task (a client without the extension gets ``-32021``), and ends
  with a *tool* error after a second: the task **completes**, with ``isError`` in its result;
* ``protocol_error_job``: a task that ends in a *protocol* error: the task **fails**, with the
  JSON-RPC error inlined;
* ``confirm_delete`` and ``multi_input``: tasks that ask the client (one question; two at once),
  and wait, ``input_required``, for ``tasks/update`` to bring the answers;
* ``test_tool_with_task``: asks the user's name *first*, on the request itself (lesson 12's multi
  round-trip), then becomes a task, whose result says the name.

:func:`add_task_fixtures` adds them, and the extension, to the conformance server of
:mod:`minimcp.examples.conformance`.
"""

from __future__ import annotations

import asyncio
from typing import Any

from minimcp.examples.conformance_2026 import field, form
from minimcp.rpc.jsonrpc import INTERNAL_ERROR, RpcError
from minimcp.server.complete import Server
from minimcp.server.tasks import REQUIRED, as_task, serve_tasks
from minimcp.server.tools import ToolError
from minimcp.session.context import RequestContext
from minimcp.session.server import ForTheClient


class JobCrashed(RpcError, ForTheClient):
    """A protocol error raised inside a tool: the request itself fails (no tool result)."""


def add_task_fixtures(server: Server) -> None:
    tasks = serve_tasks(server)

    @server.tool()
    def greet(name: str) -> str:
        """Greets someone, at once: never a task"""
        return f"Hello, {name}!"

    @tasks.tool()
    async def slow_compute(seconds: float, label: str = "") -> str:
        """Works for `seconds` seconds, then answers (a task if that takes long)"""
        await asyncio.sleep(seconds)
        return f"{label or 'slow_compute'}: done after {seconds:g} s"

    @tasks.tool(support=REQUIRED)
    async def failing_job() -> str:
        """Runs only as a task, and ends with a tool error after a second"""
        await asyncio.sleep(1)
        raise ToolError("The job failed: this tool always does")

    @tasks.tool()
    async def protocol_error_job(context: RequestContext) -> str:
        """A task whose request ends in a protocol error"""
        await as_task(context)
        raise JobCrashed(INTERNAL_ERROR, "The job crashed before producing a result")

    add_asking_tasks(server)


def add_asking_tasks(server: Server) -> None:
    """The tasks that ask the client something: as a task, or before becoming one."""
    tasks = serve_tasks(server)

    @tasks.tool()
    async def confirm_delete(filename: str, context: RequestContext) -> str:
        """A task that asks the user to confirm, then deletes (nothing, here)"""
        await as_task(context)
        answers = await context.ask({"confirm": form(f"Delete {filename}?", confirm="boolean")})
        return f"{filename}: {'deleted' if confirmed(answers['confirm']) else 'kept'}"

    @tasks.tool()
    async def multi_input(context: RequestContext) -> str:
        """A task that asks two things at once: both stay open until each is answered"""
        await as_task(context)
        answers = await context.ask(
            {
                "name": form("Your name?", name="string"),
                "confirm": form("Go on?", confirm="boolean"),
            }
        )
        return f"{field(answers['name'], 'name')}: confirmed={confirmed(answers['confirm'])}"

    @tasks.tool(support=REQUIRED)
    async def test_tool_with_task(context: RequestContext) -> str:
        """Asks the user's name on the request itself, then works on as a task"""
        answers = await context.ask({"user_name": form("What is your name?", name="string")})
        await as_task(context)
        await asyncio.sleep(0.2)
        return f"Hello, {field(answers['user_name'], 'name')}! (from a task)"


def confirmed(answer: dict[str, Any]) -> bool:
    return answer.get("action") == "accept" and field(answer, "confirm") is True
