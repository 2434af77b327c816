"""Garbage collection: survivors are frozen, and what dies in a cycle is still freed."""

from __future__ import annotations

import gc
import weakref

from trickroom.server.collector import Collector


class Node:
    """An object in a reference cycle: only the cyclic collector can free it."""

    def __init__(self) -> None:
        self.me = self


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_tick_freezes_what_is_alive_so_collections_skip_it():
    collector = Collector(0.25, 600.0, Clock())
    try:
        node = Node()
        collector.tick()
        assert gc.get_freeze_count() > 0
        assert not any(o is node for o in gc.get_objects())  # no collection walks it now
    finally:
        gc.unfreeze()


def test_a_cycle_that_dies_frozen_is_freed_by_the_next_full_round():
    clock = Clock()
    collector = Collector(0.25, 600.0, clock)
    try:
        node = Node()
        gone = weakref.ref(node)
        collector.tick()
        del node
        gc.collect()
        assert gone() is not None  # frozen: the ordinary collections leave it
        clock.now = 599.0
        collector.tick()
        assert gone() is not None and collector.full_collections == 0
        clock.now = 600.0
        collector.tick()  # a full round is due: unfreeze, collect, freeze again
        assert gone() is None and collector.full_collections == 1
    finally:
        gc.unfreeze()



def test_freezing_starts_only_once_a_full_collection_took_long_and_stops_when_short_again():
    clock = Clock()
    # A threshold far above what a real collection here takes (so the last step is sure).
    collector = Collector(0.25, 600.0, clock, freeze_above_ms=10_000.0)
    try:
        collector.tick()
        assert not collector.freezing and gc.get_freeze_count() == 0  # a small heap
        collector.on_collection("start", {"generation": 1})
        collector.on_collection("stop", {"generation": 1})
        assert not collector.freezing  # young collections do not count
        collector.on_collection("start", {"generation": 2})
        collector._started -= 20.0  # as if it had run 20 s
        collector.on_collection("stop", {"generation": 2})
        assert collector.freezing
        collector.tick()
        assert gc.get_freeze_count() > 0
        clock.now = 600.0
        collector.tick()  # the full round is short: the freezing stops
        assert not collector.freezing and gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()


async def test_a_long_full_collection_of_a_small_heap_starts_no_freezing():
    """A slow or busy machine takes long over a small heap: the time alone says nothing
    of the heap's size, so freezing also waits for objects beyond those of start-up."""
    collector = Collector(0.25, 600.0, Clock(), freeze_above_ms=10.0,
                          freeze_above_objects=50_000)
    collector.start()
    try:
        def long_full_collection() -> None:
            collector.on_collection("start", {"generation": 2})
            collector._started -= 1.0  # as if it had run for a second
            collector.on_collection("stop", {"generation": 2})

        long_full_collection()
        assert not collector.freezing  # a second, but over the start-up heap alone
        grown = [Node() for _ in range(60_000)]  # a heap that has grown since
        long_full_collection()
        assert collector.freezing
        del grown
    finally:
        await collector.stop()
