"""A dict that forgets: what an authorization server keeps for a caller it does not know yet.

Anyone can open a consent page, ask for a code, or name a metadata document to fetch: each leaves
something behind in the server's memory. Left to itself that grows for ever, and a script that asks
a million times fills the machine. So every such thing is kept in an :class:`Expiring`:

* each entry has a **lifetime**: a consent page never answered, a code never used, a fetched
  document, all end;
* the whole has a **limit**: past it, the oldest entry goes first, however young it is.

The memory a caller can take is then at most ``limit`` entries, each bounded in size where it is
made (the request that creates it has a size limit of its own).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Expiring(Generic[K, V]):
    """At most ``limit`` entries, each forgotten ``lifetime`` seconds after it was put."""

    def __init__(
        self, lifetime: float, limit: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.lifetime = lifetime
        self.limit = limit
        self.clock = clock  # a test may move time on by replacing it
        self.entries: OrderedDict[K, tuple[float, V]] = OrderedDict()  # key → (expires, value)

    def put(self, key: K, value: V, lifetime: float | None = None) -> None:
        """Keep ``value`` (for ``lifetime`` seconds, else the default), forgetting the oldest
        entries past the limit."""
        self.purge()
        self.entries.pop(key, None)  # a key put again is new again: to the end of the line
        self.entries[key] = (
            self.clock() + (self.lifetime if lifetime is None else lifetime),
            value,
        )
        while len(self.entries) > self.limit:
            self.entries.popitem(last=False)

    def get(self, key: K) -> V | None:
        """The value, unless it is unknown or has expired."""
        entry = self.entries.get(key)
        if entry is None or entry[0] <= self.clock():
            return None
        return entry[1]

    def pop(self, key: K) -> V | None:
        """The value, forgotten at once (a code, a nonce: good once)."""
        value = self.get(key)
        self.entries.pop(key, None)
        return value

    def items(self) -> Iterator[tuple[K, V]]:
        """The entries still alive, oldest first."""
        now = self.clock()
        return ((key, value) for key, (expires, value) in self.entries.items() if expires > now)

    def purge(self) -> None:
        """Forget the expired entries at the front of the line (the oldest).

        An entry with a shorter lifetime than the ones before it waits for them, or for the limit:
        either way it is gone in bounded time, and never makes ``get`` answer.
        """
        now = self.clock()
        while self.entries and next(iter(self.entries.values()))[0] <= now:
            self.entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self.entries)
