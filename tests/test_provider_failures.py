"""When a model's API fails (minimcp.host.providers.failures): one line, never the key.

The host runs with a provider model whose base URL is :mod:`fake_providers`' server, scripted to
answer as the real APIs do when they refuse: a wrong key (401), a rate limit (429, with
``retry-after``), a model without tools (400), a provider in trouble (5xx), or nobody listening.
Each ends the host's question with a :class:`ProviderError` of one line, after retries where a
retry can help; ``python -m minimcp chat`` prints that line (``test_chat.py``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fake_providers import (
    FAKE_KEY,
    FakeProvider,
    claude_at,
    claude_error,
    claude_text,
    fake_provider,
    gpt_at,
    gpt_error,
    host_with,
)

from minimcp.host import RuleModel
from minimcp.host.providers import AnthropicModel, OpenAIModel, ProviderError
from minimcp.host.providers.choosing import PROVIDERS, choose_model
from minimcp.host.providers.failures import Refused, wait_before_retry
from minimcp.transports.http.server import bind

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
async def fake() -> AsyncIterator[FakeProvider]:
    async with fake_provider() as provider:
        yield provider


async def failure(model: Any, fake: FakeProvider, *replies: Any) -> str:
    """The one line a host's question ends with, once the fake answered ``replies``."""
    fake.script(*replies)
    async with await host_with(model) as host:
        with pytest.raises(ProviderError) as raised:
            await host.ask("What is on today?")
    line = str(raised.value)
    assert "\n" not in line and FAKE_KEY not in line
    return line


async def test_a_refused_key_is_one_line_without_the_key(fake: FakeProvider) -> None:
    # OpenAI's real 401 quotes the key (partly): this fake quotes it whole
    line = await failure(
        gpt_at(fake),
        fake,
        gpt_error(401, f"Incorrect API key provided: {FAKE_KEY}.", "invalid_api_key"),
    )
    assert line == "the provider refused the key in OPENAI_API_KEY (401): check it"
    line = await failure(
        claude_at(fake), fake, claude_error(401, "authentication_error", "invalid x-api-key")
    )
    assert line == "Anthropic refused the key in ANTHROPIC_API_KEY (401): check it"


async def test_a_rate_limit_is_retried_as_the_provider_asks(fake: FakeProvider) -> None:
    fake.script(
        claude_error(429, "rate_limit_error", "Slow down", retry_after="0"),
        claude_text("Now it works."),
    )
    async with await host_with(claude_at(fake)) as host:
        assert await host.ask("What is on today?") == "Now it works."
    assert len(fake.seen) == 2


async def test_a_rate_limit_ends_after_the_retries(fake: FakeProvider) -> None:
    busy = claude_error(429, "rate_limit_error", "Slow down", retry_after="0")
    line = await failure(claude_at(fake, retries=2), fake, busy, busy, busy)
    assert line == "rate limited by Anthropic (429), still after 2 retries: try again later"
    assert len(fake.seen) == 3


async def test_a_long_retry_after_is_not_waited_for(fake: FakeProvider) -> None:
    line = await failure(
        gpt_at(fake),
        fake,
        gpt_error(429, "Rate limit reached", "rate_limit_exceeded", retry_after="3600"),
    )
    assert line == (
        "rate limited by the provider (429): it asks to wait 3600 s, more than the 30 s this chat "
        "waits; try again later"
    )
    assert len(fake.seen) == 1


async def test_a_model_without_tools_says_so(fake: FakeProvider) -> None:
    # Ollama's answer for a model without tool support (the fake also quotes the key)
    said = f"registry.ollama.ai/library/gemma:2b does not support tools ({FAKE_KEY})"
    model = fake.owns(OpenAIModel("gemma:2b", base_url=fake.url + "/v1", api_key=FAKE_KEY))
    line = await failure(model, fake, gpt_error(400, said))
    assert line == (
        "the model gemma:2b refused the tools (400: registry.ollama.ai/library/gemma:2b does not "
        "support tools (***)): choose a model that supports tool calling"
    )


async def test_a_provider_in_trouble_is_asked_again_then_given_up(fake: FakeProvider) -> None:
    down = claude_error(529, "overloaded_error", "Overloaded", retry_after="0")
    fake.script(down, claude_text("Back."))
    async with await host_with(claude_at(fake)) as host:
        assert await host.ask("Hello?") == "Back."
    line = await failure(claude_at(fake, retries=0), fake, claude_error(500, "api_error", "Oops"))
    assert line == "Anthropic failed (500: Oops): try again later"


async def test_a_provider_nobody_listens_for(fake: FakeProvider) -> None:
    closed = bind("127.0.0.1", 0)  # a free port, and nobody listening on it
    url = f"http://127.0.0.1:{closed.getsockname()[1]}"
    closed.close()
    model = fake.owns(AnthropicModel("claude-test-1", base_url=url, api_key=FAKE_KEY))
    line = await failure(model, fake)
    assert line == f"cannot reach Anthropic at {url}: is it running, and is the address right?"


def test_no_key_is_said_before_anything_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ProviderError, match=r"^no key: set ANTHROPIC_API_KEY to your API key"):
        choose_model("anthropic:claude-sonnet-4-5")
    assert isinstance(choose_model("rule"), RuleModel)
    with pytest.raises(ProviderError, match="unknown model 'mistral:large'"):
        choose_model("mistral:large")
    # a local server may need no key
    assert choose_model("openai:llama3.2", base_url="http://127.0.0.1:1/v1") is not None


def test_how_long_a_retry_waits() -> None:
    assert wait_before_retry(Refused(429, "", "2"), attempt=0) == 2.0
    assert wait_before_retry(Refused(429, "", "3600"), attempt=0) is None
    assert wait_before_retry(Refused(503, ""), attempt=0) == 1.0
    assert wait_before_retry(Refused(503, ""), attempt=2) == 4.0
    assert wait_before_retry(Refused(400, "", "1"), attempt=0) is None


def test_the_pins_are_those_of_requirements() -> None:
    pinned = (ROOT / "requirements.txt").read_text().splitlines()
    for _, _, package in PROVIDERS.values():
        assert package in pinned, f"{package} is not what requirements.txt pins"
