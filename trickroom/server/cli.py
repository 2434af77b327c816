"""The ``trickroom`` command: ``serve``, ``config``, ``bot``, ``schema``, ``demo`` and
``ratings refit``.

``make run`` is ``trickroom serve``: one port for the web client, the API and
the WebSocket, on an SQLite file under the user's data directory.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn

from rich.console import Console
from rich.table import Table

from trickroom import compiled
from trickroom.game.cards import CARD_TEXT, SEAT_NAMES
from trickroom.game.robots import ROBOTS, make_robot
from trickroom.game.spades import SpadesGame, SpadesHandResult, SpadesRules
from trickroom.i18n.message import Msg, both
from trickroom.server.logs import setup_logging
from trickroom.server.urls import masked

if TYPE_CHECKING:
    from trickroom.server.effective import Effective


def play_demo(seed: int, robot: str, console: Console, language: str = "en") -> SpadesGame:
    """Four robots play a Spades game to the end; each hand is printed as it is scored,
    in ``language`` (trickroom/i18n)."""
    game = SpadesGame(SpadesRules(mercy=200), seed=seed)
    robots = [make_robot(robot, seed * 4 + s) for s in range(4)]
    say = _sayer(language)
    title = say(Msg("Spades"))
    console.print(f"[bold]{title}[/bold]" + say(Msg(
        ", seed {seed}, four {robot} robots; North-South (seats 0, 2) against East-West "
        "(seats 1, 3)", seed=seed, robot=robot)))
    while game.phase != "game_over":
        if game.phase == "hand_over":
            game.next_hand()
            continue
        seat = game.to_act
        assert seat is not None
        bidding = game.phase == "bid"
        events = game.apply(robots[seat].choose(game.view(seat)), seat)
        if bidding and game.phase != "bid":  # the hand's header and bids, then its tricks
            _print_bids(console, game, say)
        for event in events:
            if event.kind == "trick_won":
                cards = " ".join(CARD_TEXT[c] for c in event.cards)  # type: ignore[attr-defined]
                console.print(say(Msg(
                    "  trick {trick:2}: {cards}  won by {seat}",
                    trick=event.trick_no + 1,  # type: ignore[attr-defined]
                    cards=cards, seat=SEAT_NAMES[event.seat])))  # type: ignore[attr-defined]
            elif event.kind == "hand_scored":
                _print_hand(console, event.result, say)  # type: ignore[attr-defined]
    side = game.winners[0] % 2
    over = say(Msg("Game over"))
    console.print(f"[bold]{over}[/bold]" + say(Msg(
        ": {winners} win, {score} to {other}", winners=both([SEAT_NAMES[s] for s in game.winners]),
        score=game.scores[side], other=game.scores[1 - side])))
    return game


def _sayer(language: str) -> Callable[[str], str]:
    """A text in ``language``, its brackets escaped for rich (a pseudo-locale's are text)."""
    from rich.markup import escape

    from trickroom.i18n.catalogs import render

    return lambda text: escape(render(text, language))


def demo_language(chosen: str | None) -> str:
    """The demo's language: ``--language``, else the terminal's (``LC_ALL``, ``LC_MESSAGES``
    or ``LANG``: ``el_GR.UTF-8`` is Greek), else English."""
    from trickroom.i18n.catalogs import DEFAULT, negotiate, pick

    if chosen:
        return pick(chosen) or DEFAULT
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name, "").split(".")[0].replace("_", "-")
        if value and value not in ("C", "POSIX"):
            return negotiate(value) or DEFAULT
    return DEFAULT


def _bid_text(bid: int | None, blind: bool) -> str:
    return Msg("blind nil") if blind else (Msg("nil") if bid == 0 else str(bid))


def _print_bids(console: Console, game: SpadesGame, say: Callable[[str], str]) -> None:
    """A hand's header and its bids, as its play begins (before its tricks)."""
    bids = ", ".join(f"{say(SEAT_NAMES[s])} {say(_bid_text(game.bids[s], game.blind[s]))}"
                     for s in range(4))
    header = say(Msg("hand {n}", n=game.hand_no + 1))
    console.print(f"[bold]{header}[/bold]" + say(Msg(
        " (dealer {dealer}): bids {bids}", dealer=SEAT_NAMES[game.dealer], bids=bids)))


