"""Abuse: a login flood beside a table in play, and a password guesser against one account.

The server runs in its own process on a temporary database, with its limits as
shipped (robots think 20 ms). One socket plays Spades with three robots as fast
as prompts come and times each ``act`` until its reply, and pings every 50 ms;
it connects from 127.0.0.2, the attacker from 127.0.0.1. Quiet and flood windows
alternate (``--rounds`` of each, ``--window`` seconds); in a flood window
``--sockets`` sockets from the same address send logins with wrong passwords
as fast as their replies come. Run twice: with the login back-off as shipped,
and with it turned off (every guess hashed: what moving the hash off the event
loop alone buys). Then, on a fresh server, one socket sends ``--guesses`` wrong
passwords to one account, 40 a second (under the message rate: none waits),
and the server's own counter says how many it checked. Then the attacks of issue 32
on accounts, each on a fresh server: a spray of one password over 40 accounts from two
addresses (how many checked, how many broken), a registration flood from one address
over 12 sockets for ``--window`` seconds (accounts made), and another address's 20
logins during a flood of good logins from one address against 20 in a quiet round in
which the flooder is stopped, ``--rounds`` of each (how many welcomed, p99 against the
quiet ones), and ten tables of searching robots kept by one address, its player
seated at each and playing fast, beside the victim's (its act p99 against quiet
windows in which the attacker is stopped, ``--rounds`` of each, and how many of the
attacker's robots' bids were searched; ``--only robots`` runs this part alone,
``--only others`` the logins during a flood). That part runs twice: with the robots at
their shipped pace (``robot_delay``, the attacker's included), the victim's table four
players who act 20 ms after each prompt; and with every robot moving after 20 ms, the
victim with three robots (``robots_fast_``: ten tables at a pace no shipped server
plays; ``--robot-level heuristic`` gives the same figure for ordinary robots, the
control).
Targets 127.0.0.x only; bounded in time.
Ends with::

    abuse flood_act_p99_ratio=<r> flood_ping_p99_ratio=<p> checked=<n>/<guesses>
        no_backoff_act_p99_ratio=<q> spray_checked=<s>/40 spray_broken=<b>
        registered=<a> others_welcomed=<w>/<20 x rounds> others_p99_ratio=<o>
        robot_tables=<t> robots_act_p99_ratio=<r> robots_fast_act_p99_ratio=<f>
        robots_searched_bids=<s>/<b>
        (one line; ratios: flood over quiet)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import secrets
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from bench.figures import command_line, pct, ratio
from bench.harness import ROOT, Server, choose, http_get, metric, raise_fd_limit, request

# The shipped limits (message rate, sockets per address, passwords) are part of the
# defence, so they stay; robots think 20 ms, so the victim's acts and pings stay within
# the message rate a player gets.
CONFIG = """\
[server]
robot_delay = 0.02
hand_pause = 0
turn_seconds = 600
{extra}
[[rooms]]
name = "spades"
game = "spades"
rules = {{ mercy = 200 }}
"""
NO_BACKOFF = ("login_free_failures = 1000000000\nlogin_free_failures_per_address = 1000000000\n"
              "login_free_failures_per_guess = 1000000000\nlogin_failures_per_second = 0\n")


@dataclass
class Window:
    flood: bool
    acts: list[float] = field(default_factory=list)
    pings: list[float] = field(default_factory=list)
    logins: int = 0


class Victim:
    """One player at a table of robots (or of other such players): every act's round
    trip, every ping's. ``pace``: seconds it waits after a prompt before it acts."""

    def __init__(self, ws: ClientConnection, pace: float = 0.0, seed: int = 1) -> None:
        self.ws = ws
        self.pace = pace
        self.ids = itertools.count(1)
        # Each request's kind, when it went and the window it went in: a reply counts in
        # the window its request was sent in, however late (the slowest of a window would
        # otherwise be the ones left out).
        self.sent: dict[int, tuple[str, float, Window | None]] = {}
        self.window: Window | None = None
        self.table = ""
        self.answered = -1
        self.rng = random.Random(seed)
        self.acting: set[asyncio.Future[None]] = set()  # paced acts on their way

    async def send(self, kind: str, message: dict[str, Any]) -> None:
        rid = next(self.ids)
        self.sent[rid] = (kind, time.perf_counter(), self.window)
        await self.ws.send(json.dumps({**message, "id": rid}))

    async def play(self) -> None:
        """Open a table, sit, fill it with robots and play."""
        await request(self.ws, {"type": "guest", "name": "victim"})
        created = await request(self.ws, {"type": "create_table", "room": "spades"})
        self.table = created["table"]["id"]
        await request(self.ws, {"type": "sit", "table": self.table, "seat": 0})
        await self.send("other", {"type": "fill_robots", "table": self.table, "level": "random"})
        await self.answer()

    async def open(self, name: str) -> str:
        """Open a table and sit at it (its other seats for others to take)."""
        await request(self.ws, {"type": "guest", "name": name})
        created = await request(self.ws, {"type": "create_table", "room": "spades"})
        self.table = created["table"]["id"]
        await request(self.ws, {"type": "sit", "table": self.table, "seat": 0})
        return self.table

    async def join(self, name: str, table: str, seat: int) -> None:
        """Sit at ``table``. The sit's reply is left to :meth:`answer`: the last seat
        taken starts the game, and a prompt that came before the reply would be dropped
        by ``request`` (the table then waits for ever)."""
        await request(self.ws, {"type": "guest", "name": name})
        self.table = table
        await self.send("other", {"type": "sit", "table": table, "seat": seat})

    async def answer(self) -> None:
        """Act on every prompt of the table (after ``pace``), time every reply."""
        async for frame in self.ws:
            message = json.loads(frame)
            rid = message.get("id")
            if rid in self.sent:
                kind, started, window = self.sent.pop(rid)
                if window is not None and kind in ("act", "ping"):
                    (window.acts if kind == "act" else window.pings).append(
                        (time.perf_counter() - started) * 1e3)
                continue
            if message.get("type") == "prompt" and message["table"] == self.table:
                if message["seq"] > self.answered:
                    self.answered = message["seq"]
                    if self.pace:
                        asyncio.get_running_loop().call_later(
                            self.pace, self._act, choose(message, self.rng))
                    else:
                        await self.send("act", {"type": "act", "table": self.table,
                                                "action": choose(message, self.rng)})
            elif message.get("type") == "event" and message["event"]["type"] == "game_over":
                await self.send("other", {"type": "play_again", "table": self.table})

    def _act(self, action: dict[str, Any]) -> None:
        task = asyncio.ensure_future(self.send("act", {"type": "act", "table": self.table,
                                                       "action": action}))
        self.acting.add(task)
        task.add_done_callback(self._acted)

    def _acted(self, task: asyncio.Future[None]) -> None:
        """A paced act sent, or not: one due as the run closes its socket is let go
        (read here, so it is not reported as an error never retrieved)."""
        self.acting.discard(task)
        if not task.cancelled():
            task.exception()

    async def ping(self) -> None:
        while True:
            await asyncio.sleep(0.05)
            await self.send("ping", {"type": "ping"})


