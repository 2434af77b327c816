"""Robots' thinking: who may have a searching robot think, for how long, and where.

A searching robot thinks for about a fifth of a second of a core a move, so a player
seated at several tables of them, playing their own seat at once every time, keeps
a core busy: ten such tables from one address made every other table of the server
35-55 times slower (issue 32, A). The caps on tables count the tables, not what
their robots cost; this module bounds the cost.

* **In total**: at most ``robot_thinkers`` searches run at once, each in a worker
  process of its own (``robot_worker = "process"``, the default), so a search holds
  no lock of the event loop's process (Python's GIL): the tables' messages go on
  while robots think. ``"thread"`` runs them in threads of the server's process
  instead, as before (for a host where a process may not start others).
* **A fair queue**: a search waits its turn in its address group's queue, and the
  groups take turns (round robin), so a group with ten tables gets no more turns
  than one with one. A group's queue holds at most ``robot_queue_per_address``
  searches, and all of them together ``robot_queue``; past either, the robot plays
  the rule of thumb (the heuristic) at once.
* **A budget per address group**: each group has ``robot_thinking_burst_per_address``
  seconds of a core, refilled at ``robot_thinking_per_second_per_address`` (a share of
  one core); a search is charged the processor time it took (``time.process_time`` in
  its worker process, ``time.thread_time`` in a thread). A group that has spent its
  budget gets the heuristic's move until it refills.

The group is that of the table's seated, connected players (robots think at their
level only while one sits there: ``tables/play.py``); with players of several groups,
the one with the most budget left pays. A heuristic move is told with no reason, as
a heuristic robot's always is.

A robot keeps its own state between moves (its random generator): in a worker process
it thinks on a copy, which comes back with the move and replaces it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import time
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING

from trickroom.game.robots import Robot
from trickroom.game.trickgame import TrickView
from trickroom.server.metrics import METRICS
from trickroom.server.thinkers import Thought, start_worker, think_in_process, think_in_thread

if TYPE_CHECKING:
    from trickroom.server.config import ServerSettings

log = logging.getLogger("trickroom.thinking")
PRUNE_ABOVE = 1000
"""Groups with a budget being refilled, past which those refilled are looked for and
forgotten (a group full again is forgotten when next seen; one never seen again would
otherwise stay)."""


class _Credit:
    """A group's thinking budget (a token bucket of processor seconds)."""

    __slots__ = ("at", "seconds")

    def __init__(self, seconds: float, at: float) -> None:
        self.seconds = seconds
        self.at = at


