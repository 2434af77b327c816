"""The bare ``websockets`` servers a server bench's figures are printed against.

One process (``python -m bench.baselines PORT [DB]``, started by :func:`start`) serves
three paths, none of which parses, plays or checks anything:

- ``/``: echoes each frame back (one socket's round trip, :func:`echo_round_trips`, and
  the same every 5 ms while a level runs, :func:`echo_beside`);
- ``/relay``: a table's traffic with nothing of a table: the first frame names a group of
  four sockets, and every later frame from any of them goes to all four
  (:func:`relay_level` drives groups of four through it as bots drive tables);
- ``/floor``: the least any server of this protocol must do for one action: each frame is
  stored (a row in SQLite in WAL mode, group-committed once a turn of the loop) before it
  goes to all four, with an answer to its sender and a prompt-sized frame to the next of
  the group: one frame in and six out, as a table's action is.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass

from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed

from bench.figures import command_line
from bench.harness import HOST, ROOT, CpuClock
from bench.stamps import StampedConnection

FLOOR_OK = json.dumps({"type": "ok", "id": 123456})
FLOOR_PROMPT = json.dumps({"type": "prompt", "pad": "x" * 2100})  # a prompt's size
ECHOED = json.dumps({"type": "act", "table": "abcdef", "id": 1,
                     "action": {"type": "play", "card": "QS"}})
RELAYED = json.dumps({"type": "event", "table": "abcdefgh", "seq": 123456, "event": {
    "type": "played", "seat": 2, "card": "QS"}})


def start(port: int, db: str = "") -> subprocess.Popen[bytes]:
    """The baselines' server in a process of its own (``db``: the floor's SQLite file)."""
    return subprocess.Popen([sys.executable, "-m", "bench.baselines", str(port), db], cwd=ROOT)


class Floor:
    """The floor's store: frames wait for the loop's turn to end, then are committed
    together and only then sent."""

    def __init__(self, db: str) -> None:
        self.store = sqlite3.connect(db or ":memory:", isolation_level=None)
        self.store.execute("PRAGMA journal_mode=WAL")
        self.store.execute("PRAGMA synchronous=NORMAL")
        self.store.execute("CREATE TABLE IF NOT EXISTS actions (game_id TEXT, idx INTEGER, "
                           "seat INTEGER, action TEXT, PRIMARY KEY (game_id, idx))")
        self.pending: list[tuple[str, list[ServerConnection], ServerConnection, str]] = []
        self.counts: dict[str, int] = {}

    def add(self, group: str, members: list[ServerConnection], ws: ServerConnection,
            message: str) -> None:
        if not self.pending:
            asyncio.get_running_loop().call_soon(self.commit)
        self.pending.append((group, members, ws, message))

    def commit(self) -> None:
        batch, self.pending = self.pending, []
        self.store.execute("BEGIN")
        for group, members, ws, message in batch:
            self.counts[group] = self.counts.get(group, 0) + 1
            self.store.execute("INSERT INTO actions VALUES (?, ?, ?, ?)",
                               (group, self.counts[group], members.index(ws), message))
        self.store.execute("COMMIT")
        for _group, members, ws, message in batch:  # stored: now it may be told
            broadcast(members, message)
            broadcast([ws], FLOOR_OK)
            broadcast([members[(members.index(ws) + 1) % len(members)]], FLOOR_PROMPT)


def serve_baselines(port: int, db: str = "") -> None:
    """Serve ``/``, ``/relay`` and ``/floor`` on ``port`` until killed."""
    groups: dict[str, list[ServerConnection]] = {}
    floor = Floor(db)

    async def handler(ws: ServerConnection) -> None:
        path = ws.request.path if ws.request is not None else "/"
        if path not in ("/relay", "/floor"):
            async for message in ws:
                await ws.send(message)
            return
        name = str(await ws.recv())
        members = groups.setdefault(name, [])
        members.append(ws)
        await ws.send("joined")
        try:
            async for message in ws:
                if path == "/relay":
                    broadcast(members, message)
                else:
                    floor.add(name, members, ws, str(message))
        finally:
            members.remove(ws)

    async def main() -> None:
        async with serve(handler, HOST, port, compression=None):
            await asyncio.Future()

    asyncio.run(main())


# -- the clients ---------------------------------------------------------------------------


async def echo_round_trips(port: int, count: int, gap: float = 0.0,
                           seconds: float | None = None) -> list[float]:
    """Echo round trips, one after another (``gap`` seconds apart, for ``seconds`` when
    given, else ``count`` of them, the first tenth left out as warm-up)."""
    out: list[float] = []
    deadline = time.perf_counter() + seconds if seconds is not None else None

    def more() -> bool:
        return len(out) < count if deadline is None else time.perf_counter() < deadline

    async with connect(f"ws://{HOST}:{port}/", compression=None,
                       create_connection=StampedConnection) as ws:
        assert isinstance(ws, StampedConnection)
        while more():
            t0 = time.perf_counter()
            await ws.send(ECHOED)
            await ws.recv()
            out.append(ws.arrival() - t0)
            if gap:
                await asyncio.sleep(gap)
    return out if deadline is not None else out[count // 10:]


async def echo_beside(port: int, seconds: float, gap: float = 0.005) -> list[float]:
    """Echo round trips every ``gap`` seconds while a level runs: the baseline under the
    same conditions (the same machine load, the same client process) as the tables."""
    return await echo_round_trips(port, 0, gap, seconds)


@dataclass
class _Turn:
    """Where one group of the relay stands: whose turn, how many have the frame."""

    turn: int = 0
    seen: int = 0
    sent: float = 0.0


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
        state = _Turn()

        async def send_next() -> None:
            if think:
                await asyncio.sleep(think * (0.5 + rng.random()))
            state.sent = time.perf_counter()
            with contextlib.suppress(ConnectionClosed):
                await members[state.turn % 4].send(RELAYED)

        async def reader(ws: ClientConnection) -> None:
            with contextlib.suppress(ConnectionClosed):
                async for frame in ws:
                    assert isinstance(ws, StampedConnection)
                    arrived = ws.arrival()
                    if frame != RELAYED:
                        continue  # the floor's answer or prompt
                    state.seen += 1
                    if state.seen == 4:
                        if measuring:
                            latencies.append(arrived - state.sent)
                        state.seen = 0
                        state.turn += 1
                        await send_next()

        tasks.extend(asyncio.create_task(reader(ws)) for ws in members)
        await send_next()

    try:
        await asyncio.gather(*(group(i) for i in range(groups)))
        await asyncio.sleep(min(1.0, duration / 5))
        measuring = True
        cpu, t0 = CpuClock(server_pid), time.perf_counter()
        await asyncio.sleep(duration)
        measuring = False
        rate = len(latencies) / (time.perf_counter() - t0)
        cpu_us = cpu.us_per(len(latencies))
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
    return latencies, rate, cpu_us


def main(argv: list[str] | None = None) -> None:
    parser = command_line(__doc__)
    parser.add_argument("port", type=int)
    parser.add_argument("db", nargs="?", default="", help="the floor's SQLite file")
    args = parser.parse_args(argv)
    serve_baselines(args.port, args.db)


if __name__ == "__main__":
    main()
