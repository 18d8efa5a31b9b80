"""Lesson 09 exercise: a client that answers the server's questions, and only the ones it offered.

1. **Declare what you answer.** A client offers sampling, elicitation and roots by declaring them
   in ``initialize``. Write ``ClientAnswers.capabilities()``, which declares exactly what the
   client was given a way to answer, and nothing more.
2. **Answer, or refuse with the right code.** The server sends a request; the client answers it, or
   refuses with the error the spec names: ``-32601`` for what was never declared, ``-32602`` for a
   mode or a feature it did not declare, ``-1`` when the user said no. Write ``refusal()`` (which
   error, if any) and ``respond()`` (the whole JSON-RPC response).
3. **A question inside a tools/call.** The server asks *while* it answers: it calls the model, or
   asks the user, in the middle of running a tool. Write ``call_tool()``, which sends a
   ``tools/call`` and, until its answer arrives, answers every request the server sends.

This is the heart of ``minimcp/client/answers.py``, without its checks of each message's shape.
Check your work with ``python tools/check.py 09``. Only the standard library is needed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Protocol

#: The codes of this exercise (spec 2025-11-25: JSON-RPC's own, and sampling's example code).
METHOD_NOT_FOUND = -32601  # a request the client never declared (roots: "MUST" return this)
INVALID_PARAMS = -32602  # an elicitation mode, or sampling with tools, the client did not declare
USER_REJECTED = -1  # the user refused a sampling request

#: A handler receives the request's params and returns its result.
Handler = Callable[[dict[str, Any]], dict[str, Any]]


class Refused(Exception):
    """A sampling handler raises it when the user says no: the server gets error -1, and why."""


# =================================================================================================
# Part 1 · Declare what you answer (spec 2025-11-25, basic/lifecycle, "Capability Negotiation")
# =================================================================================================
#
# ClientAnswers(sampling=..., sampling_tools=..., elicitation=..., elicitation_modes=...,
# roots=...) holds a handler for each request the client accepts (None: not offered).
# capabilities() returns what `initialize` declares, with one key for each thing offered:
#
#   * sampling given ....................... "sampling": {}   ({"tools": {}} with sampling_tools)
#   * elicitation given .................... "elicitation": {"form": {}}, one key per mode in
#                                              elicitation_modes, e.g. {"form": {}, "url": {}}
#   * roots given (a list, even empty) ..... "roots": {}      (this client never changes them, so
#                                              it does not promise "listChanged")
#   * nothing given ........................ {}               (never a key with a null value)


class ClientAnswers:
    """The server's requests this client accepts, the capabilities that say so, and the answers."""

    def __init__(
        self,
        *,
        sampling: Handler | None = None,
        sampling_tools: bool = False,
        elicitation: Handler | None = None,
        elicitation_modes: Iterable[str] = ("form",),
        roots: Iterable[dict[str, Any]] | None = None,
    ) -> None:
        self.sampling = sampling
        self.sampling_tools = sampling_tools
        self.elicitation = elicitation
        self.elicitation_modes = tuple(elicitation_modes)
        self.roots = None if roots is None else list(roots)

    def capabilities(self) -> dict[str, Any]:
        """What ``initialize`` declares: exactly the requests this object answers."""
        # BEGIN SOLUTION: one key per handler given; sampling.tools and the modes inside them
        declared: dict[str, Any] = {}
        if self.sampling is not None:
            declared["sampling"] = {"tools": {}} if self.sampling_tools else {}
        if self.elicitation is not None:
            declared["elicitation"] = {mode: {} for mode in self.elicitation_modes}
        if self.roots is not None:
            declared["roots"] = {}
        return declared
        # END SOLUTION

    # =============================================================================================
    # Part 2 · Answer, or refuse with the right code (client/sampling, client/elicitation,
    #          client/roots, basic/utilities/ping)
    # =============================================================================================
    #
    # refusal(method, params) -> None when the client may answer, else (code, message):
    #
    #   * "ping" ........................................ None: always answered, with {}
    #   * a method whose handler was not given, or a method this client does not know at all
    #                                                     (METHOD_NOT_FOUND, "Method not found: m")
    #   * "sampling/createMessage" with "tools" or "toolChoice" in its params, and no
    #     sampling_tools ................................ (INVALID_PARAMS, any message)
    #   * "elicitation/create" whose "mode" (no mode means "form") is not in elicitation_modes
    #                                                     (INVALID_PARAMS, any message)
    #
    # respond(message) -> the JSON-RPC response to one request of the server's, a dict:
    #
    #   * refused ........ {"jsonrpc": "2.0", "id": <its id>, "error": {"code": c, "message": m}}
    #   * answered ....... {"jsonrpc": "2.0", "id": <its id>, "result": r}, where r is {} for
    #                      ping, {"roots": [...]} for roots/list, else the handler's return value
    #   * a sampling handler that raises Refused ....... error USER_REJECTED, with the exception's
    #                      text as the message ("User rejected sampling request" if it has none)

    def refusal(self, method: str, params: dict[str, Any]) -> tuple[int, str] | None:
        """Why the client may not answer ``method``, as ``(code, message)``; None if it may."""
        # BEGIN SOLUTION: ping first; then "was it declared?"; then what the declaration left out
        if method == "ping":
            return None
        offered = {
            "sampling/createMessage": self.sampling,
            "elicitation/create": self.elicitation,
            "roots/list": self.roots,
        }
        if offered.get(method) is None:
            return METHOD_NOT_FOUND, f"Method not found: {method}"
        if method == "sampling/createMessage" and not self.sampling_tools:
            if "tools" in params or "toolChoice" in params:
                return INVALID_PARAMS, "This client did not declare sampling.tools"
        if method == "elicitation/create":
            mode = params.get("mode", "form")
            if mode not in self.elicitation_modes:
                return INVALID_PARAMS, f"This client did not declare elicitation mode {mode!r}"
        return None
        # END SOLUTION

    def respond(self, message: dict[str, Any]) -> dict[str, Any]:
        """The JSON-RPC response to ``message``, a request the server sent: a result or an error."""
        # BEGIN SOLUTION: refuse first; then the answer for each method; Refused becomes error -1
        request_id, method = message["id"], message["method"]
        params: dict[str, Any] = message.get("params") or {}
        refused = self.refusal(method, params)
        if refused is not None:
            return error_response(request_id, *refused)
        result: dict[str, Any] = {}
        if method == "roots/list":
            result = {"roots": list(self.roots or [])}
        elif method == "sampling/createMessage" and self.sampling is not None:
            try:
                result = self.sampling(params)
            except Refused as refusal:
                text = str(refusal) or "User rejected sampling request"
                return error_response(request_id, USER_REJECTED, text)
        elif method == "elicitation/create" and self.elicitation is not None:
            result = self.elicitation(params)
        return {"jsonrpc": "2.0", "id": request_id, "result": result}
        # END SOLUTION