class Thinking:
    """The searches of every table of this node: a few at once, the address groups in
    turn, each within its budget."""

    def __init__(self, thinkers: int = 1, worker: str = "process", burst: float = 30.0,
                 rate: float = 0.25, queue_per_group: int = 2, queue: int = 16,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.thinkers = max(1, thinkers)
        self.worker = worker
        self.burst = burst
        self.rate = rate
        self.queue_per_group = queue_per_group
        self.queue = queue
        self.clock = clock
        self.running = 0
        self._credits: dict[str, _Credit] = {}
        self._waiting: dict[str, deque[asyncio.Future[None]]] = {}  # in turn order
        self._pool: concurrent.futures.Executor | None = None
        self.closed = False

    @classmethod
    def from_settings(cls, settings: ServerSettings) -> Thinking:
        return cls(settings.robot_thinkers, settings.robot_worker,
                   settings.robot_thinking_burst_per_address,
                   settings.robot_thinking_per_second_per_address,
                   settings.robot_queue_per_address, settings.robot_queue)

    # -- the budget ---------------------------------------------------------------------------

    def credit(self, group: str) -> float:
        """The processor seconds ``group`` may still spend (negative: owed)."""
        now = self.clock()
        credit = self._credits.get(group)
        if credit is None:
            return self.burst
        credit.seconds = min(self.burst, credit.seconds + (now - credit.at) * self.rate)
        credit.at = now
        if credit.seconds >= self.burst:
            del self._credits[group]  # full again: forgotten (the groups seen do not pile up)
            return self.burst
        return credit.seconds

    def _charge(self, group: str, seconds: float) -> None:
        left = self.credit(group) - seconds
        self._credits[group] = _Credit(left, self.clock())
        if len(self._credits) > PRUNE_ABOVE:  # forget the groups refilled since (not seen)
            for other in list(self._credits):
                self.credit(other)

    def _waiting_count(self) -> int:
        return sum(len(q) for q in self._waiting.values())

    def payer(self, groups: Iterable[str]) -> str | None:
        """Which of ``groups`` (a table's seated, connected players') a search is charged
        to, or None: the robot plays the heuristic (no group, every one's budget spent
        or queue full, or the queue full in total)."""
        if self.closed or (self._waiting_count() >= self.queue
                           and self.running >= self.thinkers):
            return None
        best, most = None, 0.0
        for group in groups:
            if len(self._waiting.get(group, ())) >= self.queue_per_group:
                continue
            credit = self.credit(group)
            if credit > most:
                best, most = group, credit
        return best

    # -- the queue ------------------------------------------------------------------------------

    async def _turn(self, group: str) -> None:
        """Wait for a thinker, the groups taking turns."""
        if self.running < self.thinkers and not self._waiting:
            self.running += 1
            return
        ticket: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(group, deque()).append(ticket)
        try:
            await ticket
        except BaseException:
            if ticket.done() and not ticket.cancelled():
                self._done()  # granted as it was cancelled: pass the turn on
            else:
                queue = self._waiting.get(group)
                if queue is not None and ticket in queue:
                    queue.remove(ticket)
                    if not queue:
                        del self._waiting[group]
            raise

    def _done(self) -> None:
        """A thinker is free: the next group in turn gets it (and goes to the back)."""
        self.running -= 1
        while self._waiting and self.running < self.thinkers:
            group = next(iter(self._waiting))
            queue = self._waiting.pop(group)
            ticket = queue.popleft()
            if queue:
                self._waiting[group] = queue  # to the back of the turn order
            if not ticket.done():
                self.running += 1
                ticket.set_result(None)

    # -- thinking -------------------------------------------------------------------------------

    async def think(self, robot: Robot, view: TrickView, groups: Iterable[str]
                    ) -> Thought | None:
        """The robot's searched move, charged to one of ``groups``; None: it may not
        think now (the caller plays the heuristic's move)."""
        group = self.payer(groups)
        if group is None:
            METRICS.robot_moves.labels("heuristic").inc()
            return None
        await self._turn(group)
        try:
            if self.credit(group) <= 0 or self.closed:  # spent while it waited
                METRICS.robot_moves.labels("heuristic").inc()
                return None
            thought = await self._run(robot, view)
        finally:
            self._done()
        if thought is None:
            METRICS.robot_moves.labels("heuristic").inc()
            return None
        self._charge(group, thought.seconds)
        METRICS.robot_moves.labels("searched").inc()
        METRICS.robot_seconds.inc(thought.seconds)
        return thought

    async def _run(self, robot: Robot, view: TrickView) -> Thought | None:
        loop = asyncio.get_running_loop()
        if self.worker == "thread":
            return await asyncio.to_thread(think_in_thread, robot, view)
        pool = self._pool
        try:
            if pool is None:
                context = multiprocessing.get_context("forkserver")
                context.set_forkserver_preload(["trickroom.server.thinkers"])
                pool = self._pool = concurrent.futures.ProcessPoolExecutor(
                    self.thinkers, mp_context=context, initializer=start_worker,
                    initargs=(os.getpid(),))
            return await loop.run_in_executor(pool, think_in_process, robot, view)
        except BrokenProcessPool:  # a worker died (killed, out of memory): a new pool
            log.warning("a robots' worker process died: starting another")
            if pool is not None and self._pool is pool:
                self._pool = None
                pool.shutdown(wait=False, cancel_futures=True)
            return None
        except (OSError, NotImplementedError) as exc:  # no processes here (no /dev/shm...)
            log.warning("robots cannot think in worker processes (%s): they think in "
                        "threads of the server", exc)
            self.worker = "thread"
            self._pool = None
            return None

    def close(self) -> None:
        """No more searches; the worker processes end (what they were doing is dropped)."""
        self.closed = True
        pool, self._pool = self._pool, None
        if pool is not None:
            with contextlib.suppress(Exception):
                pool.shutdown(wait=False, cancel_futures=True)
