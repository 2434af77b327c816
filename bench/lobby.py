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
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

from rich.progress import Progress
from websockets.asyncio.client import ClientConnection, connect

from bench.figures import command_line
from bench.harness import CpuClock, Server, raise_fd_limit, request, room_file


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


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = command_line(__doc__)
    parser.add_argument("--tables", default="10,2000",
                        help="comma-separated counts of open tables (default 10,2000)")
    parser.add_argument("--visits", type=int, default=500,
                        help="guests, lists of each kind and watches, a level (default 500)")
    parser.add_argument("--subscribers", type=int, default=200,
                        help="clients following the room's list while one client watches "
                             "and unwatches a table (default 200)")
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))
