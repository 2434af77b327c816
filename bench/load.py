"""Load: how many tables one server process carries, beside the socket library's own limit.

The server runs in its own process (``python -m trickroom.server.cli serve``) on a temporary
database, with a room file that has no robot delay, no pause between hands and
rate limits out of the way. In this process, N tables of four socket bots play
Spades as fast as prompts come (a random legal action per prompt; a prompt whose
``seq`` was already answered is skipped), or after a mean think time (a level
written ``500@250``), and start a new game when one ends.

Per load level it prints: tables, sockets, actions/s, action latency p50/p99/max
(a bot sends ``act`` -> the action's event has come off all four seats' sockets),
two baselines through the bare ``websockets`` library, both served from their own
process: the same closed loop through a relay (one frame in, four out, nothing
parsed or stored), and one socket's echo round trip, measured every 5 ms while the
level runs (and alone before it); the ratio of the p50 to that echo; errors, server
CPU and RSS (from /proc), and this client's own CPU (one process drives every
socket: at high load it, not the server, may be the limit). Every latency ends at
the moment its frame's bytes came off the socket (``StampedConnection``; ``--stamp
kernel``: the kernel's receive time of them), so the client's Python work on other
frames is not counted in any of them. Memory per
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
``make bench`` runs the short default (``1,20,100,500@250``, about two minutes);
``--tables 1,100,500 --duration 30`` for more.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import itertools
import json
import os
import random
import resource
import socket
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.frames import DATA_OPCODES

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
ACTION_EVENTS = ("bid", "played", "passed", "looked")
LOAD_CONFIG = """\
[server]
robot_delay = 0
hand_pause = 0
turn_seconds = 600
reconnect_seconds = 600
messages_per_second = 1000000
message_burst = 1000000
messages_per_second_per_address = 1000000
message_burst_per_address = 1000000
guests_per_address = 1000000
tables_per_address = 1000000
connections_per_ip = 1000000

[[rooms]]
name = "spades"
game = "spades"
rules = { mercy = 200 }
"""


def with_settings(config: str, settings: list[str]) -> str:
    """A room file with ``KEY=VALUE`` lines (TOML) added to its ``[server]`` table: what
    ``--setting`` passes to the server under test."""
    extra = "".join(f"{line}\n" for line in settings)
    return config.replace("[server]\n", f"[server]\n{extra}", 1)


SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux; the module lacks it on 3.11
STAMP = {"source": "loop"}  # "loop" or "kernel": see StampedConnection; set by --stamp


class KernelStampedSocket:
    """A client socket as asyncio's transport reads it, through ``recvmsg``: each read
    also brings back when the kernel received its bytes (``SO_TIMESTAMPNS``)."""

    def __init__(self, sock: socket.socket) -> None:
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self._sock = sock
        self.at = 0.0  # wall-clock seconds of the last read's arrival (0: none yet)

    def recv(self, size: int) -> bytes:
        data, ancillary, _flags, _addr = self._sock.recvmsg(size, 64)
        for level, kind, raw in ancillary:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                sec, nsec = struct.unpack("qq", raw[:16])
                self.at = sec + nsec * 1e-9
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


class StampedConnection(ClientConnection):
    """A client connection that notes when each data frame's bytes reached the socket.

    Every latency here (a table's event, the echo, the relay) ends at that stamp. With
    ``--stamp loop`` (the default) it is when this process's event loop reads them off
    the socket. With ``--stamp kernel`` it is the kernel's own receive time, which
    leaves out, for the echo as much as for the tables, this process's wake-up and its
    Python work on other sockets' frames (four seats share one client process here;
    players do not). Both are printed by the figures in the issue's notes.
    ``stamps`` holds one arrival time per data frame not yet read, oldest first.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stamps: collections.deque[float] = collections.deque()
        self._chunk_at = 0.0
        self._kernel: KernelStampedSocket | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        sock = getattr(transport, "_sock", None)  # asyncio's selector transport reads it
        if STAMP["source"] == "kernel" and isinstance(sock, socket.socket):
            self._kernel = transport._sock = KernelStampedSocket(sock)

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        if self._kernel is not None and self._kernel.at:
            now -= time.time() - self._kernel.at  # the kernel's wall-clock stamp, as perf time
        self._chunk_at = now
        super().data_received(data)

    def process_event(self, event: Any) -> None:
        if getattr(event, "opcode", None) in DATA_OPCODES:
            self.stamps.append(self._chunk_at)
        super().process_event(event)

    def arrival(self) -> float:
        """When the frame just read arrived (call once per frame read)."""
        return self.stamps.popleft() if self.stamps else time.perf_counter()


