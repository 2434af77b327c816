"""A cluster broken on purpose under load: what each fault costs the players, and nothing
acknowledged lost (DESIGN section 11).

Every node is ``trickroom serve --store postgresql://... --cluster redis://...`` in its own
process on loopback (with ``--node-url``, its own socket's URL, where the server has the
option), against a PostgreSQL schema and a Redis key prefix made for the run
(:class:`Services`, removed at the end): the machine's own services, or, for faults that
stop them, a PostgreSQL and a Redis of the run's own (``tests/services.py``'s
:class:`PostgresServer` and :class:`RedisServer`, killed at the end).
:func:`fault_phase` plays ``tables`` tables of :mod:`bench.acked`'s players (connecting to
any live node they have not seen fail, following ``moved`` to their table's node) on
three nodes, and breaks the cluster in turn, a ``gap`` apart:

* **SIGKILL** (``kills`` times) the node owning the most tables, and start it again on the
  same port: failover is the time until every table the dead node owned has a new owner
  that has stored an action.
* **Redis restart** (``redis_restarts`` times, the run's own Redis down ``redis_down``
  seconds): how long any table paused (the longest stretch without an acknowledged
  action that spans the outage, less the table's normal gap between actions) and every
  error a player saw.
* **SIGSTOP** (``sigstops`` times) the busiest node for ``sigstop_s`` seconds (twice the
  lease), then SIGCONT: how long until every table it held moves again, counted from the
  pause; and every answer the woken node gave, after SIGCONT, to a request for a table
  another node had taken meanwhile that was neither ``moved`` nor an error
  (``answers_after_cont``: a stale owner serving what it lost), except an ``ok`` to an act
  sent before the pause (it may have been stored before the pause, at an epoch the store
  took, and only its answer held up: counted apart, as ``late_acks``).
* **PostgreSQL down** (``pg_outages`` times, the run's own PostgreSQL stopped at once,
  with SIGQUIT, so a commit in flight may be stored unanswered, for ``pg_down``
  seconds): the tables that made no acknowledged move within 2 s of PostgreSQL answering
  again (stuck), the longest wait for a table's next move after that, and the errors
  players saw, among them any without its request's id.

What players saw in each fault's window (from its start to the next fault) is read off
the players' timeline (:class:`bench.acked.Run`): errors by code, sockets a server
closed, reconnects. At the end every action a player saw acknowledged is checked
against PostgreSQL. ``bench.cluster`` runs it after its load levels;
``tests/server/hub/redis/test_faults.py`` runs it small.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import functools
import math
import os
import random
import secrets
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import redis.asyncio as aioredis
from rich.console import Console
from rich.table import Table

from bench.acked import (
    ACTIONS_SQL,
    Run,
    missing,
    port_of,
    report_stuck,
    table_runner,
    tally,
)
from bench.figures import pct
from bench.harness import HOST, ROOT, Server, free_port
from tests.services import PostgresServer, RedisServer

POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"
REDIS = "redis://127.0.0.1:6379/0"
# The bench's lease: half the default (3 s), for shorter runs; TRICKROOM_BENCH_LEASE=3 measures
# at the default (the targets are "lease + 1 s" at either).
LEASE = float(os.environ.get("TRICKROOM_BENCH_LEASE", "1.5"))
CLUSTER_SETTINGS = [f"lease_seconds = {LEASE}", "forward_seconds = 2.0"]
STUCK_AFTER = 2.0  # seconds after PostgreSQL is back within which every table must move


class Services:
    """This run's PostgreSQL schema and Redis key prefix, removed at the end; on the
    machine's services unless given others (a PostgreSQL or Redis of the run's own)."""

    def __init__(self, redis: str = REDIS, postgres: str = POSTGRES) -> None:
        self.schema = f"bench_{secrets.token_hex(4)}"
        self.prefix = f"trbench{secrets.token_hex(4)}"
        self.redis = redis
        self.postgres = postgres

    @property
    def store(self) -> str:
        return f"{self.postgres}?schema={self.schema}"

    def node_args(self, port: int | None = None) -> tuple[str, ...]:
        """A node's cluster arguments; given its port, also its ``--node-url`` (where
        ``trickroom serve`` has the option)."""
        args: tuple[str, ...] = ("--cluster", self.redis, "--cluster-prefix", self.prefix)
        if port is not None and node_url_option():
            args += ("--node-url", f"ws://{HOST}:{port}/ws")
        return args

    def node(self, config: Path) -> Server:
        """A node of this cluster, on a port of its own that it keeps across restarts."""
        port = free_port()
        return Server(self.store, config, port=port, extra=self.node_args(port))

    async def fetch(self, sql: str, *args: Any) -> list[Any]:
        conn = await asyncpg.connect(self.postgres, server_settings={"search_path": self.schema})
        try:
            return list(await conn.fetch(sql, *args))
        finally:
            await conn.close()

    async def clean(self) -> None:
        with contextlib.suppress(OSError, asyncpg.PostgresError):
            conn = await asyncpg.connect(self.postgres, timeout=10)
            try:
                await conn.execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')
            finally:
                await conn.close()
        with contextlib.suppress(OSError, aioredis.RedisError):
            async with aioredis.from_url(self.redis) as client:
                keys = [k async for k in client.scan_iter(match=f"{self.prefix}:*")]
                if keys:
                    await client.delete(*keys)


@functools.cache
def node_url_option() -> bool:
    """Whether ``trickroom serve`` takes ``--node-url`` (a node's own socket URL, where
    players of its tables are sent)."""
    done = subprocess.run([sys.executable, "-c", "from trickroom.server.cli import main; "
                           "main(['serve', '--help'])"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=False)
    return "--node-url" in done.stdout


async def owners(services: Services) -> dict[str, int]:
    """Every table's owning node, from the leases."""
    async with aioredis.from_url(services.redis) as client:
        keys = [k async for k in client.scan_iter(match=f"{services.prefix}:lease:*")]
        values = await client.mget(keys) if keys else []
    return {k.decode().rsplit(":", 1)[1]: int(v) for k, v in zip(keys, values, strict=True)
            if v is not None}


