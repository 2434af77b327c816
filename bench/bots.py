"""Bot event streams: what one costs the server, and that each hears its games (issue 36).

A bot waits on its account's event stream (docs/protocol.md, "For bots"): a socket logged
in as a BOT account that has asked ``events``, to which the server pushes its games'
starts and ends and its challenges. ``--streams`` such sockets (1,000 by default) are held
open at once on one process (SQLite), each a BOT account of its own.

**Memory.** The server's RSS (``VmRSS``, as :mod:`bench.load` measures a connection) with
every account made and no stream open, then with all the streams open, logged in and
subscribed, over the streams: what one stream costs, its socket included. A few streams
open first and stay (``--warm``), so that first-use allocations are not counted.

**Delivery.** Then ``--games`` of the bots each seek a game against robots from a second
socket (the bot's table), and each stream must hear its ``game_start`` and
``game_finish``; the time from the seek's sending to ``game_start`` on the stream (a table
opened, seated, started, stored and told) is reported (p50, p99).

The server runs in its own process on 127.0.0.1 (:mod:`bench.harness`), with the
cheapest password hash and no per-address caps on accounts or sockets (the run's sockets
all come from one address). Ends with::

    bots streams=<n> kib_per_stream=<k> start_p99_ms=<x> missed=<m>

Run: ``python -m bench.bots`` (about a minute); the run exits 1 if a stream missed an
event or the server died.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import TypeVar

from rich.console import Console
from rich.progress import Progress
from websockets.asyncio.client import ClientConnection, connect

from bench.figures import command_line, pct
from bench.harness import Server, choose, raise_fd_limit, request, room_file, rss_kib
from bench.presence import bounded

T = TypeVar("T")
PASSWORD = "bench-bot-password"
SETTINGS = [
    'password_profile = "cheapest"',
    "registrations_per_hour_per_address = 1000000",
    "password_check_burst_per_address = 1000000",
    "password_checks_per_second_per_address = 1000000.0",
    "password_queue = 1000000",
    "password_queue_per_address = 1000000",
    "tables_per_account = 1000000",
]


async def socket(url: str) -> ClientConnection:
    return await connect(url, compression=None, open_timeout=60, max_size=2**22)


class Stream:
    """A bot's event stream: a socket logged in as its BOT account that asked ``events``;
    it reads every push and notes when each game's start and end came."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.started: dict[str, float] = {}  # table -> when its game_start came
        self.finished: set[str] = set()
        self.reader: asyncio.Task[None] | None = None

    async def read(self) -> None:
        async for frame in self.ws:
            message = json.loads(frame)
            if message.get("type") == "game_start":
                self.started[message["table"]] = time.perf_counter()
            elif message.get("type") == "game_finish":
                self.finished.add(message["table"])


async def make_bot(url: str, name: str) -> None:
    """A BOT account, made on a socket closed after."""
    ws = await socket(url)
    try:
        await request(ws, {"type": "register", "name": name, "password": PASSWORD})
        await request(ws, {"type": "upgrade_to_bot", "confirm": True})
    finally:
        await ws.close()


async def open_stream(url: str, name: str) -> Stream:
    ws = await socket(url)
    await request(ws, {"type": "login", "name": name, "password": PASSWORD})
    reply = await request(ws, {"type": "events"})
    assert reply["games"] == []
    stream = Stream(ws)
    stream.reader = asyncio.create_task(stream.read())
    return stream


