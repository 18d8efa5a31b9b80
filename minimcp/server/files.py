"""A folder served as ``file://`` resources, and the guard that keeps reads inside it (lesson 05).

The danger of serving files is a URI that walks out of the folder:
``file:///srv/docs/../../etc/passwd``, its percent-encoded twin, or a symlink that points elsewhere.
:func:`resolve_inside` answers the one question that matters, *where does this URI really lead*, and
refuses everything outside the folder (and hidden files inside it).
"""

from __future__ import annotations

import mimetypes
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit
from urllib.request import url2pathname

from minimcp.rpc.jsonrpc import INTERNAL_ERROR, RpcError

try:  # POSIX only; Windows has no fcntl (and no symlink race of this kind for a normal user)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]
from minimcp.server.content import contents_for
from minimcp.server.registry import described
from minimcp.session.context import RequestContext

#: MCP's own error code for a URI that names nothing (server/resources, "Error Handling").
RESOURCE_NOT_FOUND = -32002


def not_found(uri: str) -> RpcError:
    return RpcError(RESOURCE_NOT_FOUND, "Resource not found", {"uri": uri})


# --8<-- [start:path_guard]
def resolve_inside(folder: Path, uri: str) -> Path | None:
    """The regular file that the ``file://`` ``uri`` names, if it lies inside ``folder``; else None.

    ``folder`` must already be resolved (absolute, no symlinks). The order matters: first decode
    the URI (so ``%2e%2e`` becomes ``..``), then resolve the path (which collapses every ``..`` and
    follows every symlink to where it really points), and only then compare with the folder.
    Checking the text of the URI instead would miss an encoded ``..`` or a symlink pointing out.
    This answers "may a client ask for it?" (for listing, and before reading). The read itself
    checks again what it really opened (:func:`open_inside`): between this check and the read, a
    hostile local user could swap the file for a symlink.
    """
    parts = urlsplit(uri)
    if (
        parts.scheme != "file"
        or parts.netloc not in ("", "localhost")
        or parts.query
        or parts.fragment
    ):
        return None
    try:
        path = Path(url2pathname(parts.path))  # percent-decodes, and knows Windows drive letters
        if not path.is_absolute():
            return None
        real = path.resolve()  # may raise on a NUL byte or a symlink loop: both are "not found"
        # is_file() may raise too: on a name too long
        if not real.is_relative_to(folder) or not real.is_file():
            return None
    except (OSError, RuntimeError, ValueError):
        return None
    if any(part.startswith(".") for part in real.relative_to(folder).parts):
        return None  # hidden files and folders (.env, .git) are never served
    return real


# --8<-- [end:path_guard]


TEXT_TYPES = ("application/json", "application/xml", "application/javascript", "application/x-sh")


#: The largest file a ``resources/read`` returns whole: its contents travel in one JSON message.
MAX_FILE_BYTES = 10 * 1024 * 1024


# --8<-- [start:open_inside]
def open_inside(folder: Path, path: Path) -> int | None:
    """Open ``path``, then check what was *really* opened: a regular file inside ``folder``.

    Open first, check second: there is no gap between the check and the use for an attacker to swap
    the file (or a folder on its way) for a symlink, because the check looks at the open file
    itself. ``O_NOFOLLOW`` refuses a symlink as the last part of the path; the path the system
    reports for the open file (``/proc/self/fd/N`` on Linux, ``F_GETPATH`` on macOS) catches a
    swapped folder.
    """
    # A FIFO must not block us
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        where = opened_path(fd, path)
        if (
            stat.S_ISREG(os.fstat(fd).st_mode)
            and where.is_relative_to(folder)
            and not any(part.startswith(".") for part in where.relative_to(folder).parts)
        ):
            return fd
    except (OSError, ValueError):
        pass
    os.close(fd)
    return None


def opened_path(fd: int, path: Path) -> Path:
    """Where the open file ``fd`` really is, as the operating system knows it."""
    if os.path.isdir("/proc/self/fd"):  # Linux
        return Path(os.readlink(f"/proc/self/fd/{fd}"))
    if fcntl is not None and hasattr(fcntl, "F_GETPATH"):  # macOS
        return Path(os.fsdecode(fcntl.fcntl(fd, fcntl.F_GETPATH, bytes(1024)).rstrip(b"\0")))
    return path.resolve()  # elsewhere: the best we can do, with the race's gap still open


# --8<-- [end:open_inside]


def read_file(
    uri: str, folder: Path, path: Path, max_bytes: int = MAX_FILE_BYTES
) -> dict[str, Any]:
    """A file's contents: text when its type is textual and it decodes as UTF-8, otherwise a blob.

    -32002 if it cannot be opened inside ``folder`` after all; -32603 if it is over ``max_bytes``.
    """
    fd = open_inside(folder, path)
    if fd is None:
        raise not_found(uri)
    with os.fdopen(fd, "rb") as file:
        data = file.read(max_bytes + 1)  # never more than the limit, however large the file
    if len(data) > max_bytes:
        raise RpcError(INTERNAL_ERROR, f"Resource too large: over {max_bytes} bytes", {"uri": uri})
    mime_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    if mime_type.startswith("text/") or mime_type in TEXT_TYPES:
        try:
            return contents_for(uri, data.decode("utf-8"), mime_type)
        except UnicodeDecodeError:
            pass
    return contents_for(uri, data, mime_type)


class FolderScope(Protocol):
    """Narrows a served folder to what the client being answered may see.

    This lesson serves a folder whole (no scope). Lesson 09 plugs in here: its
    :class:`~minimcp.server.roots.RootsScope` shows only the files inside the client's roots.
    """

    async def visible(self, context: RequestContext) -> Callable[[Path], bool]:
        """For this request: a test of whether the client may see a (resolved) path."""
        ...


# --8<-- [start:directory]
@dataclass
class Directory:
    """A folder served as ``file://`` resources: each regular file inside it, nothing outside."""

    folder: Path
    max_bytes: int = MAX_FILE_BYTES  # the largest file served whole
    scope: FolderScope | None = None  # None: the whole folder; lesson 09's roots narrow it

    def files(self) -> list[Path]:
        """The files a client may read, sorted. Symlinks that lead outside are left out."""
        found = []
        # os.walk does not follow symlinked folders
        for parent, _dirs, names in os.walk(self.folder):
            for name in names:
                path = Path(parent, name)
                if resolve_inside(self.folder, path.as_uri()) is not None:
                    found.append(path)
        return sorted(found)

    def definition(self, path: Path) -> dict[str, Any]:
        return described(
            uri=path.as_uri(),
            name=path.relative_to(self.folder).as_posix(),
            mimeType=mimetypes.guess_type(path.name)[0],
        )


# --8<-- [end:directory]
