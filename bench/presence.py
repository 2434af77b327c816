"""Presence: how soon a followed player's change reaches their followers, and what a follow
costs the server (issue 35).

**Latency.** ``--players`` registered players, each followed by ``--followers-each``
registered followers (each follower follows ``--follows`` of the players, then asks
``friends``, which subscribes its socket to their ``presence`` pushes). Every player
then goes through the four changes a friends panel shows, ``--rounds`` times: they
log in on a new socket, sit at their table, stand, and close their socket. A change's
latency is the time from its request leaving the player's client (the socket's
close, for the last) to the matching ``presence`` reaching each follower's client
(the moment its bytes came off the socket: :mod:`bench.stamps`); a player's next
change waits for every follower to have the last one (or ``--timeout``). The table
also gives the p99 from the player's own answer (``welcome``, ``ok``, the close
handshake done: the server has made the change) to the push: what presence itself adds
to the change. The changes of all players together are paced to ``--rate`` a second
(50: a server of some thousands online, each changing every minute or so), and the
phase stops after ``--seconds`` whatever is left. Run on one process (SQLite), then
on a cluster of two nodes on the machine's PostgreSQL and Redis (a schema and a key
prefix of the run's own, removed after: :class:`bench.faults.Services`), the followers
on one node and the players on the other, so every push crosses Redis.

**Memory.** A fresh process; ``--edges`` / ``--edge-follows`` registered players, each
following the next ``--edge-follows`` of them (stored, not yet subscribed), all
connected and logged in: the baseline. Then each asks ``friends``, subscribing to
``--edges`` follower edges in all (each one entry in the server's two indexes). The
server's RSS (``VmRSS``, as :mod:`bench.load` measures a connection) after, less
before, over the edges. A few accounts more subscribe before the baseline, so that
first-use allocations are not counted as the edges'.

Servers run in their own processes on 127.0.0.1 (:mod:`bench.harness`), with registration
and password hashing out of the way (the cheapest hash, no per-address caps). A
presence that never came counts as ``--timeout`` in the figures, and the run exits 1.
Ends with::

    presence p50_ms=<x> p99_ms=<y> cluster_p99_ms=<z> kib_per_edge=<k>

(one process's p50 and p99, the cluster's p99: nan where not run, with ``--no-cluster`` or
when PostgreSQL or Redis does not answer).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import math
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from rich.console import Console
from rich.progress import Progress
from rich.table import Table
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bench.faults import CLUSTER_SETTINGS, LEASE, Services
from bench.figures import command_line, pct
from bench.harness import Server, raise_fd_limit, request, room_file, rss_kib
from bench.players import Pacer
from bench.stamps import StampedConnection, arrival
from tests.services import missing

# Accounts made as fast as the bench asks, hashed as cheaply as can be: the figures are
# presence's, not registration's (whose costs bench.abuse measures).
SETTINGS = [
    'password_profile = "cheapest"',
    "registrations_per_hour_per_address = 1000000",
    "password_check_burst_per_address = 1000000",
    "password_checks_per_second_per_address = 1000000.0",
    "password_queue = 1000000",
    "password_queue_per_address = 1000000",
    "table_idle_seconds = 86400",  # a player's table waits for them through the run
]
PASSWORD = "presence-bench"
_ids = itertools.count(1)
KINDS = ("online", "sit", "stand", "offline")  # a player's changes, in turn


def expected(kind: str, message: dict[str, Any]) -> bool:
    """Whether a ``presence`` message is the one ``kind`` of change should push."""
    if kind == "sit":
        return bool(message["online"]) and message["at"] is not None
    if kind == "offline":
        return not message["online"]
    return bool(message["online"]) and message["at"] is None  # online, stand


T = TypeVar("T")


async def bounded(items: Iterable[T], work: Callable[[T], Awaitable[None]],
                  at_once: int = 50) -> None:
    """``work`` on every item, ``at_once`` at a time."""
    sem = asyncio.Semaphore(at_once)

    async def one(item: T) -> None:
        async with sem:
            await work(item)

    await asyncio.gather(*(one(item) for item in items))


async def registered(url: str, name: str) -> ClientConnection:
    """A socket registered as ``name``."""
    ws = await connect(url, compression=None, open_timeout=60, max_size=2**22)
    await request(ws, {"type": "register", "name": name, "password": PASSWORD})
    return ws


class Follower:
    """A follower's socket, read from its opening (so that every frame's arrival stamp is
    taken off in turn): it answers its own requests, and hands each awaited presence
    push's arrival to whoever awaits it."""

    def __init__(self, ws: ClientConnection, name: str = "") -> None:
        self.ws, self.name = ws, name
        self.replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.waiting: dict[str, tuple[str, asyncio.Future[float]]] = {}  # name -> kind, arrival
        self.unawaited = 0  # pushes no change was waiting for (a late one, or a stray)
        self.reader = asyncio.create_task(self.listen())

    @classmethod
    async def registered(cls, url: str, name: str) -> Follower:
        ws = await connect(url, compression=None, open_timeout=60, max_size=2**22,
                           create_connection=StampedConnection)
        follower = cls(ws, name)
        await follower.request({"type": "register", "name": name, "password": PASSWORD})
        return follower

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        rid = next(_ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.replies[rid] = future
        await self.ws.send(json.dumps({**message, "id": rid}))
        reply = await asyncio.wait_for(future, 60)
        if reply["type"] == "error":
            raise RuntimeError(f"{message['type']}: {reply['message']}")
        return reply

    def expect(self, name: str, kind: str) -> asyncio.Future[float]:
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.waiting[name] = (kind, future)

        def done(_: asyncio.Future[float]) -> None:
            # (Run after the caller may have awaited the next change: leave that one be.)
            if self.waiting.get(name, ("", None))[1] is future:
                del self.waiting[name]

        future.add_done_callback(done)
        return future

    async def listen(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for frame in self.ws:
                at = arrival(self.ws)
                message = json.loads(frame)
                reply = self.replies.pop(message.get("id"), None)
                if reply is not None:
                    reply.set_result(message)
                if message.get("type") != "presence":
                    continue
                kind, future = self.waiting.get(message["name"], ("", None))
                if future is not None and not future.done() and expected(kind, message):
                    future.set_result(at)
                else:
                    self.unawaited += 1
                    if os.environ.get("TRICKROOM_BENCH_DEBUG"):
                        print("UNAWAITED", kind, message, flush=True)


@dataclass
class Player:
    name: str
    url: str
    table: str = ""
    ws: ClientConnection | None = None
    followers: list[Follower] = field(default_factory=list)

    async def change(self, kind: str, timeout: float) -> tuple[list[float], list[float], int]:
        """Make one change; the ms from its request until each follower had its push, the
        ms from the player's own answer (the server done with the change) until then (0 if
        the push came first), and how many never came within ``timeout`` seconds."""
        if kind == "online":
            self.ws = await connect(self.url, compression=None, open_timeout=60,
                                    max_size=2**22)
        ws = self.ws
        assert ws is not None
        waits = [f.expect(self.name, kind) for f in self.followers]
        sent = time.perf_counter()
        if kind == "online":
            await request(ws, {"type": "login", "name": self.name, "password": PASSWORD})
        elif kind in ("sit", "stand"):
            await request(ws, {"type": kind, "table": self.table})
        else:
            await ws.close()
        answered = time.perf_counter()
        done, missing = await asyncio.wait(waits, timeout=timeout)
        for future in missing:
            future.cancel()
        if missing and os.environ.get("TRICKROOM_BENCH_DEBUG"):
            late = [f.name for f, w in zip(self.followers, waits, strict=True) if w in missing]
            print("MISSED", self.name, kind, "by", late, flush=True)
        return ([(f.result() - sent) * 1e3 for f in done],
                [max(0.0, f.result() - answered) * 1e3 for f in done], len(missing))


@dataclass
class Latencies:
    """One configuration's changes."""

    label: str
    ms: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KINDS})
    after_answer: list[float] = field(default_factory=list)  # from the player's own answer
    missed: Counter[str] = field(default_factory=Counter)
    unawaited: int = 0
    changes: int = 0
    seconds: float = 0.0
    players: int = 0
    edges: int = 0

    def every(self, timeout: float) -> list[float]:
        """Every follower's latency, a presence that never came as ``timeout``."""
        return [v for values in self.ms.values() for v in values] + \
            [timeout * 1e3] * sum(self.missed.values())


