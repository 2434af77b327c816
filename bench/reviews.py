"""Review loops: clients asking for a long game's review in a loop, beside a table in play.

A 150-hand Hearts game (target 1000, four seats played at random) is played to its
end on a temporary database first. Then the server runs with its limits as shipped
and four sockets, from 127.0.0.2, play Spades at one table, each acting 20 ms after
its prompt, timing every ``act`` and a ping every 50 ms (``Victim`` of
bench/abuse.py). Quiet and loop windows alternate (``--rounds`` of each, ``--window``
seconds); in a loop window ``--loops`` connections from 127.0.0.1 ask
``GET /api/games/<id>`` of the long game as fast as the answers come (a 429 too).
Run twice: as shipped (each review built once, kept encoded), and with
``review_cache_bytes = 0`` and no HTTP budget (every request replays the game: what
issue 32 measured). Targets 127.0.0.1 only; bounded in time. Ends with::

    reviews loops_act_p99_ratio=<r> loops_ping_p99_ratio=<p> uncached_act_p99_ratio=<q>
        built=<n> review_kib=<k>   (one line; ratios: loops over quiet)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sys
import tempfile
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from websockets.asyncio.client import connect

from bench.abuse import Victim, Window, summary
from bench.figures import command_line
from bench.harness import ROOT, Server, choose, http_get, metric, raise_fd_limit, request

CONFIG = """\
[server]
robot_delay = {robot_delay}
hand_pause = 0
turn_seconds = 600
{extra}
[[rooms]]
name = "spades"
game = "spades"
rules = {{ mercy = 200 }}