async def node_of_pid(services: Services, pid: int) -> int | None:
    async with aioredis.from_url(services.redis) as client:
        async for key in client.scan_iter(match=f"{services.prefix}:alive:*"):
            if await client.get(key) == str(pid).encode():
                return int(key.decode().rsplit(":", 1)[1])
    return None


async def games_held(services: Services, node: int) -> tuple[dict[str, str], dict[str, int]]:
    """The unfinished games of the tables ``node`` owns (read before it is killed: by
    the time it is started again its leases may have expired), with their action counts."""
    held = [t for t, owner in (await owners(services)).items() if owner == node]
    rows = await services.fetch("SELECT table_id, id FROM games WHERE finished IS NULL")
    games = {r["table_id"]: r["id"] for r in rows if r["table_id"] in held}
    return games, {g: await action_count(services, g) for g in games.values()}


async def failover_time(services: Services, dead: int, killed_at: float,
                        games: dict[str, str], counts: dict[str, int],
                        limit: float = 30.0) -> tuple[float, int]:
    """Seconds from the kill until every unfinished table of the dead node has another
    owner and has stored an action since the kill; and how many tables that was."""
    waiting = set(games)
    while waiting and time.perf_counter() - killed_at < limit:
        now_owners = await owners(services)
        for table_id in list(waiting):
            owner = now_owners.get(table_id)
            game = games[table_id]
            finished = await services.fetch("SELECT 1 FROM games WHERE id = $1 AND "
                                            "finished IS NOT NULL", game)
            if finished or (owner not in (None, dead)
                            and await action_count(services, game) > counts[game]):
                waiting.discard(table_id)
        if waiting:
            await asyncio.sleep(0.05)
    return time.perf_counter() - killed_at, len(games)


async def action_count(services: Services, game_id: str) -> int:
    rows = await services.fetch("SELECT COUNT(*) AS n FROM actions WHERE game_id = $1", game_id)
    return int(rows[0]["n"])


# -- what a fault cost, read off the players' timeline ------------------------------------


