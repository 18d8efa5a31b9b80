"""The conformance server's resources, prompts and completions, by the suite's names.

Resources and prompts are what a client, or its user, puts in the model's context; completion helps
the user fill a prompt's or a template's arguments. :mod:`minimcp.examples.conformance` adds them to
its tools.
"""

from __future__ import annotations

from typing import Annotated, Any

from minimcp.examples.conformance_data import PNG
from minimcp.server.complete import Server
from minimcp.server.completion import matching
from minimcp.server.content import embedded_resource, image_content
from minimcp.server.prompts import user


def add_resources(server: Server) -> None:
    @server.resource(
        "test://static-text",
        name="static-text",
        title="Static Text Resource",
        mime_type="text/plain",
    )
    def static_text() -> str:
        """A static text resource for testing"""
        return "This is the content of the static text resource."

    @server.resource(
        "test://static-binary",
        name="static-binary",
        title="Static Binary Resource",
        mime_type="image/png",
    )
    def static_binary() -> bytes:
        """A static binary resource (image) for testing"""
        return PNG  # bytes: read as a base64 "blob"

    @server.template(
        "test://template/{id}/data",
        name="template",
        title="Resource Template",
        mime_type="application/json",
    )
    def template_data(id: str) -> dict[str, Any]:
        """A resource template with parameter substitution"""
        return {"id": id, "templateTest": True, "data": f"Data for ID: {id}"}

    @server.resource(
        "test://watched-resource",
        name="watched-resource",
        title="Watched Resource",
        mime_type="text/plain",
    )
    def watched_resource() -> str:
        """A resource to subscribe to"""
        return "Watched resource content"


def add_prompts(server: Server) -> None:
    @server.prompt(title="Simple Test Prompt")
    def test_simple_prompt() -> str:
        """A simple prompt without arguments"""
        return "This is a simple prompt for testing."

    @server.prompt(title="Prompt With Arguments")
    def test_prompt_with_arguments(
        arg1: Annotated[str, "First test argument"], arg2: Annotated[str, "Second test argument"]
    ) -> str:
        """A prompt with required arguments"""
        return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"

    @server.prompt(title="Prompt With Embedded Resource")
    def test_prompt_with_embedded_resource(
        # resourceUri, not resource_uri: the suite's argument name
        resourceUri: Annotated[str, "URI of the resource to embed"],
    ) -> list[dict[str, Any]]:
        """A prompt that includes an embedded resource"""
        return [
            user(
                embedded_resource(
                    resourceUri,
                    text="Embedded resource content for testing.",
                    mime_type="text/plain",
                )
            ),
            user("Please process the embedded resource above."),
        ]

    @server.prompt(title="Prompt With Image")
    def test_prompt_with_image() -> list[dict[str, Any]]:
        """A prompt that includes image content"""
        return [user(image_content(PNG, "image/png")), user("Please analyze the image above.")]


def add_completions(server: Server) -> None:
    # completion-complete asks for test_prompt_with_arguments' arg1; a list is all it needs.
    @server.completion(prompt="test_prompt_with_arguments", argument="arg1")
    def suggest_arg1(value: str) -> list[str]:
        return matching(["paris", "park", "party"], value)

    @server.completion(template="test://template/{id}/data", argument="id")
    def suggest_id(value: str) -> list[str]:
        return matching(["123", "456", "789"], value)