def error_response(request_id: Any, code: int, message: str) -> dict[str, Any]:
    """A JSON-RPC error response (given: it is lesson 01's)."""
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


# =================================================================================================
# Part 3 · A question inside a tools/call (spec 2025-11-25, client/sampling and client/elicitation:
#          the server asks "in the middle of" a tool call)
# =================================================================================================
#
# call_tool(wire, answers, request_id, name, arguments) sends
#     {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
#      "params": {"name": name, "arguments": arguments}}
# and then reads the wire, one message at a time, until the answer to *that* id arrives:
#
#   * a request from the server (it has "method" and "id") ..... send answers.respond(it) at once:
#                                                                 the tool waits for it
#   * a notification (a "method", no "id") ..................... ignore it
#   * a response to another id ................................. ignore it
#   * the response to request_id: its "result" ................. return it
#                                 its "error" .................. raise ToolCallFailed(code, message)


class Wire(Protocol):
    """One connection to the server, message by message (lesson 01's, as dicts)."""

    def send(self, message: dict[str, Any]) -> Awaitable[None]: ...

    def receive(self) -> Awaitable[dict[str, Any]]: ...


class ToolCallFailed(Exception):
    """The server answered the tools/call with an error."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


async def call_tool(
    wire: Wire, answers: ClientAnswers, request_id: Any, name: str, arguments: dict[str, Any]
) -> dict[str, Any]:
    """Call a tool, answering the server's requests until the tool's own answer arrives."""
    # BEGIN SOLUTION: send the call; then loop: answer requests, skip the rest, stop at our id
    params = {"name": name, "arguments": arguments}
    await wire.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})
    while True:
        message = await wire.receive()
        if "method" in message:
            if "id" in message:  # the server asks while it answers: it waits for us
                await wire.send(answers.respond(message))
            continue  # a notification: nothing to answer
        if message.get("id") != request_id:
            continue  # an answer to something else
        if "error" in message:
            failure = message["error"]
            raise ToolCallFailed(failure["code"], failure["message"])
        result: dict[str, Any] = message["result"]
        return result
    # END SOLUTION
