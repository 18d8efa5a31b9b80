"""Two small asyncio habits the whole stack shares.

* :class:`TaskKeeper`: asyncio keeps only a *weak* reference to a task, so a task nobody holds may
  be garbage-collected half-way through. Whoever starts background work keeps it here till it ends.
* :func:`resolve`: user callbacks (a tool, a progress callback) may be plain functions or coroutine
  functions; the caller awaits the result only when there is something to await.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Coroutine
from typing import Any


class TaskKeeper:
    """Holds a reference to every task it started until that task is done."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Start ``work`` as a task and keep it alive until it finishes."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def cancel_all(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    async def wait(self) -> None:
        """Wait for every task still running (their errors are theirs: none is raised here)."""
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    def __len__(self) -> int:
        return len(self._tasks)


async def resolve(value: Any) -> Any:
    """``value`` itself, or what it gives when awaited if it is awaitable."""
    if inspect.isawaitable(value):
        return await value
    return value


async def call(function: Callable[..., Any] | None, *args: Any, **kwargs: Any) -> Any:
    """Call a plain or async function (or None: nothing to call) and return its result."""
    if function is None:
        return None
    return await resolve(function(*args, **kwargs))
