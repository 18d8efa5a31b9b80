"""The host's keyword router: which resources to paste before a user's message (lesson 05).

Resources are the host's choice, not the model's. The notes' client decides with an "if": a message
that mentions courses gets the catalogue pasted before it. A :class:`Route` is one such rule, and a
:class:`KeywordRouter` follows a list of them. Lesson 04's :class:`~minimcp.host.host.Host` takes a
router as a parameter, ``Host(router=KeywordRouter())``, and asks it before each user message.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from minimcp.client.client import Client
from minimcp.host.chat import ChatMessage, resource_text
from minimcp.host.host import Host
from minimcp.rpc.jsonrpc import RpcError

log = logging.getLogger("minimcp.host")


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


class KeywordRouter:
    """The host's router of the notes: ``routes`` decide which resources each message gets."""

    def __init__(self, routes: Sequence[Route] = DEFAULT_ROUTES) -> None:
        self.routes = list(routes)

    # --8<-- [start:router]
    async def __call__(self, host: Host, text: str) -> list[ChatMessage]:
        """The notes' keyword "if": a message that mentions a route's keyword gets its resource.

        The host reads the resource and pastes it as a ``user`` message, the way a person would
        paste a JSON file into the chat, *before* the question. A resource already in the
        conversation is not pasted again: the context window is not free.
        """
        pasted: list[ChatMessage] = []
        lowered = text.lower()
        for route in self.routes:
            if not any(keyword in lowered for keyword in route.keywords):
                continue
            if any(m.resource == route.uri for m in [*host.messages, *pasted]):
                continue
            client = await server_with(host, route)
            if client is None:  # no connected server offers that resource
                continue
            try:
                result = await client.read_resource(route.uri)
            except RpcError as err:
                log.warning("could not read %s: %s", route.uri, err.message)
                continue
            contents = result.get("contents", [])
            mime = next((c.get("mimeType") for c in contents if c.get("mimeType")), "text")
            header = f"Context from the resource {route.uri} ({mime}):"
            body = f"{header}\n{resource_text(result)}"
            pasted.append(ChatMessage("user", body, resource=route.uri))
        return pasted

    # --8<-- [end:router]


async def server_with(host: Host, route: Route) -> Client | None:
    """The client whose server lists ``route.uri`` (or the route's own server)."""
    if route.server is not None:
        return host.clients.get(route.server)
    for client in host.clients.values():
        if "resources" in client.server_capabilities:
            if any(r.get("uri") == route.uri for r in await client.list_resources()):
                return client
    return None
