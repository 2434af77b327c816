"""Guests coming and going beside many open tables: the cost of one guest's visit.

A guest's logout asks whether a seat somewhere waits for its name (so the name is not
handed to someone else meanwhile). The server runs in its own process (``bench/load.py``'s
room file: no limits in the way); ``--tables`` levels of open tables are made, each with
a guest seated at it (the seats a question walks, if it walks), then ``--visits`` guests
one after another connect, log in as a guest and leave. Per level: the server's CPU
microseconds a visit (from /proc), and its ratio to the smallest level's, measured in
the same run: a flat ratio is a visit that costs the same beside ten tables or
thousands. Targets 127.0.0.1 only; bounded in count. Ends with::

    guests tables=<n> cpu_us_per_visit=<c> ratio_vs_smallest=<r>   (the largest level)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path

from load import LOAD_CONFIG, Server, cpu_seconds, raise_fd_limit
from rich.progress import Progress
from websockets.asyncio.client import ClientConnection, connect


async def request(ws: ClientConnection, message: dict[str, object]) -> dict[str, object]:
    """Send one request and read until its reply (events in between are skipped)."""
    await ws.send(json.dumps({**message, "id": 1}))
    while True:
        reply = json.loads(await ws.recv())
        if reply.get("id") == 1:
            if reply["type"] == "error":
                raise RuntimeError(f"{message['type']}: {reply['message']}")
            return reply


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


async def level(tables: int, visits: int, workdir: Path, config: Path,
                progress: Progress) -> float:
    server = Server(workdir / f"guests-{tables}.sqlite3", config)
    server.start()
    sockets: list[ClientConnection] = []
    try:
        task = progress.add_task(f"{tables} tables", total=tables + visits)
        sem = asyncio.Semaphore(50)

        async def one(i: int) -> None:
            async with sem:
                sockets.append(await seated_table(server.url, i))
                progress.advance(task)

        await asyncio.gather(*(one(i) for i in range(tables)))
        for i in range(20):  # warm up
            await visit(server.url, 10**6 + i)
        cpu0 = cpu_seconds(server.pid)
        for i in range(visits):
            await visit(server.url, i)
            progress.advance(task)
        await asyncio.sleep(0.2)  # the last logout is done in the server's own time
        return (cpu_seconds(server.pid) - cpu0) * 1e6 / visits
    finally:
        await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
        server.stop()


async def main(args: argparse.Namespace) -> int:
    raise_fd_limit()
    levels = sorted(int(n) for n in args.tables.split(","))
    results: list[tuple[int, float]] = []
    with tempfile.TemporaryDirectory(prefix="trickroom-guests-") as tmp, Progress() as progress:
        config = Path(tmp) / "guests.toml"
        config.write_text(LOAD_CONFIG)
        for n in levels:
            results.append((n, await level(n, args.visits, Path(tmp), config, progress)))
    base = results[0][1]
    print(f"{'tables':>7} {'us/visit':>9} {'ratio':>6}")
    for n, cost in results:
        print(f"{n:>7} {cost:>9.0f} {cost / base:>6.2f}")
    n, cost = results[-1]
    print(f"guests tables={n} cpu_us_per_visit={cost:.0f} ratio_vs_smallest={cost / base:.2f}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="10,2000",
                        help="comma-separated counts of open tables (default 10,2000)")
    parser.add_argument("--visits", type=int, default=500, help="guests a level (default 500)")
    sys.exit(asyncio.run(main(parser.parse_args())))
