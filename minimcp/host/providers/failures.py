"""When a model's API fails: a bounded number of retries, then one line a person can act on.

A person chatting meets the same few failures whatever the provider, and each deserves one clear
line, never a traceback (and never the key):

* no key, or a key the provider refuses (HTTP 401);
* too many requests (429): the provider says when to come back (``retry-after``), and is obeyed,
  within a bound (:data:`LONGEST_WAIT`): a provider that asks for an hour gets a line, not an hour
  of silence;
* a provider that is down: nobody listens at its address, or it answers 500-something;
* a model that cannot use tools (a 400 that says so: Ollama's "does not support tools").

The official clients (``anthropic``, ``openai``) retry on their own, and honour ``retry-after``
without an upper bound (a server that says "3600" is waited for, an hour), so the provider models
turn their retries off (``max_retries=0``) and retry here instead, with :func:`patiently`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")

#: The longest a ``retry-after`` is obeyed, in seconds: beyond it, the chat gives up at once.
LONGEST_WAIT = 30.0

#: The statuses worth asking again: a timeout, a conflict, too many requests, a provider in trouble
#: (529 is Anthropic's "overloaded").
RETRIED = frozenset({408, 409, 429, 500, 502, 503, 504, 529})


class ProviderError(Exception):
    """A failure of the model's API, said in one line a person can act on (and without the key)."""


class Refused(Exception):
    """The API answered with an HTTP error: its status, what it said, and ``retry-after``."""

    def __init__(self, status: int, said: str, retry_after: str | None = None) -> None:
        super().__init__(f"{status}: {said}")
        self.status = status
        self.said = said
        self.retry_after = retry_after


@dataclass(frozen=True)
class Provider:
    """What a one-line message names: the provider, its key's variable, the model, the address.

    ``secret`` (the key) is kept only to take it out of whatever the provider said.
    """

    label: str
    key_variable: str
    model: str
    url: str
    secret: str = field(repr=False)

    def shown(self, text: str) -> str:
        """What the provider said, made one short line that does not hold the key."""
        line = " ".join(text.split()).replace(self.secret, "***")
        return line if len(line) <= 200 else line[:199] + "…"

    def unreachable(self) -> ProviderError:
        return ProviderError(
            f"cannot reach {self.label} at {self.url}: is it running, and is the address right?"
        )

    def silent(self, timeout: float) -> ProviderError:
        return ProviderError(f"{self.label} at {self.url} did not answer within {timeout:g} s")


# --8<-- [start:explain]
def explain(provider: Provider, refused: Refused, retries: int) -> str:
    """The one line for an HTTP error the API gave (after ``retries`` retries)."""
    said = provider.shown(refused.said)
    status = refused.status
    label = provider.label
    again = f", still after {retries} retries" if retries else ""
    if status == 401:  # the body may quote part of the key: it is not shown at all
        return f"{label} refused the key in {provider.key_variable} (401): check it"
    if status == 429:
        wait = seconds(refused.retry_after)
        if wait is not None and wait > LONGEST_WAIT:
            return (
                f"rate limited by {label} (429): it asks to wait {wait:g} s, more than the "
                f"{LONGEST_WAIT:g} s this chat waits; try again later"
            )
        return f"rate limited by {label} (429){again}: try again later"
    if status == 400 and "tool" in said.lower():
        return (
            f"the model {provider.model} refused the tools (400: {said}): "
            "choose a model that supports tool calling"
        )
    if status == 404:
        return f"{label} has no model {provider.model!r} at {provider.url} (404: {said})"
    if status >= 500:
        return f"{label} failed ({status}: {said}){again}: try again later"
    return f"{label} refused the request ({status}: {said})"


# --8<-- [end:explain]


# --8<-- [start:patiently]
async def patiently(send: Callable[[], Awaitable[T]], retries: int, provider: Provider) -> T:
    """``send()``, asked again up to ``retries`` times while the API answers a status worth asking
    again; any other failure, or the last one, becomes a :class:`ProviderError`."""
    for attempt in range(retries + 1):
        try:
            return await send()
        except Refused as refused:
            wait = wait_before_retry(refused, attempt)
            if wait is None or attempt == retries:
                raise ProviderError(explain(provider, refused, attempt)) from None
            await asyncio.sleep(wait)
    raise AssertionError("the loop returns or raises")


def wait_before_retry(refused: Refused, attempt: int) -> float | None:
    """How long to wait before asking again, or None not to ask again.

    The provider's ``retry-after`` if it gave one (up to :data:`LONGEST_WAIT`), else 1 s, 2 s,
    4 s…: each retry waits twice as long, so that a struggling provider is not hammered.
    """
    if refused.status not in RETRIED:
        return None
    asked = seconds(refused.retry_after)
    if asked is None:
        return float(2**attempt)
    return asked if asked <= LONGEST_WAIT else None


# --8<-- [end:patiently]


def seconds(retry_after: str | None) -> float | None:
    """A ``retry-after`` header in seconds (``"20"``; a date is read as no advice)."""
    try:
        return max(0.0, float(retry_after)) if retry_after is not None else None
    except ValueError:
        return None


def said(body: Any) -> str:
    """What an API's error body says: both send ``{"error": {"message": ...}}`` (the ``openai``
    client hands over the inner object alone); Ollama's own errors are ``{"error": "..."}``."""
    error = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    return str(error) if error is not None else "(no message)"
