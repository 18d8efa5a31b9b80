"""The suite's authorization scenarios, against the course authorization server (lesson 10).

``python tools/conformance.py --authorization`` serves ``python -m minimcp auth-server`` with one
pre-registered client, ``conformance``, whose redirect URI is the suite's callback. In each scenario
the suite prints the authorization URL for a person to open in a browser; this opens it instead
(the server's ``--consent auto`` is its scripted person, who agrees), and the redirect lands on the
suite's callback.
"""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.request

from tools.conformance_suite import ROOT, free_port, stop, wait_until_serving

#: The resource the suite asks a token for (only named: nothing serves it).
RESOURCE = "http://127.0.0.1:8000/mcp"


def run_authorization_side(
    suite: list[str], scenario: str | None, results: str, spec_version: str
) -> subprocess.CompletedProcess[str]:
    """Serve the course authorization server and run the suite's authorization scenarios on it."""
    port, callback = free_port(), free_port()
    issuer = f"http://127.0.0.1:{port}"
    client = f"conformance=http://127.0.0.1:{callback}/callback"
    serve = [sys.executable, "-m", "minimcp", "auth-server", "--port", str(port)]
    server = subprocess.Popen([*serve, "--consent", "auto", "--client", client], cwd=ROOT)
    try:
        wait_until_serving(f"{issuer}/.well-known/oauth-authorization-server", server)
        command = [*suite, "authorization", "--url", issuer, "--client-id", "conformance"]
        command += ["--port", str(callback), "--resource", RESOURCE]
        command += ["--spec-version", spec_version, "--output-dir", results]
        command += ["--scenario", scenario] if scenario else []
        return run_consenting(command, issuer)
    finally:
        stop(server)


def run_consenting(command: list[str], issuer: str) -> subprocess.CompletedProcess[str]:
    """Run the suite, and open each authorization URL it prints once its callback listens."""
    print(" ".join(["conformance", *command[2:]]), flush=True)
    suite = subprocess.Popen(
        command,
        cwd=ROOT,
        env={**os.environ, "NO_COLOR": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert suite.stdout is not None
    output: list[str] = []
    url = None
    for line in suite.stdout:  # until the suite exits
        output.append(line)
        if line.startswith(f"{issuer}/authorize?"):
            url = line.strip()
        elif line.startswith("Callback server started") and url:
            # Its listener is up: open the URL, which redirects to the callback.
            urllib.request.urlopen(url, timeout=10).read()
            url = None
    returncode = suite.wait(timeout=600)
    return subprocess.CompletedProcess(command, returncode, "".join(output), "")