async def latency_phase(label: str, player_url: str, follower_url: str,
                        args: argparse.Namespace, progress: Progress) -> Latencies:
    """Players on ``player_url``, their followers on ``follower_url``: every change's
    latency (see the module's docstring)."""
    out = Latencies(label, players=args.players)
    players = [Player(f"p{i}", player_url) for i in range(args.players)]
    count = math.ceil(args.players * args.followers_each / args.follows)
    follows = {j: [players[(j * args.follows + k) % len(players)]
                   for k in range(min(args.follows, len(players)))] for j in range(count)}
    followers: list[Follower] = []
    setup = progress.add_task(f"{label}: accounts and follows", total=len(players) + count)

    async def player(p: Player) -> None:
        ws = await registered(player_url, p.name)
        p.table = (await request(ws, {"type": "create_table", "room": "spades"}))["table"]["id"]
        await ws.close()
        progress.advance(setup)

    async def follower(j: int) -> None:
        f = await Follower.registered(follower_url, f"f{j}")
        followers.append(f)
        for p in follows[j]:
            await f.request({"type": "follow", "name": p.name})
        await f.request({"type": "friends"})
        for p in follows[j]:
            p.followers.append(f)
        progress.advance(setup)

    try:
        await bounded(players, player)
        await bounded(range(count), follower)
        out.edges = sum(len(p.followers) for p in players)
        pacer = Pacer(args.rate)
        total = len(players) * len(KINDS) * args.rounds
        task = progress.add_task(f"{label}: changes", total=total)
        started = time.perf_counter()
        deadline = started + args.seconds

        async def run(p: Player) -> None:
            for _ in range(args.rounds):
                for kind in KINDS:
                    if time.perf_counter() > deadline:
                        return
                    await pacer.take()
                    ms, after, missed = await p.change(kind, args.timeout)
                    out.ms[kind].extend(ms)
                    out.after_answer.extend(after)
                    out.missed[kind] += missed
                    out.changes += 1
                    progress.advance(task)

        await asyncio.gather(*(run(p) for p in players))
        out.seconds = time.perf_counter() - started
        out.unawaited = sum(f.unawaited for f in followers)
    finally:
        sockets = [f.ws for f in followers] + [p.ws for p in players if p.ws is not None]
        await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
        for f in followers:
            f.reader.cancel()
    return out


