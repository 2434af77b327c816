"""Game analysis (issue 38): what it costs, whether it measures skill, and what it does to
the tables beside it.

**Cost.** One whole game of heuristic robots (Spades to 500, Hearts to 100) analysed at
the server's default strength (``analysis_samples``, every seat), in one process: the
process's CPU seconds for the game (``spades_s_per_game``, ``hearts_s_per_game``).

**Validity.** Players at the ratings bench's levels (:mod:`bench.ratings_real`: the
heuristic robot taking a random legal action with probability ε, ε from 0 to 1, lower
is stronger), ``--per-level`` of each, play ``--games`` games each (on average), four
drawn at random a game. Every decision of every seat is analysed (at ``--samples`` deals a
decision: fewer than the server's, to be affordable). Then:

* ``level_spearman_<game>``: Spearman between each level's mean loss a decision, over all
  the season's games, and ε (1.0: the losses order the levels perfectly, the goal). A
  Spades decision's loss is noisy (a bid's is worth up to a hundred points): 20 games a
  player and 12 deals a decision put ε = 0 and ε = 0.1 the wrong way round (0.964 on
  2026-12-03), 60 games at 24 deals order them (the defaults);
* ``accuracy_vs_rating_spearman``: after the season's first ``--rating-games`` games a
  player (20, the issue's count), Spearman between each player's accuracy (their
  decisions' mean in those games) and their strength, less that of their WoCG rating
  (Elo) after the same games and their strength; positive: the accuracy tells the levels
  apart better (both are printed, per game).

**Load.** ``--tables`` tables of four socket bots (:mod:`bench.players`, a think time of
``--think`` seconds) on one server process at its default pool (``analysis_workers``),
pinned as :mod:`bench.load` pins (the server, its workers with it, on the last core; the
bots on the others: unpinned, the scheduler moving three busy processes about made even an
idle-class process that only counts move the p99 by 1.3 times, ``--no-pin``). After
``--warmup`` seconds (a heap of a hundred tables has its first slow full collections in the
first seconds, before the collector starts freezing: ``server/collector.py``), the tables
are measured in ``--rounds`` pairs of windows of ``--duration`` seconds: one without
analysis, then one while the server analyses whole robot games without pause (asked from
``--askers`` address groups, each asking again as its last ends), then, once the pool is
idle again, the next pair. Alternating cancels what drifts through the run (a collection,
the machine's other work): ``load_p99_ratio`` is the p99 of every busy window's actions over
that of every quiet window's, from the same run. The goal is 1.2 at most.

Ends with::

    analysis spades_s_per_game=<s> hearts_s_per_game=<s> level_spearman_spades=<r>
    level_spearman_hearts=<r> accuracy_vs_rating_spearman=<d> load_p99_ratio=<x>

Run: ``python -m bench.analysis`` (a few minutes on two cores; ``--jobs`` processes
analyse the validity games).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress
from rich.table import Table
from websockets.asyncio.client import connect

from bench.figures import command_line, pct
from bench.graded import LEVELS, GradedRobot, play_through, spearman
from bench.harness import (
    Server,
    cpu_seconds,
    pin_apart,
    raise_fd_limit,
    request,
    room_file,
)
from bench.players import Seated, Stats, close_all, open_table
from trickroom.game.analysis import DEFAULT_SAMPLES, Analysis, analyse
from trickroom.game.hearts import HeartsGame, HeartsRules
from trickroom.game.robots import make_robot
from trickroom.game.spades import SpadesGame, SpadesRules
from trickroom.ratings import GameResult, system_named

MAX_HANDS = 60
HOG = ("import os\nos.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))\n"
       "n = 0\nwhile True:\n    n += 1\n")


def whole_game(kind: str, seed: int, players: list[Any]) -> dict[str, Any]:
    """A game played to its end by ``players`` (robots, seat order); its record."""
    game: Any = SpadesGame(SpadesRules(mercy=200), seed=seed) if kind == "spades" \
        else HeartsGame(HeartsRules(), seed=seed)
    play_through(game, players, MAX_HANDS)
    record: dict[str, Any] = game.record()
    outcome = game.result()
    record["_scores"], record["_winners"] = list(outcome.seat_scores), list(outcome.winners)
    record["_hands"] = outcome.hands_played
    return record


def cost(kind: str, samples: int) -> float:
    """CPU seconds to analyse every seat of one heuristic robots' game."""
    record = whole_game(kind, 11, [make_robot("heuristic", s) for s in range(4)])
    start = time.process_time()
    analyse(record, samples=samples)
    return time.process_time() - start


@dataclass(frozen=True)
class Played:
    kind: str
    seats: tuple[int, ...]  # player indices, seat order
    record: dict[str, Any]


