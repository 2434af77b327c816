"""Garbage collection that does not stop every table for a third of a second.

CPython's cyclic collector walks every tracked object in a full collection. A
server with 500 tables and 2,000 sockets holds about 300,000 of them (the
sockets' tasks, futures and parsers, the games), and the load bench measured
full collections of 90 to 380 ms, several a minute: each one stalls every
table, and they set the action latency's 99th percentile (over 100 ms).

So every ``freeze_seconds`` the collector moves every object alive into the
permanent generation (``gc.freeze``); collections then walk only what was made
since, and take a few milliseconds. Objects frozen while alive are still freed
by reference counting when they die; only those that die inside a reference
cycle (a closed socket's objects, a finished game's) wait for the next full
collection. That comes every ``full_seconds``: everything is unfrozen and
collected once, a pause of the old size, logged with what it freed.

Freezing has a cost of its own: frozen survivors are spread over the
allocator's arenas, which can then never be handed back, and a server that
freezes all the time grows by a few hundred KiB per thousand games
(``bench/soak.py``). A small heap does not need it (its full collections take a
few milliseconds), so the collector freezes only once a full collection has
taken ``freeze_above_ms`` or more **and** the heap holds ``freeze_above_objects``
more objects than it did at start-up, and stops when a full round takes under half
of that time again. ``freeze_above_ms = 0`` freezes from the start.

Why both: a time alone depends on the machine. On a machine 2.5 times slower, or a
busy one, the start-up heap alone (about 100,000 objects: modules, schemas) takes
20 ms or more to walk: the soak's eight tables started the freezing there ("a full
garbage collection took 49.0 ms: freezing survivors", ``python -m bench.soak --games
5000`` with ``TRICKROOM_BENCH_LOGS``), though its heap is a small one. The objects
beyond start-up say whether the heap is big on any machine: the soak's tables add a
few thousand, a hundred busy tables with their sockets tens of thousands.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import Callable

from trickroom.server.loops import cancelled

log = logging.getLogger("trickroom.collector")


class Collector:
    """Freezes survivors often and collects everything now and then."""

    def __init__(self, freeze_seconds: float, full_seconds: float,
                 clock: Callable[[], float] = time.monotonic,
                 freeze_above_ms: float = 0.0, freeze_above_objects: int = 0) -> None:
        self.freeze_seconds = freeze_seconds
        self.full_seconds = full_seconds
        self.clock = clock
        self.freeze_above_ms = freeze_above_ms
        self.freeze_above_objects = freeze_above_objects
        self.baseline = 0  # the objects the collector tracks at start-up
        self.freezing = freeze_above_ms <= 0
        self.last_full = clock()
        self.full_collections = 0
        self._task: asyncio.Task[None] | None = None
        self._started = 0.0

    def start(self) -> None:
        if self.freeze_seconds > 0:
            if self.freeze_above_objects:
                self.baseline = len(gc.get_objects())
            if self.freezing:
                gc.freeze()  # what start-up made (modules, schemas, the restored games)
            gc.callbacks.append(self.on_collection)
            self._task = asyncio.create_task(self._run(), name="gc-freezer")

    async def stop(self) -> None:
        if self._task is not None:
            await cancelled(self._task)
            self._task = None
            with contextlib.suppress(ValueError):
                gc.callbacks.remove(self.on_collection)
            gc.unfreeze()

    def on_collection(self, phase: str, info: dict[str, int]) -> None:
        """Python's own full collections, timed: one that took long starts the freezing."""
        if info["generation"] != 2:
            return
        if phase == "start":
            self._started = time.perf_counter()
        elif not self.freezing:
            took = (time.perf_counter() - self._started) * 1e3
            if took < self.freeze_above_ms:
                return
            # Counted only after a long one (a list of every object: a few ms).
            grown = len(gc.get_objects()) - self.baseline if self.freeze_above_objects else 0
            if grown >= self.freeze_above_objects:
                self.freezing = True
                log.info("a full garbage collection took %.1f ms, %d objects beyond "
                         "start-up: freezing survivors", took, grown)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.freeze_seconds)
            self.tick()

    def tick(self) -> None:
        """Freeze what is alive now; first collect everything if a full round is due."""
        if not self.freezing:
            return
        if self.clock() - self.last_full >= self.full_seconds:
            self.collect_all()
            if not self.freezing:
                return
        gc.freeze()

    def collect_all(self) -> int:
        """Unfreeze and collect every generation; returns the objects freed."""
        started = time.perf_counter()
        gc.unfreeze()
        freed = gc.collect()
        took = (time.perf_counter() - started) * 1e3
        self.last_full = self.clock()
        self.full_collections += 1
        log.info("full garbage collection: %d objects freed in %.1f ms", freed, took)
        if self.freeze_above_ms > 0 and took < self.freeze_above_ms / 2:
            self.freezing = False  # the heap is small again: Python's own collection will do
            log.info("full collections are short again: no more freezing")
        return freed
