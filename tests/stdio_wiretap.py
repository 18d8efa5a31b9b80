"""Run a stdio server and write down every line its client sends it: proof from the wire.

    python tests/stdio_wiretap.py LOG_FILE COMMAND [ARGS...]

The child is started with COMMAND; every line that reaches our stdin is appended to LOG_FILE, then
passed on to the child, and the child's stdout is passed back unchanged. Tests use it to show which
messages an SDK's client really sent (for example: no ``initialize`` at all); they build the
command line with :func:`wiretapped`.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path


def wiretapped(wire: Path, *arguments: str) -> list[str]:
    """``python -m minimcp serve ARGUMENTS`` behind this script, which writes what the client sends
    to ``wire``."""
    here = str(Path(__file__).resolve())
    return [sys.executable, here, str(wire), sys.executable, "-m", "minimcp", "serve", *arguments]


def main() -> int:
    log_path, command = sys.argv[1], sys.argv[2:]
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=sys.stdout.buffer)
    assert child.stdin is not None
    with open(log_path, "ab", buffering=0) as log:

        def forward() -> None:
            for line in sys.stdin.buffer:
                log.write(line)
                child.stdin.write(line)  # type: ignore[union-attr]
                child.stdin.flush()  # type: ignore[union-attr]
            child.stdin.close()  # type: ignore[union-attr]

        threading.Thread(target=forward, daemon=True).start()
        return child.wait()


if __name__ == "__main__":
    sys.exit(main())