def _print_hand(console: Console, result: SpadesHandResult, say: Callable[[str], str]) -> None:
    table = Table(title=say(Msg("hand {n} scored", n=result.hand_no + 1)))
    for col in (Msg("seat"), Msg("bid"), Msg("tricks")):
        table.add_column(say(col))
    for seat in range(4):
        table.add_row(say(SEAT_NAMES[seat]), say(_bid_text(result.bids[seat],
                                                           result.blind[seat])),
                      str(result.tricks_won[seat]))
    console.print(table)
    for side in result.sides:
        name = Msg("North-South") if side.side == 0 else Msg("East-West")
        console.print(say(Msg(
            "  {side}: {points:+d} (contract {contract:+d}, bags {bags}, nil {nil:+d}, "
            "penalty {penalty}) -> {score}", side=name, points=side.points,
            contract=side.contract_points, bags=side.bags, nil=side.nil_points,
            penalty=side.bag_penalty, score=side.score)))


def fail(why: str) -> NoReturn:
    """End the command with one line on standard error, written whole in one write (a
    store's thread may still be logging its last JSON line as we go: two writes, the
    message and its newline, let that line land between them)."""
    sys.stderr.write(f"trickroom: {why}\n")
    sys.stderr.flush()
    raise SystemExit(1)


def node_settings(args: argparse.Namespace) -> Effective:
    """The settings ``serve`` and ``config`` run with: the command line's options over
    the environment's ``TRICKROOM_*`` over the room file's over the defaults (see
    trickroom/server/effective.py). One that cannot be used ends the command with one
    line naming it by where it came from."""
    from trickroom.server.config import ConfigError
    from trickroom.server.effective import resolve

    try:
        return resolve(vars(args))
    except ConfigError as exc:
        fail(masked(str(exc)))


def show_config(effective: Effective, as_json: bool) -> None:
    """``trickroom config``: every setting, its value and where it came from; no
    password is shown."""
    from trickroom.server import effective as settings

    if as_json:
        print(json.dumps(settings.as_json(effective), indent=2))
    else:
        print(settings.describe(effective))


def serve(effective: Effective) -> None:
    """``trickroom serve``. What stops a start (a missing database role, Redis not
    answering, a port in use...) ends the command with one line on standard error that
    says what to do, never a traceback; no URL is shown with its password."""
    from trickroom.server.app import App
    from trickroom.server.loops import loop_factory
    from trickroom.server.loops import run as run_on
    from trickroom.server.store import StoreError

    config, options, db = effective.config, effective.serve, effective.database
    loop_name, _ = loop_factory(config.settings.event_loop)

    async def run() -> str | None:
        """Serve until a stop signal; or the reason the server could not start."""
        app = App(config, db, cluster=options.cluster, cluster_prefix=options.cluster_prefix)
        try:
            await app.start(options.host, options.port)
        except (StoreError, OSError) as exc:  # OSError: the port, or Redis (ConnectionError)
            for step in (app.stop, app.store.close):  # whatever had started, stopped
                with contextlib.suppress(Exception):
                    await step()
            return masked(str(exc))
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        # Said once a stop signal would be handled: a host's SIGTERM from now on flushes.
        print(f"trickroom serving http://{options.host}:{app.port}/ (socket at /ws), "
              f"database {masked(db)}, {app.hub.description()}, engines {compiled.status()[1]}, "
              f"event loop {loop_name}",
              flush=True)
        await stop.wait()
        print("shutting down: handing tables over, flushing writes", flush=True)
        await app.drain()
        await app.stop()
        return None

    failed = run_on(run(), config.settings.event_loop)
    if failed is not None:
        fail(failed)


def drain(pid: int, wait: float) -> int:
    """``trickroom drain PID``: SIGTERM the node (it hands its tables over between moves,
    flushes and stops) and wait until it is gone; 0, or 1 with the reason."""
    import time

    err = Console(stderr=True)
    try:
        os.kill(pid, signal.SIGTERM)
    except OSError as exc:
        err.print(f"trickroom: cannot signal process {pid}: {exc.strerror}", markup=False)
        return 1
    deadline = time.monotonic() + wait
    with err.status(f"draining process {pid}"):
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                err.print(f"process {pid} handed its tables over and stopped", markup=False)
                return 0
            except PermissionError:
                pass
            time.sleep(0.1)
    err.print(f"trickroom: process {pid} is still running after {wait:g} s", markup=False)
    return 1


