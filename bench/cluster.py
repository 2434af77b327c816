"""The cluster: nodes on PostgreSQL and Redis, under load and while nodes die (DESIGN section 11).

Every node is ``trickroom serve --store postgresql://... --cluster redis://...`` in its
own process on loopback, against the machine's real PostgreSQL (a schema made for the
run) and Redis (a key prefix made for the run); both are removed at the end.

**Load**, for each configuration (one process without a cluster on SQLite, then on
PostgreSQL: the single-process baseline; then clusters of 1, 2 and 3 nodes):
``--tables`` Spades tables of four socket bots that act the moment they are prompted
(the load bench's bots). Table *k* is created on node *k mod n*, which owns
it; seats 0 and 1 play through that node, seats 2 and 3 through the next one, so half
of each table's players pay the hop through Redis (with one node, nobody does). Per
configuration: actions acknowledged a second, p50/p99 of an action's fan-out (sent
until all four seats have its event), server CPU per action (every node's CPU
together), and the p50 of an ``act``'s reply for a player on the owner and on another
node: their difference is the hop; and the CPU PostgreSQL and Redis spent per action
(every process of theirs on the machine, for the capacity plan). Instant bots saturate
the machine, and a saturated hop measures queues; the hop's own figure comes from two
nodes below saturation
(``--hop-tables`` tables whose players think ``--hop-think`` seconds).

**Equal load.** CPU per action is not a constant of the code: a process that is
part idle wakes for fewer events at a time, and pays its loop's turn, its group
commit and its writes over fewer actions. On this machine the nodes share two
cores with PostgreSQL, Redis and the bots, so no node runs at full load, while the
single-process baseline does. One more configuration runs the largest cluster's
work on one process *at the cluster's own rate* (every bot's actions paced by one
shared :class:`Pacer`): the cluster's CPU per action over this one is the price of
the hops alone, at equal load.

**Faults**, on three nodes: ``--fault-tables`` tables of bots that reconnect and rejoin
(``bench/crash.py``'s, connecting to any live node), and every ``--gap`` seconds
(``--kills`` times) the node owning the most tables killed with SIGKILL and started
again. For each kill: how long until every table the dead node owned has a new owner
that has stored an action (failover),
and at the end every action a bot saw acknowledged is checked against PostgreSQL, as
``bench/crash.py`` checks SQLite. Last line::

    cluster nodes=<n> cpu_us_per_action=<a> single_cpu_us_per_action=<b> hop_p50_ms=<h>
        failover_s=<f> acked_lost=<m> errors=<e> single_paced_cpu_us_per_action=<c>

``--quick`` is the short run the test uses.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import secrets
import signal
import sys
import tempfile
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from crash import ACTIONS_SQL, Run, losses, table_runner, tally
from load import (
    LOAD_CONFIG,
    Bot,
    Server,
    Stats,
    TableTrack,
    close_all,
    connect,
    cpu_seconds,
    pct,
    raise_fd_limit,
    with_settings,
)

POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"
REDIS = "redis://127.0.0.1:6379/0"
CLUSTER_SETTINGS = ["lease_seconds = 1.5", "forward_seconds = 2.0"]


class Pacer:
    """Every bot of a run acts through one pacer: at most ``rate`` actions a second over
    all tables, evenly spaced. A single process paced to a cluster's own rate does the
    cluster's work at the cluster's pace, so the two are compared at equal load."""

    def __init__(self, rate: float) -> None:
        self.gap = 1.0 / rate
        self.next = 0.0

    async def take(self) -> None:
        now = time.perf_counter()
        slot = max(now, self.next)
        self.next = slot + self.gap
        if slot > now:
            await asyncio.sleep(slot - now)


class HopBot(Bot):
    """A load bot that also times its own ``act`` until the server's ``ok``: the hop shows
    as the difference between players on the table's node and players elsewhere."""

    def __init__(self, *args: Any, remote: bool, hops: dict[bool, list[float]],
                 pacer: Pacer | None = None) -> None:
        super().__init__(*args)
        self.remote, self.hops, self.pacer = remote, hops, pacer
        self.sent_at: dict[int, float] = {}

    async def act(self, action: dict[str, Any]) -> None:
        if self.pacer is not None:
            await self.pacer.take()
        rid = next(self.ids)
        self.track.sent[self.seat] = self.sent_at[rid] = time.perf_counter()
        self.track.seen[self.seat] = 0
        with contextlib.suppress(Exception):
            await self.ws.send(json.dumps({"type": "act", "table": self.track.id,
                                           "action": action, "id": rid}))

    async def handle(self, msg: dict[str, Any]) -> None:
        sent = self.sent_at.pop(msg.get("id"), None) if msg.get("type") == "ok" else None
        if sent is not None and self.stats.measuring:
            self.hops[self.remote].append(time.perf_counter() - sent)
        await super().handle(msg)


