"""Checks for lesson 02's exercise: length-prefixed frames, JSON text sequences, StderrTail.

Each test's docstring is the hint ``python tools/check.py 02`` shows when the test fails.
"""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
import tracemalloc

import pytest


def feed_in_chunks(decoder, data: bytes, sizes) -> list:
    """Feed ``data`` to ``decoder`` in chunks of the given sizes (cycled); collect what comes
    out."""
    out = []
    position = 0
    sizes = list(sizes)
    index = 0
    while position < len(data):
        size = sizes[index % len(sizes)]
        out.extend(decoder.feed(data[position : position + size]))
        position += size
        index += 1
    return out


class ChunkReader:
    """A reader that hands out pre-cut chunks, one per ``read``, then b"" forever."""

    def __init__(self, chunks) -> None:
        self._chunks = iter(chunks)
        self.reads = 0

    async def read(self, n: int) -> bytes:
        self.reads += 1
        await asyncio.sleep(0)  # a real reader suspends; give the loop a turn
        return next(self._chunks, b"")


def stream_reader(data: bytes, limit: int = 2**16) -> asyncio.StreamReader:
    reader = asyncio.StreamReader(limit=limit)
    reader.feed_data(data)
    reader.feed_eof()
    return reader


async def drain(tail, reader, timeout: float = 10.0) -> None:
    await asyncio.wait_for(tail.drain(reader), timeout)


# -- Exercise 1 · Length-prefixed frames -----------------------------------------------------------


class TestEncodeFrame:
    def test_header_is_four_big_endian_bytes(self, exercise):
        """encode_frame(payload) is len(payload) as 4 big-endian bytes, then the payload:
        len(payload).to_bytes(4, "big") + payload."""
        assert exercise.encode_frame(b"hi") == b"\x00\x00\x00\x02hi"
        assert exercise.encode_frame(b"") == b"\x00\x00\x00\x00"
        assert exercise.encode_frame(b"x" * 300) == b"\x00\x00\x01\x2c" + b"x" * 300

    def test_refuses_payloads_over_the_limit(self, exercise):
        """encode_frame raises FrameTooLarge when len(payload) > max_frame (a payload of exactly
        max_frame bytes is fine)."""
        assert exercise.encode_frame(b"abcd", max_frame=4) == b"\x00\x00\x00\x04abcd"
        with pytest.raises(exercise.FrameTooLarge):
            exercise.encode_frame(b"abcde", max_frame=4)


