"""The host: the application around the clients, where the model lives (lessons 04–06).

MCP has four actors (notes §4). The **server** offers tools, resources and prompts; the **client**
speaks MCP to one server; the **model** reads text and either answers or asks for a tool; the
**host** is the application that holds them together. A :class:`Host`:

1. connects one :class:`~minimcp.client.Client` per server, each under a name (``"calendar"``);
2. discovers their tools and prefixes each name with its server's (``calendar/read_events``), so two
   servers may both have a ``read_events`` without colliding;
3. announces those tools to the model in the **system prompt** (unless its API takes them apart);
4. runs the **tool loop**: the model asks for a tool → the client calls it → the result goes back to
   the model … until the model answers in text (or a bound on turns is hit);
5. decides on its own which **resources** to add to the context: lesson 05 plugs in a keyword
   router there, the notes' "if" (a message that mentions "course" gets ``courses://all`` pasted
   before it), given as ``Host(router=KeywordRouter())``;
6. pastes a **prompt**'s messages into the conversation when the user picks one.

Tools are the model's choice; resources and prompts are the host's and the user's. The model never
sees a resource or a prompt as such: only the text the host pasted.

(The notes draw all of the middle as one box, "the MCP client". The spec splits it: one *host*, and
inside it one *client* per server, each with its own session: spec 2025-11-25, architecture.)

The model is pluggable (:class:`Model`). The default, :class:`RuleModel`, is a handful of keyword
rules, so everything runs offline, in tests and notebooks, and always gives the same answer. Swap in
a real LLM by writing one ``respond`` method (:mod:`minimcp.host.providers` holds two).

Beside it: :mod:`minimcp.host.chat` (the messages, the :class:`Model` interface) and
:mod:`minimcp.host.rule_model`. Later lessons plug in through the constructor and ``connect_with``:
lesson 05's ``router=``, lesson 07's connectors (``connect_with("course", stdio_client, command)``),
lesson 09's ``questions=``. ``python -m minimcp demo host`` talks with the course server.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import Any, Protocol

from minimcp.client.client import Client
from minimcp.host.chat import (
    ChatMessage,
    Model,
    ToolCall,
    build_system_prompt,
    prompt_messages,
    tool_message,
)
from minimcp.host.rule_model import RuleModel
from minimcp.rpc import ConnectionClosed
from minimcp.rpc.aio import call as call_maybe_async
from minimcp.rpc.aio import resolve
from minimcp.rpc.jsonrpc import RpcError

#: ``on_progress(tool, progress, total, message)``: a long tool is making progress.
HostProgressCallback = Callable[[str, float, float | None, str | None], Awaitable[None] | None]
#: ``confirm(call)``: may the model run this tool? (the human in the loop the spec asks for)
ConfirmCallback = Callable[[ToolCall], Awaitable[bool] | bool]
#: ``connector(*args, **client_options)``: opens a connected :class:`Client` for ``async with``
#: (lesson 07's ``stdio_client``, ``websocket_client``, ``http_client`` are connectors).
Connector = Callable[..., AbstractAsyncContextManager[Client]]


# --8<-- [start:seams]
class Router(Protocol):
    """Picks the context to paste before a user's message (lesson 05's ``KeywordRouter`` is one)."""

    async def __call__(self, host: Host, text: str) -> list[ChatMessage]: ...


class Answers(Protocol):
    """How the servers' questions are answered (lesson 09's ``HostQuestions`` is one)."""

    def client_options(self, server: str) -> dict[str, Any]:
        """The :class:`Client` options (callbacks, abilities declared) for ``server``'s client."""
        ...


# --8<-- [end:seams]


