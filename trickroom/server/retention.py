"""Retention: a finished game's moves are dropped a while after it ends; its record stays.
Each pass also forgets the sessions that can no longer resume (idle too long).

Every accepted move is a row of ``actions`` (about 155 bytes with its key), written
before it is acknowledged, so that a restarted server replays a game in play. Once a
game has ended, its ``games`` row keeps its whole record, packed
(:mod:`trickroom.server.store.archive`), and the review and ``GET /api/games/<id>`` read
only that: the moves repeat it. They are kept ``keep_moves_seconds`` after the game ends
(a day by default, for whoever wants to look at them), then this job drops them.

A pass walks every game that still has moves (:meth:`Store.games_with_moves`, a seek a
game), a page of :data:`PAGE` games at a time, and drops the moves of those that ended
long enough ago, :data:`GAMES_PER_WRITE` games a write (about 2,000 rows: a few
milliseconds of the SQLite writer, which runs on the event loop), pausing
:data:`PAUSE` seconds between any two calls to the store: a table's moves wait for one
such write at most, and the job takes a small share of the store whatever its backlog
(a file from before retention, with every move ever played). Games still in play are
never touched; a game ended before packed records existed is packed in the same write
that drops its moves.

Passes come every twenty-fourth of ``keep_moves_seconds``, at least a minute and at most
an hour apart: a move is dropped between ``keep_moves_seconds`` and that much later.
``keep_moves_seconds = 0`` drops them at the first pass after the game ends (within a
minute).

In a cluster every node runs its own passes over the shared database. That is harmless:
dropping moves already dropped deletes nothing, and packing a record twice writes the
same text; nodes walk the games in the same order, so two writes never wait on each
other in a circle.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from trickroom.server.loops import Periodic
from trickroom.server.store import Store, StoreError

log = logging.getLogger("trickroom.retention")

PAGE = 100  # games walked a read
GAMES_PER_WRITE = 4  # games whose moves one write drops (a game is 150 to 700 moves)
PAUSE = 0.02  # seconds between two of the job's calls to the store
EVERY_MIN, EVERY_MAX = 60.0, 3600.0  # seconds between passes, at least and at most


class Retention(Periodic):
    """Drops the moves of the games that ended ``keep_seconds`` ago or more, pass by pass."""

    name = "retention"

    def __init__(self, store: Store, keep_seconds: float,
                 clock: Callable[[], float] = time.time, pause: float = PAUSE,
                 sessions: tuple[float, float] | None = None) -> None:
        self.store = store
        # How long a registered session and a guest's may go unused: each pass forgets
        # those older, which can no longer resume (None: sessions are left alone).
        self.sessions = sessions
        self.keep_seconds = keep_seconds
        self.clock = clock
        self.pause = pause
        self.dropped = 0  # moves dropped since the start

    @property
    def every(self) -> float:  # type: ignore[override]  # read-only here: made of keep_seconds
        """Seconds between two passes."""
        return min(EVERY_MAX, max(EVERY_MIN, self.keep_seconds / 24))

    async def tick(self) -> None:
        try:
            await self.sweep()
            await self.forget_sessions()
        except StoreError as exc:  # the database is away: the next pass will do
            log.warning("retention pass stopped: %s", exc)
        except Exception:
            log.exception("retention pass failed")

    async def forget_sessions(self) -> int:
        """Forget the sessions that can no longer resume: how many."""
        if self.sessions is None:
            return 0
        now = self.clock()
        registered, guest = self.sessions
        gone = await self.store.forget_sessions(now - registered, now - guest)
        if gone:
            log.info("retention: forgot %d sessions that can no longer resume", gone)
        return gone

    async def sweep(self) -> int:
        """One pass over every game with moves; returns the moves dropped."""
        cutoff = self.clock() - self.keep_seconds
        dropped, after = 0, ""
        while True:
            page = await self.store.games_with_moves(after, PAGE)
            due = [game_id for game_id, ended in page if ended is not None and ended <= cutoff]
            for start in range(0, len(due), GAMES_PER_WRITE):
                await asyncio.sleep(self.pause)
                dropped += await self.store.drop_moves(due[start:start + GAMES_PER_WRITE])
            if len(page) < PAGE:
                break
            after = page[-1][0]
            await asyncio.sleep(self.pause)
        self.dropped += dropped
        if dropped:
            log.info("retention: dropped %d moves of games ended before %.0f s ago",
                     dropped, self.keep_seconds)
        return dropped
