"""Games' analyses on request (issue 38): queued, run in worker processes, kept and reused.

A player asks for a finished game's analysis (``analyse``) on any node. The store is the
queue (a row a game, ``queued``), which every node's workers take jobs from (a claim is a
conditional update: one node has it), so a cluster's analyses go to whichever node has a
worker free. A job is split into the game's hands, each analysed in a worker process
(:func:`trickroom.game.analysis.analyse`) in the kernel's idle class (below any priority
of the server's),
``analysis_workers`` at once on a node: the search never runs on the event loop nor holds
its GIL, so the tables do not wait for it. Progress (hands done of all) is written as it
goes (renewing the claim) and the result kept, so any node answers
``GET /api/games/<id>/analysis``, and a result is reused by every later asker.

Bounds: ``analysis_queue`` games asked for waiting or running, all nodes together (past
it ``rate_limited``), and ``analysis_queue_per_player`` of them an account's, and as many
an address group's (guests are cheap to make; past either ``too_many_analyses``); a
refused request leaves the game's state unchanged. A job whose node went quiet (stopped,
or cut off) for ``STALE_SECONDS`` is taken again by another.

Automatic jobs (``analysis_auto_ranked``): each finished ranked game is queued as it is
stored, its asker :data:`AUTO`. The workers take every asked job before any automatic
one, and automatic jobs count against no asker's bound nor the host's: a player is never
refused because of them. They have a bound of their own (``analysis_queue`` waiting);
past it a finished game is not queued (it can still be asked for). A player who asks for
a game waiting automatically moves it to the asked jobs' turn.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
import multiprocessing
import os
import pickle
import secrets
import time
from typing import Any

from trickroom.game.analysis import analyse, hands_in, merged
from trickroom.i18n import Msg, PluralMsg
from trickroom.server.config import ServerSettings
from trickroom.server.loops import cancelled
from trickroom.server.protocol import ProtocolError
from trickroom.server.store import Store
from trickroom.server.thinkers import start_worker

log = logging.getLogger("trickroom.analysis")

STALE_SECONDS = 120.0  # a running job's claim not renewed for this long is taken again
POLL_SECONDS = 1.0  # how often an idle node looks for other nodes' queued jobs
AUTO = "auto"  # the asker of an automatic job (no address group is named so)


def asker_of(group: str, account: str) -> str:
    """The ``asker`` a job is stored with: the address group and the account that asked
    (a name has no ``|``; a job stored before accounts were named holds the group alone)."""
    return f"{group}|{account}"


def start_analyst(server: int) -> None:
    """An analysis worker's start: a robot worker's (lower priority, gone with the server),
    and the kernel's idle class where it has one: it runs only on a core nothing else
    wants, so a table's wake-up never waits behind an analysis."""
    start_worker(server)
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


def analyse_hand(record: dict[str, Any], seats: list[int], samples: int,
                 hand: int) -> bytes:
    """One hand's part of a game's analysis (in a worker process), pickled there: the
    server's process takes it as bytes, never decoding it (its GIL stays the tables')."""
    return pickle.dumps(analyse(record, seats, samples, seed=0, hands=[hand]))


def finish(kind: str, samples: int, seats: list[int], parts: list[bytes]
           ) -> tuple[str, int, int]:
    """The whole analysis from its hands' parts, encoded as stored (in a worker process:
    a long game's takes a dozen milliseconds to merge and encode); with its decisions'
    and play-outs' counts."""
    whole = merged(kind, samples, [pickle.loads(part) for part in parts])
    return json.dumps(whole.to_wire(seats)), len(whole.decisions), whole.playouts


def analysed_seats(game: dict[str, Any]) -> list[int]:
    """The seats whose decisions are analysed: those a person (or a BOT account) held at
    the end, or every seat of a game robots alone played (a bot's or the bench's)."""
    people = [s["seat"] for s in game["seats"] if s.get("kind") == "human"]
    return sorted(people) or [0, 1, 2, 3]


