"""The lobby beside many open tables: what a guest's visit and a room's list cost.

A guest's logout asks whether a seat somewhere waits for its name (so the name is not
handed to someone else meanwhile), and a room's list (``list_tables``, or
``list_rooms`` for the counts) is what every player entering the lobby asks; a client
may ask 50 times a second. The server runs in its own process (:mod:`bench.harness`'s
room file: no limits in the way); at each of ``--tables`` levels that many tables are
opened in one room, each with a guest seated at it (the seats a question walks, if it
walks); then ``--visits`` guests one after another connect, log in as a guest and
leave, and one client asks for the room's list and the rooms ``--visits`` times each;
last, while ``--subscribers`` clients follow the room's list, one client watches and
unwatches a table ``--visits`` times (each change of a table is pushed to every
subscriber of its room).
Per level and request: the server's CPU microseconds (from /proc) and the ratio to
the smallest level's, measured in the same run: a flat ratio is a request that costs
the same beside ten tables or thousands. Targets 127.0.0.1 only; bounded in count.
Ends with::

    lobby tables=<n> visit_ratio=<v> list_tables_ratio=<t> list_rooms_ratio=<r>
        list_tables_us=<u> watch_us=<w>          (the largest level; one line)

``--listing-tables N`` measures instead what one room list costs the loop beside N
tables (:func:`listing_main`), in this process, on a server of one process and, where
Redis and PostgreSQL answer (``--cluster``, ``--store``), on a node of a cluster: the
loop's CPU for one ``list_tables`` (its reply encoded) and one ``GET /api/tables``,
beside one page of tables (``tables_listed``, 100) and beside N; on the cluster also
a list read again after each change in the room, and the list as the cluster read it
before issue 31 (every table of the room fetched and decoded: :func:`full_read`).
Ends with::

    listing tables=<n> local_us=<l> local_ratio=<l_n/l_page> cluster_us=<c>
        cluster_changed_us=<r> cluster_before_us=<b> before_after_ratio=<b/r>
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import secrets
import socket
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from rich.progress import Progress
from websockets.asyncio.client import ClientConnection, connect

from bench.figures import command_line, ratio
from bench.harness import CpuClock, Server, raise_fd_limit, request, room_file
from trickroom.server import protocol as wire
from trickroom.server.app import App
from trickroom.server.config import load_config
from trickroom.server.listing import LISTED_STATES, listed_first
from trickroom.server.protocol import SeatInfo, ServerMessage, TableInfo


async def seated_table(url: str, i: int) -> ClientConnection:
    ws = await connect(url, compression=None, open_timeout=60)
    await request(ws, {"type": "guest", "name": f"sit{i}"})
    created = await request(ws, {"type": "create_table", "room": "spades"})
    table = created["table"]
    assert isinstance(table, dict)
    await request(ws, {"type": "sit", "table": table["id"], "seat": 0})
    return ws


async def visit(url: str, i: int) -> None:
    async with connect(url, compression=None, open_timeout=60) as ws:
        await request(ws, {"type": "guest", "name": f"visit{i}"})


REQUESTS = ("visit", "list_tables", "list_rooms", "watch")


async def drain(ws: ClientConnection) -> None:
    """Read and drop everything (a subscriber that keeps up)."""
    try:
        async for _ in ws:
            pass
    except Exception:  # closed at the end of the level
        return


async def level(tables: int, visits: int, subscribers: int, workdir: Path, config: Path,
                progress: Progress) -> dict[str, float]:
    server = Server(workdir / f"guests-{tables}.sqlite3", config)
    server.start()
    sockets: list[ClientConnection] = []
    try:
        task = progress.add_task(f"{tables} tables", total=tables + 4 * visits)
        sem = asyncio.Semaphore(50)

        async def one(i: int) -> None:
            async with sem:
                sockets.append(await seated_table(server.url, i))
                progress.advance(task)

        await asyncio.gather(*(one(i) for i in range(tables)))
        for i in range(20):  # warm up
            await visit(server.url, 10**6 + i)
        cost: dict[str, float] = {}
        cpu = CpuClock(server.pid)
        for i in range(visits):
            await visit(server.url, i)
            progress.advance(task)
        await asyncio.sleep(min(0.2, visits / 2500))  # the last logout, in the server's time
        cost["visit"] = cpu.us_per(visits)
        async with connect(server.url, compression=None, max_size=None) as ws:
            await request(ws, {"type": "guest", "name": "asker"})
            for kind, message in (("list_tables", {"type": "list_tables", "room": "spades"}),
                                  ("list_rooms", {"type": "list_rooms"})):
                cpu = CpuClock(server.pid)
                for _ in range(visits):
                    await request(ws, message)
                    progress.advance(task)
                cost[kind] = cpu.us_per(visits)
        # One client watching and unwatching a table over and over, while ``subscribers``
        # clients follow the room's list: what each of its messages costs the server.
        followers = []
        for i in range(subscribers):
            ws = await connect(server.url, compression=None, max_size=None)
            await request(ws, {"type": "guest", "name": f"follow{i}"})
            await request(ws, {"type": "list_tables", "room": "spades"})
            followers.append(ws)
        readers = [asyncio.create_task(drain(ws)) for ws in followers]
        sockets.extend(followers)
        async with connect(server.url, compression=None, max_size=None) as ws:
            await request(ws, {"type": "guest", "name": "flapper"})
            listed = await request(ws, {"type": "list_tables", "room": "spades"})
            tables_listed = listed["tables"]
            assert isinstance(tables_listed, list)
            table_id = tables_listed[0]["id"]
            cpu = CpuClock(server.pid)
            for i in range(visits):
                kind = "watch" if i % 2 == 0 else "unwatch"
                await request(ws, {"type": kind, "table": table_id})
                progress.advance(task)
            await asyncio.sleep(min(0.5, visits / 1000))  # the last push, in the server's time
            cost["watch"] = cpu.us_per(visits)
        for reader in readers:
            reader.cancel()
        return cost
    finally:
        await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
        server.stop()


async def main(args: argparse.Namespace) -> int:
    raise_fd_limit()
    levels = sorted(int(n) for n in args.tables.split(","))
    results: list[tuple[int, dict[str, float]]] = []
    with tempfile.TemporaryDirectory(prefix="trickroom-lobby-") as tmp, Progress() as progress:
        config = room_file(Path(tmp), "lobby")
        for n in levels:
            results.append((n, await level(n, args.visits, args.subscribers, Path(tmp), config,
                                           progress)))
    base = results[0][1]
    print(f"{'tables':>7}" + "".join(f" {k + ' us':>15} {'ratio':>6}" for k in REQUESTS))
    for n, cost in results:
        print(f"{n:>7}" + "".join(f" {cost[k]:>15.0f} {cost[k] / max(1.0, base[k]):>6.2f}"
                                  for k in REQUESTS))
    n, cost = results[-1]
    ratios = " ".join(f"{k}_ratio={cost[k] / max(1.0, base[k]):.2f}" for k in REQUESTS[:3])
    print(f"lobby tables={n} {ratios} list_tables_us={cost['list_tables']:.0f} "
          f"watch_us={cost['watch']:.0f}")
    return 0


# -- one listing beside many tables, in this process -----------------------------------------


class Asker:
    """A connection asking for a room's list: its reply is encoded as a socket's is."""

    def __init__(self) -> None:
        self.id, self.name, self.guest, self.address = 1, "asker", True, "127.0.0.1"
        self.tables: set[str] = set()
        self.remote = False
        self.sent = 0

    def reply(self, message: ServerMessage) -> None:
        self.sent += len(message.encode())

    def send_text(self, text: object) -> None:
        pass


def pretend_listing(i: int) -> TableInfo:
    """A table as its lobby lists it: two in three waiting for players, one playing."""
    state: Literal["waiting", "playing"] = "playing" if i % 3 == 0 else "waiting"
    seated = 4 if state == "playing" else 1 + i % 3
    seats = [SeatInfo(seat=s, name=f"player{i}-{s}" if s < seated else None,
                      kind="human" if s < seated else "empty") for s in range(4)]
    return TableInfo(id=f"b{i:06d}", room="spades", game="spades", state=state,
                     seating="fixed_seating", seats=seats, watchers=i % 2,
                     game_id=f"g{i:06d}" if state == "playing" else None)


async def tell_tables(app: App, first: int, count: int) -> None:
    """The node's hub told of ``count`` more tables, as their lobby tells it, each held by
    this node (a cluster lists a table while its node holds the lease)."""
    hub: Any = app.hub
    infos = [pretend_listing(i) for i in range(first, first + count)]
    if hasattr(hub, "keys"):
        async with hub.bus.redis.pipeline(transaction=False) as pipe:
            for info in infos:
                pipe.set(hub.keys.lease(info.id), hub.node.number, px=600_000)
            await pipe.execute()
    for info in infos:
        hub.table_changed(info, removed=False)
    deadline = time.monotonic() + 30
    while (await hub.room_counts(["spades"]))["spades"] < first + count:
        if time.monotonic() > deadline:
            raise RuntimeError("the hub did not list the tables in 30 s")
        await asyncio.sleep(0.05)


async def loop_us(repeats: int, once: Callable[[], Awaitable[object]]) -> float:
    """The loop thread's CPU microseconds for one ``once()``, over ``repeats`` after a
    warm-up (a wait for Redis costs the loop nothing and counts nothing)."""
    for _ in range(3):
        await once()
    start = time.thread_time()
    for _ in range(repeats):
        await once()
    return (time.thread_time() - start) * 1e6 / repeats


async def full_read(app: App, room: str, limit: int) -> tuple[list[TableInfo], int]:
    """A cluster's room list as it was read before issue 31: every table of the room
    fetched, its lease looked up, every listing decoded, then the first page cut."""
    hub: Any = app.hub
    redis = hub.bus.redis
    listed = {(k.decode() if isinstance(k, bytes) else k): v
              for k, v in (await redis.hgetall(hub.keys.room(room))).items()}
    ids = list(listed)
    holders = await redis.mget([hub.keys.lease(t) for t in ids]) if ids else []
    states: dict[str, dict[str, TableInfo]] = {state: {} for state in LISTED_STATES}
    for table_id, holder in zip(ids, holders, strict=True):
        if holder is not None:
            info = TableInfo.model_validate_json(listed[table_id])
            states.setdefault(info.state, {})[table_id] = info
    return listed_first(states.values(), limit)


async def listing_costs(app: App, tables: int, repeats: int, before: bool) -> dict[str, float]:
    """What one listing costs ``app``'s loop beside one page of tables (what it shows
    of any room at most) and beside ``tables``."""
    asker = Asker()
    ask = wire.ListTables(type="list_tables", room="spades", id=1)

    async def socket_list() -> None:
        await app.requests.list_tables(asker, ask)  # type: ignore[arg-type]

    async def http_list() -> None:
        await app.routes.api("/api/tables", "room=spades")

    changing = pretend_listing(0)

    async def changed_list() -> None:
        nonlocal changing  # a change in the room (the watcher count): the page is stale
        changing = changing.model_copy(update={"watchers": 1 - changing.watchers})
        app.hub.table_changed(changing, removed=False)
        await app.requests.list_tables(asker, ask)  # type: ignore[arg-type]

    cost: dict[str, float] = {}
    page = app.config.settings.tables_listed
    await tell_tables(app, 0, page)
    cost["socket_page"] = await loop_us(repeats, socket_list)
    await tell_tables(app, page, tables - page)
    cost["socket"] = await loop_us(repeats, socket_list)
    cost["http"] = await loop_us(repeats, http_list)
    cost["changed"] = await loop_us(repeats, changed_list)
    if before:
        cost["before"] = await loop_us(max(3, repeats // 10),
                                       lambda: full_read(app, "spades", 100))
    return cost


def answers(url: str, port: int) -> bool:
    where = urlsplit(url)
    try:
        with socket.create_connection((where.hostname or "127.0.0.1", where.port or port),
                                      timeout=1.0):
            return True
    except OSError:
        return False


async def on_cluster(args: argparse.Namespace) -> dict[str, float] | None:
    """The costs on a node of a cluster, on a fresh Redis prefix and PostgreSQL schema,
    both removed after; None when Redis or PostgreSQL does not answer."""
    if not (answers(args.cluster, 6379) and answers(args.store, 5432)):
        print(f"cluster: skipped ({args.cluster} or {args.store} does not answer)")
        return None
    import asyncpg
    import redis.asyncio as aioredis
    name = f"bench_listing_{secrets.token_hex(4)}"
    app = App(load_config(), f"{args.store}?schema={name}", cluster=args.cluster,
              cluster_prefix=name)
    try:
        await app.start("127.0.0.1", 0)
        try:
            return await listing_costs(app, args.listing_tables, args.repeats, before=True)
        finally:
            await asyncio.wait_for(app.stop(), 30)
    finally:
        client = aioredis.from_url(args.cluster)
        with contextlib.suppress(Exception):
            keys = [k async for k in client.scan_iter(match=f"{name}:*", count=1000)]
            for i in range(0, len(keys), 1000):
                await client.delete(*keys[i:i + 1000])
        await client.aclose()
        with contextlib.suppress(Exception):
            conn = await asyncpg.connect(args.store)
            await conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
            await conn.close()


async def listing_main(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="trickroom-listing-") as tmp:
        app = App(load_config(), Path(tmp) / "listing.sqlite3")
        await app.start("127.0.0.1", 0)
        try:
            local = await listing_costs(app, args.listing_tables, args.repeats, before=False)
        finally:
            await asyncio.wait_for(app.stop(), 30)
    cluster = await on_cluster(args)
    n = args.listing_tables
    print(f"one listing's loop CPU (us), beside a page of tables (100) and beside {n}:")
    print(f"{'server':>13} {'list@page':>9} {'list':>9} {'ratio':>6} {'http':>9} "
          f"{'changed':>9} {'before':>9} {'before/after':>12}")
    for label, cost in (("one process", local), ("cluster node", cluster)):
        if cost is None:
            continue
        before = cost.get("before", float("nan"))
        print(f"{label:>13} {cost['socket_page']:>9.0f} {cost['socket']:>9.0f} "
              f"{ratio(cost['socket'], cost['socket_page']):>6.2f} {cost['http']:>9.0f} "
              f"{cost['changed']:>9.0f} {before:>9.0f} "
              f"{ratio(before, cost['changed']):>12.0f}")
    line = (f"listing tables={n} local_us={local['socket']:.0f} "
            f"local_ratio={ratio(local['socket'], local['socket_page']):.2f}")
    if cluster is not None:
        line += (f" cluster_us={cluster['socket']:.0f} cluster_changed_us="
                 f"{cluster['changed']:.0f} cluster_before_us={cluster['before']:.0f} "
                 f"before_after_ratio={ratio(cluster['before'], cluster['changed']):.0f}")
    print(line)
    return 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = command_line(__doc__)
    parser.add_argument("--tables", default="10,2000",
                        help="comma-separated counts of open tables (default 10,2000)")
    parser.add_argument("--visits", type=int, default=500,
                        help="guests, lists of each kind and watches, a level (default 500)")
    parser.add_argument("--subscribers", type=int, default=200,
                        help="clients following the room's list while one client watches "
                             "and unwatches a table (default 200)")
    parser.add_argument("--listing-tables", type=int, default=0, metavar="N",
                        help="measure instead one room list's loop CPU beside N tables, "
                             "in this process (e.g. 10000)")
    parser.add_argument("--repeats", type=int, default=200,
                        help="listings measured a kind, with --listing-tables (default 200)")
    parser.add_argument("--cluster", default="redis://127.0.0.1:6379/0",
                        help="the Redis of --listing-tables' cluster node (a fresh prefix)")
    parser.add_argument("--store", default="postgresql://postgres@127.0.0.1:5432/test",
                        help="the PostgreSQL of --listing-tables' cluster node (a fresh "
                             "schema)")
    return parser.parse_args(argv)


if __name__ == "__main__":
    arguments = parse_args()
    sys.exit(asyncio.run(listing_main(arguments) if arguments.listing_tables
                         else main(arguments)))
