"""The in-memory event store: ids that name their stream, exact replay, bounded memory, expiry."""

from __future__ import annotations

import pytest

from minimcp.transports.event_store import (
    MemoryEventStore,
    UnknownEventId,
    new_stream_id,
    parse_event_id,
)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_ids_name_their_stream_and_are_unique_across_streams() -> None:
    store = MemoryEventStore()
    a, b = new_stream_id(), new_stream_id()
    assert a != b and "-" not in a
    ids = [await store.append(stream, f"m{n}") for n in range(3) for stream in (a, b)]
    assert len(set(ids)) == 6
    assert [parse_event_id(event_id)[0] for event_id in ids] == [a, b] * 3
    assert parse_event_id(f"{a}-2") == (a, 2)


async def test_replay_is_exactly_what_came_after_on_that_stream() -> None:
    store = MemoryEventStore()
    a, b = new_stream_id(), new_stream_id()
    a_ids = [await store.append(a, f"a{n}") for n in range(4)]
    await store.append(b, "b0")
    stream, events = await store.events_after(a_ids[1])
    assert stream == a
    assert [(event.id, event.data) for event in events] == [(a_ids[2], "a2"), (a_ids[3], "a3")]
    assert await store.events_after(a_ids[3]) == (a, [])  # nothing missed


@pytest.mark.parametrize("bad", ["", "no-number-x", "-3", "abc", "0123456789ab-"])
async def test_malformed_and_unknown_ids_are_refused(bad: str) -> None:
    store = MemoryEventStore()
    with pytest.raises(UnknownEventId):
        await store.events_after(bad)


async def test_ids_from_the_future_or_from_nowhere_are_refused() -> None:
    store = MemoryEventStore()
    stream = new_stream_id()
    await store.append(stream, "only")
    with pytest.raises(UnknownEventId, match="unknown event id"):
        await store.events_after(f"{stream}-5")
    with pytest.raises(UnknownEventId, match="unknown event id"):
        await store.events_after("ffffffffffff-0")


async def test_each_stream_keeps_at_most_max_events_and_says_when_it_cannot_replay() -> None:
    store = MemoryEventStore(max_events=3)
    stream = new_stream_id()
    ids = [await store.append(stream, f"m{n}") for n in range(6)]  # keeps m3, m4, m5
    assert len(store) == 3
    assert [event.data for event in (await store.events_after(ids[2]))[1]] == ["m3", "m4", "m5"]
    with pytest.raises(UnknownEventId, match="too old"):
        await store.events_after(ids[1])  # m2 is forgotten: an exact replay is impossible


async def test_at_most_max_streams_the_least_recently_used_go_first() -> None:
    store = MemoryEventStore(max_streams=2)
    a, b, c = new_stream_id(), new_stream_id(), new_stream_id()
    first_a = await store.append(a, "a")
    await store.append(b, "b")
    await store.events_after(first_a)  # a is used again: b is now the least recently used
    await store.append(c, "c")
    await store.events_after(first_a)
    with pytest.raises(UnknownEventId):
        await store.events_after(f"{b}-0")


async def test_streams_expire_after_ttl_and_can_be_forgotten() -> None:
    clock = Clock()
    store = MemoryEventStore(ttl=10, clock=clock)
    old, fresh = new_stream_id(), new_stream_id()
    old_id = await store.append(old, "old")
    clock.now = 8
    fresh_id = await store.append(fresh, "fresh")
    clock.now = 11  # old: idle 11 s, gone; fresh: idle 3 s, kept
    with pytest.raises(UnknownEventId):
        await store.events_after(old_id)
    assert (await store.events_after(fresh_id))[1] == []
    await store.forget(fresh)
    with pytest.raises(UnknownEventId):
        await store.events_after(fresh_id)
    assert len(store) == 0
