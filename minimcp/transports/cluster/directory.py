"""The session directory: which worker runs each session, and what a takeover needs (lesson 11).

Three kinds of keys in Redis, every one with an expiry so that nothing outlives its use:

* ``mcp:session:<id>``, a hash: ``owner`` (the worker running the session), ``state`` (the session's
  saved state as JSON, :meth:`ServerSession.saved_state
  <minimcp.session.server.ServerSession.saved_state>`) and ``announcements`` (the id of its GET
  stream);
* ``mcp:session:<id>:streams``, a hash: every SSE stream of the session, with the id of the request
  it answers (``null`` for the GET stream). It says which streams a ``Last-Event-ID`` may resume, on
  any worker, and which requests were still running when their worker died;
* a Pub/Sub channel per worker, ``mcp:worker:<id>``: what other workers forward to it. A worker is
  *alive* while it listens on its channel: Redis drops a dead process's connection at once, so
  ``PUBSUB NUMSUB`` (and the count ``PUBLISH`` returns) tells, with no heartbeat to wait for.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from minimcp.rpc.jsonrpc import RequestId
from minimcp.transports.cluster.redis_store import RedisEventStore

# Take a session over only if its owner is still the one we saw die: two workers may try at once.
CLAIM = """
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then
    redis.call('HSET', KEYS[1], 'owner', ARGV[2])
    return 1
end
return 0
"""


@dataclass
class SessionRecord:
    """What the directory knows of one session."""

    id: str
    owner: str
    state: dict[str, Any]
    announcements: str
    # Stream id → the request it answers (None: the GET stream)
    streams: dict[str, RequestId | None]


def channel(worker: str) -> str:
    return f"mcp:worker:{worker}"


# --8<-- [start:directory]
class SessionDirectory:
    """Sessions and workers, as every worker sees them in Redis."""

    def __init__(self, store: RedisEventStore, worker: str, ttl: float) -> None:
        # Its Redis client, and its way of turning Redis errors into StoreUnavailable
        self.store = store
        self.redis = store.redis
        self.worker = worker  # this worker's id
        self.ttl = int(ttl)  # seconds a session is kept after its owner last refreshed it

    async def save(self, session_id: str, state: dict[str, Any], announcements: str) -> None:
        """This worker runs ``session_id``, whose state is now ``state``."""
        key = f"mcp:session:{session_id}"
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(
                key,
                mapping={
                    "owner": self.worker,
                    "state": json.dumps(state),
                    "announcements": announcements,
                },
            )
            pipe.hset(key + ":streams", announcements, "null")
            pipe.expire(key, self.ttl)
            pipe.expire(key + ":streams", self.ttl)
            await self.store.guarded(pipe.execute())

    async def add_stream(
        self, session_id: str, stream_id: str, request_id: RequestId | None
    ) -> None:
        key = f"mcp:session:{session_id}:streams"
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, stream_id, json.dumps(request_id))
            pipe.expire(key, self.ttl)
            await self.store.guarded(pipe.execute())

    async def find(self, session_id: str) -> SessionRecord | None:
        """The session's record, or None: unknown, ended, expired, or its handshake unanswered."""
        key = f"mcp:session:{session_id}"
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hgetall(key)
            pipe.hgetall(key + ":streams")
            found: Any = await self.store.guarded(pipe.execute())
        record, streams = found
        if not record.get("owner"):
            return None
        return SessionRecord(
            session_id,
            record["owner"],
            json.loads(record["state"]),
            record["announcements"],
            {stream: json.loads(request) for stream, request in streams.items()},
        )

    async def claim(self, record: SessionRecord) -> bool:
        """Take over a session whose owner died; False if another worker did first."""
        taken = await self.store.guarded(
            self.redis.eval(CLAIM, 1, f"mcp:session:{record.id}", record.owner, self.worker)
        )
        return bool(taken)

    async def alive(self, worker: str) -> bool:
        counts: Any = await self.store.guarded(self.redis.pubsub_numsub(channel(worker)))
        return bool(counts and counts[0][1])

    async def tell(self, worker: str, message: dict[str, Any]) -> bool:
        """Forward ``message`` to ``worker``; False if nobody listens there (the worker is dead)."""
        listeners = await self.store.guarded(
            self.redis.publish(channel(worker), json.dumps(message))
        )
        return bool(listeners)

    async def refresh(self, session_ids: list[str]) -> list[str]:
        """Push back the expiry of the sessions this worker runs (its reaper calls it); the ones
        Redis no longer knows (it restarted empty), for the worker to save again."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for session_id in session_ids:
                pipe.expire(f"mcp:session:{session_id}", self.ttl)
                pipe.expire(f"mcp:session:{session_id}:streams", self.ttl)
            pushed: Any = await self.store.guarded(pipe.execute())
        kept = pushed[::2]  # the session's own key, of its two
        return [
            session_id for session_id, there in zip(session_ids, kept, strict=True) if not there
        ]

    async def drop(self, session_id: str) -> None:
        """The session ended: forget it, and every stream it had, on whichever worker it began."""
        key = f"mcp:session:{session_id}"
        streams: Any = await self.store.guarded(self.redis.hkeys(key + ":streams"))
        await self.store.forget_all(list(streams))
        await self.store.guarded(self.redis.delete(key, key + ":streams"))


# --8<-- [end:directory]
