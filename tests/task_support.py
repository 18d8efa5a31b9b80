"""A server with the tasks extension, and a client's moves against it, for lesson 13's tests.

Its tools wait on an event the test holds (``release``), so that no test depends on timing: a task
is still working exactly as long as the test wants. And minimcp's own client, on a cable of its own
to that server (:func:`connected`), following tasks with a clock and a sleep the test drives
(:class:`FakeTime`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from support import TIMEOUT

from minimcp.client import Client
from minimcp.client.tasks import Polling, TasksConversation
from minimcp.rpc import Connection, RpcError, memory_pair
from minimcp.rpc.jsonrpc import INTERNAL_ERROR
from minimcp.rpc.task_names import EXTENSION
from minimcp.server import Server, ToolError, report_progress
from minimcp.server.eras import answer_both_eras
from minimcp.server.task_redis import RedisTaskStore
from minimcp.server.task_store import TaskStore
from minimcp.server.tasks import REQUIRED, Tasks, as_task, serve_tasks
from minimcp.session import RequestContext
from minimcp.session.eras import Mode, TwoEras
from minimcp.session.server import ForTheClient
from minimcp.transports.cluster.redis_store import connect

VERSION = "2026-07-28"
CAPABILITIES = {"elicitation": {}, "extensions": {EXTENSION: {}}}
FORM = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


def envelope(capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": (
            CAPABILITIES if capabilities is None else capabilities
        ),
    }


def question(message: str) -> dict[str, Any]:
    return {
        "method": "elicitation/create",
        "params": {"message": message, "requestedSchema": FORM},
    }


def yes() -> dict[str, Any]:
    return {"action": "accept", "content": {"ok": True}}


class Crash(RpcError, ForTheClient):
    """A protocol error from inside a tool: its request fails."""


class TaskServer:
    """The test server: a :class:`Server` with tasks, and the event its slow tools wait for."""

    def __init__(self, store: TaskStore | None = None, grace: float = 0.05) -> None:
        self.server = Server("tasks-test")
        answer_both_eras(self.server)
        self.tasks: Tasks = serve_tasks(self.server, store, grace=grace)
        self.release = asyncio.Event()
        self.add_plain_tools()
        self.add_failing_tools()
        self.add_asking_tools()

    def add_plain_tools(self) -> None:
        server, tasks, release = self.server, self.tasks, self.release

        @server.tool()
        def echo(text: str) -> str:
            return text

        @tasks.tool()
        async def quick() -> str:
            return "quick"

        @tasks.tool(support=REQUIRED)
        async def quick_required() -> str:
            return "quick, as a task"

        @tasks.tool()
        async def slow() -> str:
            """Says nothing: it becomes a task when it outlasts the grace."""
            await release.wait()
            return "late"

        @tasks.tool()
        async def held(context: RequestContext) -> str:
            await as_task(context)
            await report_progress(context, 1, 2, "halfway")
            await release.wait()
            return "released"

        @tasks.tool()
        async def huge(context: RequestContext) -> str:
            await as_task(context)
            return "x" * 100_000

    def add_failing_tools(self) -> None:
        tasks = self.tasks

        @tasks.tool()
        async def tool_error(context: RequestContext) -> str:
            await as_task(context)
            raise ToolError("no good")

        @tasks.tool()
        async def protocol_error(context: RequestContext) -> str:
            await as_task(context)
            raise Crash(INTERNAL_ERROR, "crashed", {"where": "here"})

        @tasks.tool()
        async def bug(context: RequestContext) -> str:
            await as_task(context)
            raise ValueError("a bug, with /secret/paths in it")

    def add_asking_tools(self) -> None:
        tasks = self.tasks

        @tasks.tool()
        async def confirm(context: RequestContext) -> str:
            await as_task(context)
            answers = await context.ask({"confirm": question("Go on?")})
            return f"confirm: {answers['confirm']['action']}"

        @tasks.tool()
        async def two(context: RequestContext) -> str:
            await as_task(context)
            answers = await context.ask({"first": question("1?"), "second": question("2?")})
            return f"two: {answers['first']['action']}, {answers['second']['action']}"

        @tasks.tool()
        async def twice(context: RequestContext) -> str:
            await as_task(context)
            await context.ask({"confirm": question("Sure?")})
            await context.ask({"confirm": question("Really sure?")})
            return "twice"

        @tasks.tool(support=REQUIRED)
        async def name_first(context: RequestContext) -> str:
            answers = await context.ask({"name": question("Ready?")})
            await as_task(context)
            return f"ready: {answers['name']['action']}"


async def call(
    connection: Connection,
    method: str,
    capabilities: dict[str, Any] | None = None,
    **params: Any,
) -> Any:
    """A 2026-07-28 request (the extension declared, unless ``capabilities`` says otherwise)."""
    return await connection.request(method, {"_meta": envelope(capabilities), **params}, TIMEOUT)


async def refused(connection: Connection, method: str, **params: Any) -> RpcError:
    try:
        await call(connection, method, **params)
    except RpcError as error:
        return error
    raise AssertionError(f"{method} was answered")


async def until_status(connection: Connection, task_id: str, *statuses: str) -> dict[str, Any]:
    """Ask ``tasks/get`` until the task is in one of ``statuses``, as a client polls (bounded)."""
    for _ in range(int(TIMEOUT / 0.02)):
        task: dict[str, Any] = await call(connection, "tasks/get", taskId=task_id)
        if task["status"] in statuses:
            return task
        await asyncio.sleep(0.02)
    raise AssertionError(f"task {task_id} never reached {statuses}: {task}")


async def start(connection: Connection, tool: str, **arguments: Any) -> str:
    """Call ``tool``, which must answer with a task handle; its task id."""
    handle = await call(connection, "tools/call", name=tool, arguments=arguments)
    assert handle["resultType"] == "task", handle
    return str(handle["taskId"])


# -- a client that follows tasks (lesson 13's client side) ---------------------------------------


class FakeTime:
    """A clock and a sleep for the follow: each sleep moves the clock on at once, and is written
    down; ``then`` runs after the n-th sleep (to release the server's work, say). Each sleep really
    lasts ``pause`` seconds (none by default: it only lets the server's side run)."""

    def __init__(self, then: dict[int, Any] | None = None, pause: float = 0.0) -> None:
        self.now = 0.0
        self.pause = pause  # how long each sleep really lasts
        self.slept: list[float] = []
        self.then = then or {}

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
        action = self.then.get(len(self.slept))
        if action is not None:
            action()
        await asyncio.sleep(self.pause)

    def polling(self, **bounds: Any) -> Polling:
        return Polling(sleep=self.sleep, clock=self.clock, **bounds)


async def accept(params: dict[str, Any]) -> dict[str, Any]:
    return {"action": "accept", "content": {"ok": True}}


@asynccontextmanager
async def connected(
    served: TaskServer,
    polling: Polling | None = None,
    conversation: TwoEras | None = None,
    **options: Any,
) -> AsyncIterator[Client]:
    """A client on a cable of its own to ``served`` (several may share one server)."""
    client_end, server_end = memory_pair()
    serving = asyncio.ensure_future(served.server.serve(server_end))
    talk = conversation or TasksConversation(Mode.MODERN, polling=polling or FakeTime().polling())
    async with Client(client_end, conversation=talk, **options) as client:
        yield client
    await asyncio.wait_for(serving, TIMEOUT)


async def status_on_server(served: TaskServer, task_id: str, *statuses: str) -> str:
    """Until the server's own store shows the task in one of ``statuses`` (bounded)."""
    for _ in range(int(TIMEOUT / 0.01)):
        task = await served.tasks.store.get(task_id)
        if task is not None and task.status in statuses:
            return task.status
        await asyncio.sleep(0.01)
    raise AssertionError(f"task {task_id} never reached {statuses}")


@asynccontextmanager
async def stores_on_redis(redis_url: str, **options: Any) -> AsyncIterator[list[RedisTaskStore]]:
    """Two workers' task stores (``options``: their bounds) on one Redis, emptied first."""
    redis = connect(redis_url)
    await redis.flushdb()
    await redis.aclose()
    made = [RedisTaskStore(redis_url, **options) for _ in range(2)]
    try:
        yield made
    finally:
        for store in made:
            await store.close()