[[rooms]]
name = "hearts"
game = "hearts"
rules = {{}}
"""
UNCACHED = "review_cache_bytes = 0\nhttp_per_second_per_address = 0\n"


async def long_game(url: str) -> str:
    """A Hearts game to 1000 points (at most 200 hands, the most a game may last), one guest
    playing at random with three robots: its id."""
    rng = random.Random(7)
    async with connect(url, compression=None, max_size=2**22) as ws:
        await request(ws, {"type": "guest", "name": "long"})
        created = await request(ws, {"type": "create_table", "room": "hearts",
                                     "rules": {"target": 1000, "hand_limit": 200}})
        table = created["table"]["id"]
        await request(ws, {"type": "sit", "table": table, "seat": 0})
        # Not ``request``: the game starts at once, and its first prompt must not be dropped.
        await ws.send(json.dumps({"type": "fill_robots", "table": table, "level": "random",
                                  "id": "fill"}))
        answered, game_id = -1, ""
        async for frame in ws:
            message = json.loads(frame)
            if message.get("type") == "event":
                event = message["event"]
                if event["type"] == "game_started":
                    game_id = event["game_id"]
                elif event["type"] == "game_over":
                    return game_id
            elif message.get("type") == "prompt" and message["seq"] > answered:
                answered = message["seq"]
                await ws.send(json.dumps({"type": "act", "table": table, "id": answered,
                                          "action": choose(message, rng)}))
    raise RuntimeError("the long game's socket closed before it ended")


async def asker(port: int, path: str, stop: asyncio.Event, counts: list[int]) -> None:
    """``GET path`` as fast as the answers come, a connection each (the server closes it)."""
    request_bytes = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(request_bytes.encode())
            await reader.read()
            writer.close()
            counts[0] += 1
        except OSError:
            await asyncio.sleep(0.05)


async def loops_process(port: int, path: str, loops: int, seconds: float) -> None:
    """The askers, in a process of their own at a lower priority (a real one runs
    elsewhere). Prints how many answers they read."""
    os.nice(10)
    stop, counts = asyncio.Event(), [0]
    tasks = [asyncio.create_task(asker(port, path, stop, counts)) for _ in range(loops)]
    await asyncio.sleep(seconds)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(counts[0])


async def loops_run(db: Path, game_id: str, loops: int, rounds: int, seconds: float,
                    workdir: Path, cached: bool, progress: Progress
                    ) -> tuple[list[Window], int, int]:
    config = workdir / f"reviews-{cached}.toml"
    config.write_text(CONFIG.format(robot_delay=0.02, extra="" if cached else UNCACHED))
    windows: list[Window] = []
    path = f"/api/games/{game_id}"
    with Server(db, config) as server:
        size = len(await http_get(server.port, path))
        async with contextlib.AsyncExitStack() as stack:
            # Four players at one table, each acting 20 ms after its prompt, all timed:
            # about four times the acts of one player with robots, so the p99 is not
            # one scheduling hiccup (as bench.abuse's robots figure).
            sockets = [await stack.enter_async_context(connect(
                server.url, compression=None, max_size=2**22, local_addr=("127.0.0.2", 0)))
                for _ in range(4)]
            victims = [Victim(ws, pace=0.02, seed=i) for i, ws in enumerate(sockets)]
            table = await victims[0].open("victim0")
            for i, v in enumerate(victims[1:], 1):
                await v.join(f"victim{i}", table, i)
            tasks = [asyncio.create_task(v.answer()) for v in victims]
            tasks.append(asyncio.create_task(victims[0].ping()))
            await asyncio.sleep(1.0)
            task = progress.add_task(f"review loops ({'cached' if cached else 'uncached'})",
                                     total=2 * rounds)
            for flood in [False, True] * rounds:
                window = Window(flood)
                for v in victims:
                    v.window = window
                if flood:
                    attacker = await asyncio.create_subprocess_exec(
                        sys.executable, "-m", "bench.reviews", "--ask", str(server.port), path,
                        "--loops", str(loops), "--window", str(seconds),
                        stdout=asyncio.subprocess.PIPE, cwd=ROOT)
                    out, _ = await attacker.communicate()
                    window.logins = int(out.decode().strip() or 0)  # answers read
                else:
                    await asyncio.sleep(seconds)
                for v in victims:
                    v.window = None
                windows.append(window)
                progress.advance(task)
                await asyncio.sleep(0.3)
            for t in tasks:
                if t.done() and t.exception() is not None:  # a victim gone: say why
                    raise RuntimeError("a victim stopped playing") from t.exception()
                t.cancel()
        built = metric(await http_get(server.port, "/metrics"), "trickroom_reviews_built_total")
    return windows, built, size


async def main(argv: list[str] | None = None) -> int:
    parser = command_line(__doc__)
    parser.add_argument("--loops", type=int, default=16, help="connections asking in a loop")
    parser.add_argument("--rounds", type=int, default=3, help="quiet and loop windows each")
    parser.add_argument("--window", type=float, default=6.0, help="seconds a window")
    parser.add_argument("--ask", nargs=2, metavar=("PORT", "PATH"),
                        help=argparse.SUPPRESS)  # the askers' process
    args = parser.parse_args(argv)
    if args.ask:
        await loops_process(int(args.ask[0]), args.ask[1], args.loops, args.window)
        return 0
    raise_fd_limit()
    console = Console()
    results = {}
    with tempfile.TemporaryDirectory(prefix="trickroom-reviews-") as tmp, \
            Progress(console=console, transient=True) as progress:
        workdir = Path(tmp)
        db = workdir / "reviews.sqlite3"
        config = workdir / "long.toml"
        config.write_text(CONFIG.format(robot_delay=0, extra=""))
        with Server(db, config) as server:
            game_id = await asyncio.wait_for(long_game(server.url), 600)
        for cached in (True, False):
            windows, built, size = await loops_run(db, game_id, args.loops, args.rounds,
                                                   args.window, workdir, cached, progress)
            results[cached] = (summary(windows), built, size)
    for cached, (r, built, _) in results.items():
        console.print(
            f"{'cached  ' if cached else 'uncached'}: act p50/p99 quiet "
            f"{r['quiet_act_p50']:.2f}/{r['quiet_act_p99']:.2f} ms, loops "
            f"{r['flood_act_p50']:.2f}/{r['flood_act_p99']:.2f} ms (x{r['act_p99_ratio']:.2f}); "
            f"ping p99 quiet {r['quiet_ping_p99']:.2f}, loops {r['flood_ping_p99']:.2f} ms "
            f"(x{r['ping_p99_ratio']:.2f}); {r['logins_per_window']:.0f} answers a window; "
            f"reviews built {built}; {r['quiet_acts']:.0f}/{r['flood_acts']:.0f} acts timed")
    on, built, size = results[True]
    print(f"reviews loops_act_p99_ratio={on['act_p99_ratio']:.2f} "
          f"loops_ping_p99_ratio={on['ping_p99_ratio']:.2f} "
          f"uncached_act_p99_ratio={results[False][0]['act_p99_ratio']:.2f} "
          f"built={built} review_kib={size // 1024}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
