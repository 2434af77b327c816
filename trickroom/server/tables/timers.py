"""A table's timers: one per key, each one loop handle kept across resets.

A table sets its turn clock on every action (the next seat's turn, or the same seat's again
on a new trick), and a clock it sets is almost always later than the one it replaces. Each
``call_later`` and ``cancel`` is a timer object made, pushed on the loop's heap and later
popped as cancelled: at 100 busy tables that was about a twentieth of an action's CPU
(issue 40). Here a timer whose deadline moves later keeps its handle: the handle rings at
the old time, sees the deadline moved, and is set again for the new one, so a clock reset
on every action costs a few attribute writes and one handle per clock period. A deadline
moved earlier, or a timer set anew after it rang, takes a new handle. A cancelled timer
keeps its handle too (disarmed), for the next set to reuse; when it rings, it is dropped.

What the table sees is unchanged: a timer's command is posted at its deadline, never before
it, and a cancelled or replaced timer's never.

Nothing here outlives its use in a reference cycle. The owner's callbacks (a runner's
bound methods) make a cycle with the owner, so :meth:`Timers.close` lets go of them when
the table closes; a handle that rang or was cancelled is let go by its slot. A cycle is
freed only by a full collection, which CPython runs after the heap has grown by a quarter:
a closed table left in one (its machine, event log and robots) stayed in memory until
then, and the peaks of those waits set the server's memory for good (``bench/soak.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Generic, TypeVar

C = TypeVar("C")


class _Slot(Generic[C]):
    __slots__ = ("armed", "command", "due", "handle")

    def __init__(self, due: float, command: C | None) -> None:
        self.due = due
        self.command = command  # None: cancelled, its handle left to ring and be dropped
        # When its handle rings (kept here: uvloop's handle of a timer due now has no
        # ``when()``).
        self.armed = due
        self.handle: asyncio.Handle | None = None


class Timers(Generic[C]):
    """Timers by key on one loop, each posting its command to ``fire`` at its deadline."""

    def __init__(self, loop: Callable[[], asyncio.AbstractEventLoop],
                 fire: Callable[[C], None]) -> None:
        self._loop = loop  # asked only when a timer is set (a runner's loop, asked once)
        self._fire: Callable[[C], None] = fire
        self._slots: dict[str, _Slot[C]] = {}

    def set(self, key: str, delay: float, command: C) -> None:
        """Post ``command`` in ``delay`` seconds, replacing the timer of ``key``."""
        loop = self._loop()
        due = loop.time() + delay
        slot = self._slots.get(key)
        if slot is not None and slot.handle is not None and slot.armed <= due:
            slot.due, slot.command = due, command  # it rings first, then waits on to ``due``
            return
        if slot is not None and slot.handle is not None:
            slot.handle.cancel()
        slot = self._slots[key] = _Slot(due, command)
        slot.handle = loop.call_at(due, self._ring, key, slot)

    def cancel(self, key: str) -> None:
        """The timer of ``key`` posts nothing (its handle stays for the next set of it)."""
        slot = self._slots.get(key)
        if slot is not None:
            slot.command = None

    def cancel_all(self) -> None:
        """No timer posts anything again, and no handle is left on the loop."""
        for slot in self._slots.values():
            if slot.handle is not None:
                slot.handle.cancel()
                slot.handle = None
        self._slots.clear()

    def close(self) -> None:
        """As :meth:`cancel_all`, and let go of the owner's callbacks: a timer set later
        posts nothing."""
        self.cancel_all()
        self._loop = asyncio.get_running_loop
        self._fire = _dropped

    def __contains__(self, key: str) -> bool:
        slot = self._slots.get(key)
        return slot is not None and slot.command is not None

    def _ring(self, key: str, slot: _Slot[C]) -> None:
        if self._slots.get(key) is not slot:
            return  # replaced by a timer of its own, or all were cancelled
        if slot.command is not None and slot.due > slot.armed:
            slot.armed = slot.due
            slot.handle = self._loop().call_at(slot.due, self._ring, key, slot)
            return
        del self._slots[key]
        slot.handle = None  # it rang: the slot and its handle no longer hold each other
        if slot.command is not None:
            self._fire(slot.command)


def _dropped(command: object) -> None:
    """What a closed table's timers post to: nothing."""
