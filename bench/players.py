"""The load benches' players: four socket bots to a table, timing each action's fan-out.

Each bot answers every new prompt with a random legal action (a prompt whose ``seq`` was
already answered is skipped), at once or after a think time, and asks to play again when
a game ends. An action's latency runs from the bot's ``act`` to the moment its event came
off the last of the four seats' sockets (:mod:`bench.stamps`); a bot given a list of
``oks`` also times its own ``act`` until the server's answer. A :class:`Pacer` shared by
every bot of a run spaces their actions to a given rate.

A bot told ``moved`` (its ``sit`` or ``rejoin`` is for a table of another node) opens a
socket to the URL given (resolved against its own socket's), resumes its session there
and sends the request again, as the protocol asks; its reader carries on on the new socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bench.harness import choose
from bench.stamps import StampedConnection, arrival

ACTION_EVENTS = ("bid", "played", "passed", "looked")


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


class Pacer:
    """Every bot of a run acts through one pacer: at most ``rate`` actions a second over
    all tables, evenly spaced. A single process paced to a cluster's own rate does the
    cluster's work at the cluster's pace, so the two are compared at equal load."""

    def __init__(self, rate: float, clock: Callable[[], float] = time.perf_counter,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.gap = 1.0 / rate
        self.next = 0.0
        self.clock, self.sleep = clock, sleep

    async def take(self) -> None:
        now = self.clock()
        slot = max(now, self.next)
        self.next = slot + self.gap
        if slot > now:
            await self.sleep(slot - now)


class Bot:
    """One seat: answers each new prompt with a random legal action."""

    ids = itertools.count(1)

    def __init__(self, ws: ClientConnection, seat: int, track: TableTrack, stats: Stats,
                 rng: random.Random, think: float = 0.0, pacer: Pacer | None = None,
                 oks: list[float] | None = None, url: str = "") -> None:
        self.ws, self.seat, self.track, self.stats, self.rng = ws, seat, track, stats, rng
        self.url = url  # where ws is connected (for a relative moved URL)
        self.session: str | None = None  # to resume on another node's socket
        self.moved = 0  # moved redirects followed
        self.think = think  # mean seconds before answering a prompt (0: at once)
        self.pacer = pacer
        self.oks = oks  # where to put each act's time until its ok (None: not timed)
        self.acts: dict[int, float] = {}  # act id -> when it was sent
        self.acting = True  # False: reads everything, answers no prompt (a frozen table)
        self.arrived = 0.0  # when the frame being handled arrived
        self.answered = -1
        self.replies: dict[int, asyncio.Future[dict[str, Any]]] = {}

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send a request and return its answer (an error raises); a ``moved`` is followed."""
        for _ in range(4):
            rid = next(self.ids)
            fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
            self.replies[rid] = fut
            await self.ws.send(json.dumps({**message, "id": rid}))
            reply = await asyncio.wait_for(fut, 30)
            if reply.get("type") == "error":
                raise RuntimeError(f"{message['type']}: {reply['code']}: {reply['message']}")
            if reply.get("type") != "moved":
                if reply.get("type") == "welcome":
                    self.session = reply.get("session")
                return reply
            await self.follow(str(reply["url"]))
        raise RuntimeError(f"{message['type']}: moved too many times")

    async def follow(self, url: str) -> None:
        """Carry on on a socket of the node a ``moved`` named, logged in as before."""
        self.moved += 1
        url = urljoin(self.url, url)
        ws = await connect(url, max_size=2**22, compression=None, open_timeout=60,
                           create_connection=StampedConnection)
        old, self.ws, self.url = self.ws, ws, url
        with contextlib.suppress(Exception):
            await asyncio.wait_for(old.close(), 5)  # the reader goes on with the new socket
        if self.session is not None:
            await self.request({"type": "resume", "token": self.session})

    async def run(self) -> None:
        while True:
            ws = self.ws
            with contextlib.suppress(ConnectionClosed):
                async for frame in ws:
                    self.arrived = arrival(ws)
                    await self.handle(json.loads(frame))
            if self.ws is ws:
                return  # closed, not moved

    async def handle(self, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        rid = msg.get("id")
        sent = self.acts.pop(rid, None) if isinstance(rid, int) else None
        if sent is not None and kind == "ok" and self.oks is not None and self.stats.measuring:
            self.oks.append(self.arrived - sent)
        if rid is not None and rid in self.replies:
            fut = self.replies.pop(rid)
            if not fut.done():
                fut.set_result(msg)
            if kind != "error":
                return
        if kind == "event":
            event = msg["event"]
            if event["type"] in ACTION_EVENTS:
                self.on_action_event(event)
            elif event["type"] == "game_over":
                if self.seat == 0:
                    self.stats.games += 1
                await self.ws.send(json.dumps({"type": "play_again", "table": self.track.id}))
        elif kind == "prompt":
            if msg["seq"] <= self.answered or not self.acting:
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
        if self.pacer is not None:
            await self.pacer.take()
        rid = next(self.ids)
        self.track.sent[self.seat] = self.acts[rid] = time.perf_counter()
        self.track.seen[self.seat] = 0
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(json.dumps({"type": "act", "table": self.track.id,
                                           "action": action, "id": rid}))

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


Seated = tuple[Bot, "asyncio.Task[None]"]
MakeBot = Callable[[ClientConnection, int, TableTrack], Bot]


async def seat_table(url_of: Callable[[int], str], make: MakeBot) -> list[Seated]:
    """A new table of the "spades" room with a bot in each seat, seat ``s`` connected to
    ``url_of(s)``; each bot's reader runs as a task."""
    track = TableTrack()
    bots: list[Seated] = []
    for seat in range(4):
        ws = await connect(url_of(seat), max_size=2**22, compression=None, open_timeout=60,
                           create_connection=StampedConnection)
        bot = make(ws, seat, track)
        bot.url = url_of(seat)
        bots.append((bot, asyncio.create_task(bot.run())))
        await bot.request({"type": "guest", "name": f"b{seat}"})
    reply = await bots[0][0].request({"type": "create_table", "room": "spades"})
    track.id = reply["table"]["id"]
    for bot, _ in bots:
        await bot.request({"type": "sit", "table": track.id, "seat": bot.seat})
    return bots


async def open_table(url: str, stats: Stats, rng: random.Random,
                     think: float = 0.0) -> list[Seated]:
    """Four bots at a new table on one server."""
    return await seat_table(lambda _seat: url,
                            lambda ws, seat, track: Bot(ws, seat, track, stats, rng, think))


async def close_all(bots: list[Seated]) -> None:
    async def close(bot: Bot, task: asyncio.Task[None]) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(bot.ws.close(), 5)
        task.cancel()

    await asyncio.gather(*(close(b, t) for b, t in bots))