@dataclass
class Window:
    """One fault: from ``start`` until it is over (``end``: the service back, the node
    woken), watched until ``until`` (the next fault, or the stop)."""

    start: float
    end: float
    until: float = math.inf


@dataclass
class FaultFigures:
    """A kind of fault, over its runs."""

    fault: str
    windows: list[Window] = field(default_factory=list)
    recovery: list[float] = field(default_factory=list)  # a run's: s until every table moved
    pauses: list[float] = field(default_factory=list)  # a run's longest pause of a table
    errors: Counter[str] = field(default_factory=Counter)  # errors players saw, by code
    errors_without_id: int = 0
    closed: int = 0  # sockets a server closed
    reconnects: int = 0  # tables that reconnected
    stuck: int = 0  # PostgreSQL: tables with no move within STUCK_AFTER of its return
    after_back: list[float] = field(default_factory=list)  # PostgreSQL: s to a next move
    answers_after_cont: int = 0  # SIGSTOP: answers for lost tables, neither moved nor error
    late_acks: int = 0  # SIGSTOP: oks for lost tables to acts sent before the pause
    tables: int = 0  # tables playing when the faults began, over the runs
    unrecovered: int = 0  # tables that had not moved again when the watch ended

    @property
    def runs(self) -> int:
        return len(self.windows)

    def saw(self) -> str:
        """What the players saw, in words."""
        said = [f"{n} {code}" for code, n in self.errors.most_common()]
        if self.errors_without_id:
            said.append(f"{self.errors_without_id} without their request's id")
        if self.closed:
            said.append(f"{self.closed} socket(s) closed")
        if self.reconnects:
            said.append(f"{self.reconnects} table reconnect(s)")
        if self.answers_after_cont:
            said.append(f"{self.answers_after_cont} answer(s) from the stale node")
        if self.late_acks:
            said.append(f"{self.late_acks} late ok(s) to acts sent before the pause")
        if self.stuck:
            said.append(f"{self.stuck} table(s) stuck past {STUCK_AFTER:g} s")
        if self.unrecovered:
            said.append(f"{self.unrecovered} table(s) not moving again by the next fault")
        return ", ".join(said) or "nothing"

    def summary(self) -> dict[str, Any]:
        return {"runs": self.runs, "recovery_max": max(self.recovery, default=0.0),
                "pause_max": max(self.pauses, default=0.0), "errors": dict(self.errors),
                "errors_total": sum(self.errors.values()),
                "errors_without_id": self.errors_without_id, "closed": self.closed,
                "reconnects": self.reconnects, "stuck": self.stuck,
                "after_back_max": max(self.after_back, default=0.0),
                "answers_after_cont": self.answers_after_cont,
                "unrecovered": self.unrecovered, "late_acks": self.late_acks,
                "saw": self.saw()}


def collapse(times: list[float], within: float = 0.001) -> list[float]:
    """A table's action times with the copies of one action (each seat hears it) as one."""
    out: list[float] = []
    for t in times:
        if not out or t - out[-1] > within:
            out.append(t)
    return out


def longest_gap(times: list[float], start: float, end: float) -> tuple[float, float]:
    """The longest stretch without an action that overlaps ``[start, end]``, as (from, to);
    ``to`` is infinite when no action came after it."""
    i = bisect.bisect_right(times, start)
    best = (times[i - 1] if i else start, times[i] if i < len(times) else math.inf)
    while i < len(times) and times[i] < end:
        after = times[i + 1] if i + 1 < len(times) else math.inf
        if after - times[i] > best[1] - best[0]:
            best = (times[i], after)
        i += 1
    return best


def normal_gap(times: list[float], before: float, span: float = 3.0) -> float:
    """A table's median time between actions over the ``span`` seconds before ``before``."""
    lo, hi = bisect.bisect_left(times, before - span), bisect.bisect_left(times, before)
    diffs = [b - a for a, b in zip(times[lo:hi], times[lo + 1:hi], strict=False)]
    return statistics.median(diffs) if diffs else 0.0


