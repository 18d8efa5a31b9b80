"""The second round of hardening (issue "Hardening, second round"), on the cables of lessons 08 and
12: what a hostile client tried, the exact error it gets now, and that the server serves the next
request afterwards. (The Redis findings are tested in tests/test_redis_store.py and
tests/test_cluster.py, beside a real redis-server.)
"""

from __future__ import annotations

import asyncio

from http_support import TIMEOUT, raw_session, running
from support import until

from minimcp.server import ResourceServer


def waiting_server(max_in_flight: int) -> tuple[ResourceServer, asyncio.Event]:
    """A server whose one tool, ``wait``, holds its request until the event is set."""
    server = ResourceServer("busy")
    release = asyncio.Event()

    @server.tool()
    async def wait() -> str:
        """Waits until released."""
        await release.wait()
        return "done"

    server.max_in_flight = max_in_flight
    return server, release


# -- 10. over HTTP, a request beyond --max-in-flight gets -32000 on its own POST ------------------
async def test_a_request_beyond_the_in_flight_limit_is_answered_over_http() -> None:
    server, release = waiting_server(max_in_flight=2)
    async with running(server) as http, raw_session(http.url) as raw:

        def call(n: int) -> dict[str, object]:
            return {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": "wait"}}

        held = [asyncio.ensure_future(raw.post(call(n))) for n in (10, 11)]
        await until(  # both are being answered
            lambda: any(len(session.connection._handling) == 2 for session in server.sessions)
        )
        refused = await asyncio.wait_for(raw.post(call(12)), TIMEOUT)
        assert refused.status_code == 200
        assert refused.headers["content-type"] == "application/json"
        assert refused.json() == {
            "jsonrpc": "2.0",
            "id": 12,
            "error": {
                "code": -32000,
                "message": "Server busy: 2 requests of this connection are already being answered",
            },
        }
        release.set()
        for response in await asyncio.wait_for(asyncio.gather(*held), TIMEOUT):
            assert response.status_code == 200
            assert '"done"' in response.text
        await raw.ping()
