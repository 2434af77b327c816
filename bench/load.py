"""Load: how many tables one server process carries, beside the socket library's own limit.

The server runs in its own process (``trickroom serve``, :mod:`bench.harness`) on a temporary
database, with a room file that has no robot delay, no pause between hands and
rate limits out of the way. In this process, N tables of four socket bots play
Spades as fast as prompts come (a random legal action per prompt; a prompt whose
``seq`` was already answered is skipped), or after a mean think time (a level
written ``500@250``), and start a new game when one ends.

Per load level it prints: tables, sockets, actions/s, action latency p50/p99/max
(a bot sends ``act`` -> the action's event has come off all four seats' sockets),
two baselines through the bare ``websockets`` library (:mod:`bench.baselines`), both
served from their own process: the same closed loop through a relay (one frame in, four out, nothing
parsed or stored), and one socket's echo round trip, measured every 5 ms while the
level runs (and alone before it); the ratio of the p50 to that echo; errors, server
CPU and RSS (from /proc), and this client's own CPU (one process drives every
socket: at high load it, not the server, may be the limit). Every latency ends at
the moment its frame's bytes came off the socket (``StampedConnection``; ``--stamp
kernel``: the kernel's receive time of them), so the client's Python work on other
frames is not counted in any of them (:mod:`bench.stamps`). Memory per
connection is measured on its own: K idle authenticated sockets on a fresh
server, RSS delta / K. Targets 127.0.0.1 only; every level is bounded in time.

A third baseline, the **floor**, runs once at the busiest level without think
time (or, with none, the last level, at its think time): the relay doing what any
server of this protocol must do for an action and nothing of a game (each frame
stored in SQLite, group-committed, before it is sent; then to all four, an answer
to its sender and a prompt-sized frame to the next: one frame in, six out). Its
CPU per frame is the least an action can cost here; the server's over it is what
the game, the protocol and the table add.
Ends with::

    load tables=<n> p99_ms=<x.x> ratio_p50_vs_echo=<y.y> actions_per_s=<z>
        kib_per_conn=<k.k> errors=<e> cpu_us_per_action=<a>
        relay_cpu_us_per_action=<r> floor_cpu_us_per_action=<f>     (one line)

for the last level run (the ratio is the one-table level's, when one was run).
``make bench`` runs the short default (``python -m bench.load``: ``1,20,100,500@250``,
about two minutes); ``--tables 1,100,500 --duration 30`` for more.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from websockets.asyncio.client import ClientConnection, connect

from bench import baselines
from bench.figures import command_line, pct, ratio
from bench.harness import (
    LOAD_CONFIG,
    CpuClock,
    Server,
    free_port,
    pin_apart,
    raise_fd_limit,
    rss_kib,
    wait_port,
    with_settings,
)
from bench.players import Seated, Stats, close_all, open_table
from bench.stamps import STAMP


@dataclass
class Level:
    tables: int
    think_ms: float
    sockets: int
    actions_per_s: float
    p50: float
    p99: float
    max: float
    echo_p50: float
    echo_p99: float
    echo_max: float
    errors: int
    error_codes: dict[str, int]
    server_cpu: float
    server_rss_mib: float
    client_cpu: float
    games: int
    echo_idle_p50: float = float("nan")
    relay_p50: float = float("nan")
    relay_p99: float = float("nan")
    relay_rate: float = float("nan")
    cpu_us_per_action: float = float("nan")  # the server's CPU for each action acknowledged
    relay_cpu_us: float = float("nan")  # the bare relay's CPU for each frame it relayed

    @property
    def ratio(self) -> float:
        """Against the echo alone: the stricter baseline (under load the echo slows too)."""
        return ratio(self.p50, self.echo_idle_p50)


async def run_level(tables: int, think: float, duration: float, workdir: Path, config: Path,
                    echo_port: int, seed: int, cpus: set[int] | None = None) -> Level:
    server = Server(workdir / f"load-{tables}.sqlite3", config, cpus=cpus)
    server.start()
    stats = Stats()
    rng = random.Random(seed)
    bots: list[Seated] = []
    try:
        echo = await baselines.echo_round_trips(echo_port, 1000)
        sem = asyncio.Semaphore(50)

        async def one() -> None:
            async with sem:
                bots.extend(await open_table(server.url, stats, rng, think=think))

        await asyncio.gather(*(one() for _ in range(tables)))
        await asyncio.sleep(min(2.0, duration / 5))  # warm up
        cpu, client0, t0 = CpuClock(server.pid), time.process_time(), time.perf_counter()
        stats.measuring = True
        beside = asyncio.create_task(baselines.echo_beside(echo_port, duration))
        await asyncio.sleep(duration)
        stats.measuring = False
        echo_during = await beside
        wall = time.perf_counter() - t0
        server_cpu, client1 = cpu.now() - cpu.start, time.process_time()
        rss = rss_kib(server.pid)
        if not server.alive:
            stats.error("server_died")
    finally:
        await close_all(bots)
        server.stop()
    lat = stats.latencies
    return Level(
        tables=tables, think_ms=think * 1e3, sockets=4 * tables, actions_per_s=stats.actions / wall,
        p50=pct(lat, 0.5) * 1e3, p99=pct(lat, 0.99) * 1e3, max=max(lat, default=0) * 1e3,
        echo_p50=pct(echo_during, 0.5) * 1e3, echo_p99=pct(echo_during, 0.99) * 1e3,
        echo_max=max(echo_during, default=float("nan")) * 1e3,
        echo_idle_p50=pct(echo, 0.5) * 1e3,
        errors=sum(stats.errors.values()), error_codes=stats.errors,
        server_cpu=100 * server_cpu / wall, server_rss_mib=rss / 1024,
        cpu_us_per_action=server_cpu * 1e6 / max(1, stats.actions),
        client_cpu=100 * (client1 - client0) / wall, games=stats.games)


async def idle_memory(count: int, workdir: Path, config: Path) -> float:
    """KiB of server RSS per idle, authenticated connection (K sockets on a fresh server)."""
    server = Server(workdir / "idle.sqlite3", config)
    server.start()
    sockets: list[ClientConnection] = []
    settle = min(1.0, count / 1000)  # for the server's memory to follow (a smoke run: less)
    try:
        async def guest(i: int) -> ClientConnection:
            ws = await connect(server.url, compression=None, open_timeout=60)
            await ws.send(json.dumps({"type": "guest", "name": f"idle{i}", "id": 1}))
            await ws.recv()
            return ws

        warm = [await guest(i) for i in range(20)]  # first-use allocations, not per socket
        await asyncio.sleep(settle / 2)
        before = rss_kib(server.pid)
        sem = asyncio.Semaphore(100)

        async def one(i: int) -> None:
            async with sem:
                sockets.append(await guest(i))

        await asyncio.gather(*(one(i) for i in range(20, 20 + count)))
        await asyncio.sleep(settle)
        after = rss_kib(server.pid)
        sockets.extend(warm)
        return (after - before) / count
    finally:
        await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
        server.stop()


HEADER = (f"{'tables':>6} {'think':>5} {'sockets':>7} {'act/s':>7} {'p50ms':>7} {'p99ms':>7} "
          f"{'maxms':>7} | {'rly50':>6} {'rly99':>6} {'rly/s':>6} | {'echo50':>6} {'idle50':>6} "
          f"{'ratio':>5} | {'us/act':>6} {'rly us':>6} | "
          f"{'errors':>6} {'s.cpu':>5} {'rssMiB':>6} {'c.cpu':>5} {'games':>5}")


def print_level(lv: Level) -> None:
    codes = ",".join(f"{k}:{v}" for k, v in sorted(lv.error_codes.items())) or "-"
    print(f"{lv.tables:>6} {lv.think_ms:>5.0f} {lv.sockets:>7} {lv.actions_per_s:>7.0f} "
          f"{lv.p50:>7.2f} {lv.p99:>7.2f} {lv.max:>7.1f} | "
          f"{lv.relay_p50:>6.2f} {lv.relay_p99:>6.2f} {lv.relay_rate:>6.0f} | "
          f"{lv.echo_p50:>6.3f} {lv.echo_idle_p50:>6.3f} {lv.ratio:>5.1f} | "
          f"{lv.cpu_us_per_action:>6.0f} {lv.relay_cpu_us:>6.0f} | "
          f"{lv.errors:>6} {lv.server_cpu:>4.0f}% {lv.server_rss_mib:>6.1f} "
          f"{lv.client_cpu:>4.0f}% {lv.games:>5}  {codes}", flush=True)


def parse_levels(text: str) -> list[tuple[int, float]]:
    """``1,100,500@250``: tables, each optionally with a mean think time in ms."""
    levels = []
    for part in text.split(","):
        tables, _, think = part.partition("@")
        levels.append((int(tables), float(think or 0) / 1e3))
    return levels


def legend(args: argparse.Namespace) -> None:
    print(f"load: Spades, 4 socket bots a table, {args.duration:.0f} s a level, "
          f"server and baseline server each in their own process ({os.cpu_count()} cores)")
    print("  think: mean ms a bot waits before acting (0: as fast as prompts come); "
          "latency: act sent -> its event at all four seats")
    print("  rly: the same closed loop through a bare websockets relay (one frame in, "
          "four out; no parsing, game or storage)")
    print("  us/act: the server's CPU microseconds per action (a move, its storage and "
          "its events to four seats); rly us: the relay's per frame relayed")
    print("  echo50: one socket's echo round trip, every 5 ms while the level runs; "
          "idle50: the same before the level, alone; ratio: p50 / idle50")
    print(f"  received: {STAMP['source']} stamp ("
          + ("the kernel's receive time of the frame's bytes"
             if STAMP["source"] == "kernel" else "when this process's loop read them")
          + "; --stamp to change)")
    print(HEADER)


async def main(args: argparse.Namespace) -> int:
    raise_fd_limit()
    levels = parse_levels(args.tables)
    results: list[Level] = []
    with tempfile.TemporaryDirectory(prefix="trickroom-load-") as tmp:
        workdir = Path(tmp)
        config = workdir / "load.toml"
        config.write_text(with_settings(LOAD_CONFIG, args.setting))
        echo_port = free_port()
        echo = baselines.start(echo_port, str(workdir / "floor.sqlite3"))
        server_cpus = pin_apart(args.pin, echo.pid)
        try:
            wait_port(echo_port, echo)
            legend(args)
            relay_seconds = min(args.duration, 6.0)
            for i, (n, think) in enumerate(levels):
                lv = await run_level(n, think, args.duration, workdir, config, echo_port,
                                     args.seed + i, server_cpus)
                relay, lv.relay_rate, lv.relay_cpu_us = await baselines.relay_level(
                    echo_port, n, relay_seconds, think, args.seed + i, echo.pid)
                lv.relay_p50, lv.relay_p99 = pct(relay, 0.5) * 1e3, pct(relay, 0.99) * 1e3
                print_level(lv)
                results.append(lv)
            busiest = max((lv for lv in results if not lv.think_ms), key=lambda lv: lv.tables,
                          default=results[-1])
            _, floor_rate, floor_us = await baselines.relay_level(
                echo_port, busiest.tables, relay_seconds, busiest.think_ms / 1e3,
                args.seed, echo.pid, path="/floor")
            print(f"floor: {busiest.tables} groups through the bare library with what an "
                  f"action must cost and nothing of a game (each frame stored in SQLite, "
                  f"group-committed, before it goes to four, with an answer and a prompt "
                  f"beside it): {floor_rate:.0f} frames/s, {floor_us:.0f} µs CPU a frame, "
                  f"{floor_us / max(busiest.relay_cpu_us, 1e-9):.1f}× the relay's "
                  f"{busiest.relay_cpu_us:.0f}; the server's {busiest.cpu_us_per_action:.0f} "
                  f"is {busiest.cpu_us_per_action / max(floor_us, 1e-9):.1f}× the floor")
            kib = await idle_memory(args.idle, workdir, config)
            if server_cpus:
                print(f"pinned: servers on core {max(server_cpus)}, clients on the others "
                      "(--no-pin to let the OS place them)")
            print(f"idle: {args.idle} authenticated sockets on a fresh server: "
                  f"{kib:.1f} KiB of server RSS each")
        finally:
            echo.terminate()
            echo.wait()
    for label, pool in (("as fast as prompts come", [lv for lv in results if not lv.think_ms]),
                        ("with think time", [lv for lv in results if lv.think_ms])):
        good = [lv for lv in pool if lv.p99 < 50 and lv.errors == 0]
        if pool:
            print(f"largest level with p99 < 50 ms and no errors, {label}: "
                  + (f"{max(lv.tables for lv in good)} tables" if good else "none"))
    last = results[-1]
    one = next((lv for lv in results if lv.tables == 1 and not lv.think_ms), last)
    print(f"load tables={last.tables} p99_ms={last.p99:.1f} ratio_p50_vs_echo={one.ratio:.1f} "
          f"actions_per_s={last.actions_per_s:.0f} kib_per_conn={kib:.1f} errors={last.errors} "
          f"cpu_us_per_action={busiest.cpu_us_per_action:.0f} "
          f"relay_cpu_us_per_action={busiest.relay_cpu_us:.0f} "
          f"floor_cpu_us_per_action={floor_us:.0f}")
    return 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = command_line(__doc__)
    parser.add_argument("--tables", default="1,20,100,500@250",
                        help="comma-separated load levels: tables, each with an optional "
                             "@mean think ms (default 1,20,100,500@250)")
    parser.add_argument("--duration", type=float, default=12.0,
                        help="seconds measured per level (default 12)")
    parser.add_argument("--idle", type=int, default=1000,
                        help="idle sockets for the memory-per-connection figure")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--setting", action="append", default=[], metavar="KEY=VALUE",
                        help="a [server] setting for the server under load, in TOML "
                             "(e.g. gc_freeze_above_ms=0); repeatable")
    parser.add_argument("--no-pin", dest="pin", action="store_false",
                        help="do not pin the servers to one core and the clients to the rest")
    parser.add_argument("--stamp", choices=("loop", "kernel"), default="loop",
                        help="when a frame counts as received: when this process's event "
                             "loop read it (default), or the kernel's receive time")
    args = parser.parse_args(argv)
    STAMP["source"] = args.stamp
    return args


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))