async def flooder(url: str, stop: asyncio.Event, counts: list[int]) -> None:
    """Wrong passwords as fast as the replies come (a closed socket reconnects)."""
    while not stop.is_set():
        try:
            async with connect(url, compression=None) as ws:
                while not stop.is_set():
                    await ws.send(json.dumps({"type": "login", "id": 1,
                                              "name": f"user{secrets.randbelow(50)}",
                                              "password": secrets.token_hex(8)}))
                    await ws.recv()
                    counts[0] += 1
        except (ConnectionClosed, InvalidHandshake, OSError):
            await asyncio.sleep(0.05)  # closed for flooding, or refused while cooling down


async def flood_process(url: str, sockets: int, seconds: float) -> None:
    """The attacker, in a process of its own at a lower priority: on this machine it
    shares two cores with the server and the victim, where a real one runs elsewhere
    (its sockets still arrive as fast as the server answers them). Prints how many
    logins it sent."""
    os.nice(10)
    stop, counts = asyncio.Event(), [0]
    tasks = [asyncio.create_task(flooder(url, stop, counts)) for _ in range(sockets)]
    await asyncio.sleep(seconds)
    stop.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(counts[0])


async def good_flood_process(url: str, sockets: int, seconds: float) -> None:
    """Good logins into one account from 127.0.0.2 as fast as replies come, a new socket
    every 5 (the attacker of ``others_run``, in a process of its own at a lower priority,
    as ``flood_process``)."""
    os.nice(10)

    async def flooder() -> None:
        while True:
            with contextlib.suppress(ConnectionClosed, InvalidHandshake, OSError):
                async with connect(url, compression=None, local_addr=("127.0.0.2", 0)) as ws:
                    for _ in range(5):
                        await ws.send(json.dumps({"type": "login", "id": 1, "name": "flooder",
                                                  "password": "own-password"}))
                        await ws.recv()

    tasks = [asyncio.create_task(flooder()) for _ in range(sockets)]
    await asyncio.sleep(seconds)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def flood_run(sockets: int, rounds: int, seconds: float, workdir: Path, backoff: bool,
                    progress: Progress) -> list[Window]:
    config = workdir / f"abuse-{backoff}.toml"
    config.write_text(CONFIG.format(extra="" if backoff else NO_BACKOFF))
    windows: list[Window] = []
    with Server(workdir / f"abuse-{backoff}.sqlite3", config) as server:
        # The victim is another player, at another address (loopback has all of 127/8).
        async with connect(server.url, compression=None, max_size=2**22,
                           local_addr=("127.0.0.2", 0)) as ws:
            victim = Victim(ws)
            tasks = [asyncio.create_task(victim.play()), asyncio.create_task(victim.ping())]
            await asyncio.sleep(1.0)  # the game under way
            label = "back-off on" if backoff else "back-off off"
            task = progress.add_task(f"flood ({label})", total=2 * rounds)
            for flood in [False, True] * rounds:
                window = Window(flood)
                victim.window = window
                if flood:
                    attacker = await asyncio.create_subprocess_exec(
                        sys.executable, "-m", "bench.abuse", "--flood", server.url,
                        "--sockets", str(sockets), "--window", str(seconds),
                        stdout=asyncio.subprocess.PIPE, cwd=ROOT)
                    out, _ = await attacker.communicate()
                    window.logins = int(out.decode().strip() or 0)
                else:
                    await asyncio.sleep(seconds)
                victim.window = None
                windows.append(window)
                progress.advance(task)
                await asyncio.sleep(0.3)  # in-flight logins drain before the next window
            for t in tasks:
                t.cancel()
    return windows


