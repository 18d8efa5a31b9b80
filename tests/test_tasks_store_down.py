"""Lesson 13: a store that fails while a task runs (lesson 11's Redis down) stops the task's work.

A task's outcome is kept by the store, and only there: if the store fails while the server
follows the work, nobody is left to keep what the work does. The work is stopped, and the log
says why; the server serves on.
"""

from __future__ import annotations

import asyncio
import logging

import pytest
from support import TIMEOUT
from task_support import TaskServer, call, start
from test_modern import peer

from minimcp.server.task_model import TaskRecord
from minimcp.server.task_store import Change, MemoryTaskStore
from minimcp.server.tasks import as_task
from minimcp.session import RequestContext


class FailingStore(MemoryTaskStore):
    """A store that fails every read and change once ``down`` (as Redis does when it stops)."""

    down = False

    async def get(self, task_id: str) -> TaskRecord | None:
        if self.down:
            raise ConnectionError("Redis is down")
        return await super().get(task_id)

    async def update(self, task_id: str, change: Change) -> TaskRecord | None:
        if self.down:
            raise ConnectionError("Redis is down")
        return await super().update(task_id, change)


async def test_when_the_store_fails_the_work_is_stopped_and_the_log_says_why(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr("minimcp.server.tasks.WATCH", 0.01)  # the follow looks again at once
    caplog.set_level(logging.ERROR, "minimcp.tasks")
    store = FailingStore()
    served, stopped = TaskServer(store), asyncio.Event()

    @served.tasks.tool()
    async def endless(context: RequestContext) -> str:
        await as_task(context)
        try:
            await asyncio.Event().wait()  # work that never ends on its own
        finally:
            stopped.set()
        return "never"

    async with peer(served.server) as (connection, _):
        task_id = await start(connection, "endless")
        store.down = True
        await asyncio.wait_for(stopped.wait(), TIMEOUT)
        assert served.tasks.running == {}
        store.down = False
        quick = await call(connection, "tools/call", name="quick", arguments={})
    assert quick["content"] == [{"type": "text", "text": "quick"}]
    assert f"task {task_id}: the store failed, so its work is stopped" in caplog.text
