"""The stdio transport: MCP over a child process's pipes (lesson 02).

The client starts the server as a child process and keeps three pipes to it:

* the child's **stdin** carries client → server messages, one JSON object per line;
* the child's **stdout** carries server → client messages, and nothing else, ever;
* the child's **stderr** is free text: logs, tracebacks. The client must keep reading it, or the
  child blocks as soon as that pipe's buffer (64 KiB on Linux) is full: the deadlock of §7.1.

Shutting down follows the spec (basic/lifecycle, "Shutdown", stdio): close the child's stdin,
wait for it to exit, then ``SIGTERM``, then ``SIGKILL``.

Where asyncio cannot start subprocesses (a Jupyter kernel on Windows runs a selector event loop,
which has no pipes), the same transport runs on threads: see :class:`ThreadedReader`.

The client's side, a child process with its stderr drained, is in :mod:`minimcp.transports.process`.
``python -m minimcp echo`` serves a tiny JSON-RPC echo over its own stdin and stdout: run it and
type ``{"jsonrpc":"2.0","id":1,"method":"echo","params":{"text":"hi"}}``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import sys
import threading
from typing import IO, Protocol

from minimcp.rpc.abilities import Abilities
from minimcp.rpc.jsonrpc import PARSE_ERROR
from minimcp.rpc.transport import TextCable
from minimcp.transports.framing import DEFAULT_MAX_FRAME, FRAMINGS, Decoder, FrameError

log = logging.getLogger("minimcp.stdio")

CHUNK = 64 * 1024  # how much we ask the pipe for at a time


class ByteReader(Protocol):
    async def read(self, n: int) -> bytes: ...


class ByteWriter(Protocol):
    def write(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...

    def close(self) -> None: ...


# --8<-- [start:pipe_transport]
class PipeTransport(TextCable):
    """Messages over a pair of byte pipes, cut into frames by a framing (NDJSON by default).

    Its edge is text, one frame each: :class:`~minimcp.rpc.transport.TextCable` encodes and parses.
    The end of one pipe is not the end of the other: the peer that closed its end still reads.
    """

    #: A pipe's end of input is half a close: what arrived before it is answered, all of it.
    abilities = Abilities(reads_after_end=True)

    def __init__(
        self,
        reader: ByteReader,
        writer: ByteWriter,
        framing: str = "ndjson",
        max_frame: int = DEFAULT_MAX_FRAME,
    ) -> None:
        decoder_class, self._encode = FRAMINGS[framing]
        self._decoder: Decoder = decoder_class(max_frame)
        self._reader = reader
        self._writer = writer
        self._write_lock = asyncio.Lock()  # one whole frame at a time, even from many tasks
        self._eof = False

    async def send_text(self, text: str) -> None:
        frame = self._encode(text.encode("utf-8"))
        async with self._write_lock:
            self._writer.write(frame)
            await self._writer.drain()  # wait while the pipe is full: backpressure

    async def receive_text(self) -> str | None:
        while True:
            frame = self._decoder.next_frame()  # may raise FrameError for one bad frame
            if frame is None and self._eof:
                return None
            if frame is None:
                chunk = await self._reader.read(CHUNK)
                if chunk:
                    self._decoder.feed(chunk)
                    continue
                self._eof = True  # end of stream; a last line without "\n" still counts
                frame = self._decoder.finish()
                if frame is None:
                    return None
            try:
                return frame.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise FrameError(
                    PARSE_ERROR, f"Parse error: message is not UTF-8 ({exc.reason})"
                ) from None

    async def close(self) -> None:
        try:
            self._writer.close()
        except (OSError, RuntimeError):  # already closed, or the loop is going away
            pass


# --8<-- [end:pipe_transport]


# -- The threaded fallback ----------------------------------------------------------------------
# --8<-- [start:threaded_reader]
class ThreadedReader:
    """Reads a blocking file in a thread and hands the chunks to asyncio.

    Used where asyncio has no pipes (Windows' selector loop, which Jupyter uses there) and for a
    server whose stdin is not a pipe. The thread only ever blocks in ``read``; the chunks cross to
    the event loop with ``call_soon_threadsafe``, the one thread-safe door into asyncio.
    """

    def __init__(self, file: IO[bytes]) -> None:
        self._loop = asyncio.get_running_loop()
        self._chunks: asyncio.Queue[bytes] = asyncio.Queue()
        self._file = file
        threading.Thread(target=self._pump, name="minimcp-reader", daemon=True).start()

    def _pump(self) -> None:
        read = getattr(self._file, "read1", self._file.read)  # read1: whatever is there, no waiting
        while True:
            try:
                chunk = read(CHUNK)
            except (OSError, ValueError):
                chunk = b""
            try:
                self._loop.call_soon_threadsafe(self._chunks.put_nowait, chunk)
            except RuntimeError:  # the event loop is closed: nobody is listening any more
                return
            if not chunk:
                return

    async def read(self, n: int) -> bytes:
        return await self._chunks.get()  # b"" means end of stream


# --8<-- [end:threaded_reader]


class ThreadedWriter:
    """Writes to a blocking file from a worker thread, so the event loop never blocks."""

    def __init__(self, file: IO[bytes]) -> None:
        self._file = file
        self._pending = bytearray()

    def write(self, data: bytes) -> None:
        self._pending += data

    async def drain(self) -> None:
        data, self._pending = bytes(self._pending), bytearray()
        await asyncio.get_running_loop().run_in_executor(None, self._write_now, data)

    def _write_now(self, data: bytes) -> None:
        self._file.write(data)
        self._file.flush()

    def close(self) -> None:
        try:
            self._file.close()
        except OSError:
            pass


def _is_pipe(file: IO[bytes]) -> bool:
    """True for what asyncio's pipe transports accept: pipes, sockets and terminals, not files."""
    mode = os.fstat(file.fileno()).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


# -- The server's side: our own stdin and stdout ------------------------------------------------
# --8<-- [start:server_side]
async def stdio_server_transport(framing: str = "ndjson") -> PipeTransport:
    """A transport over this process's stdin and stdout, for a server started by a client.

    From here on ``sys.stdout`` is redirected to stderr: a stray ``print()`` in a tool would
    otherwise write into the protocol stream and break the client. Only the transport writes to
    the real stdout.
    """
    stdin = sys.stdin.buffer
    stdout = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)  # our private copy of stdout
    # File descriptor 1 now leads to stderr, for C code and child processes
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr  # and Python's print() too
    loop = asyncio.get_running_loop()
    try:  # real asyncio pipes where the platform has them (Linux, macOS)
        if not (_is_pipe(stdin) and _is_pipe(stdout)):
            raise ValueError("stdin or stdout is a regular file, not a pipe")
        reader = asyncio.StreamReader(limit=CHUNK)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
        write_transport, write_protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, stdout
        )
        writer: ByteWriter = asyncio.StreamWriter(write_transport, write_protocol, None, loop)
        return PipeTransport(reader, writer, framing)
    except (NotImplementedError, ValueError, OSError):
        # Windows, or stdin/stdout is a file or a tty
        return PipeTransport(ThreadedReader(stdin), ThreadedWriter(stdout), framing)


# --8<-- [end:server_side]