async def checked_count(port: int) -> int:
    """How many passwords the server has checked (hashed) so far."""
    return metric(await http_get(port, "/metrics"), "trickroom_passwords_checked_total")


async def guess_run(guesses: int, workdir: Path) -> tuple[int, float, dict[str, int]]:
    """``guesses`` wrong passwords for one account from one socket: how many were checked."""
    config = workdir / "guess.toml"
    config.write_text(CONFIG.format(extra=""))
    codes: dict[str, int] = {}
    with Server(workdir / "guess.sqlite3", config) as server:
        async with connect(server.url, compression=None) as ws:
            await ws.send(json.dumps({"type": "register", "name": "target",
                                      "password": "the-right-one"}))
            await ws.recv()
        before = await checked_count(server.port)
        started = time.perf_counter()
        sent = 0
        while sent < guesses:  # a socket closed for flooding: the guesser opens another
            with contextlib.suppress(ConnectionClosed):
                async with connect(server.url, compression=None) as ws:
                    while sent < guesses:
                        sent += 1
                        await ws.send(json.dumps({"type": "login", "id": sent,
                                                  "name": "target",
                                                  "password": f"guess-{sent}"}))
                        code = json.loads(await ws.recv()).get("code", "?")
                        codes[code] = codes.get(code, 0) + 1
                        await asyncio.sleep(0.025)  # under the message rate
        elapsed = time.perf_counter() - started
        checked = await checked_count(server.port) - before
    return checked, elapsed, codes


async def answer(url: str, address: str, message: dict[str, Any]) -> dict[str, Any]:
    """One request on a socket of its own from ``address``: its reply, error or not."""
    async with connect(url, compression=None, local_addr=(address, 0)) as ws:
        await ws.send(json.dumps({**message, "id": 1}))
        reply: dict[str, Any] = json.loads(await ws.recv())
        return reply


