"""Lesson 08's sessions, with their state and their streams in Redis (lesson 11).

A session's cable keeps the session's state in the directory after every change (so that another
worker can take the session over), and its streams live in Redis (so that any worker can follow
them).
"""

from __future__ import annotations

from typing import Any

from minimcp.rpc import Servable
from minimcp.rpc.abilities import Abilities
from minimcp.transports.cluster.directory import SessionDirectory
from minimcp.transports.cluster.redis_store import RedisEventStore
from minimcp.transports.cluster.streams import SharedStream
from minimcp.transports.http.session_transport import SessionTransport
from minimcp.transports.http.sessions import HttpSession, SessionManager
from minimcp.transports.http.streams import Stream


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
        return Abilities(request_streams=self, state_keeper=self)

    def restored_state(self) -> dict[str, Any] | None:
        return self.state

    async def keep_state(self, state: dict[str, Any]) -> None:
        session = self.http_session
        await self.directory.save(session.id, state, session.announcements.id)


class SharedSessionManager(SessionManager):
    """Lesson 08's sessions, with their state and streams in Redis."""

    event_store: RedisEventStore

    def __init__(
        self, server: Servable, store: RedisEventStore, directory: SessionDirectory, **limits: Any
    ) -> None:
        super().__init__(server, store, **limits)
        self.directory = directory

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

        return SharedStream(self.event_store, stream_id, still_ours, self.background, register)

    def forget(self, session: HttpSession) -> None:
        if self.sessions.get(session.id) is session and self.forgets_on_end:
            self.background.spawn(self.directory.drop(session.id))
        super().forget(session)

    async def leave(self) -> None:
        """This worker stops (a restart, a deploy): its sessions stay in Redis, for others to take
        over."""
        self.forgets_on_end = False
        await self.close()

    def expire_sessions(self) -> None:
        super().expire_sessions()
        if self.sessions:  # the sessions still running here stay in the directory
            self.background.spawn(self.directory.refresh(list(self.sessions)))


# --8<-- [end:manager]
