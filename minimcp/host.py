"""The host: the application around the clients, where the model lives (lessons 04–06).

MCP has four actors (notes §4). The **server** offers tools, resources and prompts; the **client**
speaks MCP to one server; the **model** reads text and either answers or asks for a tool; the
**host** is the application that holds them together. A :class:`Host`:

1. connects one :class:`~minimcp.client.Client` per server, each under a name (``"calendar"``);
2. discovers their tools and prefixes each name with its server's (``calendar/read_events``), so two
   servers may both have a ``read_events`` without colliding;
3. announces those tools to the model in the **system prompt** (name, description, input schema);
4. runs the **tool loop**: the model asks for a tool → the client calls it → the result goes back to
   the model … until the model answers in text (or a bound on turns is hit);
5. decides on its own which **resources** to add to the context: here a keyword router, the notes'
   "if" (a message that mentions "course" gets ``courses://all`` pasted before it);
6. pastes a **prompt**'s messages into the conversation when the user picks one.

Tools are the model's choice; resources and prompts are the host's and the user's. The model never
sees a resource or a prompt as such: only the text the host pasted.

(The notes draw all of the middle as one box, "the MCP client". The spec splits it: one *host*, and
inside it one *client* per server, each with its own session: spec 2025-11-25, architecture.)

The model is pluggable (:class:`Model`). The default, :class:`RuleModel`, is a handful of keyword
rules, so everything runs offline, in tests and notebooks, and always gives the same answer. Swap in a
real LLM by writing one ``respond`` method.

``python -m minimcp.host`` runs a short conversation against the course's example server over stdio.
"""

from __future__ import annotations

import asyncio
import datetime
import inspect
import json
import logging
import re
import sys
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from .client import Client, call_back, stdio_client
from .connection import ConnectionClosed
from .jsonrpc import RpcError

log = logging.getLogger("minimcp.host")

Role = Literal["system", "user", "assistant", "tool"]


