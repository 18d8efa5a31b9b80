"""Lesson 03's example server: the handshake, and nothing to offer yet.

``python -m minimcp.examples.handshake`` serves it on stdin and stdout, one message per line. It is
a bare :class:`~minimcp.server.core.ServerCore`: it answers ``initialize`` with its name, version
and instructions, and ``ping`` at any time, and refuses everything else, before the handshake and
after. Lessons 04 to 06 give the course's server its tools, resources and prompts
(:mod:`minimcp.examples.course`). Notebook 03 starts this one as a child process; it needs nothing
but lessons 01 to 03, so it runs on "minimcp as of lesson 03".
"""

from __future__ import annotations

from minimcp.examples.over_stdio import serve_over_stdio
from minimcp.server.core import ServerCore


def build_server() -> ServerCore:
    """A fresh server with an identity and no features (each call builds a new one)."""
    return ServerCore(
        "handshake-server",
        "0.1.0",
        title="MCP from Scratch: lesson 03's server",
        instructions="Lesson 03's server: it knows the handshake and ping, nothing more.",
    )


def main() -> None:
    """``python -m minimcp.examples.handshake``."""
    serve_over_stdio(build_server)


if __name__ == "__main__":
    main()
