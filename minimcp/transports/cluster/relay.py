"""What other workers forward to this one, read from its Redis Pub/Sub channel (lesson 11).

A worker that gets a request for a session it does not run **publishes** the request on the channel
of the worker that does (``mcp:worker:<id>``), and this worker hands it to the session as if it had
been POSTed here. Subscribing is also how a worker says "I am alive": Redis forgets the subscription
the moment the process dies. If Redis goes away, the relay tries again every second, and the worker
is reachable again as soon as it returns; then it has the worker save its sessions again, in case
Redis came back empty.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from redis.exceptions import RedisError

from minimcp.transports.cluster.directory import channel
from minimcp.transports.cluster.outage import report

log = logging.getLogger("minimcp.cluster")

#: Seconds after Redis came back during which a session nobody knows may still be on its way back:
#: every worker saves its sessions again within about a second of Redis' return.
BACK_GRACE = 5.0

Handler = Callable[[dict[str, Any]], Awaitable[None]]


# --8<-- [start:relay]
class Relay:
    """Listens on this worker's channel, hands each forwarded message to ``handle``, in order."""

    def __init__(
        self,
        redis: Any,
        worker: str,
        handle: Handler,
        on_back: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.redis = redis
        self.channel = channel(worker)
        self.handle = handle
        # Called when Redis is back after an outage (it may have come back empty)
        self.on_back = on_back
        self.back_at = -BACK_GRACE  # when Redis last came back (time.monotonic())
        self.listening = asyncio.Event()  # subscribed: other workers can reach us
        self._task: asyncio.Task[None] | None = None
        self.stopped = False

    async def start(self, timeout: float = 10.0) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())
        async with asyncio.timeout(timeout):
            await self.listening.wait()

    async def stop(self) -> None:
        self.stopped = True
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _run(self) -> None:
        lost = False
        while True:
            pubsub = self.redis.pubsub()
            try:
                await pubsub.subscribe(self.channel)
                if lost:
                    self.back_at = time.monotonic()
                    if self.on_back is not None:
                        await self.on_back()
                lost = False
                self.listening.set()
                while True:
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                    if message is not None:
                        await self._hand_over(message["data"])
            except (RedisError, OSError) as error:  # the shared store's errors included
                lost = True
                self.listening.clear()
                report(error)  # one quiet line while Redis is away, not one a second
                await asyncio.sleep(1)
            finally:
                await asyncio.shield(pubsub.aclose())

    def just_back(self) -> bool:
        """Whether Redis is away (as far as the relay knows) or came back less than ``BACK_GRACE``
        seconds ago: if it came back empty, other workers may not have saved their sessions in it
        again yet."""
        away = not self.listening.is_set()
        return away or time.monotonic() - self.back_at < BACK_GRACE

    async def _hand_over(self, data: str) -> None:
        try:
            await self.handle(json.loads(data))
        except Exception:  # one bad message must not stop the others
            log.exception("a forwarded message failed: %s", data[:200])


# --8<-- [end:relay]