async def spray_run(workdir: Path) -> tuple[int, int]:
    """40 accounts, one of them with the password "123456", sprayed with it from two
    addresses: how many guesses were checked, and how many accounts broken."""
    config = workdir / "spray.toml"
    config.write_text(CONFIG.format(extra=""))
    with Server(workdir / "spray.sqlite3", config) as server:
        for i in range(40):  # each from an address of its own (20 accounts an hour each)
            await answer(server.url, f"127.0.1.{i + 1}", {
                "type": "register", "name": f"player{i}",
                "password": "123456" if i == 30 else secrets.token_hex(8)})
        before = await checked_count(server.port)
        broken = 0
        async with connect(server.url, compression=None, local_addr=("127.0.0.2", 0)) as one, \
                connect(server.url, compression=None, local_addr=("127.0.0.3", 0)) as two:
            for i in range(40):
                ws = (one, two)[i % 2]
                await ws.send(json.dumps({"type": "login", "id": i, "name": f"player{i}",
                                          "password": "123456"}))
                broken += json.loads(await ws.recv())["type"] == "welcome"
                if i % 2:
                    await asyncio.sleep(0.05)  # under the message rate, past the login cap
        return await checked_count(server.port) - before, broken


async def registration_run(workdir: Path, seconds: float) -> int:
    """One address registering as fast as replies come over 12 sockets, a new socket
    every 5 registrations: how many accounts it made."""
    config = workdir / "register.toml"
    config.write_text(CONFIG.format(extra=""))
    names = itertools.count()
    made = [0]

    async def registrar() -> None:
        while True:
            with contextlib.suppress(ConnectionClosed, InvalidHandshake, OSError):
                async with connect(server.url, compression=None,
                                   local_addr=("127.0.0.2", 0)) as ws:
                    for _ in range(5):
                        await ws.send(json.dumps({"type": "register", "id": 1,
                                                  "name": f"bulk{next(names)}",
                                                  "password": "long-enough"}))
                        reply = json.loads(await ws.recv())
                        made[0] += reply["type"] == "welcome"
                        if reply["type"] != "welcome":
                            await asyncio.sleep(0.05)

    with Server(workdir / "register.sqlite3", config) as server:
        tasks = [asyncio.create_task(registrar()) for _ in range(12)]
        await asyncio.sleep(seconds)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return made[0]


async def others_run(workdir: Path, rounds: int = 3) -> tuple[int, int, float]:
    """Another address's 20 logins, quiet and then during a flood of good logins from one
    address over 12 sockets, ``rounds`` times each: the flooder runs throughout and is
    stopped (SIGSTOP) for the quiet rounds, so that both are measured in the same
    minutes, and each round's logins come from an address of their own (one address's
    60 logins would meet its own budget of hashes). How many of the flood rounds' logins
    were welcomed, of how many, and their p99 over the quiet rounds'."""
    config = workdir / "others.toml"
    config.write_text(CONFIG.format(extra=""))
    with Server(workdir / "others.sqlite3", config) as server:
        await answer(server.url, "127.0.0.2", {"type": "register", "name": "flooder",
                                               "password": "own-password"})
        await answer(server.url, "127.0.0.3", {"type": "register", "name": "victim",
                                               "password": "own-password"})
        login = {"type": "login", "name": "victim", "password": "own-password"}

        async def logins(address: str) -> tuple[int, list[float]]:
            welcomed, times = 0, []
            for _ in range(20):
                started = time.perf_counter()
                welcomed += (await answer(server.url, address, login))["type"] == "welcome"
                times.append((time.perf_counter() - started) * 1e3)
            return welcomed, times

        attacker = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bench.abuse", "--good-flood", server.url, "--sockets", "12",
            "--window", "600", stdout=asyncio.subprocess.DEVNULL, cwd=ROOT)
        welcomed, quiet, flood = 0, [], []
        try:
            for r in range(rounds):
                attacker.send_signal(signal.SIGSTOP)
                await asyncio.sleep(1.0)  # its logins in flight are answered
                quiet += (await logins(f"127.0.0.{10 + 2 * r}"))[1]
                attacker.send_signal(signal.SIGCONT)
                await asyncio.sleep(1.0)  # the flood under way
                ok, times = await logins(f"127.0.0.{11 + 2 * r}")  # another player's 20
                welcomed += ok
                flood += times
        finally:
            attacker.send_signal(signal.SIGCONT)
            attacker.terminate()
            await attacker.wait()
    return welcomed, 20 * rounds, ratio(pct(flood, 0.99), pct(quiet, 0.99))