async def one_process(args: argparse.Namespace, workdir: Path,
                      progress: Progress) -> Latencies:
    config = room_file(workdir, "presence", settings=SETTINGS)
    with Server(workdir / "presence.sqlite3", config) as server:
        out = await latency_phase("1 process, SQLite", server.url, server.url, args, progress)
        if not server.alive:
            raise RuntimeError("the server died")
    return out


async def two_nodes(args: argparse.Namespace, workdir: Path, progress: Progress) -> Latencies:
    config = room_file(workdir, "cluster", settings=SETTINGS + CLUSTER_SETTINGS)
    services = Services()
    nodes = [services.node(config) for _ in range(2)]
    try:
        for node in nodes:
            node.start()
        await asyncio.sleep(LEASE)  # the nodes learn where each other is (at a renewal)
        out = await latency_phase("2 nodes, PostgreSQL + Redis", nodes[1].url, nodes[0].url,
                                  args, progress)
        if not all(node.alive for node in nodes):
            raise RuntimeError("a node died")
    finally:
        for node in nodes:
            node.stop()
        await services.clean()
    return out


@dataclass
class Memory:
    edges: int
    connections: int
    before_kib: int
    after_kib: int

    @property
    def kib_per_edge(self) -> float:
        return (self.after_kib - self.before_kib) / max(1, self.edges)


async def edge_memory(edges: int, each: int, workdir: Path, progress: Progress,
                      warm: int = 10, settle: float = 1.0) -> Memory:
    """Server RSS per follower edge: ``edges`` / ``each`` logged-in players each following
    ``each`` others, measured before and after they subscribe (``friends``)."""
    count = max(each + 1, math.ceil(edges / each))
    names = [f"m{i}" for i in range(count + warm)]  # the last ``warm``: first-use allocations
    sockets: dict[str, ClientConnection] = {}
    config = room_file(workdir, "memory", settings=SETTINGS)
    with Server(workdir / "memory.sqlite3", config) as server:
        try:
            made = progress.add_task("memory: accounts", total=len(names))

            async def register(name: str) -> None:
                sockets[name] = await registered(server.url, name)
                progress.advance(made)

            await bounded(names, register)
            followed = progress.add_task("memory: follows (stored)", total=len(names) * each)

            async def follow(i: int) -> None:
                ws = sockets[names[i]]
                for k in range(1, each + 1):
                    await request(ws, {"type": "follow", "name": names[(i + k) % len(names)]})
                    progress.advance(followed)

            await bounded(range(len(names)), follow)
            for name in names[count:]:
                await request(sockets[name], {"type": "friends"})
            await asyncio.sleep(settle)  # for the server's memory to follow
            before = rss_kib(server.pid)
            subscribed = progress.add_task("memory: friends (subscribed)", total=count)

            async def friends(name: str) -> None:
                await request(sockets[name], {"type": "friends"})
                progress.advance(subscribed)

            await bounded(names[:count], friends)
            await asyncio.sleep(settle)
            after = rss_kib(server.pid)
            if not server.alive:
                raise RuntimeError("the server died")
        finally:
            await asyncio.gather(*(ws.close() for ws in sockets.values()),
                                 return_exceptions=True)
    return Memory(edges=count * each, connections=len(names), before_kib=before,
                  after_kib=after)


