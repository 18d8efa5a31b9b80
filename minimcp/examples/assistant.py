"""The course's assistant server: the server that asks back (lesson 09).

``python -m minimcp serve --example assistant`` serves it. Each tool needs something only the client
side has, and asks for it while it runs:

* ``xml_to_json(xml)``, the notes' sampling example: it has no model of its own, so it asks the
  client's ("translate this XML to JSON") and returns what the model wrote;
* ``link_github()``, the notes' elicitation example: "what is your GitHub user?";
* ``book_meeting(title, date?)``, the notes' "Books meeting" tool (§4): it asks the user to confirm,
  and to fill in what is missing (the date, the room, how long);
* every tool logs what it does (``notifications/message``), at the level the client chose;
* the prompt ``plan-meeting(room, topic)`` completes the room as the user types
  (``completion/complete``);
* with ``workspace=``, a folder served as ``file://`` resources, showing only what lies inside the
  client's roots.
"""

from __future__ import annotations

import os
from typing import Annotated, Any

from minimcp.server.complete import Server
from minimcp.server.completion import matching
from minimcp.server.elicitation import elicit
from minimcp.server.logs import log
from minimcp.server.sampling import create_message, text_of
from minimcp.session.cancellation import cancellable
from minimcp.session.context import RequestContext

ROOMS = ["Lisbon", "London", "Madrid", "Online", "Paris"]

GITHUB_FORM = {
    "type": "object",
    "properties": {
        "github_user": {
            "type": "string",
            "title": "GitHub user",
            "minLength": 1,
            "maxLength": 39,
            "pattern": "^[A-Za-z0-9-]+$",
        }
    },
    "required": ["github_user"],
}


def meeting_form(date: str | None) -> dict[str, Any]:
    """The form ``book_meeting`` shows: what is missing, with good defaults, and a confirmation."""
    properties: dict[str, Any] = {
        "time": {
            "type": "string",
            "title": "Start (HH:MM)",
            "pattern": "^[0-2][0-9]:[0-5][0-9]$",
            "default": "10:00",
        },
        "minutes": {
            "type": "integer",
            "title": "Length in minutes",
            "minimum": 15,
            "maximum": 240,
            "default": 30,
        },
        "room": {"type": "string", "title": "Room", "enum": ROOMS, "default": "Online"},
        "confirm": {"type": "boolean", "title": "Book it?", "default": True},
    }
    if date is None:
        properties = {"date": {"type": "string", "title": "Day", "format": "date"}, **properties}
    required = ["date", "confirm"] if date is None else ["confirm"]
    return {"type": "object", "properties": properties, "required": required}


def build_server(*, workspace: str | os.PathLike[str] | None = None) -> Server:
    """A fresh assistant server; ``workspace``: a folder to serve as ``file://`` resources."""
    server = Server(
        "assistant",
        "0.1.0",
        title="MCP from Scratch: the assistant that asks back",
        instructions="Tools that ask the client's model and its user for what they need.",
    )
    server.enable_logging()
    add_sampling_tool(server)
    add_elicitation_tools(server)
    add_meeting_prompt(server)
    if workspace is not None:
        server.add_directory(workspace, within_roots=True)
    cancellable(server)  # this lesson's: a question the client takes too long over is cancelled
    return server


def add_sampling_tool(server: Server) -> None:
    # --8<-- [start:xml_to_json]
    # It changes nothing (it only asks the client's model): a host may run it without asking first
    @server.tool(title="XML to JSON", annotations={"readOnlyHint": True})
    async def xml_to_json(
        xml: Annotated[str, "The XML document to convert"], context: RequestContext
    ) -> str:
        """Convert an XML document to JSON, with the client's model."""
        await log(
            context, "info", "asking the client's model to translate the XML", logger="xml_to_json"
        )
        answer = await create_message(
            context,
            f"Translate this XML to JSON:\n{xml}",
            max_tokens=2000,
            system_prompt="You convert XML documents to JSON. Answer with the JSON only.",
            model_preferences={
                "hints": [{"name": "small"}],
                "costPriority": 0.8,
                "speedPriority": 0.8,
            },
        )
        return text_of(answer)

    # --8<-- [end:xml_to_json]


def add_elicitation_tools(server: Server) -> None:
    # --8<-- [start:link_github]
    @server.tool(title="Link your GitHub account")
    async def link_github(context: RequestContext) -> str:
        """Ask the user for their GitHub user name and link it."""
        answer = await elicit(context, "What is your GitHub user?", GITHUB_FORM)
        if answer["action"] != "accept":  # decline: the user said no; cancel: they closed the form
            return f"Nothing linked: the user chose {answer['action']}."
        await log(
            context, "notice", f"linked {answer['content']['github_user']}", logger="link_github"
        )
        return f"Linked to GitHub user {answer['content']['github_user']}."

    # --8<-- [end:link_github]

    # --8<-- [start:book_meeting]
    @server.tool(title="Book a meeting")
    async def book_meeting(title: str, context: RequestContext, date: str | None = None) -> str:
        """Book a meeting; the user confirms it and fills in what is missing."""
        answer = await elicit(
            context, f"Book {title!r}{f' on {date}' if date else ''}?", meeting_form(date)
        )
        if answer["action"] != "accept" or not answer["content"]["confirm"]:
            return f"Not booked: {title!r}."
        chosen = {"date": date, **answer["content"]}
        del chosen["confirm"]
        await log(context, "info", {"booked": title, **chosen}, logger="book_meeting")
        return (
            f"Booked {title!r} on {chosen['date']} at {chosen['time']} "
            f"for {chosen['minutes']} minutes, room {chosen['room']}."
        )

    # --8<-- [end:book_meeting]


def add_meeting_prompt(server: Server) -> None:
    @server.prompt(name="plan-meeting", title="Plan a meeting")
    def plan_meeting(room: Annotated[str, "Where, e.g. Madrid"], topic: str) -> str:
        """Write an agenda for a meeting in a room."""
        return f"Write a short agenda for a meeting about {topic} in the {room} room."

    # --8<-- [start:completion]
    @server.completion(prompt="plan-meeting", argument="room")
    def rooms(value: str) -> list[str]:
        return matching(ROOMS, value)

    # --8<-- [end:completion]