class TestLengthPrefixDecoder:
    def test_one_whole_frame(self, exercise):
        """feed() returns the list of frames completed by the bytes it was given: one whole frame
        in, [payload] out."""
        decoder = exercise.LengthPrefixDecoder()
        assert decoder.feed(b"\x00\x00\x00\x05hello") == [b"hello"]
        assert decoder.feed(b"") == []
        assert decoder.buffered == 0
        assert decoder.errors == []

    def test_several_frames_and_empty_frames_in_one_chunk(self, exercise):
        """One chunk may hold several frames, including empty ones (length 0), and the start of the
        next: return every complete frame, keep the rest for later."""
        decoder = exercise.LengthPrefixDecoder()
        chunk = (
            exercise.encode_frame(b"one")
            + exercise.encode_frame(b"")
            + exercise.encode_frame(b"three")
            + b"\x00\x00"
        )
        assert decoder.feed(chunk) == [b"one", b"", b"three"]
        assert decoder.buffered == 2
        assert decoder.feed(b"\x00\x01!") == [b"!"]
        assert decoder.buffered == 0

    def test_byte_at_a_time(self, exercise):
        """A pipe can hand you one byte at a time: a split header or body must wait for the rest.
        Each frame comes out exactly when its last byte arrives."""
        frames = [b'{"jsonrpc":"2.0"}', b"", b"\x00\n\x1e binary is fine", b"last"]
        stream = b"".join(exercise.encode_frame(frame) for frame in frames)
        decoder = exercise.LengthPrefixDecoder()
        seen = []
        for i in range(len(stream)):
            out = decoder.feed(stream[i : i + 1])
            if out:
                seen.extend(out)
                assert stream[: i + 1].endswith(out[-1]), "a frame came out before its last byte"
        assert seen == frames

    def test_any_chunking_gives_the_same_frames(self, exercise):
        """However the stream is cut into chunks, the same frames come out in the same order
        (binary payloads with newlines and NUL bytes included: that is the point of a length)."""
        rng = random.Random(2)
        frames = [
            bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300))) for _ in range(40)
        ]
        stream = b"".join(exercise.encode_frame(frame) for frame in frames)
        for sizes in ([1], [3, 7], [64], [len(stream)], [rng.randrange(1, 50) for _ in range(30)]):
            decoder = exercise.LengthPrefixDecoder()
            assert feed_in_chunks(decoder, stream, sizes) == frames
            decoder.finish()  # ended on a frame boundary: no error

    def test_refuses_an_oversized_frame_and_skips_it_without_storing_it(self, exercise):
        """A frame longer than max_frame is reported once in decoder.errors (e.g. "frame of 10485760
        bytes exceeds the limit of 1024"), its body is skipped as it arrives (never stored: check
        .buffered), and the next frame decodes normally. A frame of exactly max_frame is fine."""
        decoder = exercise.LengthPrefixDecoder(max_frame=1024)
        big = 10 * 1024 * 1024
        assert decoder.feed((big).to_bytes(4, "big")) == []
        for _ in range(big // 65536):
            assert decoder.feed(b"\xff" * 65536) == []
            assert decoder.buffered <= 1024 + 4
        out = decoder.feed(
            exercise.encode_frame(b"after") + exercise.encode_frame(b"y" * 1024, 1024)
        )
        assert out == [b"after", b"y" * 1024]
        assert decoder.errors == ["frame of 10485760 bytes exceeds the limit of 1024"]

    def test_a_garbage_header_is_refused_not_waited_for(self, exercise):
        """Text where a length was expected (here an HTTP request: "GET " is 1195725856 as a length)
        must hit the limit and be reported at once, not make the decoder wait for a gigabyte."""
        decoder = exercise.LengthPrefixDecoder(max_frame=1 << 20)
        assert decoder.feed(b"GET / HTTP/1.1\r\nHost: example\r\n\r\n") == []
        assert decoder.errors == ["frame of 1195725856 bytes exceeds the limit of 1048576"]
        assert decoder.buffered == 0

    def test_finish_raises_only_inside_a_frame(self, exercise):
        """finish() is fine between frames, and raises TruncatedFrame when the stream stopped inside
        a header, inside a body, or inside a refused frame that was being skipped."""
        decoder = exercise.LengthPrefixDecoder()
        decoder.feed(exercise.encode_frame(b"ok"))
        decoder.finish()
        for cut in (b"\x00\x00", b"\x00\x00\x00\x09half"):
            decoder = exercise.LengthPrefixDecoder()
            assert decoder.feed(cut) == []
            with pytest.raises(exercise.TruncatedFrame):
                decoder.finish()
        decoder = exercise.LengthPrefixDecoder(max_frame=4)
        decoder.feed(b"\x00\x00\x00\x09abc")
        with pytest.raises(exercise.TruncatedFrame):
            decoder.finish()


# -- Exercise 2 · JSON text sequences (RFC 7464) ---------------------------------------------------

RS = b"\x1e"


class TestEncodeJsonSeq:
    def test_rs_compact_json_lf(self, exercise):
        """encode_json_seq(value) is RS (0x1E), compact JSON (separators=(",", ":")), LF."""
        assert exercise.encode_json_seq({"a": 1, "b": [1, 2]}) == b'\x1e{"a":1,"b":[1,2]}\n'
        assert exercise.encode_json_seq(None) == b"\x1enull\n"

    def test_control_characters_stay_escaped_and_text_is_utf8(self, exercise):
        """Inside the text, RS and LF only ever appear escaped (JSON does that); non-ASCII text is
        sent as UTF-8, not as \\u escapes (json.dumps(..., ensure_ascii=False))."""
        encoded = exercise.encode_json_seq({"text": "two\nlines \x1e café"})
        assert encoded.count(RS) == 1 and encoded.startswith(RS)
        assert encoded.count(b"\n") == 1 and encoded.endswith(b"\n")
        assert "café".encode() in encoded
        assert json.loads(encoded[1:]) == {"text": "two\nlines \x1e café"}


class TestJsonSeqDecoder:
    def test_texts_come_out_as_soon_as_they_end(self, exercise):
        """feed() returns the values of the texts completed so far. A text is complete at its LF
        when it parses: do not wait for the next RS. Falsy values (null, false, 0, "") count too."""
        decoder = exercise.JsonSeqDecoder()
        assert decoder.feed(b'\x1e{"a":1}\n') == [{"a": 1}]
        assert decoder.feed(b'\x1enull\n\x1efalse\n\x1e0\n\x1e""\n\x1e[') == [None, False, 0, ""]
        assert decoder.feed(b"]\n") == [[]]
        assert decoder.errors == []

    def test_byte_at_a_time(self, exercise):
        """Texts split anywhere (even inside a UTF-8 character) must come out whole and in order."""
        values = [{"id": 1, "text": "café ✓"}, [1, 2, 3], "x", 42, None]
        stream = b"".join(exercise.encode_json_seq(value) for value in values)
        decoder = exercise.JsonSeqDecoder()
        assert feed_in_chunks(decoder, stream, [1]) == values
        assert decoder.errors == []

    def test_pretty_printed_texts_span_several_lines(self, exercise):
        """A JSON text may contain LFs (pretty-printed JSON). Try to parse at each LF; when it does
        not parse yet, keep reading: the text comes out at the LF that completes it."""
        decoder = exercise.JsonSeqDecoder()
        assert decoder.feed(b'\x1e{\n  "a": 1,\n') == []
        assert decoder.feed(b'  "b": [\n    2\n  ]\n') == []
        assert decoder.feed(b"}\n") == [{"a": 1, "b": [2]}]
        assert decoder.errors == []

    def test_a_number_without_its_lf_is_truncated(self, exercise):
        """The LF is what proves a text complete: RS "12" then RS is a truncated text (maybe 123),
        reported as "truncated"; RS "12" then "3\\n" is the number 123."""
        decoder = exercise.JsonSeqDecoder()
        assert decoder.feed(b"\x1e12") == []
        assert decoder.feed(b'\x1e"next"\n') == ["next"]
        assert decoder.errors == ["truncated"]
        decoder = exercise.JsonSeqDecoder()
        assert decoder.feed(b"\x1e12") == []
        assert decoder.feed(b"3\n") == [123]

    def test_recovers_at_the_next_rs(self, exercise):
        """A writer that died mid-text, a text that ends with LF but is not JSON, a text that is not
        UTF-8: each is dropped when the next RS comes, reported ("truncated" if it does not end
        with LF, "invalid" if it does), and the next text decodes."""
        decoder = exercise.JsonSeqDecoder()
        stream = (
            b'\x1e{"cut": [1, 2'
            + b'\x1e{"b":2}\n'
            + b'\x1e{"a":\n'
            + b"\x1e3\n"
            + b'\x1e"\xff\xfe"\n'
            + b"\x1e4\n"
        )
        assert decoder.feed(stream) == [{"b": 2}, 3, 4]
        assert decoder.errors == ["truncated", "invalid", "invalid"]

    def test_garbage_between_texts(self, exercise):
        """Bytes before the first RS, or non-whitespace bytes after a complete text and before the
        next RS, are dropped and reported once per run as "garbage". Whitespace between texts and
        empty elements (RS RS, RS LF) are fine and report nothing."""
        decoder = exercise.JsonSeqDecoder()
        assert decoder.feed(b"Server starting...\n") == []
        assert decoder.feed(b"still starting\n\x1e1\n") == [1]
        assert decoder.feed(b"oops\x1e\x1e\n\x1e2\n  \n\x1e3\n") == [2, 3]
        assert decoder.errors == ["garbage", "garbage"]

    def test_finish_reports_an_unfinished_text(self, exercise):
        """finish(): the stream ended. A text still unfinished is reported ("truncated" without a
        final LF, "invalid" with one). After a complete text, finish() reports nothing."""
        decoder = exercise.JsonSeqDecoder()
        assert decoder.feed(b"\x1e1\n") == [1]
        decoder.finish()
        assert decoder.errors == []
        decoder.feed(b'\x1e{"a":')
        decoder.finish()
        assert decoder.errors == ["truncated"]
        decoder = exercise.JsonSeqDecoder()
        decoder.feed(b"\x1e{]\n")
        decoder.finish()
        assert decoder.errors == ["invalid"]

    def test_a_text_over_the_limit_is_skipped_to_the_next_rs(self, exercise):
        """A text that grows past max_text bytes is reported once as "too large" and skipped up to
        the next RS without being stored (check .buffered), whether or not it contains LFs."""
        decoder = exercise.JsonSeqDecoder(max_text=100)
        assert decoder.feed(b'\x1e"') == []
        for _ in range(1000):
            assert decoder.feed(b"x" * 50) == []
            assert decoder.buffered <= 200
        assert decoder.feed(b'"\n\x1e{"ok":true}\n') == [{"ok": True}]
        assert decoder.feed(b"\x1e[\n" + b"1,\n" * 200 + b"1]\n\x1e5\n") == [5]
        assert decoder.errors == ["too large", "too large"]


# -- Exercise 3 · StderrTail: drain a stream without ever blocking it ------------------------------


class TestStderrTail:
    async def test_reads_lines_to_the_end(self, exercise):
        """drain(reader) reads until read() returns b""; lines end with LF, and the CR of a CRLF is
        dropped. A last line without LF still counts."""
        tail = exercise.StderrTail()
        await drain(tail, stream_reader(b"one\r\ntwo\n\nthree"))
        assert tail.lines == ["one", "two", "", "three"]

    async def test_keeps_only_the_last_lines(self, exercise):
        """Only the last max_lines lines are kept, oldest first (collections.deque(maxlen=...))."""
        tail = exercise.StderrTail(max_lines=3)
        await drain(tail, stream_reader(b"".join(b"line %d\n" % i for i in range(100))))
        assert tail.lines == ["line 97", "line 98", "line 99"]

    async def test_byte_at_a_time_with_utf8(self, exercise):
        """Reads may cut anywhere, even inside a UTF-8 character: decode whole lines, not chunks.
        Bytes that are not UTF-8 become U+FFFD (errors="replace"), they do not stop the drain."""
        data = "café ✓ done\nsecond ünïcode line\n".encode() + b"bad \xff byte\n"
        tail = exercise.StderrTail()
        await drain(tail, ChunkReader([data[i : i + 1] for i in range(len(data))]))
        assert tail.lines == ["café ✓ done", "second ünïcode line", "bad \ufffd byte"]

    async def test_never_readline(self, exercise):
        """Use read(), never readline(): StreamReader.readline() raises ValueError on a line longer
        than the reader's limit (here 16 bytes), and a drain that stops blocks the child."""
        reader = stream_reader(b"a line far longer than the sixteen-byte limit\nok\n", limit=16)
        tail = exercise.StderrTail()
        await drain(tail, reader)
        assert tail.lines == ["a line far longer than the sixteen-byte limit", "ok"]

    async def test_long_lines_are_cut_and_never_stored(self, exercise):
        """A line over max_line_bytes is kept as its first max_line_bytes bytes + "…"; the rest is
        read and thrown away: memory stays small even for a 16 MiB line without any LF."""
        tail = exercise.StderrTail(max_line_bytes=10)
        await drain(tail, stream_reader(b"0123456789abcdef\n0123456789\r\n0123456789A\nshort"))
        assert tail.lines == ["0123456789…", "0123456789", "0123456789…", "short"]

        chunks = (b"x" * 65536 for _ in range(256))  # 16 MiB, made on the fly, one line
        tail = exercise.StderrTail(max_line_bytes=100)
        tracemalloc.start()
        try:
            await drain(tail, ChunkReader(chunks))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert tail.lines == ["x" * 100 + "…"]
        assert peak < 4 * 1024 * 1024, f"the drain held {peak} bytes at its peak for one long line"

    async def test_a_failing_callback_never_stops_the_drain(self, exercise):
        """on_line(line) is called for each line in order; if it raises, count it in
        callback_errors and keep reading to the end."""
        seen = []

        def on_line(line: str) -> None:
            seen.append(line)
            if line.startswith("bad"):
                raise RuntimeError("a bug in the callback")

        tail = exercise.StderrTail(max_lines=2, on_line=on_line)
        await drain(tail, stream_reader(b"good 1\nbad 2\ngood 3\nbad 4\nlast"))
        assert seen == ["good 1", "bad 2", "good 3", "bad 4", "last"]
        assert tail.callback_errors == 2
        assert tail.lines == ["bad 4", "last"]

    async def test_a_real_child_writing_1_mib_to_stderr_still_answers(self, exercise):
        """The deadlock of lesson 02: a child writes 1 MiB to stderr, then answers on stdout. While
        StderrTail.drain reads its stderr, the child never blocks and the answer arrives."""
        code = (
            "import sys\n"
            "for i in range(16384): sys.stderr.write('log line %05d ' % i + 'x' * 48 + '\\n')\n"
            "sys.stderr.flush()\n"
            "sys.stdout.write('answer\\n'); sys.stdout.flush()\n"
        )
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            code,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        count = 0

        def on_line(line: str) -> None:
            nonlocal count
            count += 1

        tail = exercise.StderrTail(max_lines=2, on_line=on_line)
        draining = asyncio.ensure_future(tail.drain(process.stderr))
        answering = asyncio.ensure_future(process.stdout.readline())
        try:
            # Stop early if the drain itself fails (a stub, a bug): the child would block forever.
            await asyncio.wait(
                {draining, answering}, timeout=15, return_when=asyncio.FIRST_EXCEPTION
            )
            if draining.done() and draining.exception() is not None:
                raise draining.exception()
            await asyncio.wait_for(asyncio.gather(draining, answering), 15)
            assert answering.result() == b"answer\n"
            assert count == 16384
            assert tail.lines == ["log line 16382 " + "x" * 48, "log line 16383 " + "x" * 48]
        finally:
            for task in (draining, answering):
                task.cancel()
            if process.returncode is None:
                process.kill()
            await asyncio.wait_for(process.communicate(), 15)