async def open_hop_table(urls: list[str], k: int, stats: Stats, rng: random.Random,
                         hops: dict[bool, list[float]], think: float = 0.0,
                         pacer: Pacer | None = None) -> list[tuple[Bot, asyncio.Task[None]]]:
    """Table ``k``: made on node ``k mod n``; seats 2 and 3 play through the next node."""
    track = TableTrack()
    bots: list[tuple[Bot, asyncio.Task[None]]] = []
    for seat in range(4):
        remote = seat >= 2 and len(urls) > 1
        url = urls[(k + (1 if remote else 0)) % len(urls)]
        ws = await connect(url, max_size=2**22, compression=None, open_timeout=60)
        bot = HopBot(ws, seat, track, stats, rng, think, remote=remote, hops=hops,
                     pacer=pacer)
        bots.append((bot, asyncio.create_task(bot.run())))
        await bot.request({"type": "guest", "name": f"b{seat}"})
    reply = await bots[0][0].request({"type": "create_table", "room": "spades", "rules": {}})
    track.id = reply["table"]["id"]
    for bot, _ in bots:
        seated = await bot.request({"type": "sit", "table": track.id, "seat": bot.seat})
        bot.token = seated["seat_token"]
    return bots


def service_cpu(name: str) -> float:
    """CPU seconds of every process of a service on this machine (``postgres``, whose
    backends are processes of their own, or ``redis-server``): its cost per action."""
    total = 0.0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError):
            if (proc / "comm").read_text().strip() == name:
                total += cpu_seconds(int(proc.name))
    return total


@dataclass
class Figures:
    label: str
    nodes: int
    actions_per_s: float = 0.0
    p50: float = float("nan")
    p99: float = float("nan")
    cpu_us: float = float("nan")
    postgres_us: float = float("nan")
    redis_us: float = float("nan")
    local_ok_p50: float = float("nan")
    remote_ok_p50: float = float("nan")
    errors: dict[str, int] = field(default_factory=dict)

    @property
    def hop(self) -> float:
        return self.remote_ok_p50 - self.local_ok_p50


class Services:
    """This run's PostgreSQL schema and Redis key prefix, removed at the end."""

    def __init__(self, redis: str = REDIS) -> None:
        self.schema = f"bench_{secrets.token_hex(4)}"
        self.prefix = f"trbench{secrets.token_hex(4)}"
        self.redis = redis

    @property
    def store(self) -> str:
        return f"{POSTGRES}?schema={self.schema}"

    def node_args(self) -> tuple[str, ...]:
        return ("--cluster", self.redis, "--cluster-prefix", self.prefix)

    async def fetch(self, sql: str, *args: Any) -> list[Any]:
        conn = await asyncpg.connect(POSTGRES, server_settings={"search_path": self.schema})
        try:
            return list(await conn.fetch(sql, *args))
        finally:
            await conn.close()

    async def clean(self) -> None:
        conn = await asyncpg.connect(POSTGRES)
        try:
            await conn.execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')
        finally:
            await conn.close()
        client = aioredis.from_url(self.redis)
        try:
            keys = [k async for k in client.scan_iter(match=f"{self.prefix}:*")]
            if keys:
                await client.delete(*keys)
        finally:
            await client.aclose()


