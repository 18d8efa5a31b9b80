"""The client facing a task it cannot finish (lesson 13): a question its answers cannot answer,
and a server that never stops asking. Either way the caller of ``call_tool`` hears why, the user is
asked no more than lesson 12's bound, and the task is cancelled: nobody else would ever follow it.
"""

from __future__ import annotations

from typing import Any

import pytest
from support import TIMEOUT
from task_support import TaskServer, accept, connected, question, status_on_server

from minimcp.client import ClientAnswers
from minimcp.rpc import RpcError
from minimcp.server.tasks import as_task
from minimcp.session import RequestContext
from minimcp.session.eras import MAX_ROUNDS


async def test_a_call_tool_that_cannot_answer_its_tasks_question_cancels_the_task() -> None:
    served = TaskServer()
    parked: list[str] = []

    async def elicitation(params: dict[str, Any]) -> dict[str, Any]:
        parked.extend(served.tasks.running)  # the task waiting for this answer
        raise RuntimeError("the window that would ask the user was closed")

    async with connected(served, answers=ClientAnswers(elicitation=elicitation)) as client:
        with pytest.raises(RuntimeError, match="window"):  # the caller hears why
            await client.call_tool("confirm", timeout=TIMEOUT)
    (task_id,) = parked
    assert await status_on_server(served, task_id, "cancelled") == "cancelled"


async def test_a_task_that_never_stops_asking_is_cancelled_after_max_rounds() -> None:
    served = TaskServer()
    asked: list[str] = []
    parked: set[str] = set()

    @served.tasks.tool()
    async def pester(context: RequestContext) -> str:
        await as_task(context)
        for round_ in range(MAX_ROUNDS + 5):
            await context.ask({f"again-{round_}": question(f"Again ({round_})?")})
        return "never"

    async def elicitation(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params["message"])
        parked.update(served.tasks.running)  # the task waiting for this answer
        return await accept(params)

    async with connected(served, answers=ClientAnswers(elicitation=elicitation)) as client:
        with pytest.raises(RpcError, match=f"after {MAX_ROUNDS} rounds"):
            await client.call_tool("pester", timeout=TIMEOUT)
    assert len(asked) == MAX_ROUNDS  # the user was asked no more than that
    (task_id,) = parked
    assert await status_on_server(served, task_id, "cancelled") == "cancelled"
