"""The person's step of the authorization flow: a browser goes to the authorization server, and
comes back with a code (lesson 10).

The client cannot ask the person itself: it hands the authorization URL to an ``authorize(url)``
function and gets back the URL the browser was redirected to. :class:`~minimcp.auth.client.OAuth`
takes one of these:

* :func:`in_the_browser` for a person: a listener on a loopback redirect URI (RFC 8252) and their
  browser, opened on the authorization URL;
* :func:`follow_without_a_browser` for a script, when the authorization server asks nobody (the
  conformance suite's, a scripted consent).
"""

from __future__ import annotations

import asyncio
import webbrowser
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

import httpx2

#: ``authorize(url)`` → the URL the authorization server redirected the browser to, with a ``code``
#: or an ``error``.
Authorize = Callable[[str], Awaitable[str]]


class AuthorizationFailed(Exception):
    """The flow could not get a token; the message says at which step."""


async def follow_without_a_browser(url: str) -> str:
    """Open the authorization URL and return where it redirects: no browser, no person.

    Enough for an authorization server that asks nobody (the conformance suite's, a scripted
    consent). A person's client opens a browser instead (:func:`in_the_browser`).
    """
    async with httpx2.AsyncClient(follow_redirects=False, timeout=30) as http:
        response = await http.get(url)
    if "location" not in response.headers:
        raise AuthorizationFailed(
            f"the authorization endpoint did not redirect (HTTP {response.status_code})"
        )
    return response.headers["location"]


# --8<-- [start:browser]
def in_the_browser(
    redirect_uri: str, open_url: Callable[[str], object] = webbrowser.open, timeout: float = 300.0
) -> Authorize:
    """A person's ``authorize``: listen on the loopback ``redirect_uri`` and open the URL in their
    browser, then wait for the browser to come back with the code (RFC 8252's loopback redirect)."""
    parts = urlsplit(redirect_uri)
    if (
        parts.scheme != "http"
        or parts.hostname not in ("127.0.0.1", "localhost")
        or parts.port is None
    ):
        raise ValueError(f"a loopback redirect URI with a port is needed, not {redirect_uri!r}")

    async def authorize(url: str) -> str:
        arrived: asyncio.Future[str] = asyncio.get_running_loop().create_future()

        async def one_request(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            request_line = (await reader.readline()).decode("latin-1").split(" ")
            target = request_line[1] if len(request_line) > 1 else "/"
            if urlsplit(target).path == parts.path and not arrived.done():
                arrived.set_result(f"http://{parts.netloc}{target}")
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n"
                b"Done: you can close this page and go back to the application.\n"
            )
            await writer.drain()
            writer.close()

        listener = await asyncio.start_server(one_request, parts.hostname, parts.port)
        try:
            if not open_url(url):  # no browser here: a person can still open it by hand
                print(f"Open this URL to authorize: {url}", flush=True)
            return await asyncio.wait_for(arrived, timeout)
        finally:
            listener.close()
            await listener.wait_closed()

    return authorize


# --8<-- [end:browser]
