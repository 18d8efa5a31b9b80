"""Which model the host talks to, from one word: ``rule``, ``anthropic:NAME`` or ``openai:NAME``.

Each provider module imports its official client (``anthropic``, ``openai``) at its top, and this
module imports a provider module only once it is chosen. So minimcp runs without either package
(``pip install -e .`` leaves them out), and a missing one is said in one line, with the command
that installs the version the course pins (``requirements.txt``).
"""

from __future__ import annotations

from importlib import import_module

from minimcp.host.chat import Model
from minimcp.host.providers.failures import ProviderError
from minimcp.host.rule_model import RuleModel

#: Each provider: the module and class of its model, and the package it needs, as pinned.
PROVIDERS = {
    "anthropic": (
        "minimcp.host.providers.anthropic_messages",
        "AnthropicModel",
        "anthropic==2.14.0",
    ),
    "openai": ("minimcp.host.providers.openai_chat", "OpenAIModel", "openai==3.57.0"),
}


def choose_model(
    spec: str, *, base_url: str | None = None, retries: int = 2, timeout: float = 120.0
) -> Model:
    """The model ``spec`` names: ``rule`` (lesson 04's offline rules), ``anthropic:NAME`` or
    ``openai:NAME`` (``base_url``: another server that speaks that API, Ollama's for one).

    Raises :class:`ProviderError`, one line, for a spec it does not know, a package that is not
    installed, or a key that is missing.
    """
    if spec == "rule":
        return RuleModel()
    provider, _, name = spec.partition(":")
    if provider not in PROVIDERS or not name:
        raise ProviderError(
            f"unknown model {spec!r}: say rule, anthropic:NAME or openai:NAME "
            "(e.g. anthropic:claude-sonnet-4-5, openai:gpt-4.1-mini)"
        )
    module_name, class_name, package = PROVIDERS[provider]
    try:
        module = import_module(module_name)
    except ModuleNotFoundError as missing:
        if missing.name != provider:  # not the package we need: a real bug, shown as such
            raise
        raise ProviderError(
            f"the {provider} package is not installed: pip install {package}"
        ) from None
    model: Model = getattr(module, class_name)(
        name, base_url=base_url, retries=retries, timeout=timeout
    )
    return model
