"""Soak: one server process plays games back to back; its memory and its lobby stay flat.

The server runs in its own process (``trickroom serve``) on a temporary database
with no robot delay and no pause between hands. This process keeps ``--tables``
tables going at once: each of its sockets creates a table (Spades and Hearts in
turn, short games), watches it, fills it with random robots and waits for the
game to end and the table to close, then opens the next. Every half second it
samples the server's RSS (from /proc), its open tables and the events their
logs keep (``/metrics``) and the tables its lobby lists (``/api/rooms``).

After the games, the sockets stop opening tables and let those in play finish;
then the server's open tables are read once more. Memory growth is the slope of
RSS against games played after a warm-up (the first fifth of the games, at
least 200), per 1,000 games, with its standard error: the RSS also moves with the games
in play at each sample, a band of a few MiB, which leaves a 5,000-game slope uncertain
by about a hundred. Targets 127.0.0.1 only; stops by itself at
``--games`` games or ``--seconds`` seconds.

Once the server has stopped, its database is read for what a finished game costs it
(``bench/stored.py``): bytes per game with every move kept and each record whole, as
every version before retention kept them, and after a pass of retention has dropped the
moves and packed the records, and the second as a share of the first. ``--store`` plays
on PostgreSQL (a schema made for the run, dropped after) instead of an SQLite file.
Ends with::

    soak games=<n> rss_growth_kib_per_1000_games=<x> rss_growth_stderr=<s> open_tables_end=<k>
        playing_end=<p> max_logged_events=<e> max_lobby=<l>
        bytes_per_game_before=<b> bytes_per_game_after=<a> stored_ratio=<r>   (one line)

``make bench`` runs ``python -m bench.soak --games 1000``; the issue's figure is
``--games 5000`` (about five minutes on a 2-core machine).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import math
import secrets
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
from rich.progress import Progress
from websockets.asyncio.client import connect

from bench.figures import command_line
from bench.harness import (
    LOAD_CONFIG,
    Server,
    http_get,
    metric,
    raise_fd_limit,
    request,
    room_file,
    rss_kib,
)
from bench.stored import game_bytes

SOAK_CONFIG = LOAD_CONFIG + '\n[[rooms]]\nname = "hearts"\ngame = "hearts"\n'  # and Spades
GAMES = (("spades", {"target": 100, "mercy": 100}), ("hearts", {"target": 50}))


@dataclass
class Sample:
    games: int
    rss_kib: int
    tables: int
    logged_events: int
    lobby: int


@dataclass
class Soak:
    games: int = 0
    playing: set[str] = field(default_factory=set)  # tables created and not yet closed
    samples: list[Sample] = field(default_factory=list)


async def player(url: str, index: int, soak: Soak, stop: asyncio.Event) -> None:
    """One socket opening tables of four robots one after another, watching each to its end."""
    async with connect(url, compression=None, max_size=2**22) as ws:
        await request(ws, {"type": "guest", "name": f"soak{index}"})
        for n in itertools.count(index):
            if stop.is_set():
                return
            room, rules = GAMES[n % len(GAMES)]
            created = await request(ws, {"type": "create_table", "room": room, "rules": rules})
            table = created["table"]["id"]
            soak.playing.add(table)
            await request(ws, {"type": "watch", "table": table})
            await request(ws, {"type": "fill_robots", "table": table, "level": "random"})
            while True:
                message = json.loads(await ws.recv())
                if message.get("type") != "event" or message["table"] != table:
                    continue
                kind = message["event"]["type"]
                if kind == "game_over":
                    soak.games += 1
                elif kind == "closed":
                    soak.playing.discard(table)
                    break


async def sample(server: Server, soak: Soak) -> Sample:
    metrics = await http_get(server.port, "/metrics")
    rooms = json.loads(await http_get(server.port, "/api/rooms"))["rooms"]
    return Sample(soak.games, rss_kib(server.pid), metric(metrics, "trickroom_tables"),
                  metric(metrics, "trickroom_logged_events"), sum(r["tables"] for r in rooms))


def growth_per_1000(samples: list[Sample], warmup: int) -> float:
    """The least-squares slope of RSS (KiB) against games, times 1,000, after the warm-up."""
    return _fit(samples, warmup)[0]


def growth_stderr_per_1000(samples: list[Sample], warmup: int) -> float:
    """The standard error of that slope, times 1,000: how far the RSS's ups and downs
    around its line (the games in play at each sample) leave the slope uncertain. A flat
    RSS moving within a band of a few MiB over 5,000 games gives a slope of ±100 or so."""
    return _fit(samples, warmup)[1]


def _fit(samples: list[Sample], warmup: int) -> tuple[float, float]:
    points = [(s.games, s.rss_kib) for s in samples if s.games >= warmup]
    if len(points) < 3 or points[-1][0] == points[0][0]:
        return float("nan"), float("nan")
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    sxy = sum((x - mx) * (y - my) for x, y in points)
    slope = sxy / sxx
    residuals = sum((y - my - slope * (x - mx)) ** 2 for x, y in points)
    return 1000 * slope, 1000 * math.sqrt(residuals / (n - 2) / sxx)


async def soak_run(games: int, tables: int, seconds: float, workdir: Path,
                   quiet: bool = False, settings: list[str] | None = None,
                   every: float = 0.5, store: str | None = None) -> dict[str, Any]:
    """Play ``games`` games (or for ``seconds``), ``tables`` at once, sampling the server
    every ``every`` seconds; returns the figures (the test calls this too). ``store``: a
    PostgreSQL database to play on, in a schema of the run's own, instead of SQLite."""
    if store is None:
        return await _soak_run(games, tables, seconds, workdir, quiet, settings, every,
                               str(workdir / "soak.sqlite3"))
    schema = f"bench_soak_{secrets.token_hex(4)}"
    try:
        return await _soak_run(games, tables, seconds, workdir, quiet, settings, every,
                               f"{store}?schema={schema}")
    finally:
        with contextlib.suppress(OSError, asyncpg.PostgresError):
            conn = await asyncpg.connect(store, timeout=10)
            try:
                await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            finally:
                await conn.close()


