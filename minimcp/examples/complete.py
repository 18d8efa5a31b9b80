"""The course's complete server: every lesson's piece plugged into a server of lessons 03–06.

A :class:`~minimcp.server.Server` of lessons 03–06 speaks the initialize era and nothing more. The
later lessons each bring a piece that plugs into a seam lesson 03 offers, and this is the one place
(with the tests of those lessons) that puts them all together:

* lesson 09: cancellation, both ways (:func:`minimcp.session.cancellation.cancellable`);
* lesson 11: a session's state kept where every worker finds it
  (:func:`minimcp.session.saved.keep_sessions`);
* lesson 12: 2026-07-28 beside 2025-11-25 (:func:`minimcp.server.eras.answer_both_eras`).
"""

from __future__ import annotations

import weakref
from typing import TypeVar

from minimcp.server.core import ServerCore
from minimcp.server.eras import answer_both_eras
from minimcp.session.cancellation import cancellable
from minimcp.session.saved import keep_sessions

S = TypeVar("S", bound=ServerCore)

_completed: weakref.WeakSet[ServerCore] = weakref.WeakSet()  # each server is completed once


def complete(server: S) -> S:
    """``server`` with every later lesson plugged in (once, however often it is called)."""
    if server not in _completed:
        _completed.add(server)
        cancellable(server)  # lesson 09
        keep_sessions(server)  # lesson 11
        answer_both_eras(server)  # lesson 12
    return server
