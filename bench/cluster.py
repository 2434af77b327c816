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

Where the server sends players to their table's node (``moved``), the bots follow: the
seats that sat through another node then play on the owner too, and "ok p50 other node"
is theirs (the hop is then what following cost them, about nothing).

**Equal load.** CPU per action is not a constant of the code: a process that is
part idle wakes for fewer events at a time, and pays its loop's turn, its group
commit and its writes over fewer actions. On this machine the nodes share two
cores with PostgreSQL, Redis and the bots, so no node runs at full load, while the
single-process baseline does. So each cluster of two nodes or more has its work run
again on one process *at that cluster's own rate* (every bot's actions paced by one
shared :class:`Pacer`): the cluster's CPU per action over that one is the price of
the hops alone, at equal load (``nodes2_cpu_ratio_paced``, ``nodes3_cpu_ratio_paced``).
And one node's share (its ``--tables``/n tables at the cluster's rate over n) runs on one
process too: the cluster over that (``nodesN_cpu_ratio_node_share``) is what being a node
costs beyond the load each of its processes carries.

**Both paced.** The clusters above run as fast as their bots make them, and saturate the
machine: the loop of each node is preempted for the others, PostgreSQL and the bots, and
loses its caches each time ("preempted/action"), which the paced process beside it is
spared. So each cluster of two nodes or more runs again paced to ``--both-paced`` of its
own rate, and one process at that same rate: the cluster over that process
(``nodesN_cpu_ratio_both_paced``) compares the two at one load with neither saturating
the machine. Each configuration also shows its loops' wakes an action ("loop
wakes/action": a process that sleeps between actions pays for each wake).

