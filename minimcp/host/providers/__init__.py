"""Real models behind the host (a course extra after lesson 04): the APIs of Anthropic and OpenAI.

Lesson 04's host asks a :class:`~minimcp.host.chat.Model` for text or tool calls, and the course
runs on :class:`~minimcp.host.rule_model.RuleModel`, a few keyword rules. Here are two models that
ask a real LLM instead, through its provider's official client:

* :class:`AnthropicModel` (:mod:`.anthropic_messages`): Claude, over the Messages API;
* :class:`OpenAIModel` (:mod:`.openai_chat`): GPT over Chat Completions, and every local server
  that copies that API (Ollama, llama.cpp's server, vLLM, LM Studio) through ``base_url``.

What both share (tool names the APIs accept, the conversation in turns, the key, sampling) is in
:mod:`.common`; their failures, and the retries before one, in :mod:`.failures`;
:func:`choose_model` picks one from a word (``anthropic:claude-sonnet-4-5``) and imports its client
only then. ``python -m minimcp chat`` puts them to work.
"""

from minimcp.lazy import lazy_exports

# Imported on first use (minimcp.lazy): the official clients load only with their provider.
_EXPORTS = {
    "AnthropicModel": "minimcp.host.providers.anthropic_messages",
    "OpenAIModel": "minimcp.host.providers.openai_chat",
    "ProviderError": "minimcp.host.providers.failures",
    "ToolNames": "minimcp.host.providers.common",
    "choose_model": "minimcp.host.providers.choosing",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
