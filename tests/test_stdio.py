"""The stdio transport (minimcp.stdio): pipes in-process, then real child processes.

Child processes run ``sys.executable``, so they use the same Python and the same installed minimcp
as the tests. Every wait has a timeout, and every child is stopped at the end of its test, however
the test ends. Tests marked ``threads`` run twice: on asyncio's pipes and on the threaded fallback.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from typing import Any

import pytest

from minimcp.rpc import Connection, ConnectionClosed
from minimcp.rpc.jsonrpc import INVALID_REQUEST, PARSE_ERROR
from minimcp.transports.framing import FrameError
from minimcp.transports.process import ProcessTransport, python_command, spawn
from minimcp.transports.stdio import PipeTransport

TIMEOUT = 10.0
ECHO_SERVER = python_command("-m", "minimcp.examples.echo")
MISBEHAVING = python_command("-m", "tests.servers.misbehaving")
POSIX_ONLY = pytest.mark.skipif(
    sys.platform == "win32", reason="SIGTERM and SIGKILL are POSIX signals"
)

threads = pytest.mark.parametrize("use_threads", [False, True], ids=["asyncio", "threads"])


@pytest.fixture
async def start(repo_root):
    """``await start(command, **spawn_options)``: a child process, always stopped at teardown."""
    started: list[ProcessTransport] = []

    async def start_(command: list[str], **options: Any) -> ProcessTransport:
        transport = await asyncio.wait_for(spawn(command, cwd=str(repo_root), **options), TIMEOUT)
        started.append(transport)
        return transport

    yield start_
    for transport in started:
        if transport.process.returncode is None:
            transport.process.kill()
        await transport.close(timeout=1.0)


async def receive_json(transport: PipeTransport) -> dict[str, Any]:
    text = await asyncio.wait_for(transport.receive_text(), TIMEOUT)
    assert text is not None, "the server closed its stdout"
    return json.loads(text)


async def write_raw(transport: PipeTransport, data: bytes) -> None:
    transport._writer.write(data)
    await asyncio.wait_for(transport._writer.drain(), TIMEOUT)


async def assert_echo_works(transport: PipeTransport, request_id: Any = "after") -> None:
    await transport.send_text(
        json.dumps(
            {"jsonrpc": "2.0", "id": request_id, "method": "echo", "params": {"still": "here"}}
        )
    )
    assert await receive_json(transport) == {
        "jsonrpc": "2.0",
        "id": request_id,
        "result": {"still": "here"},
    }


def returncode(transport: ProcessTransport) -> int | None:
    return transport.process.returncode


# -- PipeTransport on in-memory pipes --------------------------------------------------------------
class BytesWriter:
    def __init__(self) -> None:
        self.data = bytearray()
        self.closed = False

    def write(self, data: bytes) -> None:
        self.data += data

    async def drain(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def pipe(
    data: bytes, framing: str = "ndjson", max_frame: int = 64
) -> tuple[PipeTransport, BytesWriter]:
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    writer = BytesWriter()
    return PipeTransport(reader, writer, framing, max_frame), writer


async def test_pipe_transport_reads_lines_and_reports_bad_frames_once() -> None:
    transport, _ = pipe(b'{"a":1}\r\n\n\xff\xfe\n' + b"x" * 100 + b'\n{"b":2}\n{"c":3}')
    assert await transport.receive_text() == '{"a":1}'
    with pytest.raises(FrameError) as caught:
        await transport.receive_text()
    assert caught.value.code == PARSE_ERROR and caught.value.message.startswith("Parse error")
    with pytest.raises(FrameError) as caught:
        await transport.receive_text()
    assert caught.value.code == INVALID_REQUEST
    assert await transport.receive_text() == '{"b":2}'
    assert await transport.receive_text() == '{"c":3}'  # the last line had no newline
    assert await transport.receive_text() is None
    assert await transport.receive_text() is None  # and end of stream stays the end


async def test_pipe_transport_sends_whole_frames() -> None:
    transport, writer = pipe(b"")
    await asyncio.gather(*(transport.send_text(json.dumps({"n": n})) for n in range(3)))
    await transport.send_text('{"text":"é"}')
    assert bytes(writer.data) == b'{"n": 0}\n{"n": 1}\n{"n": 2}\n{"text":"\xc3\xa9"}\n'
    await transport.close()
    assert writer.closed


async def test_pipe_transport_content_length() -> None:
    transport, writer = pipe(
        b"Content-Length: 2\r\n\r\n{}Content-Length: 4\r\n\r\n\xc3\xa9\xc3\xa9",
        framing="content-length",
    )
    assert await transport.receive_text() == "{}"
    assert await transport.receive_text() == "éé"
    assert await transport.receive_text() is None
    await transport.send_text("{}")
    assert bytes(writer.data) == b"Content-Length: 2\r\n\r\n{}"


async def test_a_connection_answers_a_frame_that_is_not_utf8() -> None:
    transport, writer = pipe(b'\xc3\x28\n{"jsonrpc":"2.0","id":1,"method":"x"}\n')
    connection = Connection(transport)
    # the request right before EOF is answered too
    await asyncio.wait_for(connection.run(), TIMEOUT)
    first, second = (json.loads(line) for line in bytes(writer.data).splitlines())
    assert first["id"] is None and first["error"]["code"] == PARSE_ERROR
    assert second == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {"code": -32601, "message": "Method not found: x"},
    }


# -- A real child: python -m minimcp.examples.echo -------------------------------------------------
@threads
async def test_echo_round_trip(start, use_threads: bool) -> None:
    transport = await start(ECHO_SERVER, use_threads=use_threads)
    connection = Connection(transport)
    connection.start()
    params = {"text": "hola ✓", "nested": {"list": [1, 2, 3]}, "newline": "a\nb"}
    assert await connection.request("echo", params, timeout=TIMEOUT) == params
    calls = [connection.request("echo", {"n": n}, timeout=TIMEOUT) for n in range(50)]
    results = await asyncio.gather(*calls)
    assert results == [{"n": n} for n in range(50)]
    await connection.close()
    assert returncode(transport) == 0


async def test_echo_round_trip_with_content_length_framing(start) -> None:
    command = python_command("-m", "minimcp.examples.echo", "--framing", "content-length")
    transport = await start(command, framing="content-length")
    await assert_echo_works(transport, 1)
    await write_raw(transport, b"Content-Length: nope\r\n\r\n")
    answer = await receive_json(transport)
    assert answer["id"] is None and answer["error"]["code"] == PARSE_ERROR
    await assert_echo_works(transport, 2)


@threads
async def test_bad_lines_are_answered_and_the_server_goes_on(start, use_threads: bool) -> None:
    transport = await start(ECHO_SERVER, use_threads=use_threads)
    for bad in (
        b"this is not json\n",
        b"\xff\xfe\xfd\n",
        b'{"jsonrpc":"2.0","id":1,"method":"echo"\n',
    ):
        await write_raw(transport, bad)
        answer = await receive_json(transport)
        assert answer["id"] is None and answer["error"]["code"] == PARSE_ERROR, bad
        await assert_echo_works(transport)
    await write_raw(transport, b'{"jsonrpc":"2.0","id":5,"method":"nope"}\n')
    answer = await receive_json(transport)
    assert answer == {
        "jsonrpc": "2.0",
        "id": 5,
        "error": {"code": -32601, "message": "Method not found: nope"},
    }
    await assert_echo_works(transport)


async def test_an_oversized_line_is_refused_and_the_server_goes_on(start) -> None:
    transport = await start(ECHO_SERVER)
    huge = (
        '{"jsonrpc":"2.0","id":1,"method":"echo","params":{"x":"' + "x" * (5 * 1024 * 1024) + '"}}'
    )
    await transport.send_text(huge)
    answer = await receive_json(transport)
    assert answer["id"] is None
    assert answer["error"] == {
        "code": INVALID_REQUEST,
        "message": "Message larger than 4194304 bytes",
    }
    await assert_echo_works(transport)


async def test_a_large_message_under_the_limit_goes_through(start) -> None:
    transport = await start(ECHO_SERVER)
    text = "y" * (3 * 1024 * 1024)
    await transport.send_text(
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "echo", "params": {"text": text}})
    )
    assert (await receive_json(transport))["result"]["text"] == text


@threads
async def test_the_server_exits_promptly_when_stdin_closes(start, use_threads: bool) -> None:
    transport = await start(ECHO_SERVER, use_threads=use_threads)
    await assert_echo_works(transport)
    began = time.monotonic()
    await transport.close(timeout=5.0)
    assert returncode(transport) == 0  # it exited on its own: no SIGTERM was needed
    assert time.monotonic() - began < 3.0
    assert "echo server ready: one JSON-RPC message per line" in transport.stderr_tail


@threads
async def test_a_killed_server_fails_pending_requests(start, use_threads: bool) -> None:
    transport = await start(MISBEHAVING, use_threads=use_threads)
    connection = Connection(transport)
    connection.start()
    assert await connection.request("echo", {"a": 1}, timeout=TIMEOUT) == {"a": 1}
    pending = asyncio.ensure_future(connection.request("hang", timeout=TIMEOUT))
    await asyncio.sleep(0.1)
    transport.process.kill()
    with pytest.raises(ConnectionClosed):
        await pending
    with pytest.raises(ConnectionClosed):
        await connection.request("echo", timeout=TIMEOUT)
    await connection.close()


@threads
async def test_a_server_crashing_mid_request_fails_it(start, use_threads: bool) -> None:
    transport = await start(MISBEHAVING, use_threads=use_threads)
    connection = Connection(transport)
    connection.start()
    with pytest.raises(ConnectionClosed):
        await connection.request("crash", timeout=TIMEOUT)
    await connection.close()  # the reader has already stopped, yet close still reaps the child
    assert returncode(transport) == 3
    assert transport._stderr_task.done()
    assert 'got: {"jsonrpc":"2.0","id":1,"method":"crash"}' in transport.stderr_tail


@threads
async def test_a_server_flooding_stderr_still_answers(start, use_threads: bool) -> None:
    lines: list[str] = []
    transport = await start(MISBEHAVING, use_threads=use_threads, on_stderr=lines.append)
    connection = Connection(transport)
    connection.start()
    size = 2 * 1024 * 1024  # far more than a pipe buffer holds
    assert await connection.request("flood", {"bytes": size}, timeout=TIMEOUT) == {"flooded": size}
    assert await connection.request("echo", {"a": 1}, timeout=TIMEOUT) == {"a": 1}
    await connection.close()
    assert lines.count("e" * 1023) == size // 1024
    assert len(transport.stderr_tail) == 200  # only the tail is kept


@threads
async def test_garbage_on_the_servers_stdout_does_not_break_the_client(
    start, use_threads: bool
) -> None:
    transport = await start(MISBEHAVING, use_threads=use_threads)
    connection = Connection(transport)
    connection.start()
    assert await connection.request("garbage", timeout=TIMEOUT) == {"after": "garbage"}
    assert await connection.request("echo", {"a": 1}, timeout=TIMEOUT) == {"a": 1}
    await connection.close()
    # The client answered each unreadable line with a parse error (id null), as JSON-RPC asks,
    # and said nothing about the stray answer for an id it never used.
    sent = [
        json.loads(line[len("got: ") :])
        for line in transport.stderr_tail
        if line.startswith("got: ")
    ]
    errors = [m for m in sent if "error" in m]
    assert [(m["id"], m["error"]["code"]) for m in errors] == [
        (None, PARSE_ERROR),
        (None, PARSE_ERROR),
    ]
    assert [m["method"] for m in sent if "method" in m] == ["garbage", "echo"]


@POSIX_ONLY
@threads
async def test_a_server_that_ignores_stdin_eof_gets_sigterm(start, use_threads: bool) -> None:
    transport = await start(
        python_command("-m", "tests.servers.misbehaving", "--ignore-eof"), use_threads=use_threads
    )
    await assert_echo_works(transport)
    began = time.monotonic()
    await asyncio.wait_for(transport.close(timeout=0.5), TIMEOUT)
    assert returncode(transport) == -signal.SIGTERM
    assert 0.5 <= time.monotonic() - began < 5.0
    assert "stdin closed" in transport.stderr_tail


@POSIX_ONLY
@threads
async def test_a_server_that_ignores_sigterm_gets_sigkill(start, use_threads: bool) -> None:
    command = python_command("-m", "tests.servers.misbehaving", "--ignore-eof", "--ignore-sigterm")
    transport = await start(command, use_threads=use_threads)
    await assert_echo_works(transport)  # answered: so the SIGTERM handler is in place
    began = time.monotonic()
    await asyncio.wait_for(transport.close(timeout=0.5), TIMEOUT)
    assert returncode(transport) == -signal.SIGKILL
    assert 1.0 <= time.monotonic() - began < 6.0


# -- The server's side: print() must not reach the protocol stream ---------------------------------
async def test_print_in_the_server_goes_to_stderr(start) -> None:
    lines: list[str] = []
    transport = await start(
        python_command("-m", "tests.servers.printing_server"), on_stderr=lines.append
    )
    connection = Connection(transport)
    connection.start()
    assert await connection.request("debug/print", {"text": "hi"}, timeout=TIMEOUT) == {
        "printed": True
    }
    assert await connection.request("ping", timeout=TIMEOUT) == {}
    await connection.close()
    assert returncode(transport) == 0
    # stdout stayed clean (every line parsed and matched its request); the prints went to stderr.
    assert "a stray print at start-up" in lines
    assert "a stray print inside a handler hi" in lines
    assert "and a direct write to sys.stdout" in lines


async def test_the_server_answers_when_its_stdout_is_a_file(tmp_path) -> None:
    # `python -m minimcp.examples.echo > answers.jsonl`: stdout is no pipe, so the server writes
    # from a thread.
    answers = tmp_path / "answers.jsonl"
    with open(answers, "wb") as stdout:
        process = await asyncio.create_subprocess_exec(
            *ECHO_SERVER,
            stdin=asyncio.subprocess.PIPE,
            stdout=stdout,
            stderr=asyncio.subprocess.DEVNULL,
        )
    try:
        assert process.stdin is not None
        for n in range(3):
            process.stdin.write(
                json.dumps(
                    {"jsonrpc": "2.0", "id": n, "method": "echo", "params": {"n": n}}
                ).encode()
                + b"\n"
            )
        await process.stdin.drain()
        for _ in range(int(TIMEOUT / 0.05)):
            if answers.read_bytes().count(b"\n") >= 3:
                break
            await asyncio.sleep(0.05)
        got = sorted(
            (json.loads(line) for line in answers.read_text().splitlines()), key=lambda a: a["id"]
        )
        assert got == [{"jsonrpc": "2.0", "id": n, "result": {"n": n}} for n in range(3)]
        process.stdin.close()
        assert await asyncio.wait_for(process.wait(), TIMEOUT) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


REQUESTS = b"".join(
    json.dumps({"jsonrpc": "2.0", "id": n, "method": "echo", "params": {"n": n}}).encode() + b"\n"
    for n in range(3)
)
ANSWERS = [{"jsonrpc": "2.0", "id": n, "result": {"n": n}} for n in range(3)]


def test_requests_piped_in_are_answered() -> None:
    # `printf '...' | python -m minimcp.examples.echo`: the requests and the end of stdin arrive
    # together.
    done = subprocess.run(ECHO_SERVER, input=REQUESTS, capture_output=True, timeout=TIMEOUT)
    assert done.returncode == 0
    assert (
        sorted((json.loads(line) for line in done.stdout.splitlines()), key=lambda a: a["id"])
        == ANSWERS
    )


def test_requests_from_a_file_are_answered(tmp_path) -> None:
    # `python -m minimcp.examples.echo < requests.jsonl`: stdin is no pipe, so the server reads from
    # a thread.
    requests = tmp_path / "requests.jsonl"
    requests.write_bytes(REQUESTS)
    with open(requests, "rb") as stdin:
        done = subprocess.run(ECHO_SERVER, stdin=stdin, capture_output=True, timeout=TIMEOUT)
    assert done.returncode == 0
    assert (
        sorted((json.loads(line) for line in done.stdout.splitlines()), key=lambda a: a["id"])
        == ANSWERS
    )
