"""Content blocks (lesson 04): what tool results, prompt messages and sampling answers are made of.

A result is a list of typed blocks (spec 2025-11-25, server/tools, "Tool Result"): text, image,
audio, a link to a resource, or a resource embedded whole. Binary data travels as base64 text,
because JSON has no bytes. :func:`to_content` turns what a handler returned into blocks, and
:func:`contents_for` turns what a resource's handler returned into one entry of ``resources/read``'s
``contents``.
"""

from __future__ import annotations

import base64
import json
from typing import Any


# --8<-- [start:content]
def text_content(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def image_content(data: bytes, mime_type: str) -> dict[str, Any]:
    return {"type": "image", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime_type}


def audio_content(data: bytes, mime_type: str) -> dict[str, Any]:
    return {"type": "audio", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime_type}


def resource_link(
    uri: str,
    name: str,
    *,
    title: str | None = None,
    description: str | None = None,
    mime_type: str | None = None,
) -> dict[str, Any]:
    """A pointer to a resource the client may read later (lesson 05), instead of its contents."""
    block = {
        "type": "resource_link",
        "uri": uri,
        "name": name,
        "title": title,
        "description": description,
        "mimeType": mime_type,
    }
    return {key: value for key, value in block.items() if value is not None}


def embedded_resource(
    uri: str, *, text: str | None = None, blob: bytes | None = None, mime_type: str = "text/plain"
) -> dict[str, Any]:
    """A resource's contents carried inside the answer itself: ``text`` or binary ``blob``."""
    if (text is None) == (blob is None):
        raise ValueError("an embedded resource has either text or blob, not both and not neither")
    contents: dict[str, Any] = {"uri": uri, "mimeType": mime_type}
    if text is not None:
        contents["text"] = text
    else:
        contents["blob"] = base64.b64encode(blob or b"").decode("ascii")
    return {"type": "resource", "resource": contents}


# --8<-- [end:content]


CONTENT_TYPES = {"text", "image", "audio", "resource_link", "resource"}


def is_content_block(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") in CONTENT_TYPES


def to_content(value: Any) -> list[dict[str, Any]]:
    """Turn what a handler returned into content blocks.

    A string becomes one text block; a block (or a list of strings and blocks) is kept as it is;
    anything else (numbers, dicts, lists of data) is written as JSON text; None is no content.
    """
    if value is None:
        return []
    if isinstance(value, str):
        return [text_content(value)]
    if is_content_block(value):
        return [value]
    if (
        isinstance(value, (list, tuple))
        and value
        and all(isinstance(v, str) or is_content_block(v) for v in value)
    ):
        return [block for item in value for block in to_content(item)]
    return [text_content(json.dumps(value, ensure_ascii=False))]


# -- a resource's contents (lesson 05) ----------------------------------------------------------
# --8<-- [start:contents]
def contents_for(uri: str, value: Any, mime_type: str | None = None) -> dict[str, Any]:
    """One entry of ``resources/read``'s ``contents``: text for text, base64 ``blob`` for bytes.

    A handler may return a ``str``, ``bytes``, or any JSON-able value (written as JSON text).
    """
    if isinstance(value, (bytes, bytearray)):
        blob = base64.b64encode(bytes(value)).decode("ascii")
        return {"uri": uri, "mimeType": mime_type or "application/octet-stream", "blob": blob}
    if isinstance(value, str):
        return {"uri": uri, "mimeType": mime_type or "text/plain", "text": value}
    return {
        "uri": uri,
        "mimeType": mime_type or "application/json",
        "text": json.dumps(value, ensure_ascii=False),
    }


# --8<-- [end:contents]
