"""Where an action's CPU goes: a profile of the server under the load bench's bots (issue 40).

A server process runs under :mod:`cProfile` while ``--tables`` tables of four socket bots
(:mod:`bench.players`, instant: every prompt answered at once) play for ``--duration``
seconds; at its stop the profile is written and read back here. Each function's own time
(not its callees') is put in one part of an action's path by the module it is in, and
each part is shown in microseconds an action (the actions the bots had acknowledged) and
as a share of the whole:

* parsing and validation (the protocol's models, pydantic, orjson's loads);
* the connection (sessions, the throttle, the socket's reading and writing: websockets);
* the engine (``trickroom.game``: applying, legal moves, views, refusal reasons);
* the table (``server.tables``: the machine, events and their audiences, prompts);
* encoding (the protocol's dumps, orjson's dumps);
* the store (``server.store``, aiosqlite, sqlite3);
* the lobby and the hub, metrics (prometheus_client) and logs;
* the event loop itself (asyncio, uvloop, selectors); the process's start (imports, which
  a longer ``--duration`` dilutes) and the rest.

cProfile adds its own cost to every call, so the microseconds are the profiled server's
(several times an unprofiled one's): read the shares. Ends with::

    profile actions=<n> us_per_action=<x> engine=<%> table=<%> parsing=<%> connection=<%>
    encoding=<%> store=<%> lobby_hub=<%> metrics_logs=<%> loop=<%> startup=<%> other=<%>

Run: ``python -m bench.profile`` (about half a minute); ``--top N`` also lists the N
functions of most own time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pstats
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.figures import command_line
from bench.harness import ROOT, Server, raise_fd_limit, room_file, wait_port
from bench.players import Seated, Stats, close_all, open_table

# A function's part by its file's path, the first that matches.
PARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("engine", ("trickroom/game/",)),
    ("parsing", ("trickroom/server/protocol/requests", "pydantic", "orjson.loads",
                 "<built-in method orjson.loads>")),
    ("encoding", ("trickroom/server/protocol/", "orjson.dumps", "<built-in method orjson.dumps>",
                  "json/encoder")),
    ("table", ("trickroom/server/tables/",)),
    ("store", ("trickroom/server/store/", "aiosqlite", "sqlite3")),
    ("connection", ("trickroom/server/sessions", "trickroom/server/throttle",
                    "trickroom/server/requests", "websockets/", "trickroom/server/routes",
                    "'_socket.socket'")),
    ("lobby_hub", ("trickroom/server/lobby", "trickroom/server/hub/", "trickroom/server/friends",
                   "trickroom/server/listing")),
    ("metrics_logs", ("prometheus_client", "trickroom/server/metrics", "logging/",
                      "trickroom/server/logs")),
    ("loop", ("asyncio/", "uvloop", "selectors", "<built-in method select",
              "<method 'poll'", "<built-in method epoll")),
    ("startup", ("<frozen importlib", "builtins.compile", "builtins.exec", "marshal")),
)
ORDER = [name for name, _ in PARTS] + ["other"]


def part_of(where: str) -> str:
    for name, marks in PARTS:
        if any(mark in where for mark in marks):
            return name
    return "other"


class ProfiledServer(Server):
    """``trickroom serve`` under cProfile, the profile written to ``out`` at its stop."""

    def __init__(self, db: Path, config: Path, out: Path) -> None:
        super().__init__(db, config)
        self.out = out

    def start(self) -> None:
        argv = ["--log-level", "error", "serve", "--port", str(self.port), "--db",
                str(self.db), "--config", str(self.config)]
        code = ("import cProfile; from trickroom.server.cli import main; "
                f"cProfile.runctx('main(argv)', globals(), {{'main': main, 'argv': {argv!r}}}, "
                f"{str(self.out)!r})")
        self.proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT,
                                     env={**os.environ, "PYTHONPATH": str(ROOT)},
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            wait_port(self.port, self.proc)
        except RuntimeError as exc:
            said = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
            why = f"the profiled server did not start: {exc}\n{said[-2000:]}"
            raise RuntimeError(why) from None

    def stop(self) -> None:
        if self.proc is not None and self.alive:
            self.proc.terminate()  # a clean stop: cProfile writes its file on the way out
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.kill()


async def profile(args: argparse.Namespace, workdir: Path) -> tuple[Path, int]:
    out = workdir / "server.prof"
    server = ProfiledServer(workdir / "profile.sqlite3",
                            room_file(workdir, "profile", settings=["event_loop = \"asyncio\""]),
                            out)
    server.start()
    stats = Stats()
    bots: list[Seated] = []
    rng = random.Random(1)
    try:
        sem = asyncio.Semaphore(50)

        async def one() -> None:
            async with sem:
                bots.extend(await open_table(server.url, stats, rng))

        await asyncio.gather(*(one() for _ in range(args.tables)))
        stats.measuring = True
        await asyncio.sleep(args.duration)
        stats.measuring = False
        actions = stats.actions
    finally:
        await close_all(bots)
        server.stop()
    return out, actions


def main(args: argparse.Namespace) -> int:
    raise_fd_limit()
    console = Console(width=160)
    with tempfile.TemporaryDirectory(prefix="trickroom-profile-") as tmp:
        out, actions = asyncio.run(profile(args, Path(tmp)))
        if not out.exists():
            console.print("the profiled server wrote no profile")
            return 1
        stats = pstats.Stats(str(out))
        if args.save:
            stats.dump_stats(args.save)  # for pstats' callers and callees, or snakeviz
    own: dict[str, float] = dict.fromkeys(ORDER, 0.0)
    rows = []
    for (path, line, name), (_, _, tottime, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        where = f"{path}:{name}" if path != "~" else name
        own[part_of(where.replace(os.sep, "/"))] += tottime
        rows.append((tottime, f"{Path(path).name}:{line} {name}" if path != "~" else name))
    total = sum(own.values()) or 1.0
    per = max(1, actions)
    table = Table(title=f"the profiled server's own time, {actions} actions acknowledged "
                        f"({args.tables} tables, {args.duration:g} s; cProfile's cost included)")
    for col in ("part", "µs an action", "share"):
        table.add_column(col)
    for name in ORDER:
        table.add_row(name, f"{own[name] * 1e6 / per:.1f}", f"{100 * own[name] / total:.1f}%")
    console.print(table)
    if args.top:
        top = Table(title=f"the {args.top} functions of most own time")
        top.add_column("µs an action")
        top.add_column("function")
        for tottime, where in sorted(rows, reverse=True)[:args.top]:
            top.add_row(f"{tottime * 1e6 / per:.1f}", where)
        console.print(top)
    shares = " ".join(f"{name}={100 * own[name] / total:.1f}" for name in ORDER)
    print(f"profile actions={actions} us_per_action={total * 1e6 / per:.1f} {shares}",
          flush=True)
    return 0 if actions else 1


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = command_line(__doc__)
    parser.add_argument("--tables", type=int, default=50, help="tables of four bots (default 50)")
    parser.add_argument("--duration", type=float, default=10.0,
                        help="seconds profiled (default 10)")
    parser.add_argument("--top", type=int, default=15,
                        help="functions of most own time listed (default 15; 0: none)")
    parser.add_argument("--save", metavar="FILE",
                        help="keep the server's profile in FILE (pstats' format)")
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(main(parse_args()))