**Faults**, on three nodes with a PostgreSQL and a Redis of the run's own (started in
temporary directories and on free ports, killed at the end; the machine's own are never
stopped): ``--fault-tables`` tables of bots that reconnect and rejoin (:mod:`bench.acked`'s,
connecting to any live node), and every ``--gap`` seconds a fault (:mod:`bench.faults`):
``--kills`` SIGKILLs of the node owning the most tables (started again), then
``--redis-restarts`` restarts of Redis (down ``--redis-down`` seconds), ``--sigstops``
SIGSTOPs of the busiest node for ``--sigstop-seconds`` (twice the lease) then SIGCONT,
and ``--pg-outages`` stops of PostgreSQL for ``--pg-down`` seconds. Per fault: how long
until every table moved again, how long any table paused, what players saw (errors by
code, errors without their request's id, sockets cut), the tables stuck after PostgreSQL
came back, and the answers a woken node gave for tables it had lost. At the end every
action a bot saw acknowledged is checked against PostgreSQL, as ``bench.crash`` checks
SQLite. Last line::

    cluster nodes=<n> cpu_us_per_action=<a> single_cpu_us_per_action=<b> hop_p50_ms=<h>
        failover_s=<f> acked_lost=<m> errors=<e> single_paced_cpu_us_per_action=<c>
        nodes3_cpu_ratio_paced=<r3> redis_restart_errors=<re>
        redis_restart_max_pause_s=<rp> pg_outage_stuck_tables=<ps>
        sigstop_answers_after_cont=<sa> nodes2_cpu_ratio_paced=<r2> sigstop_recovery_s=<sr>
        pg_outage_max_wait_s=<pw> errors_without_id=<ei> nodes2_cpu_ratio_node_share=<s2>
        nodes3_cpu_ratio_node_share=<s3> watcher_hop_p50_ms=<w> rolling_restart_errors=<rr>
        rolling_restart_max_pause_s=<rm> scale_out_balanced_s=<sb>
        nodes2_cpu_ratio_both_paced=<b2> nodes3_cpu_ratio_both_paced=<b3>

(``hop_p50_ms``: how much later a player on another node has its act answered, now that
a player is sent to its table's node, about nothing; ``watcher_hop_p50_ms``: how much later
an event reaches a watcher on another node (relayed over Redis) than one on the table's;
``single_paced_cpu_us_per_action``: one process paced to the largest cluster's rate;
``errors``: every error of the load levels and of the faults, the players' retries of an
action refused while PostgreSQL was away among them; a figure of a fault not run is nan.)

Run: ``python -m bench.cluster``; ``--quick`` for a short run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from websockets.asyncio.client import ClientConnection, connect

from bench.faults import CLUSTER_SETTINGS, LEASE, Services, fault_phase, fault_table
from bench.figures import command_line, pct, ratio
from bench.harness import CpuClock, Server, cpu_seconds, raise_fd_limit, room_file, switches
from bench.players import Bot, Pacer, Seated, Stats, TableTrack, close_all, seat_table
from tests.services import PostgresServer, RedisServer


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
    watch_hop: float = float("nan")  # ms: an event's later arrival at another node's watcher
    # The servers' event loops' wakes an action: a node at part load wakes for fewer
    # actions each, and a wake costs CPU of its own (why a part-loaded process pays more).
    wakes_per_action: float = float("nan")
    # ... and preemptions an action: many busy processes on few cores (a saturated machine)
    preempted_per_action: float = float("nan")

    @property
    def hop(self) -> float:
        return self.remote_ok_p50 - self.local_ok_p50


async def watch_arrivals(url: str, table: str, seen: dict[tuple[str, int], float],
                         ready: asyncio.Event) -> None:
    """A guest watching ``table`` through ``url``: when each of its events arrived."""
    async with connect(url, max_size=2**22, compression=None) as ws:
        await ws.send(json.dumps({"type": "guest", "id": 1}))
        await ws.send(json.dumps({"type": "watch", "table": table, "id": 2}))
        async for frame in ws:
            now = time.perf_counter()
            message = json.loads(frame)
            if message.get("id") == 2:
                ready.set()
            elif message.get("type") == "event" and message.get("table") == table:
                seen[(table, message["seq"])] = now


def watch_hop(local: dict[tuple[str, int], float],
              remote: dict[tuple[str, int], float]) -> float:
    """p50 of how much later an event reached a watcher on another node than one on the
    table's own, in ms."""
    gaps = [remote[k] - local[k] for k in local.keys() & remote.keys()]
    return pct(gaps, 0.5) * 1e3 if gaps else math.nan


async def load_level(label: str, servers: list[Server], tables: int, duration: float,
                     seed: int, think: float = 0.0, rate: float | None = None,
                     watchers: bool = False) -> Figures:
    """One configuration under load; ``rate``: every table's actions together paced to at
    most that many a second (None: as fast as the servers answer). Table ``k`` is made on
    node ``k mod n``; its seats 2 and 3 join through the next node (and are sent to the
    table's own, ``moved``). ``watchers``: each table is also watched from its own node and
    from the next, and the events' later arrival at the second is the hop."""
    pacer = Pacer(rate) if rate else None
    for server in servers:
        server.start()
    if len(servers) > 1:
        await asyncio.sleep(LEASE)  # the nodes learn where each other is (at a renewal)
    stats = Stats()
    oks: dict[bool, list[float]] = {False: [], True: []}  # by whether the seat is remote
    rng = random.Random(seed)
    bots: list[Seated] = []
    urls = [s.url for s in servers]

    def url_of(k: int, seat: int) -> str:
        return urls[(k + (seat >= 2)) % len(urls)]

    def make(ws: ClientConnection, seat: int, track: TableTrack) -> Bot:
        remote = seat >= 2 and len(urls) > 1
        return Bot(ws, seat, track, stats, rng, think, pacer=pacer, oks=oks[remote])

    try:
        sem = asyncio.Semaphore(20)

        async def one(k: int) -> None:
            async with sem:
                bots.extend(await seat_table(lambda seat: url_of(k, seat), make))

        await asyncio.gather(*(one(k) for k in range(tables)))
        arrivals: tuple[dict[tuple[str, int], float], ...] = ({}, {})
        watching: list[asyncio.Task[None]] = []
        if watchers and len(urls) > 1:
            owners = {bot.track.id: bot.url for bot, _ in bots if bot.seat == 0}
            for table, owner in sorted(owners.items()):  # seat 0 made it on its own node
                k = urls.index(owner)
                for side, url in enumerate((owner, urls[(k + 1) % len(urls)])):
                    ready = asyncio.Event()
                    watching.append(asyncio.create_task(
                        watch_arrivals(url, table, arrivals[side], ready)))
                    await asyncio.wait_for(ready.wait(), 10)
        await asyncio.sleep(min(2.0, duration / 4))  # warm up
        pg0, redis0 = service_cpu("postgres"), service_cpu("redis-server")
        cpu, t0 = CpuClock(*(s.pid for s in servers)), time.perf_counter()
        switches0 = [switches(s.pid) for s in servers]
        stats.measuring = True
        await asyncio.sleep(duration)
        stats.measuring = False
        wall = time.perf_counter() - t0
        acked = len(oks[False]) + len(oks[True])
        cpu_us = cpu.us_per(acked)
        switched = [(v1 - v0, n1 - n0) for (v0, n0), (v1, n1)
                    in zip(switches0, (switches(s.pid) for s in servers), strict=True)]
        wakes = sum(v for v, _ in switched) / max(1, acked)
        preempted = sum(n for _, n in switched) / max(1, acked)
        pg1, redis1 = service_cpu("postgres"), service_cpu("redis-server")
        if not all(server.alive for server in servers):
            stats.error("node_died")
        hop_watch = watch_hop(*arrivals)
    finally:
        for task in watching:
            task.cancel()
        await close_all(bots)
        for server in servers:
            server.stop()
    return Figures(label, len(servers) if servers[0].extra else 1, watch_hop=hop_watch,
                   wakes_per_action=wakes, preempted_per_action=preempted,
                   actions_per_s=stats.actions / wall, p50=pct(stats.latencies, 0.5) * 1e3,
                   p99=pct(stats.latencies, 0.99) * 1e3, cpu_us=cpu_us,
                   postgres_us=(pg1 - pg0) * 1e6 / max(1, acked),
                   redis_us=(redis1 - redis0) * 1e6 / max(1, acked),
                   local_ok_p50=pct(oks[False], 0.5) * 1e3,
                   remote_ok_p50=pct(oks[True], 0.5) * 1e3, errors=dict(stats.errors))


async def main(args: argparse.Namespace) -> int:
    raise_fd_limit()
    console = Console(width=150)
    levels: list[Figures] = []
    clusters: dict[int, Figures] = {}  # by node count
    paced: dict[int, Figures] = {}  # one process at that cluster's rate
    share: dict[int, Figures] = {}  # one process carrying one node's tables at its rate
    both_cluster: dict[int, Figures] = {}  # the cluster paced below its own rate ...
    both_single: dict[int, Figures] = {}  # ... and one process at that same rate
    if args.faults_only:
        return await faults_only(args, console)
    with tempfile.TemporaryDirectory(prefix="trickroom-cluster-") as tmp:
        config = room_file(Path(tmp), "cluster", settings=CLUSTER_SETTINGS)
        console.print(f"cluster: {args.tables} Spades tables of 4 instant bots, "
                      f"{args.duration:g} s a configuration; each on a PostgreSQL schema and "
                      "a Redis key prefix of its own, removed after")
        single = Server(Path(tmp) / "single.sqlite3", config)
        levels.append(await load_level("1 process, SQLite", [single], args.tables,
                                       args.duration, args.seed))
        for n in [0, *args.nodes]:  # 0: one process on PostgreSQL, no cluster (the baseline)
            services = Services()
            try:
                servers = [services.node(config) for _ in range(n)] or [
                    Server(services.store, config)]
                label = f"{n} node(s), PostgreSQL + Redis" if n else "1 process, PostgreSQL"
                levels.append(await load_level(label, servers, args.tables, args.duration,
                                               args.seed))
                if n:
                    clusters[n] = levels[-1]
            finally:
                await services.clean()
        # Each cluster's work on one process, at the cluster's own pace: the price of the
        # hops alone, with both at the same load (a process at part load batches less per
        # turn of its loop, and pays more CPU per action for it).
        for n, cluster in sorted(clusters.items()):
            if n < 2:
                continue
            services = Services()
            try:
                paced[n] = await load_level(
                    f"1 process, PostgreSQL, paced to the {n} nodes' "
                    f"{cluster.actions_per_s:.0f} actions/s", [Server(services.store, config)],
                    args.tables, args.duration, args.seed, rate=cluster.actions_per_s)
                levels.append(paced[n])
            finally:
                await services.clean()
            # One node's share on one process: its tables, at its rate. The cluster over
            # this is what being a node costs beyond the load each process carries.
            services = Services()
            try:
                share[n] = await load_level(
                    f"1 process, PostgreSQL, one node's share: {args.tables // n} tables "
                    f"paced to {cluster.actions_per_s / n:.0f} actions/s",
                    [Server(services.store, config)], max(1, args.tables // n),
                    args.duration, args.seed, rate=cluster.actions_per_s / n)
                levels.append(share[n])
            finally:
                await services.clean()
        # Both paced: the cluster above runs as fast as its bots can make it, on a machine
        # it then saturates (its nodes, PostgreSQL, Redis and the bots on two cores), and
        # is compared with one process paced to its rate, which does not saturate it. So
        # each cluster runs again paced to ``--both-paced`` of its own rate, and one
        # process at that same rate: the two at one load, neither saturating the machine.
        for n, cluster in sorted(clusters.items()):
            if n < 2 or args.both_paced <= 0:
                continue
            rate = cluster.actions_per_s * args.both_paced
            runs: list[Figures] = []
            for nodes in (n, 0):
                services = Services()
                try:
                    servers = [services.node(config) for _ in range(nodes)] or [
                        Server(services.store, config)]
                    runs.append(await load_level(
                        (f"{nodes} nodes" if nodes else "1 process, PostgreSQL")
                        + f", paced to {rate:.0f} actions/s ({args.both_paced:.0%} of the "
                        f"{n} nodes' own)", servers, args.tables, args.duration, args.seed,
                        rate=rate))
                    levels.append(runs[-1])
                finally:
                    await services.clean()
            both_cluster[n], both_single[n] = runs
        top = clusters[max(clusters)] if clusters else levels[1]  # the largest cluster
        # The hop itself, on a machine that is not saturated: players who take a moment.
        services = Services()
        try:
            servers = [services.node(config) for _ in range(2)]
            hop = await load_level(f"2 nodes, {args.hop_tables} tables, players think "
                                   f"{args.hop_think * 1e3:.0f} ms", servers, args.hop_tables,
                                   args.duration, args.seed, think=args.hop_think,
                                   watchers=True)
            levels.append(hop)
        finally:
            await services.clean()
        print_levels(console, levels)
        fault = await faults(args, config, console)
    console.print(f"faults: {fault['kills']} kills moved {fault['moved']} table(s); failover "
                  f"p50 {fault['failover_p50']:.2f} s, max {fault['failover_max']:.2f} s; "
                  f"{fault['acked']} acknowledged actions checked, {fault['acked_lost']} lost;"
                  f" games {fault['games']}, unfinished {fault['unfinished']}; tables that "
                  f"heard no action for 5 s and rejoined {fault['stalls']}, that found a "
                  f"server not answering {fault['pings_lost']}; moved redirects followed "
                  f"{fault['redirects']}; act errors {fault['errors'] or '-'}")
    console.print(fault_table(fault))
    base = levels[1]  # one process on the cluster's store: what the cluster adds is the rest
    errors = sum(sum(lv.errors.values()) for lv in levels) + sum(
        f["errors_total"] for f in fault["faults"].values())
    top_paced = paced.get(top.nodes)
    by_kind = {name.split(" ", 1)[0]: f for name, f in fault["faults"].items()}

    def of(kind: str, key: str, form: str = ".2f") -> str:
        return format(by_kind[kind][key], form) if kind in by_kind else "nan"

    def paced_ratio(n: int, against: dict[int, Figures] = paced,
                    of_cluster: dict[int, Figures] = clusters) -> str:
        if n not in of_cluster or n not in against:
            return "nan"
        return f"{ratio(of_cluster[n].cpu_us, against[n].cpu_us):.2f}"

    print(f"cluster nodes={top.nodes} cpu_us_per_action={top.cpu_us:.0f} "
          f"single_cpu_us_per_action={base.cpu_us:.0f} hop_p50_ms={hop.hop:.2f} "
          f"failover_s={fault['failover_max']:.2f} acked_lost={fault['acked_lost']} "
          f"errors={errors} single_paced_cpu_us_per_action="
          f"{top_paced.cpu_us if top_paced else math.nan:.0f} "
          f"nodes3_cpu_ratio_paced={paced_ratio(3)} "
          f"redis_restart_errors={of('Redis', 'errors_total', 'd')} "
          f"redis_restart_max_pause_s={of('Redis', 'pause_max')} "
          f"pg_outage_stuck_tables={of('PostgreSQL', 'stuck', 'd')} "
          f"sigstop_answers_after_cont={of('SIGSTOP', 'answers_after_cont', 'd')} "
          f"nodes2_cpu_ratio_paced={paced_ratio(2)} "
          f"sigstop_recovery_s={of('SIGSTOP', 'recovery_max')} "
          f"pg_outage_max_wait_s={of('PostgreSQL', 'after_back_max')} "
          f"errors_without_id={fault['errors_without_id']} "
          f"nodes2_cpu_ratio_node_share={paced_ratio(2, share)} "
          f"nodes3_cpu_ratio_node_share={paced_ratio(3, share)} "
          f"watcher_hop_p50_ms={hop.watch_hop:.2f} "
          f"rolling_restart_errors={of('rolling', 'errors_total', 'd')} "
          f"rolling_restart_max_pause_s={of('rolling', 'pause_max')} "
          f"scale_out_balanced_s={of('scale', 'recovery_max')} "
          f"nodes2_cpu_ratio_both_paced={paced_ratio(2, both_single, both_cluster)} "
          f"nodes3_cpu_ratio_both_paced={paced_ratio(3, both_single, both_cluster)}",
          flush=True)
    return 0 if fault["acked_lost"] == 0 else 1


async def faults_only(args: argparse.Namespace, console: Console) -> int:
    """The fault phase alone (``--faults-only``): its table and a last line of its keys."""
    with tempfile.TemporaryDirectory(prefix="trickroom-cluster-") as tmp:
        config = room_file(Path(tmp), "cluster", settings=CLUSTER_SETTINGS)
        fault = await faults(args, config, console)
    console.print(fault_table(fault))
    by_kind = {name.split(" ", 1)[0]: f for name, f in fault["faults"].items()}

    def of(kind: str, key: str, form: str = ".2f") -> str:
        return format(by_kind[kind][key], form) if kind in by_kind else "nan"

    print(f"faults lease_s={LEASE:g} failover_s={fault['failover_max']:.2f} "
          f"acked_lost={fault['acked_lost']} "
          f"redis_restart_errors={of('Redis', 'errors_total', 'd')} "
          f"redis_restart_max_pause_s={of('Redis', 'pause_max')} "
          f"pg_outage_stuck_tables={of('PostgreSQL', 'stuck', 'd')} "
          f"pg_outage_max_wait_s={of('PostgreSQL', 'after_back_max')} "
          f"sigstop_answers_after_cont={of('SIGSTOP', 'answers_after_cont', 'd')} "
          f"sigstop_recovery_s={of('SIGSTOP', 'recovery_max')} "
          f"errors_without_id={fault['errors_without_id']} "
          f"rolling_restart_errors={of('rolling', 'errors_total', 'd')} "
          f"rolling_restart_max_pause_s={of('rolling', 'pause_max')} "
          f"scale_out_balanced_s={of('scale', 'recovery_max')}", flush=True)
    return 0 if fault["acked_lost"] == 0 else 1


async def faults(args: argparse.Namespace, config: Path, console: Console) -> dict[str, Any]:
    """The fault phase, on a PostgreSQL and a Redis of its own (to stop and start),
    removed after however it ends."""
    redis = RedisServer()
    postgres = PostgresServer()
    try:
        redis.start()
        postgres.start()  # (in this thread: a server dies with the thread that started it)
        services = Services(redis=redis.url, postgres=postgres.url())
        console.print(f"faults: 3 nodes, {args.fault_tables} tables; a PostgreSQL (port "
                      f"{postgres.port}) and a Redis (port {redis.port}) of the run's own; "
                      f"lease {LEASE:g} s")
        try:
            return await fault_phase(
                services, config, args.fault_tables, args.kills, args.gap, args.seed, console,
                redis=redis, redis_restarts=args.redis_restarts, redis_down=args.redis_down,
                sigstops=args.sigstops, sigstop_s=args.sigstop_seconds, postgres=postgres,
                rolling_restarts=args.rolling_restarts, scale_outs=args.scale_outs,
                pg_outages=args.pg_outages, pg_down=args.pg_down)
        finally:
            if not postgres.running:
                with contextlib.suppress(RuntimeError):
                    await postgres.start_in_loop()
            await services.clean()
    finally:
        redis.stop()
        postgres.close()


def print_levels(console: Console, levels: list[Figures]) -> None:
    table = Table(title="load: instant bots, half of each table's players joining through "
                        "another node")
    for col in ("configuration", "actions/s", "p50 ms", "p99 ms", "server CPU µs/action",
                "PostgreSQL µs/action", "Redis µs/action", "loop wakes/action",
                "preempted/action", "ok p50 owner",
                "ok p50 other node", "hop ms", "watcher hop ms", "errors"):
        table.add_column(col)
    for lv in levels:
        table.add_row(lv.label, f"{lv.actions_per_s:.0f}", f"{lv.p50:.2f}", f"{lv.p99:.2f}",
                      f"{lv.cpu_us:.0f}", f"{lv.postgres_us:.0f}", f"{lv.redis_us:.0f}",
                      f"{lv.wakes_per_action:.2f}", f"{lv.preempted_per_action:.2f}",
                      f"{lv.local_ok_p50:.2f}",
                      "-" if lv.nodes < 2 else f"{lv.remote_ok_p50:.2f}",
                      "-" if lv.nodes < 2 else f"{lv.hop:+.2f}",
                      "-" if math.isnan(lv.watch_hop) else f"{lv.watch_hop:+.2f}",
                      str(sum(lv.errors.values())))
    console.print(table)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = command_line(__doc__)
    parser.add_argument("--nodes", default="1,2,3",
                        help="cluster sizes to load, comma-separated (default: 1,2,3)")
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--duration", type=float, default=8.0)
    parser.add_argument("--fault-tables", type=int, default=12)
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--gap", type=float, default=4.0, help="seconds between faults")
    parser.add_argument("--rolling-restarts", type=int, default=2,
                        help="deploys: every node restarted in turn, each draining first")
    parser.add_argument("--scale-outs", type=int, default=1,
                        help="a node leaves, then joins under load: seconds until balanced")
    parser.add_argument("--redis-restarts", type=int, default=3)
    parser.add_argument("--redis-down", type=float, default=2.0,
                        help="seconds Redis stays down at a restart (default: 2)")
    parser.add_argument("--sigstops", type=int, default=3)
    parser.add_argument("--sigstop-seconds", type=float, default=2 * LEASE,
                        help=f"seconds a node stays stopped (default: twice the lease, "
                             f"{2 * LEASE:g})")
    parser.add_argument("--pg-outages", type=int, default=2)
    parser.add_argument("--pg-down", type=float, default=11.0,
                        help="seconds PostgreSQL stays down (default: 11)")
    parser.add_argument("--both-paced", type=float, default=0.7,
                        help="each cluster again, and one process, both paced to this share "
                             "of the cluster's own rate (default: 0.7; 0: not run)")
    parser.add_argument("--hop-tables", type=int, default=4,
                        help="tables of the hop's own measure, below saturation (default: 4)")
    parser.add_argument("--hop-think", type=float, default=0.05,
                        help="seconds its players think (default: 0.05)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--faults-only", action="store_true",
                        help="the fault phase alone (TRICKROOM_BENCH_LEASE=3 runs it at the "
                             "default lease)")
    parser.add_argument("--quick", action="store_true",
                        help="a short run: 2 and 3 nodes, 6 tables, 3 s; faults on 4 tables: "
                             "2 kills, one of each other fault, PostgreSQL down 5 s")
    args = parser.parse_args(argv)
    args.nodes = [int(n) for n in args.nodes.split(",")]
    if args.quick:
        args.nodes, args.tables, args.duration = [2, 3], 6, 3.0
        args.fault_tables, args.kills, args.gap = 4, 2, 2.5
        args.redis_restarts = args.sigstops = args.pg_outages = args.rolling_restarts = 1
        args.scale_outs = 1
        args.pg_down = 5.0
    return args


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))
