"""Fuzz: bad input at volume over the live socket changes nothing, and play goes on beside it.

The server runs in its own process (:mod:`bench.harness`'s room file). Random bytes, random
text, and JSON mutations of valid messages aimed at its live tables go to it from
``--sockets`` connections (every other one logged in as a guest), in batches, each batch
followed by a ping that must come back. Every reply must be JSON with a type, every error
a known code and never ``internal``; a connection may instead be closed cleanly
(1007/1008/1009). Whatever else comes back is counted as bad. Meanwhile a table whose
players never act must not change (its snapshot before and after), and a table of bots
plays on: its actions' latency during the fuzz is printed against its own from before (the
canary: this process sends the fuzz and runs the canary's bots, so it slows them too), and
after the fuzz it must still be playing. Ends with::

    fuzz frames=<n> replies=<r> bad=<b> unclean_closes=<u> frozen_changed=<0|1>
        canary_playing=<0|1> canary_p50_ms=<x> canary_p99_ratio=<y>        (one line)

Run: ``python -m bench.fuzz [--frames N] [--sockets S]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from bench.figures import command_line, pct, ratio
from bench.harness import Server, raise_fd_limit, room_file
from bench.players import Stats, close_all, open_table
from trickroom.server.protocol import ERROR_CODES

TYPES = ["ping", "guest", "resume", "list_rooms", "list_tables", "sit", "stand",
         "watch", "fill_robots", "start", "play_again", "act", "rejoin", "chat", "ignore",
         "queue", "unqueue", "vote", "settings", "register", "login", "create_table"]
CLEAN_CLOSES = {1000, 1007, 1008, 1009}
JUNK: list[Any] = [None, True, -1, 0, 2**70, 1.5e308, "", "x" * 300, [], {}, [1, [2]],
                   {"a": {"b": None}}, "\u0000", "💥", -0.0]


def templates(tables: list[str]) -> list[dict[str, Any]]:
    """Valid-looking messages aimed at the live tables (no account creation: hashing is slow
    on purpose, and no new tables: robots would play them)."""
    t = tables
    return [
        {"type": "ping", "id": 1},
        {"type": "list_rooms", "id": 2},
        {"type": "list_tables", "room": "spades", "id": 3},
        {"type": "sit", "table": t[0], "seat": 1, "id": 4},
        {"type": "stand", "table": t[0], "id": 5},
        {"type": "act", "table": t[0], "action": {"type": "bid", "value": 3}, "id": 6},
        {"type": "act", "table": t[1], "action": {"type": "play", "card": "QS"}, "id": 7},
        {"type": "rejoin", "table": t[0], "seat_token": "x" * 20, "last_seq": 3, "id": 8},
        {"type": "chat", "table": t[1], "text": "hello", "id": 9},
        {"type": "fill_robots", "table": t[0], "level": "random", "id": 10},
        {"type": "start", "table": t[1], "id": 11},
        {"type": "play_again", "table": t[0], "id": 12},
        {"type": "vote", "table": t[0], "vote": "wait", "choice": "wait", "id": 13},
        {"type": "settings", "rank_me": False, "id": 14},
        {"type": "queue", "room": "spades", "id": 15},
        {"type": "ignore", "name": "someone", "id": 16},
        {"type": "resume", "token": "y" * 30, "id": 17},
    ]


def junk(rng: random.Random) -> Any:
    return json.loads(json.dumps(rng.choice(JUNK)))  # a fresh copy: no shared containers


def mutate(msg: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A valid-looking message with one to three keys broken, dropped or added."""
    out: dict[str, Any] = json.loads(json.dumps(msg))
    for _ in range(rng.randint(1, 3)):
        keys = list(out)
        op = rng.randrange(5)
        if op == 0 and keys:
            out[rng.choice(keys)] = junk(rng)
        elif op == 1 and keys:
            out.pop(rng.choice(keys))
        elif op == 2:
            out[rng.choice(["extra", "seat", "table", "id", "action", "type"])] = junk(rng)
        elif op == 3:
            out["type"] = rng.choice(TYPES) if rng.random() < 0.8 else junk(rng)
        elif "action" in out and isinstance(out["action"], dict):
            out["action"][rng.choice(["type", "value", "card", "cards", "blind"])] = \
                junk(rng) if rng.random() < 0.5 else rng.choice(["bid", "play", "pass"])
    if out.get("type") in ("register", "login", "create_table"):
        out["name"] = None  # invalid on purpose: no account or table is made
        out["room"] = None
    return out


def junk_frame(rng: random.Random, tmpl: list[dict[str, Any]]) -> str | bytes:
    kind = rng.random()
    if kind < 0.15:
        return rng.randbytes(rng.randint(0, 200))
    if kind < 0.3:
        return "".join(chr(rng.randint(1, 0x2FF)) for _ in range(rng.randint(0, 80)))
    if kind < 0.4:
        text = json.dumps(rng.choice(tmpl))
        cut = rng.randint(0, len(text))
        return text[:cut] + rng.choice(["", "}", "]", ",", "\\", '"', "{{"])
    return json.dumps(mutate(rng.choice(tmpl), rng))


@dataclass
class Tally:
    """What the fuzz sent and what came back."""

    sent: int = 0
    replies: int = 0
    bad: list[str] = field(default_factory=list)  # replies that break the rules, kept
    errors: dict[str, int] = field(default_factory=dict)
    closes: dict[int, int] = field(default_factory=dict)

    def check(self, text: str | bytes) -> dict[str, Any]:
        """Count a reply; return it (empty, when it is not a message at all)."""
        self.replies += 1
        try:
            msg = json.loads(text)
        except ValueError:
            msg = None
        if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
            self.bad.append(str(text)[:200])
            return {}
        if msg["type"] == "error":
            code = msg.get("code")
            if code not in ERROR_CODES or code == "internal":
                self.bad.append(str(text)[:200])
            self.errors[str(code)] = self.errors.get(str(code), 0) + 1
        return msg

    @property
    def unclean_closes(self) -> int:
        return sum(n for code, n in self.closes.items() if code not in CLEAN_CLOSES)