async def play_one(url: str, name: str, stream: Stream, timeout: float) -> float | None:
    """The bot seeks a game against robots on a second socket and plays it (a random
    legal action a prompt); the ms from the seek's sending to ``game_start`` on its
    stream, or None if the stream missed the start or the end."""


    rng = random.Random(name)
    ws = await socket(url)
    try:
        await request(ws, {"type": "login", "name": name, "password": PASSWORD})
        asked = time.perf_counter()
        seated = await request(ws, {"type": "seek", "room": "spades", "level": "random",
                                    "rules": {"hand_limit": 1}})
        table = seated["table"]
        last = -1
        async with asyncio.timeout(timeout):
            while table not in stream.finished:
                try:
                    message = json.loads(await asyncio.wait_for(ws.recv(), 0.2))
                except TimeoutError:
                    continue
                if message.get("type") == "prompt" and message["seq"] > last:
                    last = message["seq"]
                    await ws.send(json.dumps({"type": "act", "table": table,
                                              "action": choose(message, rng)}))
    except TimeoutError:
        return None
    finally:
        await ws.close()
    start = stream.started.get(table)
    return None if start is None else (start - asked) * 1000


async def main(args: argparse.Namespace) -> int:
    raise_fd_limit()
    console = Console(width=160)
    total = args.streams + args.warm
    names = [f"bot{i:05d}" for i in range(total)]
    console.print(f"bots: {args.streams} event streams (+{args.warm} warm-up) on one "
                  f"process, then {args.games} of them each play a game against robots")
    with tempfile.TemporaryDirectory(prefix="trickroom-bots-") as tmp, \
            Progress(console=console, transient=True) as progress:
        workdir = Path(tmp)
        config = room_file(workdir, "bots", settings=SETTINGS)
        with Server(workdir / "bots.sqlite3", config) as server:
            made = progress.add_task("BOT accounts", total=total)

            async def make(name: str) -> None:
                await make_bot(server.url, name)
                progress.advance(made)

            await bounded(names, make)
            streams: dict[str, Stream] = {}
            for name in names[args.streams:]:  # first-use allocations, not counted
                streams[name] = await open_stream(server.url, name)
            await asyncio.sleep(args.settle)
            before = rss_kib(server.pid)
            opened = progress.add_task("event streams", total=args.streams)

            async def subscribe(name: str) -> None:
                streams[name] = await open_stream(server.url, name)
                progress.advance(opened)

            await bounded(names[:args.streams], subscribe)
            await asyncio.sleep(args.settle)
            after = rss_kib(server.pid)
            played = progress.add_task("games heard on the streams", total=args.games)
            starts: list[float] = []
            missed = 0

            async def play(name: str) -> None:
                nonlocal missed
                ms = await play_one(server.url, name, streams[name], args.timeout)
                if ms is None:
                    missed += 1
                else:
                    starts.append(ms)
                progress.advance(played)

            step = max(1, args.streams // max(1, args.games))
            await bounded(names[:args.streams:step][:args.games], play, at_once=10)
            alive = server.alive
            for stream in streams.values():
                await stream.ws.close()
                if stream.reader is not None:
                    stream.reader.cancel()
    kib = (after - before) / max(1, args.streams)
    console.print(f"memory: {args.streams} streams open: RSS {before / 1024:.1f} -> "
                  f"{after / 1024:.1f} MiB, {kib:.2f} KiB a stream (its socket included)")
    console.print(f"delivery: {len(starts)} of {args.games} games heard start and end on "
                  f"their streams; seek sent -> game_start p50 {pct(starts, 0.5):.2f} ms, "
                  f"p99 {pct(starts, 0.99):.2f} ms")
    print(f"bots streams={args.streams} kib_per_stream={kib:.2f} "
          f"start_p99_ms={pct(starts, 0.99):.2f} missed={missed}", flush=True)
    return 1 if missed or not alive else 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = command_line(__doc__)
    parser.add_argument("--streams", type=int, default=1000,
                        help="event streams held open at once (default 1000)")
    parser.add_argument("--warm", type=int, default=10,
                        help="streams opened before the baseline (default 10)")
    parser.add_argument("--games", type=int, default=20,
                        help="bots that then play a game, heard on their streams (default 20)")
    parser.add_argument("--settle", type=float, default=1.0,
                        help="seconds for the server's memory to settle before a reading")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds a game may take before its stream counts as missed")
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))
