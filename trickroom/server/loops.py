"""Which event loop runs the server: uvloop (libuv, written in Cython) where it is
installed, the standard library's asyncio loop otherwise or when the host asks for it.

uvloop cuts the loop's own share of each socket read and write; the server's code is the
same on either loop, so a host who meets a uvloop bug sets ``event_loop = "asyncio"``.
Also here: how the server's background tasks are stopped (:func:`cancelled`), and the
shape of the ones that wake on a period (:class:`Periodic`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

LOOPS = ("uvloop", "asyncio")
T = TypeVar("T")
log = logging.getLogger("trickroom.loop")


def loop_factory(name: str) -> tuple[str, Callable[[], asyncio.AbstractEventLoop] | None]:
    """The loop actually used for the setting ``name`` and its factory (None: asyncio's)."""
    if name not in LOOPS:
        raise ValueError(f"event_loop must be one of {', '.join(LOOPS)}, not {name!r}")
    if name == "uvloop":
        try:
            import uvloop
        except ImportError:  # not installed on this platform: the standard loop serves
            log.warning("uvloop is not installed; running on asyncio's own event loop")
            return "asyncio", None
        return "uvloop", uvloop.new_event_loop
    return "asyncio", None


def run(main: Coroutine[Any, Any, T], name: str) -> T:
    """``asyncio.run(main)`` on the event loop the setting names."""
    _, factory = loop_factory(name)
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)


async def cancelled(task: asyncio.Task[Any] | None) -> None:
    """Cancel ``task`` (None: nothing to stop) and wait until it has ended."""
    if task is None:
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


class Periodic:
    """A background task that wakes every ``every`` seconds to do its ``tick``, from
    ``start`` until ``stop``: the heap's trims, retention's passes. A subclass names its
    task (``name``, as a task dump shows it) and says whether it runs at all (``works``)."""

    name = "periodic"
    every: float
    _task: asyncio.Task[None] | None = None

    @property
    def works(self) -> bool:
        return self.every > 0

    def start(self) -> None:
        if self.works:
            self._task = asyncio.create_task(self._run(), name=self.name)

    async def stop(self) -> None:
        await cancelled(self._task)
        self._task = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            await self.tick()

    async def tick(self) -> None:
        raise NotImplementedError
