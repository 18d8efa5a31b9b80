"""WebSocket: the same server over a new cable (lesson 07).

A WebSocket starts as an ordinary HTTP request that asks to *upgrade* the connection
(RFC 6455, section 4). If the server agrees it answers ``101 Switching Protocols``, and from then
on the same TCP connection carries **frames** in both directions, at any time, until one side
sends a close frame. The frames already say where one message ends and the next begins, so there
is nothing to frame by hand: one JSON-RPC message is one text frame.

WebSocket is **not** an MCP transport: no revision of the specification defines it (the proposal
to add one is SEP-1288). This module follows the convention of the 1.x official Python SDK, whose
``websocket_client`` can therefore talk to our server:

* the client offers the subprotocol ``mcp`` (``Sec-WebSocket-Protocol: mcp``) and the server
  agrees to it; a client that offers no ``mcp`` is refused with HTTP 400;
* every JSON-RPC message travels alone in one **text** frame, in UTF-8.

On top of that convention, the choices of this course:

* the HTTP upgrade is checked before any session exists (:mod:`.websocket_upgrade`): a foreign
  ``Origin`` gets 403 (the spec's DNS-rebinding warning, which applies to any local server a
  browser can reach) and another path gets 404. Pages served from this machine, and clients that
  send no ``Origin`` (programs, not browsers), are let in;
* a **binary** frame closes the connection with code 1003 (unsupported data); a text frame that is
  not JSON gets ``-32700`` from the connection, as on every cable, and the session goes on;
  a message over ``max_size`` closes with 1009 (message too big); text that is not UTF-8, 1007;
* websockets sends a keepalive **ping** every ``ping_interval`` seconds and closes with 1011 when
  no pong comes back within ``ping_timeout``: a peer that vanished without a word is noticed;
* each accepted socket runs ``await server.serve(WebSocketTransport(socket))``: one session per
  socket, and nothing else. The server is the very :class:`~minimcp.server.Server` object that
  lessons 04–06 served over stdio; this module knows it only as something that can ``serve`` a
  transport (:class:`~minimcp.rpc.connection.Servable`).

``python -m minimcp serve --transport ws`` serves the course's example server at
``ws://127.0.0.1:8765/mcp``; :func:`minimcp.client.websocket_client` connects a client to it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import Server as ListeningServer
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed as SocketClosed
from websockets.typing import Subprotocol

from minimcp import __version__
from minimcp.rpc import ConnectionClosed, Servable, TextCable
from minimcp.transports.framing import DEFAULT_MAX_FRAME
from minimcp.transports.guard import LOOPBACK_HOSTS, is_loopback
from minimcp.transports.websocket_upgrade import Authorize, handshake_guard

log = logging.getLogger("minimcp.websocket")

# --8<-- [start:constants]
#: The subprotocol of the 1.x official SDK's convention: "these frames carry MCP".
SUBPROTOCOL = Subprotocol("mcp")
DEFAULT_PATH = "/mcp"
DEFAULT_PORT = 8765
#: The largest message we accept: the same limit as one line over stdio.
MAX_MESSAGE = DEFAULT_MAX_FRAME
#: What this server and client say they are, in the Server and User-Agent headers.
PRODUCT = f"minimcp/{__version__}"

# Close codes (RFC 6455, section 7.4.1). We send 1000 and 1003 ourselves; websockets sends the
# others when the frames break its rules (1002, 1007, 1009) or a ping goes unanswered (1011).
NORMAL_CLOSURE = 1000  # the purpose of the connection is fulfilled: goodbye
GOING_AWAY = 1001  # the server is shutting down (or a browser tab is closing)
UNSUPPORTED_DATA = 1003  # "an endpoint that understands only text data MAY send this" on binary
INVALID_DATA = 1007  # a text frame that is not UTF-8
MESSAGE_TOO_BIG = 1009  # a message over max_size
INTERNAL_ERROR = 1011  # websockets' keepalive: no pong came back in time
# --8<-- [end:constants]


# --8<-- [start:transport]
class WebSocketTransport(TextCable):
    """One WebSocket connection as a minimcp transport: one message per text frame.

    The same class serves both ends: the server wraps each socket it accepts, the client the
    socket it opened. Its edge is the text of a frame; :class:`~minimcp.rpc.transport.TextCable`
    encodes and parses it, and nothing here knows of MCP.
    """

    def __init__(self, websocket: ServerConnection | ClientConnection) -> None:
        self.websocket = websocket

    async def send_text(self, text: str) -> None:
        try:
            await self.websocket.send(text)  # a str is sent as one text frame
        except SocketClosed as exc:
            raise ConnectionClosed(f"the WebSocket is closed ({describe_close(exc)})") from None

    async def receive_text(self) -> str | None:
        try:
            frame = await self.websocket.recv()  # one whole message, however it was fragmented
        except SocketClosed as exc:  # a close frame, or a socket gone without one (1006)
            log.debug("the WebSocket closed: %s", describe_close(exc))
            return None
        if isinstance(frame, bytes):  # a binary frame: not JSON-RPC text, not our protocol
            log.warning("closing a WebSocket that sent a binary frame (%d bytes)", len(frame))
            await self.websocket.close(
                UNSUPPORTED_DATA, "MCP messages are JSON text: send text frames"
            )
            return None
        return frame

    async def close(self) -> None:
        await self.websocket.close(NORMAL_CLOSURE)  # sends a close frame, waits for the echo

    @property
    def close_code(self) -> int | None:
        """The code of the close frame received (None while open; 1006 if none ever came)."""
        return self.websocket.close_code

    @property
    def close_reason(self) -> str | None:
        return self.websocket.close_reason


# --8<-- [end:transport]


def describe_close(exc: SocketClosed) -> str:
    """``"1009 (message too big) frame exceeds limit"``, or why there was no close frame at all."""
    if exc.rcvd is not None:
        return str(exc.rcvd)
    if exc.sent is not None:
        return f"we sent {exc.sent}"
    return "1006 (connection closed abnormally): no close frame"


# -- the server ------------------------------------------------------------------------------------
# --8<-- [start:server]
class WebSocketServer:
    """A listening WebSocket server (in this event loop): its ``url``, and ``close()``."""

    def __init__(self, listening: ListeningServer, path: str) -> None:
        self.listening = listening  # websockets' own Server object
        host, self.port = listening.sockets[0].getsockname()[:2]
        shown = f"[{host}]" if ":" in host else host
        self.url = f"ws://{shown}:{self.port}{path}"

    async def close(self) -> None:
        """Stop listening, close every connection with 1001 (going away), wait for the sessions."""
        self.listening.close()
        await asyncio.wait_for(self.listening.wait_closed(), 15)

    async def serve_forever(self) -> None:
        await self.listening.serve_forever()

    async def __aenter__(self) -> WebSocketServer:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()


async def start_websocket(
    server: Servable,
    host: str = "127.0.0.1",
    port: int = 0,
    path: str = DEFAULT_PATH,
    allowed_origins: Iterable[str] = (),
    *,
    allowed_hosts: Iterable[str] = (),
    max_size: int = MAX_MESSAGE,
    ping_interval: float | None = 20.0,
    ping_timeout: float | None = 20.0,
    authorize: Authorize | None = None,
    **options: Any,
) -> WebSocketServer:
    """Serve ``server`` at ``ws://host:port/path`` (port 0: any free port) and return at once.

    Every accepted socket gets its own session; ``options`` go to websockets' ``serve``. The
    ``Host`` header must name this machine, or ``host`` itself, or one of ``allowed_hosts``.
    """
    if host not in LOOPBACK_HOSTS and host not in ("0.0.0.0", "::"):  # as Streamable HTTP does
        allowed_hosts = [*allowed_hosts, host]

    async def one_session(websocket: ServerConnection) -> None:
        await server.serve(WebSocketTransport(websocket))  # the whole of it: one session per socket

    options.setdefault("compression", None)  # no permessage-deflate: frames carry the JSON as it is
    options.setdefault("server_header", PRODUCT)
    listening = await serve(
        one_session,
        host,
        port,
        process_request=handshake_guard(path, allowed_origins, allowed_hosts, authorize),
        subprotocols=[SUBPROTOCOL],  # websockets refuses (HTTP 400) a client that offers no "mcp"
        max_size=max_size,  # a bigger message closes the connection with 1009
        ping_interval=ping_interval,
        ping_timeout=ping_timeout,  # keepalive; None turns it off
        **options,
    )
    return WebSocketServer(listening, path)


# --8<-- [end:server]


# -- the client ------------------------------------------------------------------------------------
# --8<-- [start:client]
class HandshakeRefused(ConnectionError):
    """The server answered the upgrade, but not with the subprotocol ``mcp``."""


async def connect_websocket(url: str, **options: Any) -> WebSocketTransport:
    """Open a WebSocket to ``url``, offering the subprotocol ``mcp``, and return it as a transport.

    ``options`` go to websockets' ``connect`` (``origin``, ``ping_interval``, ``logger``…). A
    refused upgrade raises websockets' ``InvalidStatus``, which carries the HTTP response.
    """
    options.setdefault("compression", None)
    options.setdefault("max_size", MAX_MESSAGE)
    options.setdefault("user_agent_header", PRODUCT)
    if is_loopback(urlsplit(url).hostname):
        # This machine: never through a proxy from the environment
        options.setdefault("proxy", None)
    websocket = await connect(url, subprotocols=[SUBPROTOCOL], **options)
    # A server that ignored our offer speaks something else
    if websocket.subprotocol != SUBPROTOCOL:
        await websocket.close(NORMAL_CLOSURE)
        raise HandshakeRefused(f"{url} did not agree to the subprotocol {SUBPROTOCOL!r}")
    return WebSocketTransport(websocket)


# --8<-- [end:client]
