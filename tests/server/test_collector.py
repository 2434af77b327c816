"""Garbage collection: survivors are frozen, and what dies in a cycle is still freed."""

from __future__ import annotations

import gc
import weakref

from server.collector import Collector


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

