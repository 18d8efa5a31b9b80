"""The consent page: the one page of the authorization server a person reads (lesson 10).

``python -m minimcp serve --transport http --auth`` asks the person there, with two buttons. What
it shows and what it refuses each answer an attack:

* **who asks, and where the code will go**: the client's name is one it chose itself (anyone can
  register as "Calendar"), so the page also shows its ``client_id`` and the host the browser will be
  sent to with the code: the one fact a person can check (CIMD draft, section 6.4);
* **not in a frame**: ``X-Frame-Options: DENY`` and ``Content-Security-Policy: frame-ancestors
  'none'``, or a site could show it invisibly under a button of its own and collect the person's
  click (*clickjacking*: RFC 6749, section 10.13; RFC 9700, section 4.16);
* **a nonce, not the request**: the form carries a one-time nonce; the request it stands for stays
  on the server, so another site cannot post a decision of its own. A page left unanswered expires
  (ten minutes), and at most :data:`MAX_PAGES` wait at once;
* **from this page only**: a decision posted with another site's ``Origin`` is refused; no CORS
  preflight is answered for ``/authorize``.

A request that would fail whatever the person says (``plain`` PKCE, a wrong ``response_type``) is
never put to the person: its error goes straight back to a client on this machine. A client
elsewhere gets no such redirect unasked: anyone can register one, with a phishing site as its
redirect URI, and send a request that fails on purpose (RFC 9700, section 4.11.2). The person sees
:func:`error_page` instead, which says what is wrong and where the link back leads.
"""

from __future__ import annotations

import html
import secrets
from collections.abc import Mapping
from urllib.parse import urlsplit

from minimcp.auth.expiring import Expiring
from minimcp.auth.grants import Client
from minimcp.auth.validation import OAuthError
from minimcp.transports.http.asgi import HttpRequest

#: The page's headers: never framed, never cached, its URL never sent on as a Referer.
PAGE_HEADERS = {
    "x-frame-options": "DENY",
    "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
}
PAGE_LIFETIME = 600.0  # seconds to press a button
MAX_PAGES = 1_000


class ConsentPages:
    """The pages shown and not yet answered: nonce → the authorization request each stands for."""

    def __init__(self) -> None:
        self.pending: Expiring[str, dict[str, str]] = Expiring(PAGE_LIFETIME, MAX_PAGES)

    # --8<-- [start:consent_page]
    def page(self, query: Mapping[str, str], client: Client, subject: str) -> str:
        """The page a person sees: who asks, for what, where the code goes, and two buttons."""
        nonce = secrets.token_urlsafe(16)
        self.pending.put(nonce, dict(query))
        who = html.escape(client.name or client.client_id)
        what = html.escape(query.get("scope") or "(no particular scope)")
        where = html.escape(query.get("resource", "(any resource)"))
        redirect_uri = query.get("redirect_uri", "")
        return (
            f"<!doctype html><title>Allow {who}?</title><h1>Allow {who}?</h1>"
            f"<p>{who} (<code>{html.escape(client.client_id)}</code>) asks to act as "
            f"<b>{html.escape(subject)}</b> on <code>{where}</code>, "
            f"with the scope <code>{what}</code>.</p>"
            f"<p>If you allow it, your browser goes on to <b>{html.escape(host_of(redirect_uri))}"
            f"</b> (<code>{html.escape(redirect_uri)}</code>).</p>"
            "<form method=post action=/authorize>"
            f"<input type=hidden name=nonce value={nonce}>"
            "<button name=decision value=allow>Allow</button> "
            "<button name=decision value=deny>Deny</button>"
            "</form>"
        )

    def answered(self, form: Mapping[str, str]) -> dict[str, str]:
        """The request a page stood for, once: its nonce is good for one answer."""
        query = self.pending.pop(form.get("nonce", ""))
        if query is None:
            raise OAuthError(
                "invalid_request", "this consent page is unknown or was already answered"
            )
        return query

    # --8<-- [end:consent_page]


def error_page(description: str, location: str) -> str:
    """A failed request from a client elsewhere: what is wrong, and a link back that the person may
    follow, knowing where it leads."""
    return (
        "<!doctype html><title>Authorization request refused</title>"
        "<h1>Authorization request refused</h1>"
        f"<p>The application's request is invalid: {html.escape(description)}.</p>"
        f'<p><a href="{html.escape(location)}">Go back to '
        f"<b>{html.escape(host_of(location))}</b></a> (<code>{html.escape(location)}</code>)</p>"
    )


def host_of(uri: str) -> str:
    """Where a URL leads, as a person reads it: its host (and port)."""
    return urlsplit(uri).netloc


def check_same_origin(request: HttpRequest) -> None:
    """A decision comes from the consent page itself: a browser that says it comes from another site
    (``Origin``) is refused. A client with no ``Origin`` header is no browser on another site."""
    origin = request.headers.get("origin")
    if origin is not None and urlsplit(origin).netloc != request.headers.get("host"):
        raise OAuthError(
            "access_denied",
            "a decision is posted from the consent page, not from another site",
            403,
        )