async def _soak_run(games: int, tables: int, seconds: float, workdir: Path, quiet: bool,
                    settings: list[str] | None, every: float, db: str) -> dict[str, Any]:
    config = room_file(workdir, "soak", SOAK_CONFIG, settings)
    soak, stop = Soak(), asyncio.Event()
    started = time.monotonic()
    with Server(db, config) as server:
        players = [asyncio.create_task(player(server.url, i, soak, stop))
                   for i in range(tables)]
        with Progress(disable=quiet, transient=True) as progress:
            task = progress.add_task("soak: games", total=games)
            while soak.games < games and time.monotonic() - started < seconds:
                for p in players:
                    if p.done() and p.exception():
                        await p  # raises what the player raised
                await asyncio.sleep(every)
                soak.samples.append(await sample(server, soak))
                progress.update(task, completed=soak.games,
                                description=f"soak: rss {soak.samples[-1].rss_kib} KiB")
        stop.set()
        _, pending = await asyncio.wait(players, timeout=60)
        for p in pending:
            p.cancel()
        end = await sample(server, soak)
    seconds = round(time.monotonic() - started, 1)
    stored = await game_bytes(db)
    warmup = max(200, soak.games // 5)
    return {
        "stored": stored,
        "games": soak.games,
        "seconds": seconds,
        "rss_growth_kib_per_1000_games": round(growth_per_1000(soak.samples, warmup), 1),
        "rss_growth_stderr": round(growth_stderr_per_1000(soak.samples, warmup), 1),
        "rss_start_kib": next((s.rss_kib for s in soak.samples if s.games >= warmup), None),
        "rss_end_kib": end.rss_kib,
        "open_tables_end": end.tables,
        "playing_end": len(soak.playing),
        "lobby_end": end.lobby,
        "max_logged_events": max(s.logged_events for s in soak.samples),
        "max_lobby": max(s.lobby for s in soak.samples),
        "samples": soak.samples,
    }


def main(argv: list[str] | None = None) -> int:
    parser = command_line(__doc__)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--tables", type=int, default=8, help="tables in play at once")
    parser.add_argument("--seconds", type=float, default=900, help="stop after this long")
    parser.add_argument("--store", metavar="URL",
                        help="play on this PostgreSQL database (in a schema made for the "
                             "run), e.g. postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--setting", action="append", default=[], metavar="KEY=VALUE",
                        help="a [server] setting for the soaked server, in TOML "
                             "(e.g. gc_freeze_seconds=0); repeatable")
    args = parser.parse_args(argv)
    raise_fd_limit()
    with tempfile.TemporaryDirectory(prefix="trickroom-soak-") as tmp:
        out = asyncio.run(soak_run(args.games, args.tables, args.seconds, Path(tmp),
                                     settings=args.setting, store=args.store))
    for s in out["samples"][:: max(1, len(out["samples"]) // 10)]:
        print(f"  games {s.games:6d}  rss {s.rss_kib:7d} KiB  tables {s.tables:3d}  "
              f"logged events {s.logged_events:6d}  lobby {s.lobby:3d}")
    print(f"{out['games']} games in {out['seconds']} s; RSS {out['rss_start_kib']} KiB after "
          f"warm-up, {out['rss_end_kib']} KiB at the end")
    stored = out["stored"]
    print(f"{'PostgreSQL' if args.store else 'SQLite'}, tables games and actions with their "
          f"indexes: {stored['games']} finished games, {stored['moves']} moves; "
          f"{stored['bytes_per_game_before']} bytes a game with every move kept "
          f"({stored['bytes_per_move_before']} a move), {stored['bytes_per_game_after']} "
          f"after retention")
    print(f"soak games={out['games']} "
          f"rss_growth_kib_per_1000_games={out['rss_growth_kib_per_1000_games']} "
          f"rss_growth_stderr={out['rss_growth_stderr']} "
          f"open_tables_end={out['open_tables_end']} playing_end={out['playing_end']} "
          f"max_logged_events={out['max_logged_events']} max_lobby={out['max_lobby']} "
          f"bytes_per_game_before={stored['bytes_per_game_before']} "
          f"bytes_per_game_after={stored['bytes_per_game_after']} "
          f"stored_ratio={stored['ratio']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
