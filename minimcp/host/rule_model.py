"""A model made of rules: a deterministic stand-in for an LLM (lessons 04–06).

The notes' client routes with an "if": a question that mentions a date asks the calendar. The
:class:`RuleModel` does the same with a few keyword rules, so every lesson, test and notebook runs
offline and always gives the same answer. Swap in a real LLM by writing one ``respond`` method
(:class:`minimcp.host.chat.Model`).
"""

from __future__ import annotations

import datetime
import json
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from minimcp.host.chat import ChatMessage, ToolCall


@dataclass(frozen=True)
class Rule:
    """If a user message matches ``pattern``, call the tool named ``tool`` (on whichever server has
    it) with the arguments ``arguments(match)`` builds from the match."""

    pattern: str
    tool: str
    arguments: Callable[[re.Match[str]], dict[str, Any]]


#: The course's tools: a date asks the calendar; "N steps" runs the long analysis; a list of course
#: IDs (what the prompt course-similar-by-name writes) finds similar courses; XML to turn into JSON
#: goes to the assistant server's xml_to_json (lesson 09).
DEFAULT_RULES = (
    Rule(r"\b(\d{4}-\d{2}-\d{2})\b", "read_events", lambda m: {"date": m.group(1)}),
    Rule(r"\b(\d+)\s+steps?\b", "run_analysis", lambda m: {"steps": int(m.group(1))}),
    Rule(
        r"\bIDs?:?\s+([\w-]+(?:\s*,\s*[\w-]+)*)",
        "find_similar_courses",
        lambda m: {"ids": re.split(r"\s*,\s*", m.group(1))},
    ),
    Rule(r"\bJSON\b\W*(<.+>)", "xml_to_json", lambda m: {"xml": m.group(1)}),
)


@dataclass(frozen=True)
class Answer:
    """If a user message matches ``pattern``, answer ``reply(match)`` in text, with no tool: what an
    LLM does on its own (translate, summarise), which a server borrows by sampling (lesson 09)."""

    pattern: str
    reply: Callable[[re.Match[str]], str]


def xml_to_json(xml: str) -> str:
    """The notes' sampling example: XML in, the same data as JSON out (attributes as ``@name``,
    repeated elements as lists, an element with only text as that text)."""
    try:
        root = ElementTree.fromstring(xml)
    except ElementTree.ParseError as error:
        return f"That is not well-formed XML: {error}"
    return json.dumps({root.tag: _element_data(root)}, ensure_ascii=False)


def _element_data(element: ElementTree.Element) -> Any:
    data: dict[str, Any] = {f"@{name}": value for name, value in element.attrib.items()}
    for child in element:
        value = _element_data(child)
        if child.tag not in data:
            data[child.tag] = value
        elif isinstance(data[child.tag], list):
            data[child.tag].append(value)
        else:
            data[child.tag] = [data[child.tag], value]
    text = (element.text or "").strip()
    if not data:
        return text
    if text:
        data["#text"] = text
    return data


#: What the rule model can do without a tool.
DEFAULT_ANSWERS = (Answer(r"XML to JSON\W*(<.+>)", lambda m: xml_to_json(m.group(1))),)


# --8<-- [start:rule_model]
class RuleModel:
    """A deterministic stand-in for an LLM: keyword rules in, a tool call or a sentence out.

    It does, crudely, what an LLM does with the system prompt: it reads the tools on offer, picks
    one whose name fits the user's words, fills in the arguments ("today" becomes a YYYY-MM-DD date,
    as the notes' calendar example needs), and turns the tool's result into an answer.
    """

    def __init__(
        self,
        rules: Sequence[Rule] = DEFAULT_RULES,
        today: datetime.date | None = None,
        answers: Sequence[Answer] = DEFAULT_ANSWERS,
    ) -> None:
        self.rules = list(rules)
        self.answers = list(answers)
        self.today = today or datetime.date.today()

    async def respond(
        self, messages: list[ChatMessage], tools: list[dict[str, Any]]
    ) -> str | ToolCall:
        last = messages[-1]
        if last.role == "tool":  # a tool answered: tell the user what it said
            if last.is_error:
                return f"Sorry, {last.name} failed: {last.content}"
            return f"Here is what {last.name} says:\n{readable(last.content)}"
        if last.role == "user" and last.resource is None:  # a question: is there a tool for it?
            call = self.pick_tool(self.normalise(last.content), tools)
            if call is not None:
                return call
            for answer in self.answers:  # or something it can do by itself?
                match = re.search(answer.pattern, last.content, re.IGNORECASE | re.DOTALL)
                if match:
                    return answer.reply(match)
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
        """The first rule that matches and names an available tool; else a tool the text names."""
        for rule in self.rules:
            match = re.search(rule.pattern, text, re.IGNORECASE)
            tool = find_tool(tools, rule.tool)
            if match and tool:
                return ToolCall(tool["name"], rule.arguments(match))
        # "use add with a=2 b=3": a tool named outright, with key=value arguments
        for tool in tools:
            bare = tool["name"].partition("/")[2]
            if re.search(rf"(?<![\w-]){re.escape(bare)}(?![\w-])", text):
                return ToolCall(tool["name"], key_values(text, tool.get("inputSchema", {})))
        return None

    @staticmethod
    def this_turn(messages: list[ChatMessage]) -> list[ChatMessage]:
        """The messages since the model last spoke."""
        for i in range(len(messages) - 1, -1, -1):
            if messages[i].role in ("assistant", "system"):
                return messages[i + 1 :]
        return messages


# --8<-- [end:rule_model]


def find_tool(tools: list[dict[str, Any]], bare_name: str) -> dict[str, Any] | None:
    """The first tool on any server whose name, without the ``server/`` prefix, is ``bare_name``."""
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