def play_season(kind: str, eps: list[float], games: int, seed: int) -> list[Played]:
    rng = random.Random(f"{seed}:{kind}")
    out = []
    for _ in range(games):
        seats = tuple(rng.sample(range(len(eps)), 4))
        robots = [GradedRobot(eps[p], random.Random(rng.getrandbits(64))) for p in seats]
        out.append(Played(kind, seats, whole_game(kind, rng.getrandbits(32), robots)))
    return out


def analyse_game(played: Played, samples: int) -> Analysis:
    return analyse(played.record, samples=samples, seeing=False)


@dataclass
class Validity:
    level_spearman: float
    accuracy_spearman: float
    rating_spearman: float
    levels: list[tuple[float, float, int]]  # ε, mean loss a decision, decisions
    estimate_spearman: float = float("nan")  # of the signed estimates' means (unclipped)
    estimates: tuple[float, ...] = ()  # each level's mean estimate a decision


def validity(kind: str, eps: list[float], games: list[Played], analyses: list[Analysis],
             rating_games: int) -> Validity:
    """The levels' order by mean loss over every game; the accuracy and the rating over
    the first ``rating_games`` games (of the season, all players together)."""
    losses: dict[int, list[float]] = {p: [] for p in range(len(eps))}
    estimates: dict[int, list[float]] = {p: [] for p in range(len(eps))}
    accuracies: dict[int, list[float]] = {p: [] for p in range(len(eps))}
    for k, (played, analysis) in enumerate(zip(games, analyses, strict=True)):
        for d in analysis.decisions:
            player = played.seats[d.seat]
            losses[player].append(d.loss)
            estimates[player].append(d.estimate)
            if k < rating_games:
                accuracies[player].append(d.accuracy)
    levels = sorted(set(eps))
    per_level = []
    signed = []
    for level in levels:
        mine = [x for p, e in enumerate(eps) if e == level for x in losses[p]]
        per_level.append((level, sum(mine) / max(1, len(mine)), len(mine)))
        theirs = [x for p, e in enumerate(eps) if e == level for x in estimates[p]]
        signed.append(sum(theirs) / max(1, len(theirs)))
    level_rho = spearman([m for _, m, _ in per_level], levels)
    system = system_named("wocg")
    names = [f"p{i}" for i in range(len(eps))]
    ratings = dict.fromkeys(names, system.start_rating)
    for played in games[:rating_games]:
        players = [names[p] for p in played.seats]
        result = GameResult.of("spades" if kind == "spades" else "hearts", system.name,
                               players, played.record["_scores"],
                               winners=played.record["_winners"],
                               hands=played.record["_hands"])
        for change in system.rate(result, ratings):
            ratings[change.player] = change.after
    strength = [-e for e in eps]
    accuracy = [sum(accuracies[p]) / max(1, len(accuracies[p])) for p in range(len(eps))]
    return Validity(level_rho, spearman(accuracy, strength),
                    spearman([ratings[n].value for n in names], strength), per_level,
                    spearman(signed, levels), tuple(signed))


async def load_ratio(args: argparse.Namespace, workdir: Path, console: Console) -> float:
    """Table p99 while the server analyses games over its p99 without, one run: quiet and
    busy windows alternating."""
    config = room_file(workdir, "analysis", settings=["analysis_queue = 16"])
    server = Server(workdir / "load.sqlite3", config, cpus=pin_apart(args.pin))
    server.start()
    stats = Stats()
    bots: list[Seated] = []
    quiet: list[float] = []
    busy: list[float] = []
    windows: list[str] = []  # each window's p99, ms, in order
    analysed = 0
    worked = 0.0  # CPU seconds the workers (or the control) spent in the busy windows
    try:
        games = [] if args.hog else await robot_games(server.url, args.askers)
        sem = asyncio.Semaphore(50)
        rng = random.Random(1)

        async def one() -> None:
            async with sem:
                bots.extend(await open_table(server.url, stats, rng, think=args.think))

        await asyncio.gather(*(one() for _ in range(args.tables)))
        await asyncio.sleep(args.warmup)
        stats.measuring = True
        for _ in range(args.rounds):
            stats.latencies.clear()
            await asyncio.sleep(args.duration)
            quiet += stats.latencies
            windows.append(f"{pct(stats.latencies, 0.99) * 1e3:.1f}")
            stop = asyncio.Event()
            hog = None
            if args.hog:  # the control: a process of the idle class that only counts
                hog = subprocess.Popen([sys.executable, "-c", HOG])
                if server.cpus:  # where the workers would run: the server's core
                    os.sched_setaffinity(hog.pid, server.cpus)
                askers = []
            else:
                askers = [asyncio.create_task(keep_analysing(server, game,
                                                             f"127.0.0.{20 + i}", stop))
                          for i, game in enumerate(games)]
            await asyncio.sleep(1.0)  # the pool at work
            stats.latencies.clear()
            helpers = [hog.pid] if hog is not None else descendants(server.pid)
            spent = sum(map(cpu_of, helpers))
            await asyncio.sleep(args.duration)
            worked += sum(map(cpu_of, helpers)) - spent
            busy += stats.latencies
            windows.append(f"{pct(stats.latencies, 0.99) * 1e3:.1f}*")
            stop.set()
            if hog is not None:
                hog.kill()
                hog.wait()
            analysed += sum(await asyncio.gather(*askers))
            await pool_idle(server, games)  # the next quiet window is quiet
        stats.measuring = False
    finally:
        await close_all(bots)
        server.stop()
    ratio = pct(busy, 0.99) / max(1e-9, pct(quiet, 0.99))
    beside = "an idle-class process counted" if args.hog else f"{analysed} analyses ended"
    beside += f", {100 * worked / (args.rounds * args.duration):.0f}% of a core"
    console.print(f"load: {args.tables} tables, {args.rounds} rounds of {args.duration:g} s "
                  f"windows: p99 {pct(quiet, 0.99) * 1e3:.1f} ms alone, "
                  f"{pct(busy, 0.99) * 1e3:.1f} ms while {beside} "
                  f"({len(quiet)} and {len(busy)} actions timed): ratio {ratio:.2f}; "
                  f"each window's p99 in turn (*: busy): {' '.join(windows)} ms")
    return ratio