async def seated_robots_process(url: str, tables: int, seconds: float,
                                level: str = "search") -> None:
    """One address (127.0.0.1) opens ``tables`` casual tables of long games, fills each
    with searching robots and stays seated at each, playing its own seat as fast as its
    prompts come, for ``seconds`` (the attacker of ``robots_run``, in a process of its own
    at a lower priority, as ``flood_process``). Prints how many tables it opened, once
    they are, then at the end how many of its robots' bids were searched and how many
    not (a searched bid is told with "play-outs" in its reason; a rule-of-thumb one with
    no reason)."""
    os.nice(10)
    opened: list[tuple[ClientConnection, str]] = []
    sockets: list[ClientConnection] = []
    bids = {"searched": 0, "heuristic": 0}
    for g in range((tables + 2) // 3):  # three tables a guest (tables_per_account)
        ws = await connect(url, compression=None, max_size=2**22, local_addr=("127.0.0.1", 0))
        sockets.append(ws)
        await request(ws, {"type": "guest", "name": f"sitter{g}"})
        for _ in range(min(3, tables - len(opened))):
            try:
                made = await request(ws, {"type": "create_table", "room": "spades",
                                          "rules": {"target": 1000, "mercy": 1000}})
            except RuntimeError:  # refused (a cap of the address's): not opened
                break
            table = made["table"]["id"]
            await request(ws, {"type": "sit", "table": table, "seat": 0})
            await request(ws, {"type": "fill_robots", "table": table, "level": level})
            opened.append((ws, table))
    print(len(opened), flush=True)

    async def play(ws: ClientConnection) -> None:
        rng, answered, ids = random.Random(2), -1, itertools.count(1000)
        async for frame in ws:
            message = json.loads(frame)
            if message.get("type") == "prompt" and message["seq"] > answered:
                answered = message["seq"]
                await ws.send(json.dumps({"type": "act", "table": message["table"],
                                          "id": next(ids), "action": choose(message, rng)}))
            elif message.get("type") == "event":
                event = message["event"]
                if event["type"] == "bid" and event["seat"] != 0:
                    bids["searched" if "play-outs" in event.get("why", "")
                         else "heuristic"] += 1
                elif event["type"] == "game_over":
                    await ws.send(json.dumps({"type": "play_again", "id": next(ids),
                                              "table": message["table"]}))

    tasks = [asyncio.create_task(play(ws)) for ws in sockets]
    await asyncio.sleep(seconds)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(bids["searched"], bids["heuristic"], flush=True)


async def robots_run(workdir: Path, seconds: float, tables: int = 10, rounds: int = 1,
                     console: Console | None = None, level: str = "search",
                     shipped: bool = False) -> tuple[int, float, int, int]:
    """Issue 32, A: one address opens ``tables`` casual tables of long games, fills each
    with searching robots and stays seated at each, playing its own seat as fast as it
    can (``seated_robots_process``), beside the victim's table. Quiet and loaded windows
    alternate (``rounds`` of each): in a quiet one the attacker is stopped (SIGSTOP), its
    tables waiting for its moves, in a loaded one it plays. How many such tables were
    opened, the victim's act p99 in the loaded windows over the quiet ones', and how many
    of the attacker's robots' bids were searched and how many played by rule of thumb.

    ``shipped``: the server's robots at their shipped pace (``robot_delay``), so the
    attacker's too, and the victim's table four players from 127.0.0.2 who each act
    20 ms after their prompt (acts of all four timed); otherwise every robot moves after
    20 ms, the attacker's ones too, and the victim plays with three robots."""
    config = workdir / "robots.toml"
    text = CONFIG.format(extra="")
    config.write_text(text.replace("robot_delay = 0.02\n", "") if shipped else text)
    settle = 4.0  # a stopped attacker's robots finish the moves in hand (10 tables: seconds)
    quiet, loaded = Window(False), Window(True)
    with Server(workdir / "robots.sqlite3", config) as server:
        async with contextlib.AsyncExitStack() as stack:
            sockets = [await stack.enter_async_context(connect(
                server.url, compression=None, max_size=2**22, local_addr=("127.0.0.2", 0)))
                for _ in range(4 if shipped else 1)]
            victims = [Victim(ws, pace=0.02 if shipped else 0.0, seed=i)
                       for i, ws in enumerate(sockets)]
            if shipped:
                table = await victims[0].open("victim0")
                for i, v in enumerate(victims[1:], 1):
                    await v.join(f"victim{i}", table, i)
                tasks = [asyncio.create_task(v.answer()) for v in victims]
            else:
                tasks = [asyncio.create_task(victims[0].play())]
            tasks.append(asyncio.create_task(victims[0].ping()))
            attacker = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bench.abuse", "--seated-robots", server.url,
                "--tables", str(tables), "--robot-level", level,
                "--window", str(rounds * (2 * (seconds + settle)) + 1.0),
                stdout=asyncio.subprocess.PIPE, cwd=ROOT)
            assert attacker.stdout is not None
            opened = int((await attacker.stdout.readline()).decode().strip() or 0)
            for _ in range(rounds):
                for window in (quiet, loaded):
                    attacker.send_signal(signal.SIGCONT if window.flood else signal.SIGSTOP)
                    await asyncio.sleep(settle)
                    for v in victims:
                        v.window = window
                    await asyncio.sleep(seconds)
                    for v in victims:
                        v.window = None
            attacker.send_signal(signal.SIGCONT)
            out, _ = await attacker.communicate()
            searched, heuristic = (int(x) for x in (out.decode().split() or ["0", "0"])[:2])
            for t in tasks:
                if t.done() and t.exception() is not None:  # a victim gone: say why
                    raise RuntimeError("a victim stopped playing") from t.exception()
                t.cancel()
    if not quiet.acts or not loaded.acts:  # a figure of nothing is no figure
        raise RuntimeError(f"the victim's table played no act in a window ({len(quiet.acts)} "
                           f"quiet, {len(loaded.acts)} beside the robots)")
    if console is not None:
        console.print(f"robots: act p50/p99 quiet {pct(quiet.acts, 0.5):.2f}/"
                      f"{pct(quiet.acts, 0.99):.2f} ms ({len(quiet.acts)} acts), beside "
                      f"{opened} tables {pct(loaded.acts, 0.5):.2f}/"
                      f"{pct(loaded.acts, 0.99):.2f} ms ({len(loaded.acts)} acts)")
    return opened, ratio(pct(loaded.acts, 0.99), pct(quiet.acts, 0.99)), searched, heuristic