def playing(run: Run, at: float, span: float = 3.0) -> list[int]:
    """The tables (by runner) that made a move in the ``span`` seconds before ``at`` and are
    not done."""
    out: list[int] = []
    for group, seats in enumerate(run.tables):
        if all(s.done.is_set() for s in seats):
            continue
        times = run.progress.get(group, [])
        i = bisect.bisect_left(times, at - span)
        if i < len(times) and times[i] < at:
            out.append(group)
    return out


def moves(run: Run, group: int) -> list[float]:
    """A table runner's action times so far, each action once."""
    return collapse(run.progress.get(group, []))


def seen(figures: FaultFigures, run: Run, window: Window) -> None:
    """Add what players saw from the fault's start to the end of its watch."""
    for error in run.errors_seen:
        if window.start <= error.at < window.until:
            figures.errors[error.code] += 1
            figures.errors_without_id += not error.has_id
    figures.closed += sum(window.start <= at < window.until for at, _ in run.closes)
    figures.reconnects += sum(window.start <= at < window.until for at, *_ in run.reconnects)


def pauses(figures: FaultFigures, run: Run, window: Window, tables: list[int],
           floor: float = 0.25, at_start: bool = False) -> None:
    """Each table's longest stretch without an action spanning the fault: the longest,
    less that table's normal gap, as the run's pause; and when the last table that paused
    (longer than ``floor`` and five normal gaps) moved again, from the fault's start, as its
    recovery (0 when none paused). ``at_start``: the recovery is that of the stretch the
    fault began in alone (a node woken from SIGSTOP is handed back its share of tables
    later, a short pause of its own, counted in the longest pause but not as recovery)."""
    longest, recovered = 0.0, 0.0
    for group in tables:
        times = moves(run, group)
        normal = normal_gap(times, window.start)
        begun, ended = longest_gap(times, window.start, window.end)
        if ended >= window.until:  # never moved again while watched
            ended = window.until
            figures.unrecovered += 1
        pause = ended - begun
        longest = max(longest, pause - normal)
        if at_start:
            begun, ended = longest_gap(times, window.start, window.start)
            ended = min(ended, window.until)
            pause = ended - begun
        if pause > max(floor, 5 * normal):
            recovered = max(recovered, ended - window.start)
            if os.environ.get("TRICKROOM_BENCH_DEBUG") and ended - window.start > 3.5:
                print("SLOW", group, f"begun={begun - window.start:+.2f}",
                      f"ended={ended - window.start:+.2f}",
                      [(round(at - window.start, 2), why) for at, why, g in run.reconnects
                       if g == group and window.start - 1 < at < ended + 1], flush=True)
    figures.pauses.append(longest)
    figures.recovery.append(recovered)
    figures.tables += len(tables)


# -- the faults ------------------------------------------------------------------------------