def descendants(pid: int) -> list[int]:
    """The processes under ``pid`` (a server's forkserver and its analysis workers)."""
    parents: dict[int, int] = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                parents[int(proc.name)] = int(
                    (proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    found, frontier = [], [pid]
    while frontier:
        frontier = [child for child, parent in parents.items() if parent in frontier]
        found += frontier
    return found


def cpu_of(pid: int) -> float:
    """A process's CPU seconds so far; 0 once it is gone."""
    try:
        return cpu_seconds(pid)
    except (OSError, ValueError, IndexError):
        return 0.0


def analysis_state(db: Path | str, game_id: str) -> str | None:
    """The stored analysis's state for ``game_id`` (None: none asked for)."""
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT state FROM analyses WHERE game_id = ?",
                           (game_id,)).fetchone()
    return None if row is None else str(row[0])


async def pool_idle(server: Server, games: list[str]) -> None:
    """Until no analysis of ``games`` is queued or running (bounded: 120 s)."""
    for _ in range(600):
        states = [await asyncio.to_thread(analysis_state, server.db, g) for g in games]
        if all(s in (None, "done", "failed") for s in states):
            return
        await asyncio.sleep(0.2)


async def robot_games(url: str, count: int) -> list[str]:
    """``count`` finished games of four robots (Spades to 500), their ids."""
    ws = await connect(url, compression=None, max_size=2**22)
    ids = []
    try:
        await request(ws, {"type": "guest"})
        for _ in range(count):
            made = await request(ws, {"type": "create_table", "room": "spades"})
            table = made["table"]["id"]
            await request(ws, {"type": "fill_robots", "table": table, "level": "heuristic"})
            game_id = None
            while True:  # the lobby's line names the game; the table closes at its end
                listing = await request(ws, {"type": "list_tables", "room": "spades"})
                info = next((t for t in listing["tables"] if t["id"] == table), None)
                if info is not None and info["game_id"]:
                    game_id = info["game_id"]
                if game_id and (info is None or info["state"] in ("over", "closed")):
                    ids.append(game_id)
                    break
                await asyncio.sleep(0.2)
    finally:
        await ws.close()
    return ids


async def keep_analysing(server: Server, game_id: str, address: str,
                         stop: asyncio.Event) -> int:
    """Ask for ``game_id``'s analysis from ``address`` again and again (a fresh one: the
    stored one is dropped) until ``stop``; how many ran."""
    done = 0
    ws = await connect(server.url, compression=None, max_size=2**22,
                       local_addr=(address, 0))

    def forget() -> None:  # a new analysis, not the kept one
        with sqlite3.connect(server.db) as db:
            db.execute("DELETE FROM analyses WHERE game_id = ?", (game_id,))

    # (in threads: a commit waits for the disk, and this loop times the bots' actions)
    try:
        await request(ws, {"type": "guest"})
        while not stop.is_set():
            await asyncio.to_thread(forget)
            await request(ws, {"type": "analyse", "game_id": game_id})
            while not stop.is_set():
                await asyncio.sleep(0.2)
                state = await asyncio.to_thread(analysis_state, server.db, game_id)
                if state in (None, "done", "failed"):
                    done += 1
                    break
    finally:
        await ws.close()
    return done


async def main(args: argparse.Namespace) -> int:
    raise_fd_limit()
    console = Console(width=160)
    eps = [level for level in LEVELS for _ in range(args.per_level)]
    games_each = max(1, args.games * len(eps) // 4)
    results: dict[str, Validity] = {}
    costs: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="trickroom-analysis-") as tmp, \
            Progress(console=console, transient=True) as progress:
        for kind in ("spades", "hearts") if args.validity else ():
            costs[kind] = cost(kind, args.cost_samples)
            console.print(f"cost: a whole {kind} game analysed, every seat, at "
                          f"{args.cost_samples} deals a decision: {costs[kind]:.1f} s of CPU")
            games = play_season(kind, eps, games_each, args.seed)
            task = progress.add_task(f"{kind}: analysing {len(games)} games", total=len(games))
            with ProcessPoolExecutor(args.jobs) as pool:
                futures = [pool.submit(analyse_game, g, args.samples) for g in games]
                analyses = []
                for future in futures:
                    analyses.append(future.result())
                    progress.advance(task)
            results[kind] = validity(kind, eps, games, analyses,
                                     max(1, args.rating_games * len(eps) // 4))
        ratio = await load_ratio(args, Path(tmp), console) if args.tables else float("nan")
    for kind, v in results.items():
        table = Table(title=f"{kind}: {games_each} games, {args.per_level} players a level, "
                            f"{args.samples} deals a decision (accuracy and rating: the "
                            f"first {args.rating_games} games a player)")
        for col in ("ε", "mean loss a decision", "its estimate (signed)", "decisions"):
            table.add_column(col)
        for (level, loss, n), signed in zip(v.levels, v.estimates, strict=True):
            table.add_row(f"{level:g}", f"{loss:.2f}", f"{signed:.2f}", str(n))
        console.print(table)
        console.print(f"{kind}: Spearman of the levels' losses with ε {v.level_spearman:.3f} "
                      f"(of their signed estimates {v.estimate_spearman:.3f}); "
                      f"of the players' accuracy with strength {v.accuracy_spearman:.3f}, "
                      f"of their WoCG rating {v.rating_spearman:.3f}")
    nan = float("nan")
    edge = sum(v.accuracy_spearman - v.rating_spearman for v in results.values()) / 2 \
        if results else nan
    rho = {kind: v.level_spearman for kind, v in results.items()}
    print(f"analysis spades_s_per_game={costs.get('spades', nan):.2f} "
          f"hearts_s_per_game={costs.get('hearts', nan):.2f} "
          f"level_spearman_spades={rho.get('spades', nan):.3f} "
          f"level_spearman_hearts={rho.get('hearts', nan):.3f} "
          f"accuracy_vs_rating_spearman={edge:.3f} load_p99_ratio={ratio:.2f}", flush=True)
    return 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = command_line(__doc__)
    parser.add_argument("--per-level", type=int, default=2,
                        help="players at each of the 7 levels (default 2)")
    parser.add_argument("--games", type=int, default=60,
                        help="games each player plays (default 60)")
    parser.add_argument("--rating-games", type=int, default=20,
                        help="of them, the first each player plays for the accuracy against "
                             "the rating (default 20)")
    parser.add_argument("--samples", type=int, default=24,
                        help="deals a decision for the validity games (default 24)")
    parser.add_argument("--cost-samples", type=int, default=DEFAULT_SAMPLES,
                        help=f"deals a decision for the cost (default {DEFAULT_SAMPLES}, "
                             "the server's)")
    parser.add_argument("--jobs", type=int, default=2, help="processes for the validity")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tables", type=int, default=100,
                        help="tables for the load figure (0: not run)")
    parser.add_argument("--think", type=float, default=0.1,
                        help="the bots' think time, seconds (default 0.1)")
    parser.add_argument("--askers", type=int, default=4,
                        help="address groups asking for analyses without pause (default 4)")
    parser.add_argument("--hog", action="store_true",
                        help="the load's control: an idle-class process that only counts "
                             "beside the tables, not analyses")
    parser.add_argument("--validity", action=argparse.BooleanOptionalAction, default=True,
                        help="--no-validity: the cost and the load alone")
    parser.add_argument("--duration", type=float, default=6.0,
                        help="seconds of each window of the load figure (default 6)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="pairs of windows, quiet then busy (default 3)")
    parser.add_argument("--no-pin", dest="pin", action="store_false",
                        help="do not pin the server (and its workers) to one core and the "
                             "bots to the rest")
    parser.add_argument("--warmup", type=float, default=10.0,
                        help="seconds the tables play before the first window (default 10)")
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))
