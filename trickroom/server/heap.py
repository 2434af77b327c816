"""The C allocator's free pages handed back to the system now and then.

Memory freed by Python is freed to the C allocator (objects over 512 bytes, lists' and
dicts' tables, strings, SQLite's pages), and glibc's keeps it: only a free stretch at the
very top of its heap goes back to the system by itself. Everything a server allocates for a
moment (a game's frames, its record, a burst of tables) leaves free pages scattered between
the chunks still in use, and those stay resident. The server's memory then grows in steps,
each time a peak lands where the heap has no free stretch big enough, and never comes down:
``python -m bench.soak --games 5000`` measured 195 and 407 KiB per 1,000 games with a glibc
heap 31.5 MiB big but 20-25 MiB of it in use.

``malloc_trim(0)`` gives every whole free page inside the heap back (``madvise``), so the
resident memory follows what is in use. It walks the allocator's free lists: about a
millisecond for that 31 MiB heap, more for a big one, so it runs in a worker thread (ctypes
lets go of the GIL; the event loop waits only if it allocates from the very arena being
trimmed at that moment). On a C library other than glibc (musl, macOS) there is nothing to
call, and nothing is done.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import logging
import time
from collections.abc import Callable

from trickroom.server.loops import Periodic
from trickroom.server.metrics import METRICS

log = logging.getLogger("trickroom.heap")


def _glibc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


MALLOC_TRIM = _glibc_trim()


class HeapTrimmer(Periodic):
    """Every ``every`` seconds, the allocator's free pages go back (0: never)."""

    name = "heap-trimmer"

    def __init__(self, every: float, trim: Callable[[int], int] | None = MALLOC_TRIM) -> None:
        self.every = every
        self._trim = trim
        self.trims = 0

    @property
    def works(self) -> bool:
        return self._trim is not None and self.every > 0

    async def tick(self) -> None:
        await asyncio.to_thread(self.trim)

    def trim(self) -> bool:
        """Hand the free pages back now: whether any went (False too where it cannot)."""
        if self._trim is None:
            return False
        started = time.perf_counter()
        released = bool(self._trim(0))
        METRICS.heap_trim_seconds.observe(time.perf_counter() - started)
        self.trims += 1
        return released
