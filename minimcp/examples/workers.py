"""The supervisor of ``serve --workers N``: several copies of one server on one port (lesson 11).

:func:`run_workers` starts the workers, replaces one that dies, and stops them all when told to
stop: by Ctrl+C (SIGINT) or by a service manager's SIGTERM (systemd, Docker, Kubernetes). A stop is
bounded: each worker gets SIGTERM and a few seconds to close its sessions cleanly, then one that is
still there is killed. Every worker is reaped before the supervisor exits: nothing goes on serving
the port, and nothing is left behind as a zombie.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from types import FrameType

#: The environment variable that gives every worker of one server the same request-state key (hex).
STATE_KEY = "MINIMCP_STATE_KEY"
#: Seconds a worker has to stop cleanly (it closes its sessions and streams in about one second)
#: before it is killed.
STOP_GRACE = 5.0
#: Seconds between two looks at the workers: one that died is replaced about this soon.
LOOK_EVERY = 0.2


# --8<-- [start:workers]
def run_workers(count: int, argv: list[str]) -> int:
    """Run ``count`` copies of this ``serve`` command as worker processes on one port, until SIGINT
    (Ctrl+C) or SIGTERM.

    Each worker binds the port with ``SO_REUSEPORT``, so the kernel spreads new connections over
    them (on several machines, an ordinary load balancer does the same). A worker that dies is
    replaced; its sessions are taken over by whichever worker next gets one of their requests
    (lesson 11).
    """
    child = [sys.executable, "-m", "minimcp", *without_workers(argv), "--reuse-port"]
    # One key for all: any worker opens any state
    os.environ.setdefault(STATE_KEY, secrets.token_hex(32))
    stopping: list[int] = []  # the signal that asked us to stop, once it came

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopping.append(signum)  # only noted here: the loop below acts on it, between two looks

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, on_signal)
    workers: list[subprocess.Popen[bytes]] = []
    try:
        workers.extend(subprocess.Popen(child) for _ in range(count))
        say(f"{count} workers: {' '.join(str(worker.pid) for worker in workers)}")
        while not stopping:
            for place, worker in enumerate(workers):
                if worker.poll() is not None and not stopping:
                    workers[place] = subprocess.Popen(child)
                    say(
                        f"worker {worker.pid} stopped (exit status {worker.returncode}); "
                        f"worker {workers[place].pid} replaces it"
                    )
            time.sleep(LOOK_EVERY)
    finally:
        stop_workers(workers)
    return 0


def stop_workers(workers: list[subprocess.Popen[bytes]], grace: float = STOP_GRACE) -> None:
    """Stop every worker within ``grace`` seconds, and reap them all.

    Each gets SIGTERM, whichever signal stopped us: a worker closes its sessions on it exactly as on
    SIGINT, and one still starting, which has not yet set its handler, dies of it quietly (SIGINT
    would interrupt it with a traceback). One still running after ``grace`` seconds is killed."""
    for worker in workers:
        if worker.poll() is None:
            worker.terminate()
    deadline = time.monotonic() + grace
    for worker in workers:
        try:
            worker.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            say(f"worker {worker.pid} did not stop within {grace:g} s: killed")
            worker.kill()
            worker.wait()


# --8<-- [end:workers]


def say(line: str) -> None:
    """One line for the person who started the server (stderr: logs, never the protocol)."""
    print(line, file=sys.stderr, flush=True)


def without_workers(argv: list[str]) -> list[str]:
    """``argv`` without its ``--workers N`` (or ``--workers=N``): what each worker runs."""
    kept: list[str] = []
    skip = False
    for argument in argv:
        if skip:
            skip = False
        elif argument == "--workers":
            skip = True
        elif not argument.startswith("--workers="):
            kept.append(argument)
    return kept
