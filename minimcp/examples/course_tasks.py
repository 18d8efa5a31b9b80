"""The course server's long analysis, as a task when the client can take one (lesson 13).

Lesson 04's ``run_analysis(steps)`` is the course server's slow tool: it reports its progress after
every step, and its caller waits for the result on an open request (lesson 08 streams that
progress over HTTP). With the tasks extension, a client that lists the extension gets a handle
instead, once the analysis outlasts the server's grace: the work goes on without the request, each
progress notice becomes the task's status message ("Step 3 of 20"), and the client polls for the
result. A client without the extension is answered as before. Nothing in the tool changes: lesson
13's :func:`~minimcp.server.tasks.serve_tasks` lets it run as a task, by its name.

``python -m minimcp serve`` plugs it in (:mod:`minimcp.examples.serving`), unless
``--legacy-only`` keeps the server as lessons 03 to 11 serve it::

    async with tasks_http_client(url) as client:
        await client.call_tool("run_analysis", {"steps": 20}, progress=show)   # polls for it
"""

from __future__ import annotations

from minimcp.server.server import ToolServer
from minimcp.server.tasks import OPTIONAL, Tasks, serve_tasks

#: The course server's tools that may run as tasks.
LONG_TOOLS = ("run_analysis",)


# --8<-- [start:add_course_tasks]
def add_course_tasks(server: ToolServer) -> Tasks:
    """Let the course server's long tools run as tasks, for the clients that can take one."""
    tasks = serve_tasks(server)
    for name in LONG_TOOLS:
        tasks.allow(name, OPTIONAL)  # a task only when the call outlasts the grace
    return tasks


# --8<-- [end:add_course_tasks]
