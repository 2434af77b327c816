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
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import Callable

log = logging.getLogger("trickroom.collector")


class Collector:
    """Freezes survivors often and collects everything now and then."""

    def __init__(self, freeze_seconds: float, full_seconds: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.freeze_seconds = freeze_seconds
        self.full_seconds = full_seconds
        self.clock = clock
        self.last_full = clock()
        self.full_collections = 0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self.freeze_seconds > 0:
            gc.freeze()  # what start-up made (modules, schemas, the restored games)
            self._task = asyncio.create_task(self._run(), name="gc-freezer")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
            gc.unfreeze()

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.freeze_seconds)
            self.tick()

    def tick(self) -> None:
        """Freeze what is alive now; first collect everything if a full round is due."""
        if self.clock() - self.last_full >= self.full_seconds:
            self.collect_all()
        gc.freeze()

    def collect_all(self) -> int:
        """Unfreeze and collect every generation; returns the objects freed."""
        started = time.perf_counter()
        gc.unfreeze()
        freed = gc.collect()
        self.last_full = self.clock()
        self.full_collections += 1
        log.info("full garbage collection: %d objects freed in %.1f ms", freed,
                 (time.perf_counter() - started) * 1e3)
        return freed