# -- The conversation -----------------------------------------------------------------------------
# --8<-- [start:messages]
@dataclass(frozen=True)
class ToolCall:
    """What a model says when it wants a tool: which one (prefixed name) and with what arguments."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass
class ChatMessage:
    """One message of the conversation, in the roles chat models know (notes §3).

    * ``system``: the rules of the game, written by the host (and the tools it may use);
    * ``user``: what the person wrote, or what the host pasted on their behalf: a resource's
      content (``resource`` says which) or a prompt's messages (``prompt`` says which);
    * ``assistant``: the model's words, or its request for a tool (``tool_call``);
    * ``tool``: a tool's result, handed back to the model (``name`` says which tool, ``is_error``
      whether it failed).
    """

    role: Role
    content: str
    tool_call: ToolCall | None = None
    name: str | None = None
    is_error: bool = False
    resource: str | None = None
    prompt: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The message as JSON, without the fields it does not use."""
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_call is not None:
            out["tool_call"] = {"name": self.tool_call.name, "arguments": self.tool_call.arguments}
        for key in ("name", "resource", "prompt"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.is_error:
            out["is_error"] = True
        return out

    def __str__(self) -> str:
        if self.tool_call is not None:
            arguments = json.dumps(self.tool_call.arguments, ensure_ascii=False)
            return f"assistant → {self.tool_call.name} {arguments}"
        if self.role == "tool":
            return f"tool {self.name}{' (error)' if self.is_error else ''}: {self.content}"
        origin = f" [{self.resource or self.prompt}]" if (self.resource or self.prompt) else ""
        return f"{self.role}{origin}: {self.content}"
# --8<-- [end:messages]


# --8<-- [start:model]
class Model(Protocol):
    """Anything that reads a conversation and either answers in text or asks for one tool.

    ``messages`` starts with the system prompt; ``tools`` are the tools it announces, as the
    servers listed them but with prefixed names. A real LLM client fits here: send both to the
    LLM's API and turn its reply into a ``str`` or a :class:`ToolCall`.
    """

    async def respond(self, messages: list[ChatMessage], tools: list[dict[str, Any]]) -> str | ToolCall: ...
# --8<-- [end:model]


# -- Turning MCP content into text a model reads --------------------------------------------------
def content_text(content: dict[str, Any] | list[dict[str, Any]]) -> str:
    """The text of one content block, or of a list of them (tool results, prompt messages)."""
    blocks = content if isinstance(content, list) else [content]
    return "\n".join(block_text(block) for block in blocks)


def block_text(block: dict[str, Any]) -> str:
    """One content block as text. Binary blocks become a short placeholder: this host is text-only."""
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind == "resource":  # an embedded resource: its contents travel inside the block
        inner = block.get("resource", {})
        return inner["text"] if "text" in inner else f"[{inner.get('mimeType', 'binary')} {inner.get('uri')}]"
    if kind == "resource_link":
        return f"[resource {block.get('uri')}]"
    return f"[{kind} {block.get('mimeType', '')}]".replace(" ]", "]")  # image, audio, …


def tool_result_text(result: dict[str, Any]) -> str:
    """What the model sees of a ``tools/call`` result: its content, or its structured content."""
    if result.get("content"):
        return content_text(result["content"])
    if "structuredContent" in result:
        return json.dumps(result["structuredContent"], ensure_ascii=False)
    return ""


def resource_text(result: dict[str, Any]) -> str:
    """The text of a ``resources/read`` result (a blob becomes a placeholder)."""
    contents = result.get("contents", [])
    return "\n".join(block_text({"type": "resource", "resource": item}) for item in contents)


# -- The system prompt ----------------------------------------------------------------------------
# --8<-- [start:system_prompt]
def build_system_prompt(tools: list[dict[str, Any]], instructions: dict[str, str] | None = None) -> str:
    """The system prompt: who the model is, and every tool it may use (name, description, schema).

    Resources are *not* announced here (notes §6.2.4): the model cannot ask for them; the host
    pastes them when it decides to. Each server's ``instructions`` from the handshake are added
    at the end, as the spec suggests (basic/lifecycle, initialization).
    """
    lines = [
        "You are a helpful assistant inside an MCP host.",
        "To use a tool, reply with a tool call: the tool's name and its arguments as a JSON object",
        "that follows the tool's input schema. When you know the answer, reply in plain text.",
        "",
        "# Tools",
    ]
    if not tools:
        lines.append("(none)")
    for tool in tools:
        title = f" ({tool['title']})" if tool.get("title") else ""
        lines += [
            "",
            f"## {tool['name']}{title}",
            tool.get("description") or "(no description)",
            f"Input schema: {json.dumps(tool.get('inputSchema', {}), ensure_ascii=False)}",
        ]
    for server, text in (instructions or {}).items():
        lines += ["", f"# Instructions from the server {server!r}", text]
    return "\n".join(lines)
# --8<-- [end:system_prompt]


# -- The keyword router ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Route:
    """If a user message contains any of ``keywords`` (case-insensitive), paste resource ``uri``.

    ``server`` names the server to read it from; None means whichever server lists that URI.
    """

    keywords: tuple[str, ...]
    uri: str
    server: str | None = None


#: The notes' example: a question about courses (or "cursos") gets the course catalogue.
DEFAULT_ROUTES = (
    Route(("course", "curso"), "courses://all"),
    Route(("user", "usuario"), "users://all"),
)

#: ``on_progress(tool, progress, total, message)``: a long tool is making progress.
HostProgressCallback = Callable[[str, float, float | None, str | None], Awaitable[None] | None]
#: ``confirm(call)``: may the model run this tool? (the human in the loop the spec asks for)
ConfirmCallback = Callable[[ToolCall], Awaitable[bool] | bool]


# -- The host -------------------------------------------------------------------------------------
class Host:
    """The application: several servers, one model, one conversation.

    Use it as ``async with Host() as host``: servers connected with :meth:`connect` or
    :meth:`connect_stdio` are closed when the block ends.
    """

    def __init__(self, model: Model | None = None, *, routes: Sequence[Route] = DEFAULT_ROUTES,
                 max_turns: int = 5, tool_timeout: float | None = 30.0,
                 on_progress: HostProgressCallback | None = None,
                 confirm: ConfirmCallback | None = None,
                 on_message: Callable[[ChatMessage], None] | None = None) -> None:
        self.model: Model = model or RuleModel()
        self.routes = list(routes)
        self.max_turns = max_turns  # how many times the model is asked, at most, per user message
        self.tool_timeout = tool_timeout
        self.on_progress = on_progress
        self.confirm = confirm
        self.on_message = on_message  # a UI would show each message as it is added
        self.clients: dict[str, Client] = {}
        self.messages: list[ChatMessage] = []  # the conversation so far (the system prompt is rebuilt)
        self._stack = AsyncExitStack()

    # -- servers ----------------------------------------------------------------------------------
    async def __aenter__(self) -> Host:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def connect(self, name: str, client: Client) -> Client:
        """Add a server under ``name``: run the client's handshake; the host closes it at the end."""
        self._check_name(name)
        await self._stack.enter_async_context(client)
        self.clients[name] = client
        return client

    async def connect_stdio(self, name: str, command: Sequence[str], **options: Any) -> Client:
        """Start ``command`` as a child process and add it under ``name`` (options as stdio_client)."""
        self._check_name(name)
        client = await self._stack.enter_async_context(stdio_client(command, **options))
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
            raise LookupError(f"no server named {server!r}; connected: {', '.join(self.clients) or 'none'}")
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
                prompts += [{**p, "name": f"{server}/{p['name']}"} for p in await client.list_prompts()]
        return prompts

    def instructions(self) -> dict[str, str]:
        """What each server said about itself in the handshake (``instructions``), by server name."""
        return {server: c.instructions for server, c in self.clients.items() if c.instructions}

    async def system_prompt(self) -> str:
        """The system prompt the model gets right now."""
        return build_system_prompt(await self.discover_tools(), self.instructions())

    # -- one user message -------------------------------------------------------------------------
    async def ask(self, text: str) -> str:
        """The user says ``text``: paste the context the router picks, add the message, run the loop."""
        for context in await self.route_resources(text):
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
        system = ChatMessage("system", build_system_prompt(tools, self.instructions()))
        for _ in range(self.max_turns):
            reply = await self.model.respond([system, *self.messages], tools)
            if isinstance(reply, str):  # a text answer: this user message is dealt with
                self.add(ChatMessage("assistant", reply))
                return reply
            self.add(ChatMessage("assistant", "", tool_call=reply))  # the model asks for a tool…
            self.add(await self.call(reply))  # …the client calls it, and the result goes back
        answer = f"(stopped: no answer after {self.max_turns} turns)"
        self.add(ChatMessage("assistant", answer))
        return answer
    # --8<-- [end:loop]

    # --8<-- [start:call]
    async def call(self, call: ToolCall) -> ChatMessage:
        """Run the model's tool call on the server that owns it; the result becomes a ``tool`` message.

        Whatever goes wrong becomes an error message for the model rather than an exception: a tool
        that failed (``isError``), a protocol error, a timeout, a tool the model made up. The spec
        asks clients to give tool errors to the model so it can correct itself (server/tools).
        """
        def failed(text: str) -> ChatMessage:
            return ChatMessage("tool", text, name=call.name, is_error=True)

        server, _, tool = call.name.partition("/")
        if server not in self.clients or not tool:
            return failed(f"Unknown tool: {call.name}")
        if self.confirm is not None and not await _resolve(self.confirm(call)):
            return failed("The user declined this tool call.")

        async def progress(done: float, total: float | None, message: str | None) -> None:
            await call_back(self.on_progress, call.name, done, total, message)

        try:
            result = await self.clients[server].call_tool(
                tool, call.arguments, timeout=self.tool_timeout,
                progress=progress if self.on_progress else None)
        except RpcError as err:
            return failed(f"Error {err.code}: {err.message}")
        except (asyncio.TimeoutError, ConnectionClosed) as exc:
            return failed(f"The tool did not answer: {exc or 'timed out'}")
        return ChatMessage("tool", tool_result_text(result), name=call.name,
                           is_error=bool(result.get("isError")))
    # --8<-- [end:call]

    # -- resources: the host decides ----------------------------------------------------------------
    # --8<-- [start:router]
    async def route_resources(self, text: str) -> list[ChatMessage]:
        """The notes' keyword "if": a message that mentions a route's keyword gets its resource.

        The host reads the resource and pastes it as a ``user`` message, the way a person would
        paste a JSON file into the chat, *before* the question. A resource already in the
        conversation is not pasted again: the context window is not free.
        """
        pasted = []
        lowered = text.lower()
        for route in self.routes:
            if not any(keyword in lowered for keyword in route.keywords):
                continue
            if any(m.resource == route.uri for m in [*self.messages, *pasted]):
                continue
            client = await self._server_with(route)
            if client is None:  # no connected server offers that resource
                continue
            try:
                result = await client.read_resource(route.uri)
            except RpcError as err:
                log.warning("could not read %s: %s", route.uri, err.message)
                continue
            mime = next((c.get("mimeType") for c in result.get("contents", []) if c.get("mimeType")), "text")
            header = f"Context from the resource {route.uri} ({mime}):"
            pasted.append(ChatMessage("user", f"{header}\n{resource_text(result)}", resource=route.uri))
        return pasted
    # --8<-- [end:router]

    async def _server_with(self, route: Route) -> Client | None:
        """The client whose server lists ``route.uri`` (or the route's own server)."""
        if route.server is not None:
            return self.clients.get(route.server)
        for client in self.clients.values():
            if "resources" in client.server_capabilities:
                if any(r.get("uri") == route.uri for r in await client.list_resources()):
                    return client
        return None

    # -- prompts: the user picks one, the host pastes it ------------------------------------------
    # --8<-- [start:paste_prompt]
    async def paste_prompt(self, name: str, arguments: dict[str, str] | None = None) -> list[ChatMessage]:
        """Get prompt ``server/prompt`` filled with ``arguments`` and paste its messages into the chat.

        The server wrote the text (notes §6.3.3); the host only pastes it, message by message, with
        the role the server gave each one: to the model, a ``user`` message from a prompt looks
        exactly like one the person typed.
        """
        server, _, prompt = name.partition("/")
        result = await self._client(server).get_prompt(prompt, arguments)
        for m in result["messages"]:
            # Only the two roles a prompt may use: a server must not write the system prompt's rules
            # or fake a tool's result. Checked before anything is pasted: all the messages or none.
            if m.get("role") not in ("user", "assistant"):
                raise ValueError(f"prompt {name}: role {m.get('role')!r} is neither 'user' nor 'assistant'")
        pasted = [ChatMessage(m["role"], content_text(m["content"]), prompt=name) for m in result["messages"]]
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


async def _resolve(value: Any) -> Any:
    """``value``, awaited if it is awaitable: callbacks may be plain functions or coroutines."""
    return await value if inspect.isawaitable(value) else value


# -- A model made of rules ------------------------------------------------------------------------
@dataclass(frozen=True)
class Rule:
    """If a user message matches ``pattern``, call the tool named ``tool`` (on whichever server has
    it) with the arguments ``arguments(match)`` builds from the match."""

    pattern: str
    tool: str
    arguments: Callable[[re.Match[str]], dict[str, Any]]


#: The course's tools: a date asks the calendar; "N steps" runs the long analysis; a list of course
#: IDs (what the prompt course-similar-by-name writes) finds similar courses.
DEFAULT_RULES = (
    Rule(r"\b(\d{4}-\d{2}-\d{2})\b", "read_events", lambda m: {"date": m.group(1)}),
    Rule(r"\b(\d+)\s+steps?\b", "run_analysis", lambda m: {"steps": int(m.group(1))}),
    Rule(r"\bIDs?:?\s+([\w-]+(?:\s*,\s*[\w-]+)*)", "find_similar_courses",
         lambda m: {"ids": re.split(r"\s*,\s*", m.group(1))}),
)


# --8<-- [start:rule_model]
class RuleModel:
    """A deterministic stand-in for an LLM: keyword rules in, a tool call or a sentence out.

    It does, crudely, what an LLM does with the system prompt: it reads the tools on offer, picks
    one whose name fits the user's words, fills in the arguments ("today" becomes a YYYY-MM-DD date,
    as the notes' calendar example needs), and turns the tool's result into an answer.
    """

    def __init__(self, rules: Sequence[Rule] = DEFAULT_RULES, today: datetime.date | None = None) -> None:
        self.rules = list(rules)
        self.today = today or datetime.date.today()

    async def respond(self, messages: list[ChatMessage], tools: list[dict[str, Any]]) -> str | ToolCall:
        last = messages[-1]
        if last.role == "tool":  # a tool answered: tell the user what it said
            if last.is_error:
                return f"Sorry, {last.name} failed: {last.content}"
            return f"Here is what {last.name} says:\n{readable(last.content)}"
        if last.role == "user" and last.resource is None:  # a question: is there a tool for it?
            call = self.pick_tool(self.normalise(last.content), tools)
            if call is not None:
                return call
        context = [m for m in self.this_turn(messages) if m.resource]
        if context:  # no tool, but the host pasted a resource: answer from it
            return " ".join(summarise(m) for m in context)
        names = ", ".join(t["name"] for t in tools) or "none"
        return f"I have no rule for that. The tools I can use: {names}."

    def normalise(self, text: str) -> str:
        """Relative dates become real ones, the way an LLM reads "today" as a YYYY-MM-DD date."""
        tomorrow = self.today + datetime.timedelta(days=1)
        text = re.sub(r"\b(today|hoy)\b", self.today.isoformat(), text, flags=re.IGNORECASE)
        return re.sub(r"\b(tomorrow|mañana)\b", tomorrow.isoformat(), text, flags=re.IGNORECASE)

    def pick_tool(self, text: str, tools: list[dict[str, Any]]) -> ToolCall | None:
        """The first rule that matches and names an available tool; else a tool named in the text."""
        for rule in self.rules:
            match = re.search(rule.pattern, text, re.IGNORECASE)
            tool = find_tool(tools, rule.tool)
            if match and tool:
                return ToolCall(tool["name"], rule.arguments(match))
        for tool in tools:  # "use add with a=2 b=3": a tool named outright, with key=value arguments
            bare = tool["name"].partition("/")[2]
            if re.search(rf"(?<![\w-]){re.escape(bare)}(?![\w-])", text):
                return ToolCall(tool["name"], key_values(text, tool.get("inputSchema", {})))
        return None

    @staticmethod
    def this_turn(messages: list[ChatMessage]) -> list[ChatMessage]:
        """The messages since the model last spoke."""
        for i in range(len(messages) - 1, -1, -1):
            if messages[i].role in ("assistant", "system"):
                return messages[i + 1:]
        return messages
# --8<-- [end:rule_model]


def find_tool(tools: list[dict[str, Any]], bare_name: str) -> dict[str, Any] | None:
    """The first tool called ``bare_name`` on any server (its name without the ``server/`` prefix)."""
    return next((t for t in tools if t["name"].partition("/")[2] == bare_name), None)


def key_values(text: str, schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments written as ``key=value`` in ``text``, typed by the tool's input schema."""
    properties = schema.get("properties", {})
    arguments: dict[str, Any] = {}
    for key, raw in re.findall(r"(\w+)=(\"[^\"]*\"|[^\s,;]+)", text):
        value = raw.strip('"')
        kind = properties.get(key, {}).get("type")
        try:
            if kind == "integer":
                arguments[key] = int(value)
            elif kind == "number":
                arguments[key] = float(value)
            elif kind == "boolean":
                arguments[key] = value.lower() in ("true", "yes", "1")
            else:
                arguments[key] = value
        except ValueError:  # leave it a string: the server will say what is wrong with it
            arguments[key] = value
    return arguments


def summarise(message: ChatMessage) -> str:
    """A short answer from a pasted resource (the text after its header line)."""
    body = message.content.partition("\n")[2]  # the resource's text, after the header line
    return f"From {message.resource}: {readable(body)}"


def readable(text: str) -> str:
    """Text for a person: a JSON list (or an object holding one list) becomes the names in it."""
    try:
        data = json.loads(text)
    except ValueError:
        return text
    if not isinstance(data, (list, dict)):  # a number, a string: already readable
        return text
    if isinstance(data, dict) and len(data) == 1 and isinstance(next(iter(data.values())), list):
        data = next(iter(data.values()))  # {"similar": [...]}: the list is the answer
    items = data if isinstance(data, list) else [data]
    return (", ".join(_label(item) for item in items) or "nothing") + "."


def _label(item: Any) -> str:
    """``Clean Code (cl3n)`` for ``{"id": "cl3n", "name": "Clean Code"}``; else the JSON itself."""
    if not isinstance(item, dict):
        return str(item)
    name = item.get("name") or item.get("title")
    if name is None:
        return json.dumps(item, ensure_ascii=False)
    return f"{name} ({item['id']})" if "id" in item else str(name)


# -- The demo -------------------------------------------------------------------------------------
async def demo(command: Sequence[str] | None = None) -> None:
    """A short conversation with the course's example server, printed message by message."""
    from .stdio import python_command

    command = list(command or python_command("-m", "minimcp", "serve"))
    model = RuleModel(today=datetime.date(2025, 3, 21))  # a fixed "today": the same output every run

    def show_progress(tool: str, done: float, total: float | None, message: str | None) -> None:
        print(f"   … {tool}: {done:g}/{total:g} {message or ''}" if total else f"   … {tool}: {done:g}")

    async with Host(model, on_progress=show_progress, on_message=print) as host:
        await host.connect_stdio("course", command)
        print("── the system prompt " + "─" * 50)
        print(await host.system_prompt())
        for question in ("What do I have on my calendar today?",
                         "Which courses are there?",
                         "Please run the analysis in 3 steps."):
            print("\n── the user asks " + "─" * 50)
            await host.ask(question)
        print("\n── the user picks the prompt course-similar-by-name " + "─" * 20)
        if any(p["name"] == "course/course-similar-by-name" for p in await host.discover_prompts()):
            await host.use_prompt("course/course-similar-by-name",
                                  {"names": "Clean Code, Software Architecture"})
        else:
            print("(the example server has no prompt course-similar-by-name yet)")


if __name__ == "__main__":
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    asyncio.run(demo(sys.argv[1:] or None))