# -- The host -------------------------------------------------------------------------------------
class Host:
    """The application: several servers, one model, one conversation.

    Use it as ``async with Host() as host``: servers connected with :meth:`connect` or
    :meth:`connect_with` are closed when the block ends.
    """

    def __init__(
        self,
        model: Model | None = None,
        *,
        router: Router | None = None,
        max_turns: int = 5,
        tool_timeout: float | None = 30.0,
        on_progress: HostProgressCallback | None = None,
        confirm: ConfirmCallback | None = None,
        on_message: Callable[[ChatMessage], None] | None = None,
        questions: Answers | None = None,
    ) -> None:
        self.model: Model = model or RuleModel()
        self.questions = questions  # how servers' questions are answered (lesson 09), if at all
        self.router = router  # what to paste before a user's message (lesson 05); None: nothing
        self.max_turns = max_turns  # how many times the model is asked, at most, per user message
        self.tool_timeout = tool_timeout
        self.on_progress = on_progress
        self.confirm = confirm
        self.on_message = on_message  # a UI would show each message as it is added
        self.clients: dict[str, Client] = {}
        self.messages: list[ChatMessage] = []  # the conversation (the system prompt is rebuilt)
        self._stack = AsyncExitStack()

    # -- servers ----------------------------------------------------------------------------------
    async def __aenter__(self) -> Host:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def connect(self, name: str, client: Client) -> Client:
        """Add a server as ``name``: run the client's handshake; the host closes it at the end."""
        self._check_name(name)
        await self._stack.enter_async_context(client)
        self.clients[name] = client
        return client

    async def connect_with(
        self, name: str, connector: Connector, *args: Any, **options: Any
    ) -> Client:
        """Open a client with ``connector(*args, **options)`` and add it under ``name``: e.g.
        ``connect_with("course", stdio_client, command)`` starts ``command`` as a child process."""
        self._check_name(name)
        if self.questions is not None:  # declare, and answer, what the servers may ask
            options = {**self.questions.client_options(name), **options}
        client = await self._stack.enter_async_context(connector(*args, **options))
        self.clients[name] = client
        return client

    def _check_name(self, name: str) -> None:
        # The name becomes the prefix of every tool ("calendar/read_events"), so it must be unique
        # and free of "/". Tool names never contain "/" (server/tools, "Tool Names").
        if not name or "/" in name:
            raise ValueError(f"a server name must be non-empty and free of '/': {name!r}")
        if name in self.clients:
            raise ValueError(f"a server named {name!r} is already connected")

    async def close(self) -> None:
        """Close every client (and stop every child process) this host started."""
        await self._stack.aclose()
        self.clients.clear()

    def add(self, message: ChatMessage) -> None:
        """Append a message to the conversation (and show it, if someone is watching)."""
        self.messages.append(message)
        if self.on_message is not None:
            self.on_message(message)

    def _client(self, server: str) -> Client:
        if server not in self.clients:
            connected = ", ".join(self.clients) or "none"
            raise LookupError(f"no server named {server!r}; connected: {connected}")
        return self.clients[server]

    # -- discovery --------------------------------------------------------------------------------
    # --8<-- [start:discover]
    async def discover_tools(self) -> list[dict[str, Any]]:
        """Every connected server's tools, each renamed ``server/tool`` so that names never collide.

        The clients keep their lists until the server says they changed (``list_changed``), so
        calling this before each turn costs nothing and still sees new tools.
        """
        tools = []
        for server, client in self.clients.items():
            if "tools" not in client.server_capabilities:  # it offers no tools: don't even ask
                continue
            for tool in await client.list_tools():
                tools.append({**tool, "name": f"{server}/{tool['name']}"})
        return tools

    # --8<-- [end:discover]

    async def discover_prompts(self) -> list[dict[str, Any]]:
        """Every connected server's prompts, renamed ``server/prompt`` like the tools."""
        prompts = []
        for server, client in self.clients.items():
            if "prompts" in client.server_capabilities:
                for prompt in await client.list_prompts():
                    prompts.append({**prompt, "name": f"{server}/{prompt['name']}"})
        return prompts

    def instructions(self) -> dict[str, str]:
        """What each server said of itself in the handshake (``instructions``), by server name."""
        return {server: c.instructions for server, c in self.clients.items() if c.instructions}

    async def system_prompt(self, tools: list[dict[str, Any]] | None = None) -> str:
        """The system prompt the model gets now, ``tools`` on offer (by default, all of them):
        it lists them, unless the model's API takes them as definitions of their own
        (``tools_in_request``: :mod:`minimcp.host.providers`' models)."""
        tools = await self.discover_tools() if tools is None else tools
        listed = not getattr(self.model, "tools_in_request", False)
        return build_system_prompt(tools, self.instructions(), listed=listed)

    # -- one user message -------------------------------------------------------------------------
    async def ask(self, text: str) -> str:
        """The user says ``text``: paste the router's context, add the message, run the loop."""
        if self.router is not None:  # lesson 05: resources are the host's choice
            for context in await self.router(self, text):
                self.add(context)
        self.add(ChatMessage("user", text))
        return await self.run()

    # --8<-- [start:loop]
    async def run(self) -> str:
        """The tool loop: ask the model; if it wants a tool, call it and show it the result; repeat.

        It ends when the model answers in text, or after ``max_turns`` questions to the model, so
        a model that keeps asking for tools can never hang the host.
        """
        tools = await self.discover_tools()
        system = ChatMessage("system", await self.system_prompt(tools))
        for _ in range(self.max_turns):
            reply = await self.model.respond([system, *self.messages], tools)
            if isinstance(reply, str):  # a text answer: this user message is dealt with
                self.add(ChatMessage("assistant", reply))
                return reply
            calls = reply if isinstance(reply, list) else [reply]  # one tool, or several at once
            for call in calls:  # the model asks for tools…
                self.add(ChatMessage("assistant", "", tool_call=call))
            for call in calls:  # …the client calls each, and each result goes back
                self.add(await self.call(call))
        answer = f"(stopped: no answer after {self.max_turns} turns)"
        self.add(ChatMessage("assistant", answer))
        return answer

    # --8<-- [end:loop]

    # --8<-- [start:call]
    async def call(self, call: ToolCall) -> ChatMessage:
        """Run the model's tool call on the server that owns it; the result is a ``tool`` message.

        Whatever goes wrong becomes an error message for the model rather than an exception: a tool
        that failed (``isError``), a protocol error, a timeout, a tool the model made up. The spec
        asks clients to give tool errors to the model so it can correct itself (server/tools).
        """

        def failed(text: str) -> ChatMessage:
            return ChatMessage("tool", text, name=call.name, is_error=True, call_id=call.id)

        server, _, tool = call.name.partition("/")
        if server not in self.clients or not tool:
            return failed(f"Unknown tool: {call.name}")
        if self.confirm is not None and not await resolve(self.confirm(call)):
            return failed("The user declined this tool call.")

        async def progress(done: float, total: float | None, message: str | None) -> None:
            await call_maybe_async(self.on_progress, call.name, done, total, message)

        try:
            result = await self.clients[server].call_tool(
                tool,
                call.arguments,
                timeout=self.tool_timeout,
                progress=progress if self.on_progress else None,
            )
        except RpcError as err:
            return failed(f"Error {err.code}: {err.message}")
        except (TimeoutError, ConnectionClosed) as exc:
            return failed(f"The tool did not answer: {exc or 'timed out'}")
        return tool_message(call, result)  # its text, its content blocks, and which call it answers

    # --8<-- [end:call]

    # -- prompts: the user picks one, the host pastes it ------------------------------------------
    # --8<-- [start:paste_prompt]
    async def paste_prompt(
        self, name: str, arguments: dict[str, str] | None = None
    ) -> list[ChatMessage]:
        """Get prompt ``server/prompt`` filled with ``arguments``; paste its messages into the chat.

        The server wrote the text (notes §6.3.3); the host only pastes it, message by message, with
        the role the server gave each one: to the model, a ``user`` message from a prompt looks
        exactly like one the person typed.
        """
        server, _, prompt = name.partition("/")
        result = await self._client(server).get_prompt(prompt, arguments)
        pasted = prompt_messages(name, result["messages"])  # refused whole if a role is wrong
        for message in pasted:
            self.add(message)
        return pasted

    # --8<-- [end:paste_prompt]

    # --8<-- [start:use_prompt]
    async def use_prompt(self, name: str, arguments: dict[str, str] | None = None) -> str:
        """Paste a prompt, then let the model act on it (the loop), and return its answer."""
        await self.paste_prompt(name, arguments)
        return await self.run()

    # --8<-- [end:use_prompt]