def raise_fd_limit() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def wait_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before listening")
        with contextlib.suppress(OSError), socket.create_connection((HOST, port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listening on {port} after {timeout}s")


class Server:
    """``trickroom serve`` in its own process on ``db`` with room file ``config``."""

    def __init__(self, db: Path | str, config: Path, port: int | None = None,
                 cpus: set[int] | None = None, extra: tuple[str, ...] = ()) -> None:
        self.port = port or free_port()
        self.db, self.config = db, config
        self.cpus = cpus  # pin the process to these cores (None: wherever the OS likes)
        self.extra = extra  # more arguments for ``trickroom serve`` (a cluster's)
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        where = "--store" if str(self.db).startswith("postgresql://") else "--db"
        argv = ["--log-level", "error", "serve", "--port", str(self.port), where, str(self.db),
                "--config", str(self.config), *self.extra]
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "import resource as r; s, h = r.getrlimit(r.RLIMIT_NOFILE); "
             "r.setrlimit(r.RLIMIT_NOFILE, (h, h)); from trickroom.server.cli import main; "
             f"main({argv!r})"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if self.cpus:
            os.sched_setaffinity(self.proc.pid, self.cpus)
        wait_port(self.port, self.proc)

    @property
    def url(self) -> str:
        return f"ws://{HOST}:{self.port}/ws"

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def request(ws: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
    """Send one request and read until its reply (events in between are skipped); an
    error reply raises."""
    await ws.send(json.dumps({**message, "id": "bench"}))
    while True:
        reply: dict[str, Any] = json.loads(await ws.recv())
        if reply.get("id") == "bench":
            if reply["type"] == "error":
                raise RuntimeError(f"{message['type']}: {reply['message']}")
            return reply


def choose(prompt: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    if prompt["phase"] == "pass":
        return {"type": "pass", "cards": rng.sample(prompt["hand"], prompt["pass_count"])}
    return dict(rng.choice(prompt["legal"]))


# -- the bots ------------------------------------------------------------------------------


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    actions: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    games: int = 0
    measuring: bool = False

    def error(self, code: str) -> None:
        self.errors[code] = self.errors.get(code, 0) + 1


@dataclass
class TableTrack:
    """Who is waiting for which action's event at one table, to time the fan-out."""

    id: str = ""
    sent: dict[int, float] = field(default_factory=dict)  # seat -> when its act was sent
    seen: dict[int, int] = field(default_factory=dict)  # seat -> seats that got its event


class Bot:
    """One seat: answers each new prompt with a random legal action, at once."""

    ids = itertools.count(1)

    def __init__(self, ws: ClientConnection, seat: int, track: TableTrack, stats: Stats,
                 rng: random.Random, think: float = 0.0) -> None:
        self.ws, self.seat, self.track, self.stats, self.rng = ws, seat, track, stats, rng
        self.think = think  # mean seconds before answering a prompt (0: at once)
        self.arrived = 0.0  # when the frame being handled arrived
        self.answered = -1
        self.last_seq = 0
        self.token = ""
        self.acked: list[tuple[str, int]] = []  # (game id, seq) of events seen: crash.py
        self.game_id = ""
        self.finished: set[str] = set()
        self.stop_after_games: int | None = None
        self.replies: dict[int, asyncio.Future[dict[str, Any]]] = {}

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        rid = next(self.ids)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.replies[rid] = fut
        await self.ws.send(json.dumps({**message, "id": rid}))
        reply = await asyncio.wait_for(fut, 30)
        if reply.get("type") == "error":
            raise RuntimeError(f"{message['type']}: {reply['code']}: {reply['message']}")
        return reply

    async def run(self) -> None:
        try:
            async for frame in self.ws:
                ws = self.ws
                self.arrived = (ws.arrival() if isinstance(ws, StampedConnection)
                                else time.perf_counter())
                await self.handle(json.loads(frame))
        except ConnectionClosed:
            pass

    async def handle(self, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        rid = msg.get("id")
        if rid is not None and rid in self.replies:
            fut = self.replies.pop(rid)
            if not fut.done():
                fut.set_result(msg)
            if kind != "error":
                return
        if kind == "event":
            self.last_seq = msg["seq"]
            event = msg["event"]
            etype = event["type"]
            if etype in ACTION_EVENTS:
                self.on_action_event(event)
            elif etype == "game_started":
                self.game_id = event["game_id"]
            elif etype == "game_over":
                self.finished.add(self.game_id)
                if self.seat == 0:
                    self.stats.games += 1
                if self.stop_after_games is None or len(self.finished) < self.stop_after_games:
                    await self.ws.send(json.dumps({"type": "play_again",
                                                   "table": self.track.id}))
        elif kind == "prompt":
            if msg["seq"] <= self.answered:
                return
            self.answered = msg["seq"]
            action = choose(msg, self.rng)
            if self.think:
                # Not here: a bot asleep in its reader would delay the events it should time.
                delay = self.think * (0.5 + self.rng.random())
                asyncio.get_running_loop().call_later(
                    delay, lambda: asyncio.ensure_future(self.act(action)))
            else:
                await self.act(action)
        elif kind == "error" and self.stats.measuring:
            self.stats.error(msg.get("code", "?"))

    async def act(self, action: dict[str, Any]) -> None:
        self.track.sent[self.seat] = time.perf_counter()
        self.track.seen[self.seat] = 0
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(json.dumps({"type": "act", "table": self.track.id,
                                           "action": action, "id": next(self.ids)}))

    def on_action_event(self, event: dict[str, Any]) -> None:
        seat = event.get("seat")
        track = self.track
        if seat not in track.sent:
            return
        track.seen[seat] += 1
        if track.seen[seat] == 4:
            elapsed = self.arrived - track.sent.pop(seat)
            if self.stats.measuring:
                self.stats.latencies.append(elapsed)
                self.stats.actions += 1


async def open_bot(url: str, seat: int, track: TableTrack, stats: Stats,
                   rng: random.Random, think: float = 0.0) -> tuple[Bot, asyncio.Task[None]]:
    ws = await connect(url, max_size=2**22, compression=None, open_timeout=60,
                       create_connection=StampedConnection)
    bot = Bot(ws, seat, track, stats, rng, think)
    task = asyncio.create_task(bot.run())
    await bot.request({"type": "guest", "name": f"b{seat}"})
    return bot, task


async def open_table(url: str, stats: Stats, rng: random.Random,
                     rules: dict[str, Any] | None = None,
                     think: float = 0.0) -> list[tuple[Bot, asyncio.Task[None]]]:
    track = TableTrack()
    bots = [await open_bot(url, seat, track, stats, rng, think) for seat in range(4)]
    reply = await bots[0][0].request({"type": "create_table", "room": "spades",
                                      "rules": rules or {}})
    track.id = reply["table"]["id"]
    for bot, _ in bots:
        seated = await bot.request({"type": "sit", "table": track.id, "seat": bot.seat})
        bot.token = seated["seat_token"]
    return bots


async def close_all(bots: list[tuple[Bot, asyncio.Task[None]]]) -> None:
    async def close(bot: Bot, task: asyncio.Task[None]) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(bot.ws.close(), 5)
        task.cancel()

    await asyncio.gather(*(close(b, t) for b, t in bots))


# -- the echo baseline ---------------------------------------------------------------------


FLOOR_OK = json.dumps({"type": "ok", "id": 123456})
FLOOR_PROMPT = json.dumps({"type": "prompt", "pad": "x" * 2100})  # a prompt's size


def echo_server_main(port: int, db: str = "") -> None:
    """The baselines' server: ``/`` echoes each frame back; ``/relay`` is a table's traffic
    with nothing of a table: the first frame names a group of four sockets, and every later
    frame from any of them goes to all four (websockets' ``broadcast``), unparsed.

    ``/floor`` is the least any server of this protocol must do for one action, with
    nothing of a game: each frame is stored (a row in SQLite in WAL mode, as the store
    keeps an action, group-committed once a turn of the loop) before it is sent, then goes
    to all four, with an answer to its sender and a prompt-sized frame to the next of the
    group: one frame in and six out, as a table's action is."""
    import sqlite3

    from websockets.asyncio.server import broadcast, serve

    groups: dict[str, list[Any]] = {}
    store = sqlite3.connect(db or ":memory:", isolation_level=None)
    store.execute("PRAGMA journal_mode=WAL")
    store.execute("PRAGMA synchronous=NORMAL")
    store.execute("CREATE TABLE IF NOT EXISTS actions (game_id TEXT, idx INTEGER, seat INTEGER,"
                  " action TEXT, PRIMARY KEY (game_id, idx))")
    pending: list[tuple[list[Any], Any, str | bytes]] = []
    counts: dict[str, int] = {}

    def commit() -> None:
        batch = pending[:]
        pending.clear()
        store.execute("BEGIN")
        for members, ws, message in batch:
            name = ws.group
            counts[name] = counts.get(name, 0) + 1
            store.execute("INSERT INTO actions VALUES (?, ?, ?, ?)",
                          (name, counts[name], members.index(ws), message))
        store.execute("COMMIT")
        for members, ws, message in batch:  # stored: now it may be told
            broadcast(members, message)
            broadcast([ws], FLOOR_OK)
            broadcast([members[(members.index(ws) + 1) % len(members)]], FLOOR_PROMPT)

    async def handler(ws: Any) -> None:
        path = ws.request.path
        if path not in ("/relay", "/floor"):
            async for message in ws:
                await ws.send(message)
            return
        name = await ws.recv()
        members = groups.setdefault(name, [])
        members.append(ws)
        ws.group = name
        await ws.send("joined")
        try:
            async for message in ws:
                if path == "/relay":
                    broadcast(members, message)
                    continue
                if not pending:
                    asyncio.get_running_loop().call_soon(commit)
                pending.append((members, ws, message))
        finally:
            members.remove(ws)

    async def main() -> None:
        async with serve(handler, HOST, port, compression=None):
            await asyncio.Future()

    asyncio.run(main())


async def relay_level(port: int, groups: int, duration: float, think: float,
                      seed: int, server_pid: int,
                      path: str = "/relay") -> tuple[list[float], float, float]:
    """Groups of four sockets take turns to send an event-sized frame to their group, each
    as soon as (or ``think`` after) the last one reached all four: the same closed loop as a
    table of bots, through the bare library. Returns latencies, frames relayed a second and
    the relay process's CPU microseconds per frame relayed (the floor for one action).
    ``path="/floor"``: through the stored, six-frame relay instead (an answer and a prompt
    come beside each frame; only the frame itself is counted)."""
    rng = random.Random(seed)
    payload = json.dumps({"type": "event", "table": "abcdefgh", "seq": 123456, "event": {
        "type": "played", "seat": 2, "card": "QS"}})
    latencies: list[float] = []
    measuring = False
    sockets: list[ClientConnection] = []
    tasks: list[asyncio.Task[None]] = []
    sem = asyncio.Semaphore(50)

    async def group(index: int) -> None:
        async with sem:
            members = [await connect(f"ws://{HOST}:{port}{path}", compression=None,
                                     open_timeout=60, create_connection=StampedConnection)
                       for _ in range(4)]
            for ws in members:
                await ws.send(f"group-{index}")
                await ws.recv()
                assert isinstance(ws, StampedConnection)
                ws.arrival()  # the "joined" frame's stamp
        sockets.extend(members)
        state = {"turn": 0, "seen": 0, "sent": 0.0}

        async def send_next() -> None:
            if think:
                await asyncio.sleep(think * (0.5 + rng.random()))
            state["sent"] = time.perf_counter()
            with contextlib.suppress(ConnectionClosed):
                await members[state["turn"] % 4].send(payload)

        async def reader(ws: ClientConnection) -> None:
            with contextlib.suppress(ConnectionClosed):
                async for frame in ws:
                    assert isinstance(ws, StampedConnection)
                    arrived = ws.arrival()
                    if frame != payload:
                        continue  # the floor's answer or prompt
                    state["seen"] += 1
                    if state["seen"] == 4:
                        if measuring:
                            latencies.append(arrived - state["sent"])
                        state["seen"] = 0
                        state["turn"] += 1
                        await send_next()

        tasks.extend(asyncio.create_task(reader(ws)) for ws in members)
        await send_next()

    try:
        await asyncio.gather(*(group(i) for i in range(groups)))
        await asyncio.sleep(min(1.0, duration / 5))
        measuring = True
        cpu0, t0 = cpu_seconds(server_pid), time.perf_counter()
        await asyncio.sleep(duration)
        measuring = False
        rate = len(latencies) / (time.perf_counter() - t0)
        cpu_us = (cpu_seconds(server_pid) - cpu0) * 1e6 / max(1, len(latencies))
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
    return latencies, rate, cpu_us


async def echo_beside(port: int, duration: float, gap: float = 0.005) -> list[float]:
    """Echo round trips every ``gap`` seconds while a level runs: the baseline under the
    same conditions (the same machine load, the same client process) as the tables."""
    out: list[float] = []
    deadline = time.perf_counter() + duration
    async with connect(f"ws://{HOST}:{port}/", compression=None,
                       create_connection=StampedConnection) as ws:
        assert isinstance(ws, StampedConnection)
        message = json.dumps({"type": "act", "table": "abcdef", "id": 1,
                              "action": {"type": "play", "card": "QS"}})
        while time.perf_counter() < deadline:
            t0 = time.perf_counter()
            await ws.send(message)
            await ws.recv()
            out.append(ws.arrival() - t0)
            await asyncio.sleep(gap)
    return out


async def echo_round_trips(port: int, count: int) -> list[float]:
    message = json.dumps({"type": "act", "table": "abcdef", "action": {"type": "play",
                                                                       "card": "QS"}, "id": 1})
    out = []
    async with connect(f"ws://{HOST}:{port}/", compression=None,
                       create_connection=StampedConnection) as ws:
        assert isinstance(ws, StampedConnection)
        for _ in range(count):
            t0 = time.perf_counter()
            await ws.send(message)
            await ws.recv()
            out.append(ws.arrival() - t0)
    return out[count // 10:]


# -- levels --------------------------------------------------------------------------------


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
        return self.p50 / self.echo_idle_p50 if self.echo_idle_p50 else float("nan")


async def run_level(tables: int, think: float, duration: float, workdir: Path, config: Path,
                    echo_port: int, seed: int, cpus: set[int] | None = None) -> Level:
    server = Server(workdir / f"load-{tables}.sqlite3", config, cpus=cpus)
    server.start()
    stats = Stats()
    rng = random.Random(seed)
    bots: list[tuple[Bot, asyncio.Task[None]]] = []
    try:
        echo = await echo_round_trips(echo_port, 1000)
        sem = asyncio.Semaphore(50)

        async def one() -> None:
            async with sem:
                bots.extend(await open_table(server.url, stats, rng, think=think))

        await asyncio.gather(*(one() for _ in range(tables)))
        await asyncio.sleep(min(2.0, duration / 5))  # warm up
        cpu0, client0, t0 = cpu_seconds(server.pid), time.process_time(), time.perf_counter()
        stats.measuring = True
        beside = asyncio.create_task(echo_beside(echo_port, duration))
        await asyncio.sleep(duration)
        stats.measuring = False
        echo_during = await beside
        wall = time.perf_counter() - t0
        cpu1, client1 = cpu_seconds(server.pid), time.process_time()
        rss = rss_kib(server.pid)
        if server.proc is not None and server.proc.poll() is not None:
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
        server_cpu=100 * (cpu1 - cpu0) / wall, server_rss_mib=rss / 1024,
        cpu_us_per_action=(cpu1 - cpu0) * 1e6 / max(1, stats.actions),
        client_cpu=100 * (client1 - client0) / wall, games=stats.games)


async def idle_memory(count: int, workdir: Path, config: Path) -> float:
    """KiB of server RSS per idle, authenticated connection (K sockets on a fresh server)."""
    server = Server(workdir / "idle.sqlite3", config)
    server.start()
    sockets: list[ClientConnection] = []
    try:
        async def guest(i: int) -> ClientConnection:
            ws = await connect(server.url, compression=None, open_timeout=60)
            await ws.send(json.dumps({"type": "guest", "name": f"idle{i}", "id": 1}))
            await ws.recv()
            return ws

        warm = [await guest(i) for i in range(20)]  # first-use allocations, not per socket
        await asyncio.sleep(0.5)
        before = rss_kib(server.pid)
        sem = asyncio.Semaphore(100)

        async def one(i: int) -> None:
            async with sem:
                sockets.append(await guest(i))

        await asyncio.gather(*(one(i) for i in range(20, 20 + count)))
        await asyncio.sleep(1.0)
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


async def main(args: argparse.Namespace) -> int:
    raise_fd_limit()
    levels = parse_levels(args.tables)
    with tempfile.TemporaryDirectory(prefix="trickroom-load-") as tmp:
        workdir = Path(tmp)
        config = workdir / "load.toml"
        config.write_text(with_settings(LOAD_CONFIG, args.setting))
        echo_port = free_port()
        echo = subprocess.Popen([sys.executable, str(Path(__file__).resolve()),
                                 "--echo-server", str(echo_port),
                                 "--echo-db", str(workdir / "floor.sqlite3")], cwd=ROOT)
        # Servers (ours and the baselines') on the last core, this client on the others:
        # every measurement then crosses cores the same way, instead of as the scheduler
        # happens to place three busy processes (the idle echo alone swung 0.05-0.11 ms).
        cores = sorted(os.sched_getaffinity(0))
        server_cpus = {cores[-1]} if args.pin and len(cores) > 1 else None
        if server_cpus:
            os.sched_setaffinity(echo.pid, server_cpus)
            os.sched_setaffinity(0, set(cores[:-1]))
        try:
            wait_port(echo_port, echo)
            print(f"load: Spades, 4 socket bots a table, {args.duration:.0f} s a level, "
                  f"server and baseline server each in their own process "
                  f"({os.cpu_count()} cores)")
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
            results = []
            for i, (n, think) in enumerate(levels):
                lv = await run_level(n, think, args.duration, workdir, config, echo_port,
                                     args.seed + i, server_cpus)
                relay, rate, relay_us = await relay_level(echo_port, n, min(args.duration, 6.0),
                                                          think, args.seed + i, echo.pid)
                lv.relay_p50, lv.relay_p99 = pct(relay, 0.5) * 1e3, pct(relay, 0.99) * 1e3
                lv.relay_rate, lv.relay_cpu_us = rate, relay_us
                print_level(lv)
                results.append(lv)
            busiest = max((lv for lv in results if not lv.think_ms), key=lambda lv: lv.tables,
                          default=results[-1])
            _, floor_rate, floor_us = await relay_level(
                echo_port, busiest.tables, min(args.duration, 6.0), busiest.think_ms / 1e3,
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
                print(f"pinned: servers on core {cores[-1]}, clients on cores {cores[:-1]} "
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


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
    parser.add_argument("--echo-server", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--echo-db", default="", help=argparse.SUPPRESS)
    ns = parser.parse_args()
    STAMP["source"] = ns.stamp
    if ns.echo_server:
        echo_server_main(ns.echo_server, ns.echo_db)
    else:
        sys.exit(asyncio.run(main(ns)))
