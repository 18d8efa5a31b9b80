"""The host's keyword router (lesson 05): which resources a user's message gets pasted before it.

The router plugs into lesson 04's host as a parameter, ``Host(router=KeywordRouter())``; the fake
servers and the host they connect to are lesson 04's (``test_host.py``).
"""

from __future__ import annotations

import json

from test_host import COURSES, calendar, courses, make_host, roles

from minimcp.host import KeywordRouter, Route


async def test_the_keyword_router_pastes_the_resource_before_the_question() -> None:
    catalogue = courses()
    host = await make_host(calendar(), catalogue, router=KeywordRouter())
    async with host:
        answer = await host.ask("Which courses are there?")
    assert catalogue.reads == ["courses://all"]
    context, question = host.messages[0], host.messages[1]
    assert (context.role, context.resource) == ("user", "courses://all")
    header = "Context from the resource courses://all (application/json):"
    assert context.content == f"{header}\n{json.dumps(COURSES)}"
    assert (question.role, question.content) == ("user", "Which courses are there?")
    assert answer == "From courses://all: Views (v1ws), Cache (c4ch)."


async def test_the_router_speaks_spanish_and_does_not_paste_twice() -> None:
    catalogue = courses()
    host = await make_host(catalogue, router=KeywordRouter())
    async with host:
        await host.ask("¿Qué cursos hay?")
        await host.ask("¿Y qué cursos de caché?")
        await host.ask("What is on 2025-03-21?")  # no keyword: nothing read
    assert catalogue.reads == ["courses://all"]
    assert [m.resource for m in host.messages].count("courses://all") == 1


async def test_a_route_to_a_resource_no_server_has_is_skipped() -> None:
    host = await make_host(calendar(), router=KeywordRouter([Route(("course",), "courses://all")]))
    async with host:
        await host.ask("Which courses?")
    assert roles(host.messages) == ["user", "assistant"]
