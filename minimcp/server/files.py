"""A folder served as ``file://`` resources, and the guard that keeps every read inside it (lesson 05).

The danger of serving files is a URI that walks out of the folder: ``file:///srv/docs/../../etc/passwd``,
its percent-encoded twin, or a symlink that points elsewhere. :func:`resolve_inside` answers the one
question that matters, *where does this URI really lead*, and refuses everything outside the folder
(and hidden files inside it).
"""

from __future__ import annotations

import mimetypes
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from urllib.request import url2pathname

from minimcp.server.content import contents_for


# --8<-- [start:path_guard]
def resolve_inside(folder: Path, uri: str) -> Path | None:
    """The regular file that the ``file://`` ``uri`` names, if it lies inside ``folder``; else None.

    ``folder`` must already be resolved (absolute, no symlinks). The order matters: first decode
    the URI (so ``%2e%2e`` becomes ``..``), then resolve the path (which collapses every ``..`` and
    follows every symlink to where it really points), and only then compare with the folder.
    Checking the text of the URI instead would miss an encoded ``..`` or a symlink pointing out.
    (One gap remains for a hostile *local* user: a file swapped for a symlink between this check
    and the read. Closing it takes ``os.open`` with ``O_NOFOLLOW`` on every path component.)
    """
    parts = urlsplit(uri)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost") or parts.query or parts.fragment:
        return None
    try:
        path = Path(url2pathname(parts.path))  # percent-decodes, and knows Windows drive letters
        if not path.is_absolute():
            return None
        real = path.resolve()  # may raise on a NUL byte or a symlink loop: both are "not found"
    except (OSError, RuntimeError, ValueError):
        return None
    if not real.is_relative_to(folder) or not real.is_file():
        return None
    if any(part.startswith(".") for part in real.relative_to(folder).parts):
        return None  # hidden files and folders (.env, .git) are never served
    return real
# --8<-- [end:path_guard]


TEXT_TYPES = ("application/json", "application/xml", "application/javascript", "application/x-sh")


def read_file(uri: str, path: Path) -> dict[str, Any]:
    """A file's contents: text when its type is textual and it decodes as UTF-8, otherwise a blob."""
    mime_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    data = path.read_bytes()
    if mime_type.startswith("text/") or mime_type in TEXT_TYPES:
        try:
            return contents_for(uri, data.decode("utf-8"), mime_type)
        except UnicodeDecodeError:
            pass
    return contents_for(uri, data, mime_type)


# --8<-- [start:directory]
@dataclass
class Directory:
    """A folder served as ``file://`` resources: every regular file inside it, and nothing outside."""

    folder: Path

    def files(self) -> list[Path]:
        """The files a client may read, sorted. Symlinks that lead outside are left out."""
        found = []
        for parent, _dirs, names in os.walk(self.folder):  # os.walk does not follow symlinked folders
            for name in names:
                path = Path(parent, name)
                if resolve_inside(self.folder, path.as_uri()) is not None:
                    found.append(path)
        return sorted(found)

    def definition(self, path: Path) -> dict[str, Any]:
        out = {"uri": path.as_uri(), "name": path.relative_to(self.folder).as_posix()}
        mime_type = mimetypes.guess_type(path.name)[0]
        if mime_type:
            out["mimeType"] = mime_type
        return out
# --8<-- [end:directory]
