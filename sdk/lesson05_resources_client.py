"""Lesson 05's client side, with the official Python SDK (``mcp==2.3.0``): list and read resources.

It starts the course server (``python -m minimcp serve``) as a child process, lists its resources
and templates, reads ``courses://all``, then fills in the template ``courses://{id}`` and reads
the course it names. Which resource to read is the application's choice, not the model's: here,
the script's.

    python sdk/lesson05_resources_client.py                    # the course server
    python sdk/lesson05_resources_client.py COMMAND [ARGS...]  # another server

``tests/test_sdk_lesson05.py`` runs it. This file is not part of ``minimcp``, which never imports
``mcp``.
"""

from __future__ import annotations

import json
import sys

import anyio
from mcp import Client, StdioServerParameters
from mcp_types import ReadResourceResult, TextResourceContents

COURSE_SERVER = [sys.executable, "-m", "minimcp", "serve"]


def text_of(result: ReadResourceResult) -> str:
    """The text of a resource read, its blobs left out."""
    return "".join(part.text for part in result.contents if isinstance(part, TextResourceContents))


async def read_resources(command: list[str]) -> None:
    """Start the server ``command``, list its resources and templates, read two of them."""
    server = StdioServerParameters(command=command[0], args=command[1:])
    # --8<-- [start:box]
    async with Client(server, mode="legacy") as client:
        for resource in (await client.list_resources()).resources:
            print(resource.uri, resource.mime_type)
        for template in (await client.list_resource_templates()).resource_templates:
            print(template.uri_template, template.mime_type)
        catalogue = json.loads(text_of(await client.read_resource("courses://all")))
        print(len(catalogue), "courses")
        uri = "courses://{id}".replace("{id}", "AI101")  # the client fills in the template
        print(json.loads(text_of(await client.read_resource(uri)))["name"])
    # --8<-- [end:box]


def main() -> None:
    """``python sdk/lesson05_resources_client.py [COMMAND...]``."""
    anyio.run(read_resources, sys.argv[1:] or COURSE_SERVER)


if __name__ == "__main__":
    main()
