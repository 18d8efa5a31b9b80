"""A stdio server that misbehaves on purpose, for the stdio transport's tests.

It is plain blocking Python (no asyncio, no minimcp), like many real servers. It reads one JSON-RPC
request per line from stdin and answers on stdout, but some methods break the rules:

* ``echo``: answers with its params (the well-behaved baseline);
* ``flood``: writes ``params["bytes"]`` bytes to stderr, *then* answers. A client that does not
  read the child's stderr leaves it blocked in that write forever: the classic pipe deadlock;
* ``garbage``: writes lines to stdout that are not JSON-RPC (not JSON, not UTF-8, an answer for an
  id nobody used), then the real answer;
* ``hang``: never answers;
* ``crash``: exits at once with status 3, without answering.

Every line it reads is copied to stderr as ``got: <line>``, so a test can see what the client sent.

Options: ``--ignore-eof`` keeps it running when stdin ends (until a signal ends it);
``--ignore-sigterm`` also ignores SIGTERM, so only SIGKILL can stop it.

Run as ``python -m tests.servers.misbehaving [--ignore-eof] [--ignore-sigterm]``.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time


def write(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def answer(request_id: object, result: object) -> None:
    write(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}).encode() + b"\n")


def main() -> None:
    if "--ignore-sigterm" in sys.argv:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for raw in sys.stdin.buffer:
        line = raw.decode("utf-8", "replace").rstrip("\n")
        print(f"got: {line}", file=sys.stderr, flush=True)
        try:
            message = json.loads(line)
            method, request_id, params = (
                message.get("method"),
                message.get("id"),
                message.get("params") or {},
            )
        except (ValueError, AttributeError):
            continue
        if request_id is None:  # a notification, or an answer to nothing we asked: say nothing
            continue
        if method == "echo":
            answer(request_id, params)
        elif method == "flood":
            block = b"e" * 1023 + b"\n"
            for _ in range(params["bytes"] // len(block)):
                sys.stderr.buffer.write(block)
            sys.stderr.buffer.flush()
            answer(request_id, {"flooded": params["bytes"]})
        elif method == "garbage":
            write(b"this is not JSON\n")
            write(b"\xff\xfe not UTF-8 either\n")
            write(b'{"jsonrpc":"2.0","id":"nobody-asked","result":{}}\n')
            answer(request_id, {"after": "garbage"})
        elif method == "hang":
            pass
        elif method == "crash":
            os._exit(3)
    print("stdin closed", file=sys.stderr, flush=True)
    if "--ignore-eof" in sys.argv:
        deadline = time.monotonic() + 60  # bounded, in case nobody ends it
        while time.monotonic() < deadline:
            time.sleep(0.05)


if __name__ == "__main__":
    main()
