"""One server, both eras: plugging lesson 12 into a server of lessons 03–11 (lesson 12).

A :class:`~minimcp.server.core.ServerCore` speaks 2025-11-25 only: the handshake, then requests
within the session. :func:`answer_both_eras` makes it answer 2026-07-28 as well, through the seams
lesson 03 offers and nothing else:

* every session it serves gets lesson 12's *front* (:class:`~minimcp.session.modern.ModernFront`),
  which takes the requests that carry their own envelope before the handshake's rules apply;
* the server lists the revisions it serves without a handshake (``modern_versions``), which
  ``server/discover`` and the HTTP endpoint read;
* clients listening without a session (``subscriptions/listen``) join the audience of what the
  server broadcasts;
* a request that arrives alone, with no session at all (lesson 12's HTTP), is answered by
  :func:`~minimcp.session.alone.answer_alone`, the server's ``answer_alone``.

The course's servers (:mod:`minimcp.examples`) are built with it; ``python -m minimcp serve
--legacy-only`` serves the same server without the modern revisions.
"""

from __future__ import annotations

import functools
import secrets
import weakref

from minimcp.server.core import ServerCore
from minimcp.server.subscriptions import Subscriptions
from minimcp.session.alone import answer_alone
from minimcp.session.envelope import MODERN_PROTOCOL_VERSIONS
from minimcp.session.input_required import StateSeal
from minimcp.session.modern import ModernEra, ModernFront
from minimcp.session.server import ServerSession

#: The era settings of each server that answers both eras.
_eras: weakref.WeakKeyDictionary[ServerCore, ModernEra] = weakref.WeakKeyDictionary()


# --8<-- [start:both_eras]
def answer_both_eras(server: ServerCore, state_key: bytes | None = None) -> ModernEra:
    """Make ``server`` answer 2026-07-28 requests beside its sessions; its settings for that era.

    ``state_key`` seals the state of questions to the client (at least 32 bytes; every worker of one
    server needs the same). Calling it again returns the same settings: a server is plugged in once.
    """
    era = _eras.get(server)
    if era is not None:
        return era
    era = _eras[server] = ModernEra(StateSeal(state_key or secrets.token_bytes(32)))
    server.modern_versions = MODERN_PROTOCOL_VERSIONS
    server.subscriptions = subscriptions = Subscriptions(server.capabilities)
    server.method("subscriptions/listen")(subscriptions.listen)

    def add_front(session: ServerSession) -> None:
        session.front = ModernFront(session, server, era)

    server.at_session_start(add_front)
    server.answer_alone = functools.partial(answer_alone, server, era)
    return era


# --8<-- [end:both_eras]
