"""Names a package offers without importing them yet (PEP 562), so that lessons stay apart.

``from minimcp.server import Server`` is pleasant to write, but a package's ``__init__`` runs
whenever any of its modules is imported: if ``minimcp/server/__init__.py`` imported ``Server``
(lesson 04) at once, then lesson 03's ``minimcp.server.core`` would drag lessons 04 to 12 in with
it. So a package names its conveniences in a table, and each is imported the first time someone asks
for it.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any


def lazy_exports(package: str, exports: dict[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that loads each name of ``exports`` (name -> the
    module that defines it) on first use, and says clearly when a name is not offered at all."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(module), name)

    return __getattr__
