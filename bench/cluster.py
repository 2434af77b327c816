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
(:mod:`bench.acked`'s, connecting to any live node), and every ``--gap`` seconds
(``--kills`` times) the node owning the most tables killed with SIGKILL and started
again (:mod:`bench.faults`). For each kill: how long until every table the dead node
owned has a new owner that has stored an action (failover), and at the end every action
a bot saw acknowledged is checked against PostgreSQL, as ``bench.crash`` checks SQLite.
Last line::

    cluster nodes=<n> cpu_us_per_action=<a> single_cpu_us_per_action=<b> hop_p50_ms=<h>
        failover_s=<f> acked_lost=<m> errors=<e> single_paced_cpu_us_per_action=<c>

Run: ``python -m bench.cluster``; ``--quick`` for a short run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.table import Table
from websockets.asyncio.client import ClientConnection

from bench.bots import Bot, Pacer, Seated, Stats, TableTrack, close_all, seat_table
from bench.faults import CLUSTER_SETTINGS, Services, fault_phase
from bench.figures import command_line, pct
from bench.harness import CpuClock, Server, cpu_seconds, raise_fd_limit, room_file


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


async def load_level(label: str, servers: list[Server], tables: int, duration: float,
                     seed: int, think: float = 0.0, rate: float | None = None) -> Figures:
    """One configuration under load; ``rate``: every table's actions together paced to at
    most that many a second (None: as fast as the servers answer). Table ``k`` is made on
    node ``k mod n``; its seats 2 and 3 play through the next node."""
    pacer = Pacer(rate) if rate else None
    for server in servers:
        server.start()
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
        await asyncio.sleep(min(2.0, duration / 4))  # warm up
        pg0, redis0 = service_cpu("postgres"), service_cpu("redis-server")
        cpu, t0 = CpuClock(*(s.pid for s in servers)), time.perf_counter()
        stats.measuring = True
        await asyncio.sleep(duration)
        stats.measuring = False
        wall = time.perf_counter() - t0
        acked = len(oks[False]) + len(oks[True])
        cpu_us = cpu.us_per(acked)
        pg1, redis1 = service_cpu("postgres"), service_cpu("redis-server")
        if not all(server.alive for server in servers):
            stats.error("node_died")
    finally:
        await close_all(bots)
        for server in servers:
            server.stop()
    return Figures(label, len(servers) if servers[0].extra else 1,
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
    parser = command_line(__doc__)
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
