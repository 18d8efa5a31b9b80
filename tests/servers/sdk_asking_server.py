"""An official-SDK server whose tools ask the client: the oracle for minimcp's client answers
(lesson 09).

Tools that sample, elicit a form (with defaults) and a URL (then say it is complete), list the
client's roots, and one that waits until it is cancelled and writes down that it was. Run as
``python -m tests.servers.sdk_asking_server`` (stdio) or ``... --http PORT`` (Streamable HTTP;
prints ``ready`` on stderr once it listens) from the repository root. minimcp itself never imports
``mcp``.
"""

import asyncio
import sys
from pathlib import Path

import uvicorn
from mcp import types
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

server = MCPServer(
    "sdk-asking", instructions="The official SDK's server that asks back, for interop tests."
)


class GitHubUser(BaseModel):
    github_user: str
    public: bool = True


@server.tool()
async def ask_model(question: str, ctx: Context) -> str:
    """Ask the client's model."""
    message = types.SamplingMessage(
        role="user", content=types.TextContent(type="text", text=question)
    )
    result = await ctx.session.create_message([message], max_tokens=50, system_prompt="Be brief.")
    text = (
        result.content.text
        if isinstance(result.content, types.TextContent)
        else repr(result.content)
    )
    return f"{result.model}: {text}"


@server.tool()
async def ask_github(ctx: Context) -> str:
    """Ask the user for their GitHub user (a form, with one field defaulted)."""
    answer = await ctx.elicit("What is your GitHub user?", GitHubUser)
    if answer.action != "accept":
        return f"no: {answer.action}"
    return f"{answer.data.github_user} public={answer.data.public}"


@server.tool()
async def connect(ctx: Context) -> str:
    """Ask the user to open a URL, then say the interaction is complete."""
    answer = await ctx.elicit_url(
        "Sign in to connect", "https://calendar.example.com/connect?e=e-1", "e-1"
    )
    if answer.action != "accept":
        return f"no: {answer.action}"
    await ctx.session.send_elicit_complete("e-1")
    return "connected"


@server.tool()
async def where(ctx: Context) -> str:
    """The client's roots."""
    roots = await ctx.session.list_roots()
    return " ".join(str(root.uri) for root in roots.roots)


@server.tool()
async def wait_for_cancel(record: str) -> str:
    """Wait until cancelled; write "cancelled" to the file ``record`` when it happens."""
    try:
        await asyncio.sleep(30)
    except asyncio.CancelledError:
        Path(record).write_text("cancelled")
        raise
    return "finished"


async def main(port: int) -> None:
    app = server.streamable_http_app()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    uvicorn_server = uvicorn.Server(config)
    serving = asyncio.ensure_future(uvicorn_server.serve())
    while not uvicorn_server.started:
        await asyncio.sleep(0.02)
    print("ready", file=sys.stderr, flush=True)
    await serving


if __name__ == "__main__":
    if sys.argv[1:2] == ["--http"]:
        asyncio.run(main(int(sys.argv[2])))
    else:
        server.run("stdio")