def summary(windows: list[Window]) -> dict[str, float]:
    quiet = [w for w in windows if not w.flood]
    flood = [w for w in windows if w.flood]

    def joined(ws: list[Window], attr: str) -> list[float]:
        return [x for w in ws for x in getattr(w, attr)]

    out = {}
    for name, group in (("quiet", quiet), ("flood", flood)):
        acts, pings = joined(group, "acts"), joined(group, "pings")
        out[f"{name}_act_p50"] = pct(acts, 0.5)
        out[f"{name}_act_p99"] = pct(acts, 0.99)
        out[f"{name}_ping_p50"] = pct(pings, 0.5)
        out[f"{name}_ping_p99"] = pct(pings, 0.99)
        out[f"{name}_acts"] = len(acts)
    seconds = sum(1 for _ in flood) or 1
    out["logins_per_window"] = sum(w.logins for w in flood) / seconds
    out["act_p99_ratio"] = ratio(out["flood_act_p99"], out["quiet_act_p99"])
    out["ping_p99_ratio"] = ratio(out["flood_ping_p99"], out["quiet_ping_p99"])
    return out


async def main(argv: list[str] | None = None) -> int:
    parser = command_line(__doc__)
    parser.add_argument("--sockets", type=int, default=8, help="flooding sockets")
    parser.add_argument("--rounds", type=int, default=3, help="quiet and flood windows each")
    parser.add_argument("--window", type=float, default=8.0, help="seconds a window")
    parser.add_argument("--guesses", type=int, default=1000)
    parser.add_argument("--flood", metavar="URL", help=argparse.SUPPRESS)  # the attacker
    parser.add_argument("--good-flood", metavar="URL", help=argparse.SUPPRESS)  # others_run's
    parser.add_argument("--seated-robots", metavar="URL", help=argparse.SUPPRESS)  # robots_run's
    parser.add_argument("--tables", type=int, default=10,
                        help="tables of searching robots one address opens")
    parser.add_argument("--robot-level", default="search",
                        help="the level of the attacker's robots (search; heuristic or random "
                             "is the control: ten ordinary tables of the same pace)")
    parser.add_argument("--robots-pace", choices=("shipped", "fast"), default="shipped",
                        help="with --only robots: every robot at the shipped robot_delay "
                             "(the victim four players), or after 20 ms (the victim with "
                             "three robots: the stress case)")
    parser.add_argument("--only", choices=("robots", "others"),
                        help="run only this part (robots: the tables of searching robots; "
                             "others: another address's logins during a login flood)")
    args = parser.parse_args(argv)
    if args.seated_robots:
        await seated_robots_process(args.seated_robots, args.tables, args.window,
                                    args.robot_level)
        return 0
    if args.flood:
        await flood_process(args.flood, args.sockets, args.window)
        return 0
    if args.good_flood:
        await good_flood_process(args.good_flood, args.sockets, args.window)
        return 0
    raise_fd_limit()
    console = Console()
    if args.only == "robots":
        with tempfile.TemporaryDirectory(prefix="trickroom-abuse-") as tmp:
            robot_tables, robots_ratio, searched, heuristic = await robots_run(
                Path(tmp), args.window, args.tables, args.rounds, console, args.robot_level,
                shipped=args.robots_pace == "shipped")
        name = "robots_act_p99_ratio" if args.robots_pace == "shipped" else \
            "robots_fast_act_p99_ratio"
        print(f"abuse robot_tables={robot_tables} {name}={robots_ratio:.2f} "
              f"robots_searched_bids={searched}/{searched + heuristic}")
        return 0
    if args.only == "others":
        with tempfile.TemporaryDirectory(prefix="trickroom-abuse-") as tmp:
            welcomed, asked, others_ratio = await others_run(Path(tmp), args.rounds)
        print(f"abuse others_welcomed={welcomed}/{asked} others_p99_ratio={others_ratio:.2f}")
        return 0
    results = {}
    with tempfile.TemporaryDirectory(prefix="trickroom-abuse-") as tmp, \
            Progress(console=console, transient=True) as progress:
        for backoff in (True, False):
            results[backoff] = summary(await flood_run(args.sockets, args.rounds, args.window,
                                                       Path(tmp), backoff, progress))
        checked, elapsed, codes = await guess_run(args.guesses, Path(tmp))
        spray_checked, spray_broken = await spray_run(Path(tmp))
        registered = await registration_run(Path(tmp), args.window)
        welcomed, asked, others_ratio = await others_run(Path(tmp), args.rounds)
        robot_tables, robots_ratio, searched, heuristic = await robots_run(
            Path(tmp), args.window, args.tables, args.rounds, console, shipped=True)
        _, fast_ratio, _, _ = await robots_run(
            Path(tmp), args.window, args.tables, args.rounds, console, shipped=False)
    for backoff, r in results.items():
        console.print(
            f"back-off {'on ' if backoff else 'off'}: act p50/p99 quiet "
            f"{r['quiet_act_p50']:.2f}/{r['quiet_act_p99']:.2f} ms, flood "
            f"{r['flood_act_p50']:.2f}/{r['flood_act_p99']:.2f} ms (x{r['act_p99_ratio']:.2f}); "
            f"ping p99 quiet {r['quiet_ping_p99']:.2f}, flood {r['flood_ping_p99']:.2f} ms "
            f"(x{r['ping_p99_ratio']:.2f}); {r['logins_per_window']:.0f} logins a flood window; "
            f"{r['quiet_acts']:.0f}/{r['flood_acts']:.0f} acts timed")
    console.print(f"guesser: {args.guesses} wrong passwords in {elapsed:.1f} s, {checked} "
                  f"checked; replies {codes}")
    console.print(f"spray: 1 password over 40 accounts from 2 addresses: {spray_checked} "
                  f"checked, {spray_broken} broken; registration flood: {registered} "
                  f"accounts in {args.window:.0f} s; another address during a login flood: "
                  f"{welcomed}/{asked} welcomed, p99 x{others_ratio:.2f} of quiet; {robot_tables} "
                  f"tables of searching robots kept by one address: another table's act p99 "
                  f"x{robots_ratio:.2f} of quiet (x{fast_ratio:.2f} with every robot at 20 ms), "
                  f"{searched} of its robots' {searched + heuristic} bids searched")
    on = results[True]
    print(f"abuse flood_act_p99_ratio={on['act_p99_ratio']:.2f} "
          f"flood_ping_p99_ratio={on['ping_p99_ratio']:.2f} "
          f"no_backoff_act_p99_ratio={results[False]['act_p99_ratio']:.2f} "
          f"checked={checked}/{args.guesses} spray_checked={spray_checked}/40 "
          f"spray_broken={spray_broken} registered={registered} "
          f"others_welcomed={welcomed}/{asked} others_p99_ratio={others_ratio:.2f} "
          f"robot_tables={robot_tables} robots_act_p99_ratio={robots_ratio:.2f} "
          f"robots_fast_act_p99_ratio={fast_ratio:.2f} "
          f"robots_searched_bids={searched}/{searched + heuristic}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
