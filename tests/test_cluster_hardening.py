"""Lesson 11 against a hostile or unlucky world: many streams on one worker, Redis restarted empty,
Redis forgotten altogether (issue 24, items 4, 13 and 19).

Real ``redis-server`` processes on free loopback ports; every wait is bounded.
"""

from __future__ import annotations

import subprocess
import sys

from support import free_port

TIMEOUT = 30.0


def test_serve_with_workers_and_no_redis_says_so_in_one_line_and_exits() -> None:
    nothing_there = f"redis://127.0.0.1:{free_port()}/0"
    done = subprocess.run(
        [sys.executable, "-m", "minimcp", "serve", "--transport", "http", "--port", "0"]
        + ["--workers", "2", "--redis", nothing_there],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"cannot reach Redis at {nothing_there}: ")
    assert "redis-server --port" in line
