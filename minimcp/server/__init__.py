"""Layer 4, the server's features (lessons 03–06, and "the client talks back").

:class:`Server` is the one object every transport serves, every feature at once (lesson 09); each
feature lesson's server stands alone before it: :class:`ToolServer` (04), :class:`ResourceServer`
(05), :class:`PromptServer` (06). Around them, one module per feature:
:mod:`~minimcp.server.tools` (with :mod:`~minimcp.server.content`, :mod:`~minimcp.server.schema`,
:mod:`~minimcp.server.handlers`), :mod:`~minimcp.server.resources` (with
:mod:`~minimcp.server.uri_templates` and :mod:`~minimcp.server.files`),
:mod:`~minimcp.server.prompts`, :mod:`~minimcp.server.pagination`, and the questions and messages a
server sends its client: :mod:`~minimcp.server.sampling`, :mod:`~minimcp.server.elicitation`,
:mod:`~minimcp.server.logs`, :mod:`~minimcp.server.completion`.
"""

from minimcp.lazy import lazy_exports

# Each name below is imported the first time it is used, not when the package is: see
# minimcp.lazy. That keeps an earlier lesson's modules from running a later lesson's.
_EXPORTS = {
    "PromptArgument": "minimcp.server.prompts",
    "RequestContext": "minimcp.session.context",
    "PromptServer": "minimcp.server.prompts",
    "ResourceServer": "minimcp.server.resource_server",
    "Server": "minimcp.server.complete",
    "ToolServer": "minimcp.server.server",
    "ServerCore": "minimcp.server.core",
    "ToolError": "minimcp.server.tools",
    "ToolResult": "minimcp.server.tools",
    "assistant": "minimcp.server.prompts",
    "audio_content": "minimcp.server.content",
    "embedded_resource": "minimcp.server.content",
    "image_content": "minimcp.server.content",
    "report_progress": "minimcp.server.tools",
    "resource_link": "minimcp.server.content",
    "text_content": "minimcp.server.content",
    "user": "minimcp.server.prompts",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
