"""Layer 5, the host (lessons 04–06, 09): the application around the clients, where the model lives."""

from minimcp.host.chat import ChatMessage, Model, ToolCall, build_system_prompt
from minimcp.host.host import Host
from minimcp.host.questions import HostQuestions
from minimcp.host.router import DEFAULT_ROUTES, Route
from minimcp.host.rule_model import DEFAULT_ANSWERS, DEFAULT_RULES, Answer, Rule, RuleModel

__all__ = ["DEFAULT_ANSWERS", "DEFAULT_ROUTES", "DEFAULT_RULES", "Answer", "ChatMessage", "Host", "HostQuestions",
           "Model", "Route", "Rule", "RuleModel", "ToolCall", "build_system_prompt"]
