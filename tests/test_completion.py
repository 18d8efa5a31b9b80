"""Completion (minimcp.completion): the capability, completion/complete for prompts and
templates."""

from __future__ import annotations

from typing import Any

import pytest
from support import TIMEOUT, connected

from minimcp.client import Client
from minimcp.rpc import RpcError
from minimcp.rpc.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND
from minimcp.server import Server
from minimcp.server.completion import MAX_VALUES, completion_result, matching
from minimcp.session import RequestContext

LANGUAGES = ["python", "pytorch", "pyside", "rust", "ruby", "Prolog"]
FRAMEWORKS = {"python": ["flask", "fastapi", "django"], "rust": ["actix", "axum"]}


def review_server() -> Server:
    server = Server("review")

    @server.prompt()
    def code_review(code: str, language: str, framework: str = "") -> str:
        """Ask for a review."""
        return f"Review this {language} ({framework}) code:\n{code}"

    @server.completion(prompt="code_review", argument="language")
    def languages(value: str) -> list[str]:
        return matching(LANGUAGES, value)

    @server.completion(prompt="code_review", argument="framework")
    def frameworks(value: str, arguments: dict[str, str]) -> list[str]:
        # The language chosen already narrows the frameworks worth suggesting.
        return matching(FRAMEWORKS.get(arguments.get("language", ""), []), value)

    @server.template("numbers://{n}/square", name="square")
    def square(n: str) -> str:
        return str(int(n) ** 2)

    @server.completion(template="numbers://{n}/square", argument="n")
    async def numbers(value: str, context: RequestContext) -> list[str]:
        assert context.request.method == "completion/complete"
        return matching((str(i) for i in range(1000)), value)

    return server


async def complete(client: Client, params: dict[str, Any]) -> dict[str, Any]:
    return await client.request("completion/complete", params, TIMEOUT)


async def still_answers(client: Client) -> None:
    await client.ping(TIMEOUT)
    assert (await client.complete("language", "ru", prompt="code_review", timeout=TIMEOUT))[
        "values"
    ] == ["rust", "ruby"]


# -- the capability --------------------------------------------------------------------------------
async def test_the_capability_comes_with_the_first_completion() -> None:
    server = Server("plain")

    @server.prompt()
    def hello(name: str) -> str:
        return f"Hello {name}"

    async with connected(server) as client:
        assert "completions" not in client.server_capabilities
        with pytest.raises(RpcError) as caught:
            await client.complete("name", "a", prompt="hello", timeout=TIMEOUT)
        assert (caught.value.code, caught.value.message) == (
            METHOD_NOT_FOUND,
            "Method not found: completion/complete",
        )
    server.completion(prompt="hello", argument="name")(lambda value: ["Ada"])
    async with connected(server) as client:
        assert client.server_capabilities["completions"] == {}


# -- answers ---------------------------------------------------------------------------------------
async def test_prompt_arguments_complete_from_what_was_typed() -> None:
    async with connected(review_server()) as client:
        answer = await complete(
            client,
            {
                "ref": {"type": "ref/prompt", "name": "code_review"},
                "argument": {"name": "language", "value": "py"},
            },
        )
        assert answer == {
            "completion": {"values": ["python", "pytorch", "pyside"], "total": 3, "hasMore": False}
        }
        # matching() ignores case, and an empty value matches everything
        assert (await client.complete("language", "pR", prompt="code_review"))["values"] == [
            "Prolog"
        ]
        assert (await client.complete("language", "", prompt="code_review"))["total"] == len(
            LANGUAGES
        )
        assert await client.complete("language", "zig", prompt="code_review") == {
            "values": [],
            "total": 0,
            "hasMore": False,
        }


async def test_the_other_arguments_reach_a_completer_that_asks_for_them() -> None:
    async with connected(review_server()) as client:
        answer = await complete(
            client,
            {
                "ref": {"type": "ref/prompt", "name": "code_review"},
                "argument": {"name": "framework", "value": "f"},
                "context": {"arguments": {"language": "python"}},
            },
        )
        assert answer["completion"]["values"] == ["flask", "fastapi"]
        assert (
            await client.complete(
                "framework", "a", prompt="code_review", arguments={"language": "rust"}
            )
        )["values"] == ["actix", "axum"]
        assert (await client.complete("framework", "", prompt="code_review"))["values"] == []


async def test_template_variables_complete_and_at_most_100_values_come_back() -> None:
    async with connected(review_server()) as client:
        answer = await complete(
            client,
            {
                "ref": {"type": "ref/resource", "uri": "numbers://{n}/square"},
                "argument": {"name": "n", "value": "7"},
            },
        )
        completion = answer["completion"]
        assert completion["values"][:3] == ["7", "70", "71"]
        assert len(completion["values"]) == MAX_VALUES
        assert (completion["total"], completion["hasMore"]) == (111, True)
        assert await client.complete("n", "99", template="numbers://{n}/square") == {
            "values": ["99", "990", "991", "992", "993", "994", "995", "996", "997", "998", "999"],
            "total": 11,
            "hasMore": False,
        }