def ratings_refit(args: argparse.Namespace, console: Console | None = None) -> int:
    """``trickroom ratings refit``: print a room's refitted constants; 0, or 1 with a
    one-line reason on standard error."""
    from trickroom.server.config import ConfigError, load_config
    from trickroom.server.refit import RefitError, run, store_target

    console = console or Console()
    try:
        rooms = load_config(args.config).rooms
        asyncio.run(run(rooms, store_target(args.db, args.store), args.room, args.system,
                        console))
    except (ConfigError, RefitError) as exc:
        Console(stderr=True).print(f"trickroom: {masked(str(exc))}", markup=False,
                                   highlight=False, soft_wrap=True)
        return 1
    return 0


def migrate(args: argparse.Namespace) -> int:
    """``trickroom migrate``: bring a database to this trickroom's schema version, saying
    what version it was at and is now at (``--check``: only where it stands and what would run).
    0; or 1, with one line on standard error when the database cannot be migrated (newer
    than this trickroom, or not reached), or, checked, when it lacks migrations."""
    import sqlite3
    from pathlib import Path

    from trickroom.server.app import default_db_path
    from trickroom.server.store import StoreError, is_postgres, open_store

    target = args.store or args.db or default_db_path()
    failed = None
    if args.store and not is_postgres(args.store):
        failed = "--store is a PostgreSQL URL, postgresql://user@host/db (a file: --db PATH)"
    elif not is_postgres(target) and not Path(target).exists():
        failed = f"no database at {target} (trickroom serve makes a new one)"
    else:
        try:
            done = asyncio.run(open_store(target).migrate(check=args.check))
        except (StoreError, OSError, sqlite3.Error) as exc:
            failed = str(exc)
    if failed is not None:
        print(f"trickroom: {masked(failed)}", file=sys.stderr)
        return 1
    print(masked(str(done)))
    return 1 if args.check and done.pending else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="trickroom", description="trickroom: a real-time Spades and Hearts server "
        "(serve) and the settings it would run with (config), its protocol schema (schema), "
        "a terminal demo (demo), a socket bot (bot) and rating tools (ratings refit).")
    parser.add_argument("--log-level", help="debug, info, warning or error (default: "
                        "TRICKROOM_LOG_LEVEL, else info)")
    sub = parser.add_subparsers(dest="command", required=True)
    add_serve_options(sub.add_parser(
        "serve", help="run the server (every option may also be a TRICKROOM_* variable: "
        "see trickroom config)"))
    p = add_serve_options(sub.add_parser(
        "config", help="print every setting serve would run with, its value and where it "
        "came from (option, environment, room file or default); passwords masked"))
    p.add_argument("--json", action="store_true", help="print it as JSON")
    p = sub.add_parser("schema", help="write the protocol's JSON Schema")
    p.add_argument("--out", help="file to write (default: standard output)")
    p = sub.add_parser("demo", help="four robots play one Spades game, printed hand by hand")
    p.add_argument("--seed", type=int, default=1, help="the deal's seed (default: 1)")
    p.add_argument("--robot", choices=sorted(ROBOTS), default="heuristic",
                   help="the robots' level (default: heuristic)")
    p.add_argument("--language", help="en, el or en-XA (default: the terminal's LANG, else en)")
    p = sub.add_parser("bot", help="play through the socket like any bot program")
    p.add_argument("--url", default="ws://127.0.0.1:8765/ws", help="the server's socket")
    p.add_argument("--name", help="play under this name (a guest, or an account with "
                                   "--password)")
    p.add_argument("--password", help="log in (or register, the first time) as --name")
    p.add_argument("--robot", choices=sorted(ROBOTS), default="heuristic",
                   help="how the bot chooses its actions (default: heuristic)")
    p.add_argument("--room", default=None, help="room to play in (default: the game's name)")
    p.add_argument("--game", choices=("spades", "hearts"), default="spades",
                   help="the game, when no --room is given (default: spades)")
    p.add_argument("--games", type=int, default=1, help="games to play (default: 1)")
    p.add_argument("--fill", action="store_true",
                   help="fill the table's empty seats with robots instead of waiting")
    p = sub.add_parser("drain", help="hand a running node's tables to the other nodes, then "
                                     "stop it (as SIGTERM does): a deploy drops no one")
    p.add_argument("pid", type=int, help="the node's process id")
    p.add_argument("--wait", type=float, default=60.0,
                   help="seconds to wait for it to be gone (default: 60)")
    p = sub.add_parser("ratings", help="rating tools for a host")
    ratings = p.add_subparsers(dest="ratings_command", required=True,
                               help="refit: fit a room's rating constants on its games")
    p = ratings.add_parser("refit", help="fit a room's tuned rating constants on its stored "
                                          "games and print them with their gain")
    p.add_argument("--room", required=True, help="the room whose games are replayed")
    p.add_argument("--system", help="a tuned system to refit (default: the room's own)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--db", help="SQLite file (default: under the user's data directory)")
    where.add_argument("--store", help="the store as a URL: postgresql://user@host/db, or "
                                       "sqlite:PATH")
    p.add_argument("--config", help="room config TOML (default: trickroom/server/rooms.toml)")
    p = sub.add_parser("migrate", help="bring a database to this trickroom's schema version "
                                       "(a server does it as it starts)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--db", help="SQLite file (default: under the user's data directory)")
    where.add_argument("--store", help="a PostgreSQL database, as postgresql://user@host/db "
                                       "(with ?schema=name where the nodes use one)")
    p.add_argument("--check", action="store_true", help="change nothing: say the database's "
                   "schema version and the migrations it lacks (exit 1 if any)")
    return parser