async def load_level(label: str, servers: list[Server], tables: int, duration: float,
                     seed: int, think: float = 0.0, rate: float | None = None) -> Figures:
    """One configuration under load; ``rate``: every table's actions together paced to at
    most that many a second (None: as fast as the servers answer)."""
    pacer = Pacer(rate) if rate else None
    for server in servers:
        server.start()
    stats = Stats()
    hops: dict[bool, list[float]] = {False: [], True: []}
    rng = random.Random(seed)
    bots: list[tuple[Bot, asyncio.Task[None]]] = []
    urls = [s.url for s in servers]
    try:
        sem = asyncio.Semaphore(20)

        async def one(k: int) -> None:
            async with sem:
                bots.extend(await open_hop_table(urls, k, stats, rng, hops, think, pacer))

        await asyncio.gather(*(one(k) for k in range(tables)))
        await asyncio.sleep(min(2.0, duration / 4))  # warm up
        pg0, redis0 = service_cpu("postgres"), service_cpu("redis-server")
        cpu0, t0 = sum(cpu_seconds(s.pid) for s in servers), time.perf_counter()
        stats.measuring = True
        await asyncio.sleep(duration)
        stats.measuring = False
        wall = time.perf_counter() - t0
        cpu1 = sum(cpu_seconds(s.pid) for s in servers)
        pg1, redis1 = service_cpu("postgres"), service_cpu("redis-server")
        for server in servers:
            if server.proc is not None and server.proc.poll() is not None:
                stats.error("node_died")
    finally:
        await close_all(bots)
        for server in servers:
            server.stop()
    acked = len(hops[False]) + len(hops[True])
    return Figures(label, len(servers) if servers[0].extra else 1,
                   actions_per_s=stats.actions / wall, p50=pct(stats.latencies, 0.5) * 1e3,
                   p99=pct(stats.latencies, 0.99) * 1e3,
                   cpu_us=(cpu1 - cpu0) * 1e6 / max(1, acked),
                   postgres_us=(pg1 - pg0) * 1e6 / max(1, acked),
                   redis_us=(redis1 - redis0) * 1e6 / max(1, acked),
                   local_ok_p50=pct(hops[False], 0.5) * 1e3,
                   remote_ok_p50=pct(hops[True], 0.5) * 1e3, errors=dict(stats.errors))


async def owners(services: Services) -> dict[str, int]:
    """Every table's owning node, from the leases."""
    client = aioredis.from_url(services.redis)
    try:
        keys = [k async for k in client.scan_iter(match=f"{services.prefix}:lease:*")]
        values = await client.mget(keys) if keys else []
        return {k.decode().rsplit(":", 1)[1]: int(v) for k, v in zip(keys, values, strict=True)
                if v is not None}
    finally:
        await client.aclose()


async def node_of_pid(services: Services, pid: int) -> int | None:
    client = aioredis.from_url(services.redis)
    try:
        async for key in client.scan_iter(match=f"{services.prefix}:alive:*"):
            if await client.get(key) == str(pid).encode():
                return int(key.decode().rsplit(":", 1)[1])
        return None
    finally:
        await client.aclose()


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


