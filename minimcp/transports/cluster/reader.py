"""One blocking read per worker, shared by every stream it follows (lesson 11).

A connection that follows a stream waits for the stream's next entries with ``XREAD BLOCK``, and a
blocking read holds its Redis connection for the whole wait. One read per followed stream would take
one connection each: a worker with a hundred open streams would empty its connection pool, and the
next stream, or the next request, would fail. So each worker runs **one** reader: a single
``XREAD BLOCK`` over every stream followed on the worker (Redis takes many keys in one read), on
a connection of its own, which hands each stream's new entries to the queue of each connection
following it (:class:`Following`). A worker then follows as many streams as lesson 08's single
process, on two connections to Redis at most (the read, and the one that wakes it).

A connection that starts following while the read waits must not wait for it to time out: it wakes
the read by appending to the worker's own **wake stream**, which every read also watches. Redis
answers a read at once if the wake stream has an entry the reader has not seen, so no wake-up is
ever lost, however the two race.

If Redis goes away, every follower hears it (:class:`~minimcp.transports.cluster.redis_store.
StoreUnavailable`) and closes its connection: its client resumes the stream when Redis is back.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from minimcp.transports.cluster.outage import StoreUnavailable, report

PREFIX = "mcp:events:"

#: One entry of a stream, as Redis gives it: its id (``0-k``) and its fields.
Entry = tuple[str, dict[str, str]]


class Following:
    """One connection's place in one stream: the stream's entries after ``after``, as they come."""

    def __init__(self, reader: SharedReader, stream_id: str, after: str) -> None:
        self.reader = reader
        self.stream_id = stream_id
        self.after = after  # the last entry handed over (``0-0``: none yet)
        self.queue: asyncio.Queue[list[Entry] | StoreUnavailable] = asyncio.Queue()

    async def next(self, timeout: float) -> list[Entry]:
        """The next entries; none after ``timeout`` seconds of silence; StoreUnavailable if Redis
        went away."""
        try:
            async with asyncio.timeout(timeout):
                news = await self.queue.get()
        except TimeoutError:
            return []
        if isinstance(news, StoreUnavailable):
            raise news
        return news

    def stop(self) -> None:
        """This connection is over: the reader stops reading the stream for it."""
        self.reader.unfollow(self)


# --8<-- [start:reader]
class SharedReader:
    """The one ``XREAD BLOCK`` of a worker, over every stream its connections follow."""

    def __init__(self, client: Any, block_ms: int = 2000) -> None:
        pool = client.connection_pool
        # A connection of its own: the read blocks it, and nothing else may wait behind the read
        own = aioredis.ConnectionPool(
            connection_class=pool.connection_class, max_connections=1, **pool.connection_kwargs
        )
        self.redis = aioredis.Redis.from_pool(own)
        self.waker = client  # pooled: a short XADD to the wake stream
        self.block_ms = block_ms
        self.wake_key = f"mcp:wake:{secrets.token_hex(8)}"
        self.woken = "0-0"  # the last wake-up the reader saw
        self.followers: dict[str, set[Following]] = {}
        self._task: asyncio.Task[None] | None = None
        self._waking: set[asyncio.Task[None]] = set()

    def follow(self, stream_id: str, after: str) -> Following:
        """Start handing ``stream_id``'s entries after ``after`` to a new :class:`Following`."""
        following = Following(self, stream_id, after)
        self.followers.setdefault(stream_id, set()).add(following)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())
        else:  # the read waiting now does not know this stream: wake it
            waking = asyncio.get_running_loop().create_task(self._wake())
            self._waking.add(waking)  # kept until done: a task nobody holds may vanish
            waking.add_done_callback(self._waking.discard)
        return following

    def unfollow(self, following: Following) -> None:
        followers = self.followers.get(following.stream_id, set())
        followers.discard(following)
        if not followers:
            self.followers.pop(following.stream_id, None)

    async def _wake(self) -> None:
        try:
            async with self.waker.pipeline(transaction=False) as pipe:
                pipe.xadd(self.wake_key, {"wake": "1"}, maxlen=16, approximate=True)
                pipe.expire(self.wake_key, 60)
                await pipe.execute()
        except RedisError as error:  # the read fails too, and tells every follower
            report(error)

    async def _run(self) -> None:
        """Read every followed stream at once, hand out what came, and again, while any is."""
        while self.followers:
            # From the earliest place any of its followers is at; each takes what is new to it
            places: dict[Any, Any] = {
                PREFIX + stream: min((f.after for f in followers), key=entry_order)
                for stream, followers in self.followers.items()
            }
            try:
                found: Any = await self.redis.xread(
                    {self.wake_key: self.woken, **places}, block=self.block_ms
                )
            except (RedisError, OSError) as error:
                report(error)
                self._fail_all()
                return
            for key, entries in found or []:
                if key == self.wake_key:
                    self.woken = entries[-1][0]
                else:
                    self._hand_out(key.removeprefix(PREFIX), entries)

    # --8<-- [end:reader]

    def _hand_out(self, stream_id: str, entries: list[Entry]) -> None:
        for following in self.followers.get(stream_id, set()):
            new = [
                entry for entry in entries if entry_order(entry[0]) > entry_order(following.after)
            ]
            if new:
                following.after = new[-1][0]
                following.queue.put_nowait(new)

    def _fail_all(self) -> None:
        """Redis is away: every follower hears it, and stops following (their clients resume)."""
        gone = StoreUnavailable()
        for followers in self.followers.values():
            for following in followers:
                following.queue.put_nowait(gone)
        self.followers.clear()

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        await self.redis.aclose()


def entry_order(entry_id: str) -> tuple[int, int]:
    """A Redis Stream entry id ``<ms>-<seq>`` as something to compare."""
    milliseconds, _, sequence = entry_id.partition("-")
    return int(milliseconds), int(sequence or 0)
