"""Games' analyses on request (issue 38): queued, run in worker processes, kept and reused.

A player asks for a finished game's analysis (``analyse``). The game is split into its
hands, each analysed in a worker process (:func:`trickroom.game.analysis.analyse`) at a
lower priority than the server, ``analysis_workers`` at once: the search never runs on
the event loop nor holds its GIL, so the tables do not wait for it. Progress (hands done
of all) and the result are kept in the store, so any node of a cluster answers
``GET /api/games/<id>/analysis`` with them, and a result is reused by every later asker.

Bounds: ``analysis_queue`` games waiting or running on a node, and one at a time for an
address group; past either the request is refused (``rate_limited``), the game's state
unchanged. A game queued or running on a node that stopped is asked again after
``STALE_SECONDS``. Each node runs the analyses asked of it; the store is where nodes
share them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import time
from typing import Any

from trickroom.game.analysis import Analysis, analyse, hands_in, merged
from trickroom.server.config import ServerSettings
from trickroom.server.protocol import ProtocolError
from trickroom.server.store import Store
from trickroom.server.thinkers import start_worker

log = logging.getLogger("trickroom.analysis")

STALE_SECONDS = 600.0  # a queued or running analysis not finished by then is asked again


def analyse_hand(record: dict[str, Any], seats: list[int], samples: int,
                 hand: int) -> Analysis:
    """One hand's part of a game's analysis (in a worker process)."""
    return analyse(record, seats, samples, seed=0, hands=[hand])


def analysed_seats(game: dict[str, Any]) -> list[int]:
    """The seats whose decisions are analysed: those a person (or a BOT account) held at
    the end, or every seat of a game robots alone played (a bot's or the bench's)."""
    people = [s["seat"] for s in game["seats"] if s.get("kind") == "human"]
    return sorted(people) or [0, 1, 2, 3]


class Analyses:
    """This node's analyses: the queue, the worker pool and the store's record of each."""

    def __init__(self, settings: ServerSettings, store: Store,
                 table_open: Any = None) -> None:
        self.settings = settings
        self.store = store
        self.table_open = table_open  # a sandbox's games wait for its table (server/reviews.py)
        self.running: dict[str, str] = {}  # game id -> the address group that asked
        self._tasks: set[asyncio.Task[None]] = set()
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._slots = asyncio.Semaphore(settings.analysis_workers)

    def pool(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(["trickroom.server.thinkers",
                                            "trickroom.game.analysis"])
            self._pool = concurrent.futures.ProcessPoolExecutor(
                self.settings.analysis_workers, mp_context=context, initializer=start_worker,
                initargs=(os.getpid(),))
        return self._pool

    async def status(self, game_id: str) -> dict[str, Any] | None:
        """What the store says of a game's analysis (None: never asked)."""
        return await self.store.analysis(game_id)

    async def request(self, game_id: str, group: str) -> dict[str, Any]:
        """Ask for a game's analysis: its state now (done: at once; else queued here)."""
        game = await self.store.game(game_id)
        if game is None or (game["sandbox"] and self.table_open is not None
                            and await self.table_open(game["room"], game["table"])):
            raise ProtocolError("not_found", f"no finished game {game_id!r} to analyse")
        found = await self.store.analysis(game_id)
        now = time.time()
        if found is not None and (found["state"] == "done" or (
                found["state"] in ("queued", "running")
                and now - found["requested"] < STALE_SECONDS)):
            return found
        if group in self.running.values():
            raise ProtocolError("rate_limited", "one analysis at a time from one address: "
                                "wait for the one asked to finish", retry_after=5.0)
        if len(self.running) >= self.settings.analysis_queue:
            raise ProtocolError("rate_limited", f"{len(self.running)} games are being "
                                "analysed on this server: ask again in a minute",
                                retry_after=30.0)
        total = await asyncio.to_thread(hands_in, game["record"])
        self.running[game_id] = group
        await self.store.analysis_queued(game_id, total, now)
        task = asyncio.create_task(self._run(game_id, game, total))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return {"game_id": game_id, "state": "queued", "done": 0, "total": total,
                "requested": now, "finished": None, "result": None}

    async def _run(self, game_id: str, game: dict[str, Any], total: int) -> None:
        seats = analysed_seats(game)
        samples = self.settings.analysis_samples
        loop = asyncio.get_running_loop()
        parts: list[Analysis] = []
        try:
            for hand in range(total):
                async with self._slots:
                    await self.store.analysis_progress(game_id, "running", hand)
                    parts.append(await loop.run_in_executor(
                        self.pool(), analyse_hand, game["record"], seats, samples, hand))
            whole = merged(game["game"], samples, parts)
            await self.store.analysis_progress(game_id, "done", total,
                                               whole.to_wire(seats), time.time())
            log.info("game %s analysed: %d decisions, %d play-outs", game_id,
                     len(whole.decisions), whole.playouts)
        except Exception:
            log.exception("game %s: the analysis failed", game_id)
            with contextlib.suppress(Exception):
                await self.store.analysis_progress(game_id, "failed", len(parts))
        finally:
            self.running.pop(game_id, None)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
