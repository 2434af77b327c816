"""Crashes: SIGKILL the server under load, again and again; nothing acknowledged is lost.

The server runs in its own process on one database (:mod:`bench.harness`'s room
file: no robot delay, no pause between hands). In this process,
``--tables`` tables of four socket bots play Spades as fast as prompts come and
start a new game when one ends. At random moments the server is killed with
SIGKILL and started again on the same database; every bot logs in again and
rejoins its seat with its seat token (a table whose game had just ended is gone
after a restart: its bots open a new one). After the last kill the bots finish
the games they are in and stop.

Every action a bot saw acknowledged (the ``ok`` to its own ``act``, or the
broadcast event of anyone's action: a bid, or a card as its ``trick_won`` lists
it; a card of a trick the kill cut short as its ``played`` event) must be in
the database, in the same game and the same place: a bid in its hand, a card in
its trick (a lost card, redone after the restart, is played later in the hand:
keyed by card alone it would hide). The game is the one the server named last
on that socket: its ``game_started`` event, or the snapshot that answers a
rejoin (after a restart that may be a game the seat never saw start); where the
game stands comes from the events, the snapshot's view and the prompt's view.
Events that skip some (a trick number that does not follow) are a gap: nothing
counts until a snapshot. A rejoin after a restart answered from the log rather
than with a snapshot is a server bug (the new process issued the seat's
last_seq again: its seqs went backwards) and fails the run.

Every game the database holds unfinished when a kill lands was interrupted and
must resume and finish; a table that never finishes is reported as stuck and
its game counts as not resumed. Prints::

    crash kills=<n> acked_lost=<m> games_resumed=<r>/<t>

``python -m bench.crash`` (``--kills 20 --tables 20``) is the full run (about a minute
and a half). The players and the check are :mod:`bench.acked`'s.
"""


from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.acked import (
    ACTIONS_SQL,
    Key,
    Run,
    losses,
    missing,
    per_table,
    report_stuck,
    table_runner,
    tally,
)
from bench.figures import command_line
from bench.harness import Server, raise_fd_limit, room_file


def unfinished(db: Path) -> set[str]:
    """The games the database holds unfinished (read while no server runs)."""
    con = sqlite3.connect(db)
    try:
        return {r[0] for r in con.execute("SELECT id FROM games WHERE finished IS NULL")}
    finally:
        con.close()


def stored(db: Path) -> tuple[dict[str, Counter[Key]], set[str], set[str]]:
    """The database's actions (keyed as acknowledged), its games and its finished games."""
    con = sqlite3.connect(db)
    try:
        actions = tally(con.execute(ACTIONS_SQL))
        games = {r[0] for r in con.execute("SELECT id FROM games")}
        finished = {r[0] for r in con.execute("SELECT id FROM games WHERE finished IS NOT NULL")}
    finally:
        con.close()
    return actions, games, finished


async def crash_run(tables: int, kills: int, seed: int, workdir: Path,
                    gap: tuple[float, float] = (0.4, 1.6), quiet: bool = False,
                    settle: float = 1.0) -> dict[str, Any]:
    """Run the whole experiment (the first kill ``settle`` seconds and a ``gap`` after the
    bots sit down); returns the figures (the test calls this too)."""
    rng = random.Random(seed)
    config = room_file(workdir, "crash")
    db = workdir / "crash.sqlite3"
    server = Server(db, config)
    server.start()
    run = Run()
    up = asyncio.Event()
    up.set()
    runners = [asyncio.create_task(table_runner(lambda: server.url, up, run, rng))
               for _ in range(tables)]
    done_kills = 0
    stuck = 0
    try:
        await asyncio.sleep(settle)
        for _ in range(kills):
            await asyncio.sleep(rng.uniform(*gap))
            up.clear()
            server.kill()
            done_kills += 1
            # Interrupted: every game the database holds unfinished when the server died
            # (also one whose game_started no bot had received yet).
            in_flight = unfinished(db)
            run.interrupted |= in_flight
            server.start()
            run.generation += 1
            up.set()
            if not quiet:
                print(f"  kill {done_kills}: {len(in_flight)} game(s) in flight", flush=True)
        run.stopping = True
        # Games that end between now and the bots noticing may start another: finish those.
        try:
            await asyncio.wait_for(asyncio.gather(*runners), 120)
        except TimeoutError:
            # Counted below all the same: their games are unfinished, so not resumed.
            stuck = report_stuck(run, server.port)
    finally:
        for r in runners:
            r.cancel()
        server.stop()
    actions, games, finished = stored(db)
    lost = missing(run.acked, actions, print)
    # The same check per table (every game at it together), for comparison only: a deficit
    # per game but not per table would be an action counted under the wrong game.
    table_lost = sum(n - have for _, _, n, have in losses(per_table(run.acked),
                                                          per_table(actions)))
    interrupted = run.interrupted & games
    resumed = len(interrupted & finished)
    return {"kills": done_kills, "acked_lost": lost, "resumed": resumed,
            "interrupted": len(interrupted), "games": len(games),
            "unfinished": len(games - finished), "lost_per_table": table_lost,
            "stuck_tables": stuck, "event_gaps": run.gaps, "stale_replays": run.stale_replays,
            "acked": run.acked_count, "errors": dict(run.errors)}


async def main(args: argparse.Namespace) -> int:
    raise_fd_limit()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="trickroom-crash-") as tmp:
        print(f"crash: {args.tables} Spades tables of 4 socket bots, {args.kills} SIGKILLs")
        out = await crash_run(args.tables, args.kills, args.seed, Path(tmp))
    print(f"games {out['games']}, unfinished at the end {out['unfinished']} (stuck tables "
          f"{out['stuck_tables']}), rejoins answered from a restarted server's log "
          f"{out['stale_replays']}, event gaps {out['event_gaps']}, acknowledged "
          f"actions checked {out['acked']}, act errors {out['errors'] or '-'}, counted per "
          f"table instead of per game {out['lost_per_table']} lost, "
          f"{time.perf_counter() - started:.0f} s")
    print(f"crash kills={out['kills']} acked_lost={out['acked_lost']} "
          f"games_resumed={out['resumed']}/{out['interrupted']}")
    if out["stale_replays"]:
        print("FAIL: a restarted server answered rejoins from its log past seqs that an "
              "earlier process issued (its seqs went backwards across the restart)")
    return 0 if (out["acked_lost"] == 0 and out["resumed"] == out["interrupted"]
                 and not out["stale_replays"]) else 1


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = command_line(__doc__)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))
