"""Pagination: long lists come back one page at a time (lessons 04–06).

``tools/list``, ``resources/list``, ``resources/templates/list`` and ``prompts/list`` may return
only part of the list, plus a ``nextCursor``; the client asks again with ``{"cursor": ...}`` until a
page comes back without one (spec 2025-11-25, server/utilities/pagination).

The cursor is **opaque**: the client must not read it, build it or change it, so the server may put
anything inside. Ours is the position of the next item, wrapped in base64 so that nobody is
tempted to do arithmetic on it. A cursor we did not make (or one that no longer fits the list) is
answered with -32602 Invalid params, as the spec asks.

Run ``python -m minimcp demo pagination`` to walk a list of ten names two at a time.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from typing import Any, TypeVar

from minimcp.rpc.jsonrpc import INVALID_PARAMS, RpcError

T = TypeVar("T")

#: How many items a list answer carries at most, unless the server says otherwise.
DEFAULT_PAGE_SIZE = 50


# --8<-- [start:pagination]
def encode_cursor(offset: int) -> str:
    """The opaque token for "continue at item ``offset``"."""
    return base64.urlsafe_b64encode(json.dumps({"offset": offset}).encode()).decode()


def decode_cursor(cursor: Any, length: int) -> int:
    """The offset inside ``cursor``, or :class:`RpcError` -32602 if we did not make this cursor."""
    try:
        if not isinstance(cursor, str):
            raise ValueError("a cursor is a string")
        offset = json.loads(base64.urlsafe_b64decode(cursor.encode("ascii")))["offset"]
    except (ValueError, TypeError, KeyError, binascii.Error, UnicodeError):
        raise RpcError(INVALID_PARAMS, f"Invalid cursor: {cursor!r}") from None
    # A real offset is an integer inside the list (which may have shrunk since: then it is stale).
    if not isinstance(offset, int) or isinstance(offset, bool) or not 0 < offset <= length:
        raise RpcError(INVALID_PARAMS, f"Invalid cursor: {cursor!r}")
    return offset


def paginate(
    items: Sequence[T],
    params: dict[str, Any] | None,
    page_size: int = DEFAULT_PAGE_SIZE,
) -> tuple[list[T], str | None]:
    """One page of ``items`` for a list request's ``params``, and the next cursor (or None)."""
    cursor = (params or {}).get("cursor")
    start = 0 if cursor is None else decode_cursor(cursor, len(items))
    end = start + page_size
    next_cursor = encode_cursor(end) if end < len(items) else None
    return list(items[start:end]), next_cursor


# --8<-- [end:pagination]


def page_result(
    key: str,
    items: Sequence[dict[str, Any]],
    params: dict[str, Any] | None,
    page_size: int | None = None,
) -> dict[str, Any]:
    """A whole list result, e.g. ``{"tools": [...], "nextCursor": "..."}``; the last page has none.

    ``page_size`` None is :data:`DEFAULT_PAGE_SIZE` (a server that did not choose one).
    """
    size = DEFAULT_PAGE_SIZE if page_size is None else page_size
    page, next_cursor = paginate(items, params, size)
    result: dict[str, Any] = {key: page}
    if next_cursor is not None:
        result["nextCursor"] = next_cursor
    return result