class Analyses:
    """This node's part of the analyses: asking, the workers, and the jobs they take."""

    def __init__(self, settings: ServerSettings, store: Store,
                 table_open: Any = None) -> None:
        self.settings = settings
        self.store = store
        self.table_open = table_open  # a sandbox's games wait for its table (server/reviews.py)
        self.node = secrets.token_hex(6)  # this process, as the jobs' claims name it
        self.jobs: set[str] = set()  # the games this node's workers analyse now
        self._tasks: set[asyncio.Task[None]] = set()
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._wake = asyncio.Event()
        self._taker: asyncio.Task[None] | None = None

    def pool(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(["trickroom.server.thinkers",
                                            "trickroom.game.analysis"])
            self._pool = concurrent.futures.ProcessPoolExecutor(
                self.settings.analysis_workers, mp_context=context, initializer=start_analyst,
                initargs=(os.getpid(),))
        return self._pool

    def start(self) -> None:
        """Take jobs: asked here (at once) or on another node (within ``POLL_SECONDS``)."""
        if self._taker is None:
            self._taker = asyncio.create_task(self._take())

    async def status(self, game_id: str) -> dict[str, Any] | None:
        """What the store says of a game's analysis (None: never asked); its result as
        the JSON text stored."""
        return await self.store.analysis(game_id, raw=True)

    async def request(self, game_id: str, group: str, account: str = "") -> dict[str, Any]:
        """Ask for a game's analysis: its state now (done: at once; else queued)."""
        game = await self.store.game(game_id)
        if game is None or (game["sandbox"] and self.table_open is not None
                            and await self.table_open(game["room"], game["table"])) or (
                game["board"] is not None and not game["board"]["complete"]):
            raise ProtocolError("not_found", Msg("no finished game {game!r} to analyse",
                                                 game=game_id))
        found = await self.store.analysis(game_id, raw=True)
        now = time.time()
        live_since = now - STALE_SECONDS
        if found is not None and (found["state"] == "done" or (
                found["state"] == "queued" and found["asker"] != AUTO) or (
                found["state"] == "running" and found["claimed"] >= live_since)):
            return found
        askers = await self.store.analyses_waiting(live_since)
        asked = [a for a in askers if a != AUTO]
        most = self.settings.analysis_queue_per_player
        mine = sum(1 for a in asked if account and a.partition("|")[2] == account)
        if mine >= most:
            raise ProtocolError("too_many_analyses", PluralMsg(
                "you have {n} analysis waiting: wait for it to finish",
                "you have {n} analyses waiting: wait for one to finish", n=mine),
                retry_after=5.0)
        if sum(1 for a in asked if a.partition("|")[0] == group) >= most:
            raise ProtocolError("too_many_analyses", PluralMsg(
                "{n} analysis is waiting for your address: wait for it to finish",
                "{n} analyses are waiting for your address: wait for one to finish",
                n=most), retry_after=5.0)
        if len(asked) >= self.settings.analysis_queue:
            raise ProtocolError("rate_limited", PluralMsg(
                "{n} game is being analysed: ask again in a minute",
                "{n} games are being analysed: ask again in a minute", n=len(asked)),
                retry_after=30.0)
        total = found["total"] if found is not None and found["state"] == "queued" else \
            await asyncio.to_thread(hands_in, game["record"])
        await self.store.analysis_queued(game_id, total, now, asker_of(group, account))
        self._wake.set()
        return {"game_id": game_id, "state": "queued", "done": 0, "total": total}

    def ranked_ended(self, game_id: str, record: dict[str, Any]) -> None:
        """A ranked game finished and is stored: analyse it unasked if the host said so."""
        if not self.settings.analysis_auto_ranked:
            return
        task = asyncio.create_task(self._auto(game_id, record))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _auto(self, game_id: str, record: dict[str, Any]) -> None:
        try:
            if await self.store.analysis(game_id, raw=True) is not None:
                return
            askers = await self.store.analyses_waiting(time.time() - STALE_SECONDS)
            if sum(1 for a in askers if a == AUTO) >= self.settings.analysis_queue:
                log.info("game %s not analysed: %d automatic analyses wait already",
                         game_id, self.settings.analysis_queue)
                return
            total = await asyncio.to_thread(hands_in, record)
            await self.store.analysis_queued(game_id, total, time.time(), AUTO)
            self._wake.set()
        except asyncio.CancelledError:
            raise
        except Exception:  # the store away a moment: this game goes unanalysed
            log.warning("game %s: could not queue its analysis", game_id, exc_info=True)

    async def _take(self) -> None:
        """Claim queued jobs while a worker is free here."""
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(POLL_SECONDS):
                    await self._wake.wait()
            self._wake.clear()
            try:
                while len(self.jobs) < self.settings.analysis_workers:
                    now = time.time()
                    game_id = await self.store.analysis_claim(self.node, now,
                                                              now - STALE_SECONDS)
                    if game_id is None:
                        break
                    self.jobs.add(game_id)
                    task = asyncio.create_task(self._run(game_id))
                    self._tasks.add(task)
                    task.add_done_callback(self._tasks.discard)
            except Exception:  # the store away a moment: look again at the next turn
                log.warning("could not take analyses from the store", exc_info=True)

    async def _run(self, game_id: str) -> None:
        loop = asyncio.get_running_loop()
        done = 0
        try:
            game = await self.store.game(game_id)
            found = await self.store.analysis(game_id, raw=True)
            if game is None or found is None:
                return
            seats, total = analysed_seats(game), found["total"]
            samples = self.settings.analysis_samples
            parts: list[bytes] = []
            for hand in range(total):
                parts.append(await loop.run_in_executor(
                    self.pool(), analyse_hand, game["record"], seats, samples, hand))
                done = hand + 1
                await self.store.analysis_progress(game_id, self.node, "running", done,
                                                   time.time())
            text, decisions, playouts = await loop.run_in_executor(
                self.pool(), finish, game["game"], samples, seats, parts)
            await self.store.analysis_progress(game_id, self.node, "done", total, time.time(),
                                               text)
            log.info("game %s analysed: %d decisions, %d play-outs", game_id, decisions,
                     playouts)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("game %s: the analysis failed", game_id)
            with contextlib.suppress(Exception):
                await self.store.analysis_progress(game_id, self.node, "failed", done,
                                                   time.time())
        finally:
            self.jobs.discard(game_id)
            self._wake.set()  # a worker is free: the next job

    async def close(self) -> None:
        """Stop taking jobs; the ones in hand stay claimed and are taken again elsewhere
        once their claim goes quiet."""
        await cancelled(self._taker)
        self._taker = None
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