def add_serve_options(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The options of ``serve`` (and ``config``). None is a default: an option not given
    leaves the setting to the environment, the room file or its default."""
    p.add_argument("--host", help="address to listen on (default: 127.0.0.1)")
    p.add_argument("--port", type=int, help="port for HTTP and the socket (default: 8765)")
    p.add_argument("--db", help="SQLite file (default: under the user's data directory)")
    p.add_argument("--store", help="a PostgreSQL database instead of the SQLite file, as "
                   "postgresql://user@host/db (a cluster's nodes share one); its password "
                   "is best kept in TRICKROOM_STORE_PASSWORD_FILE")
    p.add_argument("--cluster", help="join a cluster of nodes through this Redis, as "
                   "redis://host:6379/0 (needs a PostgreSQL store); its password is best "
                   "kept in TRICKROOM_CLUSTER_PASSWORD_FILE")
    p.add_argument("--cluster-prefix", help="the cluster's Redis keys and channels start "
                   "with this (default: trickroom)")
    p.add_argument("--node-url", help="where players reach this node of a cluster "
                   "directly: a path the proxy routes to it (/node/1/ws) or a ws:// URL; "
                   "'{port}' is the port it serves on. Players of its tables are sent "
                   "here (the server setting node_url)")
    p.add_argument("--config", help="room config TOML (default: trickroom/server/rooms.toml)")
    return p


def main(argv: list[str] | None = None) -> None:
    """Run a command; output cut short by its reader (``trickroom schema | head``) ends
    it quietly, as any Unix filter does, instead of with a traceback."""
    try:
        _run(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        # Python's own advice: point stdout at nothing, so that the flush at exit does not
        # fail a second time, and exit as a filter whose reader left does.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(1)


def _run(argv: list[str] | None) -> None:
    args = build_parser().parse_args(argv)
    if args.command in ("serve", "config"):
        effective = node_settings(args)
        setup_logging(effective.serve.log_level)
        if args.command == "serve":
            serve(effective)
        else:
            show_config(effective, args.json)
        return
    setup_logging(args.log_level or "info")
    if args.command == "schema":
        from trickroom.server.protocol import json_schema

        text = json.dumps(json_schema(), indent=2)
        if args.out:
            with open(args.out, "w") as fh:
                fh.write(text + "\n")
        else:
            print(text)
    elif args.command == "drain":
        sys.exit(drain(args.pid, args.wait))
    elif args.command == "ratings":
        code = ratings_refit(args)
        if code:
            sys.exit(code)
    elif args.command == "migrate":
        code = migrate(args)
        if code:
            sys.exit(code)
    elif args.command == "demo":
        play_demo(args.seed, args.robot, Console(), demo_language(args.language))
    elif args.command == "bot":
        from trickroom.server.bot import run_bot
        from trickroom_client import ServerError

        try:
            asyncio.run(run_bot(args))
        except ServerError as exc:  # a refusal is news for the user, not a traceback
            Console(stderr=True).print(f"[bold red]the server refused[/bold red]: {exc}")
            sys.exit(1)
        except OSError as exc:
            Console(stderr=True).print(f"[bold red]cannot reach {masked(args.url)}[/bold red]: "
                                       f"{masked(str(exc))}")
            sys.exit(1)


if __name__ == "__main__":
    main()
