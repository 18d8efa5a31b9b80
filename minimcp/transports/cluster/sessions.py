"""Lesson 08's sessions, with their state and their streams in Redis (lesson 11).

A session's cable keeps the session's state in the directory after every change (so that another
worker can take the session over), and its streams live in Redis (so that any worker can follow
them). The manager of a worker's sessions also takes over a session whose worker died, and hands
its sessions what other workers forward to them.
"""

from __future__ import annotations

import json
import time
from typing import Any

from minimcp.rpc import Servable
from minimcp.rpc.abilities import Abilities
from minimcp.rpc.aio import TaskKeeper
from minimcp.rpc.jsonrpc import INTERNAL_ERROR, ErrorResponse, Request, RpcError, encode, from_dict
from minimcp.transports.cluster.directory import SessionDirectory, SessionRecord
from minimcp.transports.cluster.outage import quietly
from minimcp.transports.cluster.redis_store import RedisEventStore
from minimcp.transports.cluster.streams import SharedStream
from minimcp.transports.http.session_transport import SessionTransport
from minimcp.transports.http.sessions import HttpSession, SessionManager
from minimcp.transports.http.streams import Stream

#: What a request running on a worker that died ends with (spec: basic, "Error handling": -32603).
WORKER_DIED = "The worker running this request stopped before it answered; send the request again"
#: What a forwarded request gets when its session is no longer there: lesson 08's 404.
GONE = "Session not found: it expired or was ended; initialize a new one"


# --8<-- [start:manager]
class SharedSessionTransport(SessionTransport):
    """Lesson 08's session cable, which also keeps the session's state in the directory."""

    def __init__(
        self, session: HttpSession, directory: SessionDirectory, state: dict[str, Any] | None
    ) -> None:
        super().__init__(session)
        self.directory = directory
        self.state = state

    @property
    def abilities(self) -> Abilities:
        """Lesson 08's, and it keeps the session's state for another worker to take over."""
        return Abilities(request_streams=self, hands_in=self, state_keeper=self)

    def restored_state(self) -> dict[str, Any] | None:
        return self.state

    async def keep_state(self, state: dict[str, Any]) -> None:
        session = self.http_session
        await self.directory.save(session.id, state, session.announcements.id)
        self.state = state  # saved again as is if Redis forgets it (restarted empty)


class SharedSessionManager(SessionManager):
    """Lesson 08's sessions, with their state and streams in Redis."""

    event_store: RedisEventStore

    def __init__(
        self, server: Servable, store: RedisEventStore, directory: SessionDirectory, **limits: Any
    ) -> None:
        super().__init__(server, store, **limits)
        self.directory = directory
        self.following = TaskKeeper()  # the connections that follow a stream here (SharedStream)

    def make_transport(
        self, session: HttpSession, state: dict[str, Any] | None = None
    ) -> SessionTransport:
        return SharedSessionTransport(session, self.directory, state)

    def make_stream(
        self, session: HttpSession, stream_id: str | None = None, request_id: Any = None
    ) -> Stream:
        async def still_ours() -> bool:
            return self.sessions.get(session.id) is session

        async def register(stream_id: str) -> None:
            await self.directory.add_stream(session.id, stream_id, request_id)

        return SharedStream(
            self.event_store, stream_id, still_ours, self.background, register, self.following
        )

    def forget(self, session: HttpSession) -> None:
        if self.sessions.get(session.id) is session and self.forgets_on_end:
            self.background.spawn(quietly(self.directory.drop(session.id)))
        super().forget(session)

    async def leave(self) -> None:
        """This worker stops (a restart, a deploy): its sessions stay in Redis, for others to take
        over. The connections that follow streams here end first: each holds one of the worker's
        Redis connections in a blocking read, which the sessions' last entries need."""
        self.forgets_on_end = False
        self.event_store.closing = True
        self.following.cancel_all()
        await self.following.wait()
        await self.close()

    def expire_sessions(self) -> None:
        super().expire_sessions()
        if self.sessions:  # the sessions still running here stay in the directory
            self.background.spawn(quietly(self.register_again()))

    async def register_again(self) -> None:
        """Keep this worker's sessions in the directory: their expiry pushed back, and the ones
        Redis forgot (it restarted empty) saved again, so that every worker finds them again.
        Called by the reaper, and by the relay as soon as Redis is back."""
        kept = {
            session.id: (session.transport.state, session.announcements.id)
            for session in self.sessions.values()
            if isinstance(session.transport, SharedSessionTransport)
            and session.transport.state is not None  # its handshake was answered
        }
        for session_id in await self.directory.refresh(list(kept)):
            state, announcements = kept[session_id]
            await self.directory.save(session_id, state, announcements)

    # --8<-- [end:manager]

    # --8<-- [start:take_over]
    async def take_over(self, record: SessionRecord) -> None:
        """Run a session whose worker died: rebuilt from its saved state, its running requests
        ended."""
        if not await self.directory.claim(record):
            return  # another worker was quicker: we forward to it from now on
        session = self.restore(record.id, record.announcements, record.state)
        # Saved again: that refreshes its expiry
        await self.directory.save(record.id, record.state, record.announcements)
        for stream_id, request_id in record.streams.items():
            if stream_id == record.announcements:
                continue
            stream = session.new_stream(request_id, stream_id)
            if request_id is not None and not await self.finished(stream_id):
                await stream.send(
                    encode(ErrorResponse(request_id, INTERNAL_ERROR, WORKER_DIED)), final=True
                )
            stream.ended = True  # nothing more will come: kept for resumption only

    async def finished(self, stream_id: str) -> bool:
        """Whether a stream ended (with its answer, or cancelled) or is gone."""
        last = await self.event_store.last_entry(stream_id)
        return last is None or bool(last[1].get("final")) or last[1].get("control") == "end"

    # --8<-- [end:take_over]

    # --8<-- [start:on_forwarded]
    async def on_forwarded(self, forwarded: dict[str, Any]) -> None:
        """A message another worker forwarded to a session of ours: as if POSTed here."""
        session = self.sessions.get(forwarded.get("session", ""))
        stream_id = forwarded.get("stream")
        if session is None:
            if stream_id:
                await self.event_store.add(
                    stream_id, {"control": "gone", "status": "404", "message": GONE}
                )
            return
        session.last_active = time.monotonic()
        if forwarded["kind"] == "delete":
            await session.end()
        if forwarded["kind"] != "message":
            return  # "touch": a client still reads a stream of it on another worker
        message = from_dict(forwarded["message"])  # valid: the forwarding worker parsed it
        answered_on = stream_id if isinstance(message, Request) else None  # followed over there
        try:  # lesson 08's own way in
            await session.admit(message, answered_on)
        except RpcError as reused:  # its id names a request still being answered: say so
            if stream_id:
                await self.event_store.add(
                    stream_id,
                    {
                        "control": "refused",
                        "status": "400",
                        "message": reused.message,
                        "code": str(reused.code),
                        "id": json.dumps(reused.id),
                    },
                )

    # --8<-- [end:on_forwarded]