class Phase:
    """Three nodes with players, and the faults put to them."""

    def __init__(self, services: Services, config: Path, tables: int, gap: float,
                 seed: int, console: Console) -> None:
        self.services, self.gap, self.console = services, gap, console
        self.rng = random.Random(seed)
        self.nodes = [services.node(config) for _ in range(3)]
        self.run = Run()
        self.up = asyncio.Event()
        self.up.set()
        self.tables = tables
        self.runners: list[asyncio.Task[None]] = []
        self.figures: dict[str, FaultFigures] = {}
        self.open: list[tuple[FaultFigures, Window]] = []  # windows still being watched
        # Nodes told to stop, draining: a proxy checking /readyz sends no one there.
        self.draining: set[str] = set()

    def any_node(self) -> str:
        """A node for a (re)connecting player, as a load balancer would pick one: any that
        runs, except one the player saw fail a moment ago."""
        alive = [n for n in self.nodes if n.alive and n.url not in self.draining] or self.nodes
        trusted = [n for n in alive if not self.run.avoided(n.url)] or alive
        return self.rng.choice(trusted).url

    async def start(self) -> None:
        for node in self.nodes:
            node.start()
        await asyncio.sleep(LEASE)  # the nodes learn where each other is (at a renewal)
        self.runners = [asyncio.create_task(table_runner(self.any_node, self.up, self.run,
                                                         self.rng))
                        for _ in range(self.tables)]

    def fault(self, name: str) -> FaultFigures:
        return self.figures.setdefault(name, FaultFigures(name))

    def began(self, figures: FaultFigures, window: Window) -> None:
        """A fault begins: the one before is watched until now."""
        for _, earlier in self.open:
            earlier.until = min(earlier.until, window.start)
        self.open = [(figures, window)]
        figures.windows.append(window)

    async def numbers(self) -> list[int]:
        """The live nodes' numbers."""
        found = [await node_of_pid(self.services, n.pid) for n in self.nodes]
        return [n for n in found if n is not None]

    async def busiest(self) -> tuple[Server, int | None]:
        """The node owning the most tables, and its number."""
        held = Counter((await owners(self.services)).values())
        ids = {n.pid: await node_of_pid(self.services, n.pid) for n in self.nodes}
        victim = max(self.nodes, key=lambda n: (held.get(ids[n.pid] or -1, 0),
                                                self.rng.random()))
        return victim, ids[victim.pid]

    # -- each fault --------------------------------------------------------------------------

    async def kill(self, i: int) -> tuple[float, int]:
        """SIGKILL the busiest node and start it again; the failover and the tables it
        moved."""
        figures = self.fault("SIGKILL a node")
        victim, dead = await self.busiest()
        held_games, counts = (await games_held(self.services, dead) if dead is not None
                              else ({}, {}))
        killed_at = time.perf_counter()
        window = Window(time.monotonic(), time.monotonic())
        self.began(figures, window)
        victim.kill()
        victim.start()  # a new node on the same address: clients may come back to it
        window.end = time.monotonic()
        if dead is None:
            return 0.0, 0
        took, count = await failover_time(self.services, dead, killed_at, held_games, counts)
        if count:
            figures.recovery.append(took)
        self.console.print(f"  kill {i + 1}: node {dead} owned {count} unfinished table(s); "
                           f"all running again after {took:.2f} s")
        return took, count

    async def rolling_restart(self) -> None:
        """Restart every node in turn as a deploy does: SIGTERM (the node drains: it hands
        its tables to the others between moves), wait for it to be gone, start it again,
        wait ``gap``; the longest pause of any table over the whole deploy, and what the
        players saw."""
        figures = self.fault("rolling restart (SIGTERM, start, each node)")
        window = Window(time.monotonic(), 0.0)
        self.began(figures, window)
        tables = playing(self.run, window.start)
        for node in self.nodes:
            self.draining.add(node.url)
            await asyncio.to_thread(node.stop)  # SIGTERM: it drains, then exits
            await asyncio.to_thread(node.start)
            self.draining.discard(node.url)
            await asyncio.sleep(self.gap)
        window.end = time.monotonic()
        await asyncio.sleep(self.gap)  # watched a while after
        window.until = min(window.until, time.monotonic())
        pauses(figures, self.run, window, tables)
        if os.environ.get("TRICKROOM_BENCH_DEBUG"):
            for e in self.run.errors_seen:
                if window.start <= e.at < window.until:
                    print("ERR", f"{e.at - window.start:+.2f}", port_of(e.url), e.code,
                          e.request, e.table, e.message, flush=True)
        self.console.print(f"  rolling restart {figures.runs}: {len(self.nodes)} node(s) in "
                           f"{window.end - window.start:.1f} s; longest pause of a table "
                           f"{figures.pauses[-1]:.2f} s beyond its normal gap")

    async def scale_out(self, within: float = 90.0) -> None:
        """Scale in, then out, under load: the busiest node leaves (SIGTERM: it drains to
        the others), and after ``gap`` a new node joins on its port. Its recovery is the time
        from the join until no node holds more than 1.5 times the mean share of the tables
        and the newcomer at least half of it (the others hand it tables between moves: no
        kill, no lease waited out)."""
        figures = self.fault("scale out (a node joins under load)")
        victim, _ = await self.busiest()
        self.draining.add(victim.url)
        await asyncio.to_thread(victim.stop)
        self.draining.discard(victim.url)
        await asyncio.sleep(self.gap)
        window = Window(time.monotonic(), 0.0)
        self.began(figures, window)
        tables = playing(self.run, window.start)
        await asyncio.to_thread(victim.start)
        balanced, spread = math.inf, ""
        while time.monotonic() - window.start < within:
            with contextlib.suppress(OSError, aioredis.RedisError):
                held = Counter((await owners(self.services)).values())
                counts = [held.get(n, 0) for n in await self.numbers()]
                mean = sum(counts) / len(counts) if counts else 0.0
                spread = "/".join(map(str, sorted(counts, reverse=True)))
                # (1.5x alone holds the moment a third node joins empty: 15/15/0. The
                # newcomer must hold half its share too.)
                if (len(counts) == len(self.nodes) and mean and max(counts) <= 1.5 * mean
                        and min(counts) >= 0.5 * mean):
                    balanced = time.monotonic() - window.start
                    break
            await asyncio.sleep(0.25)
        window.end = time.monotonic()
        await asyncio.sleep(self.gap)
        window.until = min(window.until, time.monotonic())
        pauses(figures, self.run, window, tables)
        figures.recovery[-1] = balanced
        self.console.print(f"  scale out {figures.runs}: a node joined; no node over 1.5x the "
                           f"mean, none under half, after {balanced:.2f} s (tables {spread}); "
                           f"longest pause of a table {figures.pauses[-1]:.2f} s beyond its "
                           "normal gap")

    async def restart_redis(self, redis: RedisServer, down: float) -> None:
        figures = self.fault(f"Redis restart (down {down:g} s)")
        window = Window(time.monotonic(), 0.0)
        self.began(figures, window)
        tables = playing(self.run, window.start)
        redis.stop()
        await asyncio.sleep(down)
        await redis.start_in_loop()
        window.end = time.monotonic()
        await asyncio.sleep(self.gap)
        window.until = min(window.until, time.monotonic())
        pauses(figures, self.run, window, tables)
        self.console.print(f"  redis restart {figures.runs}: down {window.end - window.start:.2f}"
                           f" s; longest pause of a table {figures.pauses[-1]:.2f} s beyond "
                           f"its normal gap")

    async def sigstop(self, pause: float) -> None:
        """SIGSTOP the busiest node ``pause`` seconds, SIGCONT, and watch which of its tables
        other nodes take, and what it answers for those after waking."""
        figures = self.fault(f"SIGSTOP a node {pause:g} s, then SIGCONT")
        victim, number = await self.busiest()
        held = {t for t, owner in (await owners(self.services)).items() if owner == number}
        window = Window(time.monotonic(), 0.0)
        self.began(figures, window)
        tables = playing(self.run, window.start)
        taken: dict[str, float] = {}  # table -> when another node held it first
        # table -> when it was the woken node's again, rightly: the cluster's balancing
        # hands a node back its share of tables once it is up (less a margin: the owners
        # are read every 0.1 s, and the players rejoin the moment it is handed over)
        back: dict[str, float] = {}

        async def watch(until: float) -> None:
            while time.monotonic() < until:
                with contextlib.suppress(OSError, aioredis.RedisError):
                    now_owners = await owners(self.services)
                    for table in held - set(taken):
                        if now_owners.get(table) not in (None, number):
                            taken[table] = time.monotonic()
                    for table in set(taken) - set(back):
                        if now_owners.get(table) == number:
                            back[table] = time.monotonic() - 0.3
                await asyncio.sleep(0.1)

        os.kill(victim.pid, signal.SIGSTOP)
        try:
            await watch(window.start + pause)
        finally:
            os.kill(victim.pid, signal.SIGCONT)
        window.end = time.monotonic()
        await watch(window.end + max(self.gap, 2 * LEASE + 2))
        window.until = min(window.until, time.monotonic())
        port = port_of(victim.url)
        served = [a for a in self.run.answers
                  if a.at > window.end and port_of(a.url) == port and a.table in taken
                  and a.at > taken[a.table] and a.at < back.get(a.table, math.inf)
                  and a.request in ("act", "rejoin", "sit")
                  and a.kind not in ("moved", "error")]
        # An act sent before the pause may have been stored before it (at an epoch the
        # store then accepted), its ok held up by the pause: a late answer, and true. Any
        # other answer serves a table the node had lost.
        late = [a for a in served if a.request == "act" and a.sent_at < window.start]
        stale = [a for a in served if a not in late]
        if os.environ.get("TRICKROOM_BENCH_DEBUG"):
            for a in stale[:40]:
                print("STALE", a.table, a.request, a.kind, f"at={a.at - window.end:+.3f}",
                      f"sent={a.sent_at - window.end:+.3f}",
                      f"taken={taken[a.table] - window.start:+.3f}", flush=True)
        figures.answers_after_cont += len(stale)
        figures.late_acks += len(late)
        pauses(figures, self.run, window, tables, at_start=True)
        kinds = Counter(f"{a.request}: {a.kind}" for a in stale)
        self.console.print(f"  sigstop {figures.runs}: node {number} held {len(held)} table(s),"
                           f" {len(taken)} taken by other nodes"
                           + (f" (the last {max(taken.values()) - window.start:.2f} s after "
                              "the pause began)" if taken else "")
                           + "; every table moving again "
                           f"{figures.recovery[-1]:.2f} s after the pause began; "
                           f"{len(stale)} answer(s) for lost tables after SIGCONT"
                           + (f" ({', '.join(f'{n} {k}' for k, n in kinds.items())})"
                              if kinds else "")
                           + (f", and {len(late)} ok(s) to acts sent before the pause"
                              if late else ""))

    async def stop_postgres(self, postgres: PostgresServer, down: float) -> None:
        figures = self.fault(f"PostgreSQL down {down:g} s")
        window = Window(time.monotonic(), 0.0)
        self.began(figures, window)
        tables = playing(self.run, window.start)
        await asyncio.to_thread(postgres.stop, "immediate")  # a commit in flight: unanswered
        await asyncio.sleep(max(0.0, down - (time.monotonic() - window.start)))
        await postgres.start_in_loop()
        back = window.end = time.monotonic()
        await asyncio.sleep(max(self.gap, STUCK_AFTER + 2))
        window.until = min(window.until, time.monotonic())
        waits = []
        for group in tables:
            times = moves(self.run, group)
            i = bisect.bisect_right(times, back)
            wait = (times[i] if i < len(times) else window.until) - back
            waits.append(wait)
            figures.stuck += wait > STUCK_AFTER
        figures.after_back.append(max(waits, default=0.0))
        figures.recovery.append(back - window.start + max(waits, default=0.0))
        figures.tables += len(tables)
        self.console.print(f"  postgresql down {figures.runs}: {back - window.start:.2f} s; "
                           f"next move at most {figures.after_back[-1]:.2f} s after it was "
                           f"back; {sum(w > STUCK_AFTER for w in waits)} of {len(waits)} "
                           f"table(s) stuck past {STUCK_AFTER:g} s")

    async def finish(self) -> None:
        """The players finish their games; every window closes now."""
        stop = time.monotonic()
        for _, window in self.open:
            window.until = min(window.until, stop)
        self.run.stopping = True
        try:
            await asyncio.wait_for(asyncio.gather(*self.runners), 120)
        except TimeoutError:
            self.console.print("  some tables did not finish within 120 s:")
            report_stuck(self.run, self.nodes[0].port, self.console.print)

    def close(self) -> None:
        for r in self.runners:
            r.cancel()
        for node in self.nodes:
            if node.alive:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(node.pid, signal.SIGCONT)  # a node stopped when the run broke
            node.stop()


