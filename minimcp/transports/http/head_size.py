"""A bound on the size of every HTTP request's head: 431 past it (lesson 08).

uvicorn reads a request's head (its request line and headers) whole before the application sees
it, and with httptools, the parser this course serves with, it sets no bound on its size: a client
may send a header of a megabyte, or of a gigabyte within the head's deadline, and the server keeps
every byte. (uvicorn's other parser, h11, stops at 16 KiB, ``h11_max_incomplete_event_size``, but
answers ``400``.) :class:`BoundedHead` adds the bound to the protocol that already keeps the
head's deadline: a head larger than :data:`MAX_HEAD_BYTES` gets ``431 Request Header Fields Too
Large`` (RFC 6585, section 5) and the connection is closed.

Two counts, both cheap. The exact one adds up, once the head is complete, the request line's
target and each header's name and value as the parser kept them (a sum over a handful of headers);
a head past the bound is answered by a small application in the endpoint's place (uvicorn answers
``503`` the same way). But the parser keeps a header until it ends, so a header that never ends
would never be counted: the other count adds up the reads that begin and end inside a head, and
once they pass the bound the server answers at once, having kept at most a read or two more.
"""

from __future__ import annotations

from minimcp.rpc.jsonrpc import INVALID_REQUEST, ErrorResponse, encode
from minimcp.transports.http.asgi import Receive, Refusal, Scope, Send, send_refusal
from minimcp.transports.http.head_deadline import HeaderDeadline

#: The most bytes a request's head may take: far more than a client needs (a bearer token takes a
#: few KiB), far less than a memory. Four times h11's default.
MAX_HEAD_BYTES = 64 * 1024
#: What a larger head gets, with status 431 (as lesson 08 answers a body too large with 413).
HEAD_TOO_LARGE = f"Request header fields larger than {MAX_HEAD_BYTES} bytes"


async def head_too_large(scope: Scope, receive: Receive, send: Send) -> None:
    """The application that answers a request whose head was too large, in the endpoint's place."""
    await send_refusal(send, Refusal(431, HEAD_TOO_LARGE, headers={"connection": "close"}))


# --8<-- [start:head_size]
class BoundedHead(HeaderDeadline):
    """uvicorn's HTTP/1.1 protocol with the head's deadline, and a bound on the head's size."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.head_read = 0  # the bytes of the reads that began and ended inside this head
        self.head_refused = False  # answered 431 before the head ended: the rest is dropped

    def on_headers_complete(self) -> None:
        self.head_read = 0
        # the head's target, names and values, as the parser kept them: once per request
        size = len(self.url) + sum(len(name) + len(value) for name, value in self.headers)
        if size <= MAX_HEAD_BYTES:
            super().on_headers_complete()
            return
        served, self.app = self.app, head_too_large  # this request only: answered 431
        try:
            super().on_headers_complete()
        finally:
            self.app = served

    def data_received(self, data: bytes) -> None:
        if self.head_refused:
            return  # the rest of a head already refused: read, and dropped
        began_in_head = self.head_since is not None
        super().data_received(data)
        if began_in_head and self.head_since is not None:  # the head goes on past this read
            self.head_read += len(data)
            if self.head_read > MAX_HEAD_BYTES and not self.transport.is_closing():
                self.refuse()

    def refuse(self) -> None:
        """Answer 431 and end our side, but read on: closing a connection with bytes unread resets
        it, and the client would lose the answer. What it still sends is dropped, until it closes
        its side or the head's deadline passes."""
        self.head_refused = True
        self.transport.write(answer_431())
        self.transport.write_eof()


# --8<-- [end:head_size]


def answer_431() -> bytes:
    """The whole HTTP answer to a head still coming past the bound (no application to send it)."""
    body = encode(ErrorResponse(None, INVALID_REQUEST, HEAD_TOO_LARGE)).encode()
    head = (
        "HTTP/1.1 431 Request Header Fields Too Large\r\n"
        "content-type: application/json\r\n"
        f"content-length: {len(body)}\r\n"
        "connection: close\r\n\r\n"
    )
    return head.encode("latin-1") + body
