"""Bad input at volume, over the live socket of a server in its own process.

Random bytes, random text, JSON mutations of valid messages and hypothesis-made
messages go to the server from several connections, in batches, each batch
followed by a ping that must come back. Every reply must be JSON with a type,
every error a known code and never ``internal``; a connection may instead be
closed cleanly (1007/1008/1009). Meanwhile a table whose players never act must
not change, and a table of bots keeps playing with its latency near its own
p99 from before. The counts tried are printed (``pytest -s``) and asserted.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.load.conftest import bench_module
from trickroom.server.protocol import ERROR_CODES

TYPES = ["ping", "guest", "resume", "list_rooms", "list_tables", "sit", "stand",
         "watch", "fill_robots", "start", "play_again", "act", "rejoin", "chat", "ignore",
         "queue", "unqueue", "vote", "settings", "register", "login", "create_table"]
CLEAN_CLOSES = {1000, 1007, 1008, 1009}


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


JUNK: list[Any] = [None, True, -1, 0, 2**70, 1.5e308, "", "x" * 300, [], {}, [1, [2]],
                   {"a": {"b": None}}, "\u0000", "💥", -0.0]


def junk(rng: random.Random) -> Any:
    return json.loads(json.dumps(rng.choice(JUNK)))  # a fresh copy: no shared containers


def mutate(msg: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    out = json.loads(json.dumps(msg))
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


class Tally:
    def __init__(self) -> None:
        self.sent = 0
        self.replies = 0
        self.errors: dict[str, int] = {}
        self.closes: dict[int, int] = {}

    def check(self, text: str | bytes) -> None:
        msg = json.loads(text)
        assert isinstance(msg, dict) and isinstance(msg.get("type"), str), msg
        self.replies += 1
        if msg["type"] == "error":
            assert msg["code"] in ERROR_CODES and msg["code"] != "internal", msg
            self.errors[msg["code"]] = self.errors.get(msg["code"], 0) + 1


async def fuzz_socket(url: str, frames: list[str | bytes], tally: Tally, login: bool,
                      batch: int = 250) -> None:
    """Send ``frames`` in batches; after each, a ping that must come back (or a clean close)."""
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
                    while True:
                        text = await asyncio.wait_for(ws.recv(), 30)
                        tally.check(text)
                        if json.loads(text).get("id") == marker:
                            break
            except ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd else 1006
                assert code in CLEAN_CLOSES, (code, exc)
                tally.closes[code] = tally.closes.get(code, 0) + 1


async def snapshot(url: str, table: str) -> dict[str, Any]:
    async with connect(url, compression=None, max_size=2**22) as ws:
        await ws.send('{"type": "guest", "id": 1}')
        await ws.recv()
        await ws.send(json.dumps({"type": "watch", "table": table, "id": 2}))
        while True:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if msg.get("id") == 2:
                return msg


async def test_a_hundred_thousand_bad_messages_change_nothing_and_slow_no_one(tmp_path: Path):
    load = bench_module("load")
    load.raise_fd_limit()
    config = tmp_path / "fuzz.toml"
    config.write_text(load.LOAD_CONFIG)  # the load bench's room file
    server = load.Server(tmp_path / "fuzz.sqlite3", config)
    server.start()
    rng = random.Random(8)
    try:
        # A table whose four players never act: nothing may change it.
        still = load.Stats()
        frozen = await load.open_table(server.url, still, rng)
        for _bot, task in frozen:
            task.cancel()  # nobody reads or answers prompts for it
        frozen_id = frozen[0][0].track.id
        await asyncio.sleep(0.3)
        before = await snapshot(server.url, frozen_id)
        # A table of bots that plays on: its latency is the canary.
        stats = load.Stats()
        live = await load.open_table(server.url, stats, rng)
        live_id = live[0][0].track.id
        stats.measuring = True
        await asyncio.sleep(2.0)
        normal = sorted(stats.latencies)
        stats.latencies.clear()

        tmpl = templates([frozen_id, live_id])
        total = 100_000
        workers = 8
        frames = [junk_frame(rng, tmpl) for _ in range(total)]
        tally = Tally()
        started = time.perf_counter()
        await asyncio.gather(*(fuzz_socket(server.url, frames[i::workers], tally, i % 2 == 0)
                               for i in range(workers)))
        fuzz_seconds = time.perf_counter() - started
        during = sorted(stats.latencies)
        stats.measuring = False

        after = await snapshot(server.url, frozen_id)
        assert server.proc.poll() is None, "the server died"
        assert after["view"] == before["view"] and after["info"] == before["info"]
        p99_normal, p99_during = load.pct(normal, 0.99), load.pct(during, 0.99)
        p50_during = load.pct(during, 0.5)
        print(f"\nfuzz: {tally.sent} frames in {fuzz_seconds:.1f} s, {tally.replies} replies, "
              f"errors {tally.errors}, clean closes {tally.closes}; canary table p99 "
              f"{1e3 * p99_normal:.1f} ms before, p50 {1e3 * p50_during:.1f} / "
              f"p99 {1e3 * p99_during:.1f} ms during ({len(during)} actions)")
        assert tally.sent >= total
        assert len(during) > 50  # the other table kept playing
        # This process sends the fuzz and runs the canary's bots, so it slows them too: its
        # median must stay under its own normal p99 (with a floor for a busy machine).
        assert p50_during <= max(p99_normal, 0.05)
        for _, task in live:
            task.cancel()
    finally:
        server.stop()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=12)
messages = st.fixed_dictionaries(
    {"type": st.sampled_from(TYPES) | st.text(max_size=10)},
    optional={"id": st.integers() | st.text(max_size=10) | st.none(),
              "table": st.text(max_size=45), "seat": json_values, "room": st.text(max_size=30),
              "action": json_values, "text": st.text(max_size=400), "last_seq": st.integers(),
              "level": st.text(max_size=10), "rules": json_values, "seat_token": st.text()})


async def test_hypothesis_messages_get_typed_errors(tmp_path: Path):
    load = bench_module("load")
    config = tmp_path / "fuzz.toml"
    config.write_text(load.LOAD_CONFIG)  # the load bench's room file
    server = load.Server(tmp_path / "fuzz.sqlite3", config)
    server.start()
    drawn: list[str] = []

    @settings(max_examples=1500, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(messages)
    def collect(msg: dict[str, Any]) -> None:
        if msg["type"] in ("register", "login", "create_table", "fill_robots"):
            msg = {**msg, "name": 5, "room": 5}  # invalid: no accounts or robot tables made
        drawn.append(json.dumps(msg))

    try:
        collect()
        tally = Tally()
        await asyncio.gather(*(fuzz_socket(server.url, drawn[i::4], tally, i % 2 == 0)
                               for i in range(4)))
        assert tally.sent == len(drawn) >= 1000
        assert server.proc.poll() is None
        print(f"\nhypothesis: {tally.sent} messages, errors {tally.errors}, "
              f"closes {tally.closes}")
    finally:
        server.stop()