async def fault_phase(services: Services, config: Path, tables: int, kills: int,
                      gap: float, seed: int, console: Console,
                      restart_redis: Callable[[], None] | None = None) -> dict[str, Any]:
    """Kill the busiest node ``kills`` times under load; or, given ``restart_redis``, restart
    the cluster's Redis that many times instead (nothing kept: every lease, queue and
    subscription is gone)."""
    rng = random.Random(seed)
    nodes = [Server(services.store, config, extra=services.node_args()) for _ in range(3)]
    for node in nodes:
        node.start()
    run = Run()
    up = asyncio.Event()
    up.set()

    def any_node() -> str:
        live = [n for n in nodes if n.proc is not None and n.proc.poll() is None]
        return rng.choice(live or nodes).url

    runners = [asyncio.create_task(table_runner(any_node, up, run, rng))
               for _ in range(tables)]
    failovers: list[float] = []
    moved = 0
    try:
        await asyncio.sleep(2.0)
        for i in range(kills):
            await asyncio.sleep(gap)
            if restart_redis is not None:
                restart_redis()
                console.print(f"  redis restart {i + 1}")
                continue
            # The node that owns the most tables: every kill moves some.
            held = Counter((await owners(services)).values())
            ids = {n.pid: await node_of_pid(services, n.pid) for n in nodes}
            victim = max(nodes, key=lambda n: (held.get(ids[n.pid] or -1, 0), rng.random()))
            dead = ids[victim.pid]
            games, counts = await games_held(services, dead) if dead is not None else ({}, {})
            killed_at = time.perf_counter()
            victim.proc.send_signal(signal.SIGKILL)  # type: ignore[union-attr]
            victim.proc.wait()  # type: ignore[union-attr]
            victim.start()  # a new node on the same address: clients may come back to it
            if dead is None:
                continue
            took, count = await failover_time(services, dead, killed_at, games, counts)
            moved += count
            if count:
                failovers.append(took)
            console.print(f"  kill {i + 1}: node {dead} owned {count} unfinished table(s); "
                          f"all running again after {took:.2f} s")
        run.stopping = True
        try:
            await asyncio.wait_for(asyncio.gather(*runners), 120)
        except TimeoutError:
            console.print("  some tables did not finish within 120 s:")
            for seats in run.tables:
                if not all(s.done.is_set() for s in seats):
                    console.print(f"    table {seats[0].table}: games "
                                  f"{[s.game_id for s in seats]}, last seq "
                                  f"{[s.last_seq for s in seats]}, answered "
                                  f"{[s.answered for s in seats]}, done "
                                  f"{[s.done.is_set() for s in seats]}, sockets "
                                  f"{[getattr(s.ws, 'state', None) for s in seats]}")
                    for seat in seats:
                        if seat.task is not None and not seat.task.done():
                            seat.task.print_stack(limit=12)
            for r in runners:
                if not r.done():
                    r.print_stack(limit=8)

                    with contextlib.suppress(Exception):
                        import urllib.request
                        listed = json.loads(urllib.request.urlopen(
                            f"http://127.0.0.1:{nodes[0].port}/api/tables?room=spades",
                            timeout=5).read())["tables"]
                        here = [t for t in listed if t["id"] == seats[0].table]
                        console.print(f"    server: {here}")
    finally:
        for r in runners:
            r.cancel()
        for node in nodes:
            node.stop()
    actions = tally(await services.fetch(ACTIONS_SQL))
    games = {r["id"] for r in await services.fetch("SELECT id FROM games")}
    finished = {r["id"] for r in await services.fetch(
        "SELECT id FROM games WHERE finished IS NOT NULL")}
    lost = 0
    for game, key, n, have in losses(run.acked, actions):
        lost += n - have
        console.print(f"  lost: game {game} {key}: acknowledged {n}, stored {have}")
    return {"kills": kills, "failover_max": max(failovers, default=0.0),
            "failover_p50": pct(failovers, 0.5) if failovers else 0.0, "moved": moved,
            "acked_lost": lost, "errors": dict(run.errors), "stalls": run.stalls,
            "unfinished": len(games - finished), "games": len(games),
            "acked": sum(sum(c.values()) for c in run.acked.values())}


