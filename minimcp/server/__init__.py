"""Layer 4, the server's features (lessons 03–06, and "the client talks back").

:class:`Server` is the one object every transport serves. Around it, one module per feature:
:mod:`~minimcp.server.tools` (with :mod:`~minimcp.server.content`, :mod:`~minimcp.server.schema`,
:mod:`~minimcp.server.handlers`), :mod:`~minimcp.server.resources` (with
:mod:`~minimcp.server.uri_templates` and :mod:`~minimcp.server.files`), :mod:`~minimcp.server.prompts`,
:mod:`~minimcp.server.pagination`, and the questions and messages a server sends its client:
:mod:`~minimcp.server.sampling`, :mod:`~minimcp.server.elicitation`, :mod:`~minimcp.server.logs`,
:mod:`~minimcp.server.completion`.
"""

from minimcp.server.content import (
    audio_content,
    embedded_resource,
    image_content,
    resource_link,
    text_content,
)
from minimcp.server.core import ServerCore
from minimcp.server.prompts import PromptArgument, assistant, user
from minimcp.server.server import Server
from minimcp.server.tools import ToolError, ToolResult, report_progress
from minimcp.session.server import RequestContext

__all__ = [
    "PromptArgument", "RequestContext", "Server", "ServerCore", "ToolError", "ToolResult", "assistant",
    "audio_content", "embedded_resource", "image_content", "report_progress", "resource_link", "text_content",
    "user",
]
