"""Lesson 11 exercise: two pieces of a server that runs on several workers, written by hand.

1. **Take over a dead worker's session, and only once.** A worker died; its sessions live on in
   Redis, with their saved state. The next request for one of them may reach any worker, and two
   workers may see the death at the same moment: exactly one of them must win the session. Write
   the claim (one atomic step in Redis: "if the owner is still the worker I saw die, the owner is
   now me") and the take-over around it. The tests run it against a real ``redis-server``.
2. **A session-to-worker router.** The other answer to "which worker runs this session?": pin each
   session to a worker by hashing its ``Mcp-Session-Id``, as a load balancer with affinity does.
   Write it with rendezvous hashing, so that a worker coming or going moves only the sessions it
   must.

Check your work with ``python tools/check.py 11``. Part 1 needs ``redis-server`` on your PATH (its
tests are skipped without it) and the ``redis`` package of requirements.txt, whose client the tests
hand you; part 2 needs only the standard library.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

# =================================================================================================
# Part 1 · Take over a dead worker's session, and only once
# =================================================================================================
#
# Each session is a Redis hash under "mcp:session:<session id>" (as in minimcp's directory), with
# the fields "owner" (the worker running it) and "state" (its saved state, as JSON). `redis` is a
# redis.asyncio client that decodes answers to str: `await redis.hgetall(key)`,
# `await redis.eval(script, number_of_keys, *keys_then_args)`, `await redis.expire(key, seconds)`.
#
#   * claim(redis, session_id, dead, worker) -> bool
#       In ONE atomic step: if the session's owner is `dead`, it becomes `worker` (True); otherwise
#       nothing changes (False): another worker was quicker, or the session is unknown. A read
#       followed by a write is two steps, and two workers can both read `dead` in between: use a
#       Lua script (EVAL runs it with nothing else in between), or WATCH/MULTI/EXEC.
#       An unknown session stays unknown: the claim must not create its key.
#
#   * take_over(redis, session_id, worker, alive, ttl=600) -> the session's state, or None
#       - the session is unknown (no "owner") ............................... None
#       - `worker` already owns it ........................................... its state
#       - `await alive(owner)` says its owner still runs .................... None (forward to it)
#       - the owner is dead: claim it; lost ................................. None
#                                      won ................................. its state, after
#                                       pushing back the key's expiry to `ttl` seconds (EXPIRE)


async def claim(redis: Any, session_id: str, dead: str, worker: str) -> bool:
    """Make ``worker`` the owner of ``session_id`` if, and only if, its owner is still ``dead``."""
    # BEGIN SOLUTION: one Lua script: compare the owner and set it, with nothing in between
    script = """
    if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then
        redis.call('HSET', KEYS[1], 'owner', ARGV[2])
        return 1
    end
    return 0
    """
    won = await redis.eval(script, 1, f"mcp:session:{session_id}", dead, worker)
    return bool(won)
    # END SOLUTION


async def take_over(
    redis: Any,
    session_id: str,
    worker: str,
    alive: Callable[[str], Awaitable[bool]],
    ttl: int = 600,
) -> dict[str, Any] | None:
    """The saved state of ``session_id`` if ``worker`` runs it from now on; None if another does."""
    # BEGIN SOLUTION: read the record; ours, alive, or claimed; the winner refreshes the expiry
    key = f"mcp:session:{session_id}"
    record = await redis.hgetall(key)
    owner = record.get("owner")
    if not owner:
        return None
    if owner != worker:
        if await alive(owner) or not await claim(redis, session_id, owner, worker):
            return None
        await redis.expire(key, ttl)
    state: dict[str, Any] = json.loads(record["state"])
    return state
    # END SOLUTION


# =================================================================================================
# Part 2 · A session-to-worker router (rendezvous hashing)
# =================================================================================================
#
# A load balancer with affinity sends every request of a session to the same worker, from the
# Mcp-Session-Id alone. "hash(session) % number of workers" does that, but when a worker is added or
# removed, almost every session moves (and loses its state). Rendezvous hashing moves only what
# it must:
#
#   * score(worker, session_id): the first 8 bytes of SHA-256 of "<worker>/<session id>" (UTF-8), as
#     a big-endian unsigned integer
#   * route(session_id, workers): the worker with the highest score; on a tie, the greatest name.
#     No workers at all: ValueError("no workers")
#   * moves(session_ids, before, after): {session id: (old worker, new worker)} for every session
#     that route() sends to another worker once the workers change from `before` to `after`
#
# So a new worker takes only the sessions it now wins (about 1/N of them); a removed worker's
# sessions spread over the others, and nobody else's move.


def score(worker: str, session_id: str) -> int:
    """How much ``worker`` wants ``session_id``: a number that looks random but never changes."""
    # BEGIN SOLUTION: sha256 of "worker/session", its first 8 bytes, big-endian
    digest = hashlib.sha256(f"{worker}/{session_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big")
    # END SOLUTION


def route(session_id: str, workers: list[str]) -> str:
    """The worker that runs ``session_id``: the one with the highest score."""
    # BEGIN SOLUTION: refuse an empty list; max by (score, name)
    if not workers:
        raise ValueError("no workers")
    return max(workers, key=lambda worker: (score(worker, session_id), worker))
    # END SOLUTION


def moves(
    session_ids: list[str], before: list[str], after: list[str]
) -> dict[str, tuple[str, str]]:
    """The sessions that change worker when the workers change, with their old and new worker."""
    # BEGIN SOLUTION: route each session both ways; keep those that differ
    moved = {}
    for session_id in session_ids:
        old, new = route(session_id, before), route(session_id, after)
        if old != new:
            moved[session_id] = (old, new)
    return moved
    # END SOLUTION
