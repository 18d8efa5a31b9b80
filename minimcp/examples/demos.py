"""Short demonstrations of single layers, run from a terminal: ``python -m minimcp demo NAME``.

Each one shows what one lesson built, on its own, with no server to start first:

* ``jsonrpc`` (lesson 01): type one JSON-RPC message per line; it says what each is, or which error
  it earns;
* ``connection`` (lesson 01): two connections on an in-memory cable, each able to call the other;
* ``pagination`` (lesson 04): a list of ten names, walked two at a time, and a cursor we never made;
* ``sse`` (lesson 08): an SSE stream written, then read back seven bytes at a time;
* ``event-store`` (lesson 08): a bounded event store, a replay after an id, and an id it forgot;
* ``host`` (lessons 04–06): a short conversation between the host and the course's example server.

The library modules hold no demonstration code: it all lives here, on top of them.
"""

from __future__ import annotations

import asyncio
import datetime
import sys
from collections.abc import Callable
from typing import Any

from minimcp.client.connect import stdio_client
from minimcp.host.host import Host
from minimcp.host.router import KeywordRouter
from minimcp.host.rule_model import RuleModel
from minimcp.rpc.cables import TracingTransport, memory_pair
from minimcp.rpc.connection import Connection
from minimcp.rpc.jsonrpc import Request, RpcError, describe, encode, method_not_found, parse
from minimcp.server.pagination import page_result
from minimcp.transports.event_store import MemoryEventStore, UnknownEventId, new_stream_id
from minimcp.transports.process import python_command
from minimcp.transports.sse import SSEParser, format_comment, format_event


def jsonrpc() -> None:
    """Read one message per line from stdin and say what each one is (or which error it earns)."""
    print("Type one JSON-RPC message per line (Ctrl-D to end).", file=sys.stderr)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            message = parse(line)
        except RpcError as err:
            print(f"✗ {err.code} {err.message}")
            if err.answerable:
                print(f"  answer: {encode(err.to_response())}")
        else:
            print(f"✓ {describe(message)}")


async def connection() -> None:
    """Two peers on one in-memory cable: each can call the other."""
    left_cable, right_cable = memory_pair()

    async def right_answers(request: Request) -> Any:
        if request.method == "add":
            params = request.params or {}
            return {"sum": params.get("a", 0) + params.get("b", 0)}
        raise method_not_found(request.method)

    left = Connection(TracingTransport(left_cable, lambda d, m: print("left ", d, m)))
    right = Connection(right_cable, on_request=right_answers)
    left.start()
    right.start()
    print("add ->", await left.request("add", {"a": 2, "b": 3}, timeout=5))
    try:
        await left.request("multiply", {"a": 2, "b": 3}, timeout=5)
    except RpcError as err:
        print("multiply ->", err.code, err.message)
    await left.close()
    await right.close()


def pagination() -> None:
    """A list of ten names, two at a time: each page names the cursor of the next."""
    names = [{"name": f"tool_{i}"} for i in range(10)]
    params: dict[str, Any] = {}
    while True:
        result = page_result("tools", names, params, page_size=2)
        print(result)
        if "nextCursor" not in result:
            break
        params = {"cursor": result["nextCursor"]}
    try:
        page_result("tools", names, {"cursor": "not-ours"}, page_size=2)
    except RpcError as err:
        print("a bad cursor ->", err.code, err.message)


def sse() -> None:
    """An SSE stream, written, then parsed as the network might deliver it."""
    stream = (
        format_event("", id="s1-0", retry=1000)
        + format_event('{"jsonrpc":"2.0","method":"notifications/progress"}', id="s1-1")
        + format_comment("keep-alive")
        + format_event("two\nlines", id="s1-2")
    )
    print(stream.decode())
    parser = SSEParser()
    for start in range(0, len(stream), 7):  # the network cuts where it likes: 7 bytes at a time
        for event in parser.feed(stream[start : start + 7]):
            print(event)


async def event_store() -> None:
    """Five events into a store that keeps three: a replay, and an id it no longer knows."""
    store = MemoryEventStore(max_events=3)
    stream = new_stream_id()
    ids = [await store.append(stream, f"message {n}") for n in range(5)]
    print("stored:", ids)
    print("kept:  ", [event.id for event in (await store.events_after(ids[2]))[1]], "after", ids[2])
    try:
        await store.events_after(ids[0])
    except UnknownEventId as error:
        print("after", ids[0], "->", error)


async def host() -> None:
    """A short conversation with the course's example server, printed message by message."""
    # A fixed "today": the same output every run
    model = RuleModel(today=datetime.date(2025, 3, 21))

    def show_progress(tool: str, done: float, total: float | None, message: str | None) -> None:
        print(
            f"   … {tool}: {done:g}/{total:g} {message or ''}"
            if total
            else f"   … {tool}: {done:g}"
        )

    async with Host(
        model, router=KeywordRouter(), on_progress=show_progress, on_message=print
    ) as chat:
        await chat.connect_with("course", stdio_client, python_command("-m", "minimcp", "serve"))
        print("── the system prompt " + "─" * 50)
        print(await chat.system_prompt())
        for question in (
            "What do I have on my calendar today?",
            "Which courses are there?",
            "Please run the analysis in 3 steps.",
        ):
            print("\n── the user asks " + "─" * 50)
            await chat.ask(question)
        print("\n── the user picks the prompt course-similar-by-name " + "─" * 20)
        await chat.use_prompt(
            "course/course-similar-by-name", {"names": "Clean Code, Software Architecture"}
        )


#: Every demonstration by name: a plain function, or a coroutine function (run in a new event loop).
DEMOS: dict[str, Callable[[], Any]] = {
    "jsonrpc": jsonrpc,
    "connection": connection,
    "pagination": pagination,
    "sse": sse,
    "event-store": event_store,
    "host": host,
}


def run(name: str) -> None:
    """Run the demonstration called ``name``."""
    result = DEMOS[name]()
    if asyncio.iscoroutine(result):
        asyncio.run(result)