async def fault_phase(services: Services, config: Path, tables: int, kills: int,
                      gap: float, seed: int, console: Console,
                      restart_redis: Callable[[], None] | None = None, *,
                      redis: RedisServer | None = None, redis_restarts: int = 0,
                      redis_down: float = 2.0, sigstops: int = 0, sigstop_s: float = 2 * LEASE,
                      postgres: PostgresServer | None = None, pg_outages: int = 0,
                      pg_down: float = 11.0, rolling_restarts: int = 0,
                      scale_outs: int = 0) -> dict[str, Any]:
    """Kill the busiest node ``kills`` times under load (or, given ``restart_redis``, call it
    that many times instead, to restart the cluster's Redis); then restart every node in
    turn ``rolling_restarts`` times (a deploy: each drains at SIGTERM); restart ``redis`` (the
    cluster's own) ``redis_restarts`` times, SIGSTOP the busiest node ``sigstops`` times
    and stop ``postgres`` (the cluster's own) ``pg_outages`` times; see the module's
    docstring. Returns the figures, with each kind of fault's under ``faults``."""
    phase = Phase(services, config, tables, gap, seed, console)
    failovers: list[float] = []
    moved = 0
    try:
        await phase.start()
        await asyncio.sleep(2.0)
        for i in range(kills):
            await asyncio.sleep(gap)
            if restart_redis is not None:
                restart_redis()
                console.print(f"  redis restart {i + 1}")
                continue
            took, count = await phase.kill(i)
            moved += count
            if count:
                failovers.append(took)
        for _ in range(rolling_restarts):
            await asyncio.sleep(gap)
            await phase.rolling_restart()
        for _ in range(scale_outs):
            await asyncio.sleep(gap)
            await phase.scale_out()
        if redis is not None:
            for _ in range(redis_restarts):
                await asyncio.sleep(gap)
                await phase.restart_redis(redis, redis_down)
        for _ in range(sigstops):
            await asyncio.sleep(gap)
            await phase.sigstop(sigstop_s)
        if postgres is not None:
            for _ in range(pg_outages):
                await asyncio.sleep(gap)
                await phase.stop_postgres(postgres, pg_down)
        await phase.finish()
    finally:
        phase.close()
    run = phase.run
    for figures in phase.figures.values():
        for window in figures.windows:
            seen(figures, run, window)
    actions = tally(await services.fetch(ACTIONS_SQL))
    games = {r["id"] for r in await services.fetch("SELECT id FROM games")}
    finished = {r["id"] for r in await services.fetch(
        "SELECT id FROM games WHERE finished IS NOT NULL")}
    lost = missing(run.acked, actions, console.print)
    for error in [e for e in run.errors_seen if not e.has_id][:5]:
        console.print(f"  an error without its request's id, from {error.url}: {error.code}: "
                      f"{error.message}")
    kinds = Counter((e.code, e.request, e.message) for e in run.errors_seen)
    for (code, request, message), count in kinds.most_common(8):  # what players were told
        console.print(f"  {count} x {request} refused: {code}: {message}")
    return {"kills": kills, "failover_max": max(failovers, default=0.0),
            "failover_p50": pct(failovers, 0.5) if failovers else 0.0, "moved": moved,
            "acked_lost": lost, "errors": dict(run.errors), "stalls": run.stalls,
            "unfinished": len(games - finished), "games": len(games),
            "acked": run.acked_count, "redirects": run.moved, "pings_lost": run.pings_lost,
            "errors_without_id": sum(not e.has_id for e in run.errors_seen),
            "faults": {name: f.summary() for name, f in phase.figures.items()}}


def fault_table(out: dict[str, Any]) -> Table:
    """The fault table: each fault, how long until the tables moved again, what players
    saw."""
    table = Table(title="faults: 3 nodes under load, players reconnecting and rejoining")
    for col in ("fault", "runs", "recovery (s until every table moved again)",
                "longest pause of a table (s)", "what players saw"):
        table.add_column(col)
    for name, f in out["faults"].items():
        pause = "-" if name.startswith(("SIGKILL", "PostgreSQL")) else f"{f['pause_max']:.2f}"
        recovery = ("at least " if f["unrecovered"] else "") + f"{f['recovery_max']:.2f}"
        if name.startswith("PostgreSQL"):
            recovery += f" ({f['after_back_max']:.2f} after it was back)"
        table.add_row(name, str(f["runs"]), recovery, pause, f["saw"])
    return table
