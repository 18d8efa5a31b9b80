"""The client's side of stdio: start a server as a child process, talk over its pipes (lesson 02).

:func:`spawn` starts the child and returns a :class:`ProcessTransport`: the child's stdin and stdout
carry the messages, and its stderr is read all the time, line by line, so the child never blocks on
a full pipe. Closing follows the spec (basic/lifecycle, "Shutdown", stdio): close the child's stdin,
wait for it to exit, then ``SIGTERM``, then ``SIGKILL``.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import subprocess
import sys
from collections.abc import Callable, Sequence

from minimcp.transports.stdio import (
    CHUNK,
    ByteReader,
    ByteWriter,
    PipeTransport,
    ThreadedReader,
    ThreadedWriter,
)

log = logging.getLogger("minimcp.stdio")


# -- The client's side: a child process -------------------------------------------------------
# --8<-- [start:spawn]
class ProcessTransport(PipeTransport):
    """A transport to a child process we started: its stdin and stdout, with its stderr drained."""

    def __init__(
        self,
        process: asyncio.subprocess.Process | subprocess.Popen[bytes],
        reader: ByteReader,
        writer: ByteWriter,
        stderr: ByteReader,
        framing: str,
        on_stderr: Callable[[str], None] | None,
    ) -> None:
        super().__init__(reader, writer, framing)
        self.process = process
        #: the child's last lines of stderr, kept for when something goes wrong
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=200)
        self._on_stderr = on_stderr
        self._stderr_task = asyncio.get_running_loop().create_task(self._drain_stderr(stderr))

    # --8<-- [start:drain_stderr]
    async def _drain_stderr(self, stderr: ByteReader) -> None:
        """Read the child's stderr for as long as it lives. Never stop: a full pipe blocks it."""
        pending = b""
        while chunk := await stderr.read(CHUNK):
            *lines, pending = (pending + chunk).split(b"\n")
            for raw in lines:
                self._stderr_line(raw)
            # A "line" that never ends: pass it on in pieces, keep memory bounded
            if len(pending) > CHUNK:
                self._stderr_line(pending)
                pending = b""
        if pending:  # the child's last words, written without a final newline
            self._stderr_line(pending)

    def _stderr_line(self, raw: bytes) -> None:
        line = raw.decode("utf-8", "replace").rstrip("\r")
        self.stderr_tail.append(line)
        if self._on_stderr is not None:
            try:
                self._on_stderr(line)
            except Exception:  # a broken callback must not stop the draining (that is the deadlock)
                log.exception("the on_stderr callback failed")

    # --8<-- [end:drain_stderr]

    # --8<-- [start:close]
    async def close(self, timeout: float = 2.0) -> None:
        """The spec's shutdown: close stdin, wait; then SIGTERM, wait; then SIGKILL."""
        await super().close()  # closing the child's stdin is its signal to exit
        if not await _wait_exit(self.process, timeout):
            log.info("server did not exit after stdin closed: terminating it")
            self.process.terminate()
            if not await _wait_exit(self.process, timeout):
                log.warning("server ignored SIGTERM: killing it")
                self.process.kill()
                await _wait_exit(self.process, None)
        try:  # the stderr pipe ends with the process (unless a grandchild still holds it open)
            await asyncio.wait_for(self._stderr_task, timeout)
        except TimeoutError:
            log.warning("the server's stderr stayed open after it exited")

    # --8<-- [end:close]


# --8<-- [start:spawn_function]
async def spawn(
    command: Sequence[str],
    *,
    framing: str = "ndjson",
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    on_stderr: Callable[[str], None] | None = None,
    use_threads: bool = False,
) -> ProcessTransport:
    """Start ``command`` as a child process and return a transport to it."""
    try:
        if use_threads:
            raise NotImplementedError
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            cwd=cwd,
            limit=CHUNK,
        )
        assert process.stdin and process.stdout and process.stderr
        return ProcessTransport(
            process, process.stdout, process.stdin, process.stderr, framing, on_stderr
        )
    except NotImplementedError:  # no asyncio subprocesses here (Windows + Jupyter): use threads
        popen = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
            bufsize=0,
        )
        assert popen.stdin and popen.stdout and popen.stderr
        return ProcessTransport(
            popen,
            ThreadedReader(popen.stdout),
            ThreadedWriter(popen.stdin),
            ThreadedReader(popen.stderr),
            framing,
            on_stderr,
        )


# --8<-- [end:spawn_function]
# --8<-- [end:spawn]


async def _wait_exit(
    process: asyncio.subprocess.Process | subprocess.Popen[bytes], timeout: float | None
) -> bool:
    """Wait for the process to exit; False if it is still running after ``timeout`` seconds."""
    if isinstance(process, subprocess.Popen):
        try:
            await asyncio.wait_for(
                asyncio.get_running_loop().run_in_executor(None, process.wait), timeout
            )
            return True
        except TimeoutError:
            return False
    # asyncio's Process.wait() also waits for the pipes to close, which a child's unread stdout can
    # delay; returncode is set as soon as the process itself has exited, so we watch that instead.
    loop = asyncio.get_running_loop()
    deadline = None if timeout is None else loop.time() + timeout
    while process.returncode is None:
        if deadline is not None and loop.time() >= deadline:
            return False
        await asyncio.sleep(0.02)
    return True


def python_command(*args: str) -> list[str]:
    """A command line that runs this same Python interpreter: ``[sys.executable, "-u", *args]``."""
    return [sys.executable, "-u", *args]