async def test_an_argument_nobody_completes_gets_no_values() -> None:
    async with connected(review_server()) as client:
        assert await client.complete("code", "print", prompt="code_review") == {
            "values": [],
            "total": 0,
            "hasMore": False,
        }


def test_completion_result_needs_strings() -> None:
    assert completion_result(iter(["a", "b"])) == {
        "completion": {"values": ["a", "b"], "total": 2, "hasMore": False}
    }
    with pytest.raises(TypeError):
        completion_result(["a", 1])  # type: ignore[list-item]


# -- errors ----------------------------------------------------------------------------------------
PROMPT = {"type": "ref/prompt", "name": "code_review"}
LANGUAGE = {"name": "language", "value": "py"}


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"argument": LANGUAGE}, 'completion/complete needs "ref" (an object)'),
        (
            {"ref": "code_review", "argument": LANGUAGE},
            'completion/complete needs "ref" (an object)',
        ),
        (
            {"ref": {"type": "ref/tool", "name": "x"}, "argument": LANGUAGE},
            'Unknown ref type \'ref/tool\': use "ref/prompt" or "ref/resource"',
        ),
        (
            {"ref": {"type": "ref/prompt"}, "argument": LANGUAGE},
            'a "ref/prompt" needs "name" (a string)',
        ),
        (
            {"ref": {"type": "ref/resource", "name": "x"}, "argument": LANGUAGE},
            'a "ref/resource" needs "uri" (a string)',
        ),
        (
            {"ref": PROMPT},
            'completion/complete needs "argument" with a "name" and a "value" (strings)',
        ),
        (
            {"ref": PROMPT, "argument": {"name": "language"}},
            'completion/complete needs "argument" with a "name" and a "value" (strings)',
        ),
        (
            {"ref": PROMPT, "argument": {"name": "language", "value": 3}},
            'completion/complete needs "argument" with a "name" and a "value" (strings)',
        ),
        (
            {"ref": PROMPT, "argument": LANGUAGE, "context": {"arguments": {"framework": 1}}},
            '"context.arguments" must be an object of strings',
        ),
        (
            {"ref": PROMPT, "argument": LANGUAGE, "context": ["python"]},
            '"context.arguments" must be an object of strings',
        ),
        (
            {"ref": {"type": "ref/prompt", "name": "nope"}, "argument": LANGUAGE},
            "Unknown prompt: nope",
        ),
        (
            {
                "ref": {"type": "ref/resource", "uri": "numbers://{m}/square"},
                "argument": {"name": "m", "value": ""},
            },
            "Unknown resource template: numbers://{m}/square",
        ),
        (
            {
                "ref": {"type": "ref/resource", "uri": "numbers://7/square"},
                "argument": {"name": "n", "value": ""},
            },
            "Unknown resource template: numbers://7/square",
        ),  # a URI made from the template is not the template
        (
            {"ref": PROMPT, "argument": {"name": "lang", "value": "py"}},
            "code_review has no argument named 'lang'",
        ),
        (
            {
                "ref": {"type": "ref/resource", "uri": "numbers://{n}/square"},
                "argument": {"name": "m", "value": ""},
            },
            "numbers://{n}/square has no argument named 'm'",
        ),
    ],
)
async def test_a_wrong_request_is_invalid_params_and_the_session_goes_on(
    params: dict[str, Any], message: str
) -> None:
    async with connected(review_server()) as client:
        with pytest.raises(RpcError) as caught:
            await complete(client, params)
        assert (caught.value.code, caught.value.message) == (INVALID_PARAMS, message)
        await still_answers(client)


async def test_a_completer_that_fails_is_an_internal_error() -> None:
    server = review_server()

    @server.completion(prompt="code_review", argument="code")
    def broken(value: str) -> list[str]:
        raise KeyError("oops")

    async with connected(server) as client:
        with pytest.raises(RpcError) as caught:
            await client.complete("code", "x", prompt="code_review", timeout=TIMEOUT)
        assert caught.value.code == INTERNAL_ERROR
        assert caught.value.message == "Internal error while handling 'completion/complete'"
        await still_answers(client)


def test_registering_a_completion_for_nothing_is_a_mistake_said_at_once() -> None:
    server = review_server()
    with pytest.raises(ValueError, match="no prompt 'nope' is registered: register it before"):
        server.completion(prompt="nope", argument="x")(lambda value: [])
    with pytest.raises(ValueError, match="no resource template 'numbers://{m}' is registered"):
        server.completion(template="numbers://{m}", argument="m")(lambda value: [])
    with pytest.raises(
        ValueError,
        match=r"'code_review' has no argument 'lang' \(it has: code, language, "
        r"framework\)",
    ):
        server.completion(prompt="code_review", argument="lang")(lambda value: [])
    with pytest.raises(ValueError, match="name either prompt= or template="):
        server.completion(argument="x")(lambda value: [])
    with pytest.raises(ValueError, match="name either prompt= or template="):
        both = server.completion(
            prompt="code_review", template="numbers://{n}/square", argument="n"
        )
        both(lambda value: [])


async def test_the_client_helper_needs_one_ref() -> None:
    async with connected(review_server()) as client:
        with pytest.raises(ValueError, match="name either prompt= or template="):
            await client.complete("language", "py")
        await still_answers(client)