async def main(args: argparse.Namespace) -> int:
    raise_fd_limit()
    console = Console(width=150)
    levels: list[Figures] = []
    with tempfile.TemporaryDirectory(prefix="trickroom-cluster-") as tmp:
        config = Path(tmp) / "cluster.toml"
        config.write_text(with_settings(LOAD_CONFIG, CLUSTER_SETTINGS))
        console.print(f"cluster: {args.tables} Spades tables of 4 instant bots, "
                      f"{args.duration:g} s a configuration; each on a PostgreSQL schema and "
                      "a Redis key prefix of its own, removed after")
        single = Server(Path(tmp) / "single.sqlite3", config)
        levels.append(await load_level("1 process, SQLite", [single], args.tables,
                                       args.duration, args.seed))
        for n in [0, *args.nodes]:  # 0: one process on PostgreSQL, no cluster (the baseline)
            services = Services()
            try:
                servers = [Server(services.store, config, extra=services.node_args())
                           for _ in range(n)] or [Server(services.store, config)]
                label = f"{n} node(s), PostgreSQL + Redis" if n else "1 process, PostgreSQL"
                levels.append(await load_level(label, servers, args.tables, args.duration,
                                               args.seed))
            finally:
                await services.clean()
        # The largest cluster's work on one process, at the cluster's own pace: the price
        # of the hops alone, with both at the same load (a process at part load batches
        # less per turn of its loop, and pays more CPU per action for it).
        top = levels[-1]  # the largest cluster under load
        services = Services()
        try:
            paced = await load_level(f"1 process, PostgreSQL, paced to the {top.nodes} nodes' "
                                     f"{top.actions_per_s:.0f} actions/s",
                                     [Server(services.store, config)], args.tables,
                                     args.duration, args.seed, rate=top.actions_per_s)
            levels.append(paced)
        finally:
            await services.clean()
        # The hop itself, on a machine that is not saturated: players who take a moment.
        services = Services()
        try:
            servers = [Server(services.store, config, extra=services.node_args())
                       for _ in range(2)]
            hop = await load_level(f"2 nodes, {args.hop_tables} tables, players think "
                                   f"{args.hop_think * 1e3:.0f} ms", servers, args.hop_tables,
                                   args.duration, args.seed, think=args.hop_think)
            levels.append(hop)
        finally:
            await services.clean()
        print_levels(console, levels)
        services = Services()
        try:
            fault = await fault_phase(services, config, args.fault_tables, args.kills,
                                      args.gap, args.seed, console)
        finally:
            await services.clean()
    console.print(f"faults: {fault['kills']} kills moved {fault['moved']} table(s); failover "
                  f"p50 {fault['failover_p50']:.2f} s, max {fault['failover_max']:.2f} s; "
                  f"{fault['acked']} acknowledged actions checked, {fault['acked_lost']} lost;"
                  f" games {fault['games']}, unfinished {fault['unfinished']}; tables whose "
                  f"bots heard nothing for 5 s and rejoined {fault['stalls']}; act errors "
                  f"{fault['errors'] or '-'}")
    base = levels[1]  # one process on the cluster's store: what the cluster adds is the rest
    errors = sum(sum(lv.errors.values()) for lv in levels) + sum(fault["errors"].values())
    print(f"cluster nodes={top.nodes} cpu_us_per_action={top.cpu_us:.0f} "
          f"single_cpu_us_per_action={base.cpu_us:.0f} hop_p50_ms={hop.hop:.2f} "
          f"failover_s={fault['failover_max']:.2f} acked_lost={fault['acked_lost']} "
          f"errors={errors} single_paced_cpu_us_per_action={paced.cpu_us:.0f}", flush=True)
    return 0 if fault["acked_lost"] == 0 else 1


def print_levels(console: Console, levels: list[Figures]) -> None:
    table = Table(title="load: instant bots, half of each table's players on another node")
    for col in ("configuration", "actions/s", "p50 ms", "p99 ms", "server CPU µs/action",
                "PostgreSQL µs/action", "Redis µs/action", "ok p50 owner",
                "ok p50 other node", "hop ms", "errors"):
        table.add_column(col)
    for lv in levels:
        table.add_row(lv.label, f"{lv.actions_per_s:.0f}", f"{lv.p50:.2f}", f"{lv.p99:.2f}",
                      f"{lv.cpu_us:.0f}", f"{lv.postgres_us:.0f}", f"{lv.redis_us:.0f}",
                      f"{lv.local_ok_p50:.2f}",
                      "-" if lv.nodes < 2 else f"{lv.remote_ok_p50:.2f}",
                      "-" if lv.nodes < 2 else f"{lv.hop:+.2f}",
                      str(sum(lv.errors.values())))
    console.print(table)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", default="1,2,3",
                        help="cluster sizes to load, comma-separated (default: 1,2,3)")
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--duration", type=float, default=8.0)
    parser.add_argument("--fault-tables", type=int, default=12)
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--gap", type=float, default=4.0, help="seconds between kills")
    parser.add_argument("--hop-tables", type=int, default=4,
                        help="tables of the hop's own measure, below saturation (default: 4)")
    parser.add_argument("--hop-think", type=float, default=0.05,
                        help="seconds its players think (default: 0.05)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true",
                        help="a short run: 2 nodes, 6 tables, 3 s, 2 kills")
    args = parser.parse_args(argv)
    args.nodes = [int(n) for n in args.nodes.split(",")]
    if args.quick:
        args.nodes, args.tables, args.duration = [2], 6, 3.0
        args.fault_tables, args.kills, args.gap = 4, 2, 2.5
    return args


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))
