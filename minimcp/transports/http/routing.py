"""Streamable HTTP's decisions, as plain functions with no I/O (lesson 08).

Two questions decide where every byte of a session goes, and neither needs a socket to answer:

* **Which stream carries this message?** (:func:`stream_for`) An answer goes back on the POST that
  asked; a message sent *while answering* a request (progress, a log line, a question back to the
  client) goes on that request's stream too; anything else goes on the GET announcement channel.
* **JSON or SSE?** (:func:`answer_as`) A request answered before it said anything else gets one
  plain JSON body; one that speaks first (or is still running after a while) gets a stream.

Both rest on one more: **is this message the answer?** (:func:`is_final`): after it, nothing more
comes about its request. Messages reach this layer parsed, so that is a look at the message's type,
never a parse.

Kept apart from the I/O, in the manner of the h11 library, each rule is tested on its own.
"""

from __future__ import annotations

from collections.abc import Container
from typing import Literal

from minimcp.rpc.jsonrpc import ErrorResponse, Message, RequestId, Response

#: Where a message goes: the id of the POSTed request whose stream carries it, the GET channel,
#: or nowhere (an answer whose POST is gone: nobody can receive it).
ANNOUNCEMENTS = "announcements"
DROP = "drop"


def is_final(message: Message) -> bool:
    """Whether a message is a request's answer (a response or an error response): its last word."""
    return isinstance(message, (Response, ErrorResponse))


# --8<-- [start:route]
def stream_for(
    is_answer: bool, related_request_id: RequestId | None, waiting: Container[RequestId]
) -> RequestId | Literal["announcements", "drop"]:
    """Where one message from the server goes.

    ``is_answer``: it is a response (or an error response); ``related_request_id``: the request it
    belongs to, as the connection said; ``waiting``: the POSTed requests not answered yet.
    """
    if related_request_id is not None and related_request_id in waiting:
        return related_request_id
    return DROP if is_answer else ANNOUNCEMENTS


# --8<-- [end:route]


# --8<-- [start:answer_as]
#: What a POSTed request said first: its answer, another message, a request to close the connection
#: (``close_sse_stream``), its cancellation (no answer will come), the end of the session, or
#: nothing yet (None: the wait ran out).
First = Literal["answer", "message", "close", "cancelled", "ended"]


def answer_as(first: First | None) -> Literal["json", "sse", "gone"]:
    """How a POSTed request is answered, once the first thing it said arrived (or the wait ran out).

    Only an answer that came before anything else can travel as one plain JSON body. A request
    still running, or one that spoke first, gets an SSE stream (a cancelled one, a stream that ends
    with no answer). A session that ended meanwhile has nobody left to answer: the POST gets 404.
    """
    if first == "ended":
        return "gone"
    return "json" if first == "answer" else "sse"


# --8<-- [end:answer_as]