def latency_tables(results: list[Latencies], timeout: float) -> tuple[Table, Table]:
    """Every change together, then by kind of change."""
    overall = Table(title="a followed player's change until each follower's client has it "
                          "(ms; after answer: from the player's own answer)")
    for col in ("configuration", "edges", "changes", "changes/s", "pushes", "p50", "p99",
                "max", "p99 after answer", "missed", "unawaited"):
        overall.add_column(col)
    kinds = Table(title="by change (ms, p50 / p99)")
    for col in ("configuration", *KINDS):
        kinds.add_column(col)
    for r in results:
        every = r.every(timeout)
        overall.add_row(r.label, str(r.edges), str(r.changes),
                        f"{r.changes / max(r.seconds, 1e-9):.0f}", str(len(every)),
                        f"{pct(every, 0.5):.2f}", f"{pct(every, 0.99):.2f}",
                        f"{max(every, default=math.nan):.1f}",
                        f"{pct(r.after_answer, 0.99):.2f}", str(sum(r.missed.values())),
                        str(r.unawaited))
        kinds.add_row(r.label, *(f"{pct(r.ms[k], 0.5):.1f} / {pct(r.ms[k], 0.99):.1f}"
                                 for k in KINDS))
    return overall, kinds


async def main(args: argparse.Namespace) -> int:
    raise_fd_limit()
    console = Console(width=160)
    console.print(f"presence: {args.players} players, each followed by "
                  f"{args.followers_each} (followers follow {args.follows} each); "
                  f"{args.rounds} round(s) of log in, sit, stand, close; changes paced to "
                  f"{args.rate:g}/s, at most {args.seconds:g} s a configuration")
    results: list[Latencies] = []
    with tempfile.TemporaryDirectory(prefix="trickroom-presence-") as tmp, \
            Progress(console=console, transient=True) as progress:
        workdir = Path(tmp)
        results.append(await one_process(args, workdir, progress))
        absent = [why for s in ("postgresql", "redis") if (why := missing(s))]
        if args.cluster and absent:
            console.print(f"cluster: not run ({'; '.join(absent)})")
        elif args.cluster:
            results.append(await two_nodes(args, workdir, progress))
        memory = await edge_memory(args.edges, args.edge_follows, workdir, progress)
    for table in latency_tables(results, args.timeout):
        console.print(table)
    console.print(f"memory: {memory.connections} logged-in sockets, then {memory.edges} "
                  f"follower edges subscribed ({args.edge_follows} a player): RSS "
                  f"{memory.before_kib / 1024:.1f} -> {memory.after_kib / 1024:.1f} MiB, "
                  f"{memory.kib_per_edge:.3f} KiB an edge")
    single = results[0].every(args.timeout)
    cluster = results[1].every(args.timeout) if len(results) > 1 else []
    missed = sum(sum(r.missed.values()) for r in results)
    if missed:
        console.print(f"{missed} presence push(es) never came within {args.timeout:g} s")
    print(f"presence p50_ms={pct(single, 0.5):.2f} p99_ms={pct(single, 0.99):.2f} "
          f"cluster_p99_ms={pct(cluster, 0.99):.2f} kib_per_edge={memory.kib_per_edge:.3f}",
          flush=True)
    return 1 if missed else 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = command_line(__doc__)
    parser.add_argument("--players", type=int, default=200,
                        help="players whose changes are followed (default 200)")
    parser.add_argument("--followers-each", type=int, default=3,
                        help="followers of each player (default 3)")
    parser.add_argument("--follows", type=int, default=6,
                        help="players each follower follows (default 6)")
    parser.add_argument("--rounds", type=int, default=2,
                        help="times each player logs in, sits, stands and leaves (default 2)")
    parser.add_argument("--rate", type=float, default=50.0,
                        help="changes a second, all players together (default 50)")
    parser.add_argument("--seconds", type=float, default=90.0,
                        help="the most a configuration's changes run (default 90)")
    parser.add_argument("--timeout", type=float, default=10.0,
                        help="seconds a follower waits for a push before it counts as "
                             "missed (default 10)")
    parser.add_argument("--edges", type=int, default=10_000,
                        help="follower edges subscribed for the memory figure (default 10000)")
    parser.add_argument("--edge-follows", type=int, default=20,
                        help="players each account follows there (default 20)")
    parser.add_argument("--no-cluster", dest="cluster", action="store_false",
                        help="one process only (the cluster needs PostgreSQL on 5432 and "
                             "Redis on 6379)")
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))
