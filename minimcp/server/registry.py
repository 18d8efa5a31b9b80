"""What the tools, prompts and resources registries share: named items, and news when they change.

Each feature keeps its items by a key (a tool's name, a prompt's name, a resource's URI), answers a
``*/list`` request one page at a time, and, because it declared ``listChanged``, tells every
connected client when an item comes or goes (spec 2025-11-25, server/tools, "List Changed
Notification"; the same for prompts and resources).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Generic, TypeVar

from minimcp.server.core import Handler, ServerCore
from minimcp.server.pagination import page_result
from minimcp.session.context import RequestContext

Item = TypeVar("Item")


def described(**fields: Any) -> dict[str, Any]:
    """An item as a ``*/list`` result shows it: the fields given, in order, leaving out those with
    no value (None, or an empty text, list or object). The spec makes them optional, and a listing
    without empty fields is shorter to read. ``False`` is a value, and stays."""
    return {
        key: value
        for key, value in fields.items()
        if value is not None and value not in ("", [], {})
    }


class Catalogue(Generic[Item]):
    """Items by key, for one feature (``kind``: ``"tools"``, ``"prompts"``, ``"resources"``)."""

    def __init__(
        self,
        server: ServerCore,
        kind: str,
        methods: Mapping[str, Handler],
        capability: dict[str, Any],
    ) -> None:
        """Install ``methods`` into the server; declare the ``kind`` capability with its options."""
        self.server = server
        self.kind = kind
        self._items: dict[str, Item] = {}
        for method, handler in methods.items():
            server.method(method)(handler)
        server.declare(kind, capability)

    def put(self, key: str, item: Item) -> Item:
        """Add (or replace) an item, and tell the clients."""
        self._items[key] = item
        self.changed()
        return item

    def remove(self, key: str) -> None:
        """Take an item away (KeyError if there is none by that key), and tell the clients."""
        del self._items[key]
        self.changed()

    def changed(self) -> None:
        """``notifications/<kind>/list_changed`` to every client, soon."""
        self.server.announce(f"notifications/{self.kind}/list_changed")

    def get(self, key: str) -> Item | None:
        return self._items.get(key)

    def page(
        self, key: str, definitions: list[dict[str, Any]], context: RequestContext
    ) -> dict[str, Any]:
        """One page of ``definitions`` under ``key``, as the request's cursor asks."""
        return page_result(key, definitions, context.params, self.server.page_size)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __iter__(self) -> Iterator[Item]:
        return iter(list(self._items.values()))

    def __len__(self) -> int:
        return len(self._items)