async def fuzz_socket(url: str, frames: list[str | bytes], tally: Tally, login: bool,
                      batch: int = 250) -> None:
    """Send ``frames`` in batches; after each, a ping that must come back (or a close,
    after which the rest go on a new connection)."""
    pos = 0
    while pos < len(frames):
        async with connect(url, compression=None, max_size=2**22) as ws:
            if login:
                await ws.send('{"type": "guest", "id": "login"}')
            try:
                while pos < len(frames):
                    chunk = frames[pos:pos + batch]
                    pos += len(chunk)
                    for frame in chunk:
                        await ws.send(frame)
                    tally.sent += len(chunk)
                    marker = f"sync-{pos}"
                    await ws.send(json.dumps({"type": "ping", "id": marker}))
                    while tally.check(await asyncio.wait_for(ws.recv(), 30)).get("id") != marker:
                        pass
            except ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd else 1006
                tally.closes[code] = tally.closes.get(code, 0) + 1


async def snapshot(url: str, table: str) -> dict[str, Any]:
    """A watcher's snapshot of ``table``."""
    async with connect(url, compression=None, max_size=2**22) as ws:
        await ws.send('{"type": "guest", "id": 1}')
        await ws.recv()
        await ws.send(json.dumps({"type": "watch", "table": table, "id": 2}))
        while True:
            msg: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if msg.get("id") == 2:
                return msg


async def still_playing(stats: Stats, timeout: float = 10.0) -> bool:
    """Whether the canary acts again (within ``timeout``, a bound, not a measure)."""
    seen = stats.actions
    deadline = time.monotonic() + timeout
    while stats.actions == seen and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    return stats.actions > seen


async def fuzz_run(frames: int, sockets: int, workdir: Path, seed: int = 8,
                   settle: float = 2.0) -> dict[str, Any]:
    """The whole run (the test calls this too): ``settle`` seconds of the canary alone,
    then ``frames`` bad frames. Returns the tally and the figures."""
    rng = random.Random(seed)
    with Server(workdir / "fuzz.sqlite3", room_file(workdir, "fuzz")) as server:
        # A table whose four players never act: nothing may change it.
        frozen = await open_table(server.url, Stats(), rng)
        for bot, _task in frozen:
            bot.acting = False  # nobody answers a prompt for it
        frozen_id = frozen[0][0].track.id
        await asyncio.sleep(0.3)
        before = await snapshot(server.url, frozen_id)
        canary = Stats(measuring=True)
        live = await open_table(server.url, canary, rng)
        await asyncio.sleep(settle)
        normal = list(canary.latencies)
        canary.latencies.clear()
        tmpl = templates([frozen_id, live[0][0].track.id])
        sent = [junk_frame(rng, tmpl) for _ in range(frames)]
        tally = Tally()
        started = time.perf_counter()
        await asyncio.gather(*(fuzz_socket(server.url, sent[i::sockets], tally, i % 2 == 0)
                               for i in range(sockets)))
        seconds = time.perf_counter() - started
        during = list(canary.latencies)
        playing = await still_playing(canary)
        after = await snapshot(server.url, frozen_id)
        alive = server.alive
        await close_all(frozen + live)
    changed = after.get("view") != before.get("view") or after.get("info") != before.get("info")
    return {"tally": tally, "seconds": seconds, "server_alive": alive,
            "frozen_changed": changed, "canary_playing": playing,
            "canary_actions": len(during), "canary_p99_before": pct(normal, 0.99) * 1e3,
            "canary_p50": pct(during, 0.5) * 1e3, "canary_p99": pct(during, 0.99) * 1e3}


async def main(args: argparse.Namespace) -> int:
    raise_fd_limit()
    with tempfile.TemporaryDirectory(prefix="trickroom-fuzz-") as tmp:
        out = await fuzz_run(args.frames, args.sockets, Path(tmp), args.seed)
    tally: Tally = out["tally"]
    print(f"fuzz: {tally.sent} frames in {out['seconds']:.1f} s from {args.sockets} sockets, "
          f"{tally.replies} replies, errors {tally.errors}, closes {tally.closes}")
    for text in tally.bad[:10]:
        print(f"  bad reply: {text}")
    print(f"canary table: p99 {out['canary_p99_before']:.1f} ms before; p50 "
          f"{out['canary_p50']:.1f} / p99 {out['canary_p99']:.1f} ms during "
          f"({out['canary_actions']} actions)")
    print(f"fuzz frames={tally.sent} replies={tally.replies} bad={len(tally.bad)} "
          f"unclean_closes={tally.unclean_closes} frozen_changed={int(out['frozen_changed'])} "
          f"canary_playing={int(out['canary_playing'])} canary_p50_ms={out['canary_p50']:.2f} "
          f"canary_p99_ratio={ratio(out['canary_p99'], out['canary_p99_before']):.2f}")
    ok = (not tally.bad and not tally.unclean_closes and out["server_alive"]
          and not out["frozen_changed"] and out["canary_playing"])
    return 0 if ok else 1


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = command_line(__doc__)
    parser.add_argument("--frames", type=int, default=100_000, help="bad frames sent")
    parser.add_argument("--sockets", type=int, default=8, help="connections sending them")
    parser.add_argument("--seed", type=int, default=8)
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))
