"""Layer 5, the host (lessons 04–06, 09): the application around clients, where the model lives."""

from minimcp.lazy import lazy_exports

# Each name below is imported the first time it is used, not when the package is: see
# minimcp.lazy. That keeps an earlier lesson's modules from running a later lesson's.
_EXPORTS = {
    "Answer": "minimcp.host.rule_model",
    "ChatMessage": "minimcp.host.chat",
    "DEFAULT_ANSWERS": "minimcp.host.rule_model",
    "DEFAULT_ROUTES": "minimcp.host.router",
    "DEFAULT_RULES": "minimcp.host.rule_model",
    "Host": "minimcp.host.host",
    "HostQuestions": "minimcp.host.questions",
    "KeywordRouter": "minimcp.host.router",
    "Model": "minimcp.host.chat",
    "Route": "minimcp.host.router",
    "Rule": "minimcp.host.rule_model",
    "RuleModel": "minimcp.host.rule_model",
    "ToolCall": "minimcp.host.chat",
    "build_system_prompt": "minimcp.host.chat",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
