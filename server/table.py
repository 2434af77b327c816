"""A table: four seats, watchers, and the commands that change its game one at a time.

Everything that touches a table (a seat taken, an action, a robot's move, a
timer firing, a drop) is a command, run under the table's lock. So a table
never sees two actions at once, even while one is waiting for the store to
commit. A client's request runs its command in the connection's own task
(``call``); what no request waits for (a timer, a robot's move) is posted to
the table's inbox and run by the table's task (``post``). The lock is fair:
commands run in the order they asked for it.

Running a request in its own task, rather than handing it to the table's task
and waiting for the answer, saves two trips round the event loop on every
action (the load bench's one-table latency, beside a bare echo round trip).

An action goes: parse, ``game.apply`` (an illegal one raises and changes
nothing), write to the store (group commit), and only then broadcast its
events, numbered by ``seq``: the broadcast is the acknowledgement. Each event
goes only to those its ``to`` tag allows; a public event is encoded once and
the same text is sent to every client.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from game.actions import ActionParseError, IllegalAction, Pass, action_from_wire
from game.engine import ENGINES
from game.events import Event
from game.robots import Robot, make_robot
from game.trickgame import TrickGame
from server.auth import new_token, token_hash, token_matches
from server.config import Room, ServerSettings
from server.metrics import METRICS
from server.protocol import ProtocolError
from server.store import SqliteStore

log = logging.getLogger("trickroom.table")


class Shared:
    """One message for a whole audience, encoded once: its UTF-8 text, and the
    connection's framing of it, which is the same bytes for every client and so is
    built by the first connection that sends it and reused by the rest."""

    __slots__ = ("data", "frame")

    def __init__(self, text: str) -> None:
        self.data = text.encode()
        self.frame: bytes | None = None


class Client(Protocol):
    """What a table needs of a connection."""

    name: str
    guest: bool

    def send_text(self, text: str | Shared) -> None:
        """Send one message (a :class:`Shared` one goes to many clients)."""


@dataclass
class Seat:
    index: int
    name: str | None = None
    kind: str = "empty"  # empty | human | robot
    token_hash: str | None = None
    client: Client | None = None
    away_since: float | None = None
    robot_level: str = "heuristic"
    robot: Robot | None = None
    again: bool = False
    starter: str | None = None  # who sat here when the game started
    substitute: bool = False  # a human who took a quitter's seat, unrated

    @property
    def robot_plays(self) -> bool:
        """A robot seat, or a human's seat while they are away (casual: at once)."""
        return self.kind == "robot" or (self.kind == "human" and self.client is None)

    def stored(self) -> dict[str, Any]:
        return {"seat": self.index, "name": self.name, "kind": self.kind,
                "token_hash": self.token_hash, "robot_level": self.robot_level,
                "starter": self.starter, "substitute": self.substitute}


class Table:
    """One table's state and task. Methods named ``do_*`` run inside the task."""

    def __init__(self, table_id: str, room: Room, settings: ServerSettings, store: SqliteStore,
                 rules: Any, seating: str, on_change: Callable[[Table], None],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.id = table_id
        self.room = room
        self.settings = settings
        self.store = store
        self.rules = rules
        self.seating = seating
        self.on_change = on_change
        self.clock = clock
        self.seats = [Seat(i) for i in range(4)]
        self.watchers: set[Client] = set()
        self.game: TrickGame | None = None
        self.game_id: str | None = None
        self.state = "waiting"  # waiting | playing | over
        self.seq = 0
        self.log: list[tuple[int, int | None, str]] = []  # (seq, only-for-seat, text)
        self.inbox: asyncio.Queue[tuple[Callable[..., Awaitable[Any]],
                                        tuple[Any, ...]]] = asyncio.Queue()
        self.lock = asyncio.Lock()
        self.stopped = False  # the server is shutting down: no timer or robot acts again
        self._task: asyncio.Task[None] | None = None
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._paused: str | None = None
        self._pauses = 0  # pauses ended: a prompt refused while paused is sent again
        self._acted = [0, 0, 0, 0]  # actions each seat has made in this game
        self._prompted: dict[int, tuple[str | None, int, int]] = {}  # seat -> its turn's key
        self.turn_seconds = room.turn_seconds or settings.turn_seconds

    # -- commands: the lock, the task and its inbox ----------------------------------------

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"table-{self.id}")

    async def stop(self) -> None:
        """Stop the timers and robots; a command already running finishes first (cut off
        between storing a game's last action and storing its end, the game would be left
        for the next start to finish)."""
        self.stopped = True
        for handle in self._timers.values():
            handle.cancel()
        async with self.lock:
            if self._task:
                self._task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._task

    @property
    def paused(self) -> str | None:
        """Why the game waits (a ranked vote or a drop), or None."""
        return self._paused

    @paused.setter
    def paused(self, why: str | None) -> None:
        if self._paused and not why:
            self._pauses += 1
        self._paused = why

    async def call(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        """Run ``fn(*args)`` as the table's one command, in the caller's task; return its
        result (or raise its error)."""
        async with self.lock:
            return await fn(*args)

    def post(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> None:
        """Run ``fn(*args)`` later, in the table's task (a timer, a robot's move)."""
        if not self.stopped:
            self.inbox.put_nowait((fn, args))

    async def _run(self) -> None:
        while True:
            fn, args = await self.inbox.get()
            try:
                async with self.lock:
                    await fn(*args)
            except Exception as exc:
                if not isinstance(exc, (ProtocolError, IllegalAction)):
                    log.exception("table %s: command %s failed", self.id, fn.__name__)

    def _later(self, key: str, delay: float, fn: Callable[..., Awaitable[Any]],
               *args: Any) -> None:
        old = self._timers.pop(key, None)
        if old:
            old.cancel()
        if self.stopped:
            return
        loop = asyncio.get_running_loop()
        self._timers[key] = loop.call_later(max(0.0, delay), self.post, fn, *args)

    # -- sending ------------------------------------------------------------------------------

    def audience(self) -> list[Client]:
        clients = [s.client for s in self.seats if s.client is not None]
        return clients + [w for w in self.watchers if w not in clients]

    def seat_of(self, client: Client) -> Seat | None:
        for seat in self.seats:
            if seat.client is client:
                return seat
        return None

    def _emit(self, event: dict[str, Any], to: int | None = None) -> None:
        """Number an event, log it, and send it to whoever may see it (encoded once)."""
        self.seq += 1
        text = json.dumps({"type": "event", "table": self.id, "seq": self.seq, "event": event})
        self.log.append((self.seq, to, text))
        if to is None:
            shared = Shared(text)
            for client in self.audience():
                client.send_text(shared)
        else:
            client = self.seats[to].client
            if client is not None:
                client.send_text(text)

    def _emit_game_events(self, events: list[Event]) -> None:
        for e in events:
            self._emit(e.to_wire(), e.to)

    def info(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "room": self.room.name,
            "game": self.room.game,
            "state": self.state,
            "seating": self.seating,
            "seats": [{"seat": s.index, "name": s.name, "kind": s.kind,
                       "away": s.kind == "human" and s.client is None} for s in self.seats],
            "watchers": len(self.watchers),
            "game_id": self.game_id,
        }

    def snapshot(self, seat: int | None, request_id: Any = None) -> str:
        view = self.game.view(seat).to_wire() if self.game else None
        return json.dumps({"type": "snapshot", "id": request_id, "table": self.id,
                           "seq": self.seq, "info": self.info(), "view": view,
                           "paused": self.paused, "vote": self.vote_info()})

    def vote_info(self) -> dict[str, Any] | None:
        """The open vote, if any (ranked rooms)."""
        return None

    def _changed(self) -> None:
        self._emit({"type": "table", "info": self.info()})
        self.on_change(self)

    # -- seats ---------------------------------------------------------------------------------

    async def do_sit(self, client: Client, wanted: int | None) -> tuple[int, str]:
        if self.seat_of(client) is not None:
            raise ProtocolError("invalid_field", "you already sit at this table")
        if self.state == "playing":
            return await self._substitute(client, wanted)
        if self.state != "waiting":
            raise ProtocolError("table_full", "the game has started; watch it, or rejoin "
                                              "your own seat with its seat token")
        free = [s for s in self.seats if s.kind == "empty"]
        if not free:
            raise ProtocolError("table_full", "every seat at this table is taken")
        if self.seating == "random_seating":
            seat = secrets.choice(free)  # seats are drawn, whatever was asked
        elif wanted is None:
            seat = free[0]
        else:
            seat = self.seats[wanted]
            if seat.kind != "empty":
                raise ProtocolError("seat_taken", f"seat {wanted} is taken by {seat.name}")
        await self._check_sit(client)
        token = new_token()
        seat.name, seat.kind, seat.client = client.name, "human", client
        seat.token_hash, seat.away_since = token_hash(token), None
        self.watchers.discard(client)
        self._changed()
        await self._maybe_start()
        return seat.index, token

    async def do_sit_reserved(self, client: Client, index: int) -> tuple[int, str]:
        """The random queue seats a matched player; the game starts once all four sit."""
        seat = self.seats[index]
        token = new_token()
        seat.name, seat.kind, seat.client = client.name, "human", client
        seat.token_hash, seat.away_since = token_hash(token), None
        self._changed()
        return index, token

    async def do_start_if_full(self) -> None:
        await self._maybe_start()

    async def do_stand(self, client: Client) -> None:
        seat = self.seat_of(client)
        if seat is None:
            raise ProtocolError("not_seated", "you do not sit at this table")
        if self.state == "playing":
            log.info("table %s seat %d: %s left the game; a robot keeps the seat",
                     self.id, seat.index, seat.name)
            await self._on_leave(seat)
            return
        seat.name, seat.kind, seat.client, seat.token_hash = None, "empty", None, None
        self._changed()

    async def do_watch(self, client: Client, request_id: Any) -> None:
        self.watchers.add(client)
        client.send_text(self.snapshot(None, request_id))
        self.on_change(self)

    async def do_unwatch(self, client: Client) -> None:
        self.watchers.discard(client)
        self.on_change(self)

    async def do_fill(self, client: Client, level: str) -> None:
        if self.room.rated:
            raise ProtocolError("not_authorized", "robots may not sit at a ranked table")
        if self.state != "waiting":
            raise ProtocolError("table_full", "the game has started")
        for seat in self.seats:
            if seat.kind == "empty":
                seat.kind, seat.name, seat.robot_level = "robot", f"robot-{level}", level
        self._changed()
        await self._maybe_start()

    async def do_start(self, client: Client) -> None:
        if self.state == "playing":
            return
        if any(s.kind == "empty" for s in self.seats):
            raise ProtocolError("invalid_field", "a game starts when all four seats are filled")
        await self._maybe_start()

    async def do_play_again(self, client: Client) -> None:
        seat = self.seat_of(client)
        if seat is None:
            raise ProtocolError("not_seated", "you do not sit at this table")
        if self.state != "over":
            raise ProtocolError("wrong_phase", "the game is not over")
        seat.again = True
        if all(s.again for s in self.seats if s.kind == "human" and s.client is not None):
            for s in self.seats:
                s.again = False
                if s.kind == "human" and s.client is None:
                    s.kind, s.name = "robot", f"{s.name} (robot)"
            await self._start_game()

    async def do_disconnect(self, client: Client) -> None:
        self.watchers.discard(client)
        seat = self.seat_of(client)
        if seat is None:
            self.on_change(self)
            return
        if self.state != "playing":
            seat.name, seat.kind, seat.client, seat.token_hash = None, "empty", None, None
            self._changed()
            return
        seat.client = None
        seat.away_since = self.clock()
        log.info("table %s seat %d: %s is away; the seat's robot plays until they rejoin",
                 self.id, seat.index, seat.name)
        self._changed()
        self._later(f"window-{seat.index}", self.settings.reconnect_seconds,
                    self.do_window_over, seat.index)
        await self._on_drop(seat)

    async def do_window_over(self, index: int) -> None:
        seat = self.seats[index]
        if seat.kind == "human" and seat.client is None and self.state == "playing":
            await self._on_window_over(seat)

    # -- what a room's policy decides (casual here; ranked rooms override) ------------------

    async def _check_sit(self, client: Client) -> None:
        """Raise if ``client`` may not sit here (ranked eligibility)."""

    async def _substitute(self, client: Client, wanted: int | None) -> tuple[int, str]:
        raise ProtocolError("table_full", "the game has started; watch it, or rejoin "
                                          "your own seat with its seat token")

    async def _on_drop(self, seat: Seat) -> None:
        """A casual seat's robot plays at once, while the player may come back."""
        self._after_change()

    async def _on_window_over(self, seat: Seat) -> None:
        await self._robot_keeps(seat)

    async def _on_leave(self, seat: Seat) -> None:
        """Leaving a casual game on purpose: a robot keeps the seat for the rest of it."""
        await self._robot_keeps(seat)
        self._after_change()

    async def _on_rejoin(self, seat: Seat) -> None:
        """Nothing more in a casual room: the seat is simply the player's again."""

    async def _robot_keeps(self, seat: Seat) -> None:
        seat.kind, seat.token_hash, seat.client = "robot", None, None
        seat.name = f"{seat.starter or seat.name} (robot)"
        await self._save_seats()
        self._changed()

    def _ends_after_hand(self) -> bool:
        """Whether the game stops when this hand is over (points rooms after a drop)."""
        return False

    async def _end_records(self, outcome: dict[str, Any],
                           record: dict[str, Any]) -> list[dict[str, Any]]:
        """Store the finished game; returns rating changes (none in a casual room)."""
        assert self.game_id is not None
        await self.store.finish_game(self.game_id, outcome, record)
        humans = [s.name for s in self.seats
                  if s.kind == "human" and s.client is not None and s.name]
        await self.store.count_casual_games(humans)
        return []

    async def do_rejoin(self, client: Client, token: str, last_seq: int,
                        request_id: Any) -> int:
        for seat in self.seats:
            if seat.kind == "human" and token_matches(token, seat.token_hash):
                break
        else:
            raise ProtocolError("not_authorized",
                                "that seat token does not match a seat waiting at this table "
                                "(the reconnect window may have passed)")
        if seat.client is not None and seat.client is not client:
            seat.client.send_text(json.dumps({
                "type": "error", "code": "not_authorized", "id": None,
                "message": "your seat was taken over by a newer connection"}))
        if seat.away_since is not None:
            log.info("table %s seat %d: %s rejoined", self.id, seat.index, seat.name)
        seat.client, seat.away_since = client, None
        self._prompted.pop(seat.index, None)  # this connection has seen no prompt yet
        timer = self._timers.pop(f"window-{seat.index}", None)
        if timer:
            timer.cancel()
        first = self.log[0][0] if self.log else self.seq + 1
        # A client that saw nothing (last_seq 0) gets a snapshot, not the whole log.
        if last_seq and last_seq >= first - 1 and last_seq <= self.seq:
            client.send_text(json.dumps({"type": "ok", "id": request_id}))
            for seq, to, text in self.log:
                if seq > last_seq and (to is None or to == seat.index):
                    client.send_text(text)
        else:
            client.send_text(self.snapshot(seat.index, request_id))
        self._changed()
        # After the reply: what the return changes (a vote closed, the game resumed)
        # reaches the client as events past its snapshot, and its turn is prompted once.
        await self._on_rejoin(seat)
        self._prompt(seat)
        return seat.index

    # -- the game ----------------------------------------------------------------------------------

    async def _maybe_start(self) -> None:
        if self.state == "waiting" and all(s.kind != "empty" for s in self.seats):
            await self._start_game()

    async def _start_game(self) -> None:
        seed = secrets.randbits(32)
        engine = ENGINES[self.room.game]
        game = engine(self.rules, seed)
        game_id = f"{self.id}-{secrets.token_hex(4)}"
        for seat in self.seats:
            seat.starter, seat.substitute = seat.name, False
        await self.store.create_game(game_id, self.id, self.room.name, self.room.game,
                                     json.loads(json.dumps(game.record()["rules"])), seed,
                                     game.first_dealer, [s.stored() for s in self.seats],
                                     self.seating)
        self.game, self.game_id, self.state = game, game_id, "playing"
        self._acted = [0, 0, 0, 0]
        await self._game_starting()
        self._robots()
        self._changed()
        self._emit({"type": "game_started", "game_id": game_id, "rules": game.record()["rules"]})
        self._emit_game_events(game.opening_events())
        METRICS.games_started.inc()
        self._after_change()

    async def _game_starting(self) -> None:
        """Before the first deal is sent (ranked rooms read everyone's ratings here)."""

    def _robots(self) -> None:
        """A robot for every seat: it plays robot seats, away seats and timed-out turns."""
        for seat in self.seats:
            try:
                seat.robot = make_robot(seat.robot_level, secrets.randbits(32))
            except KeyError:  # a level this build does not have: the simplest one plays
                seat.robot = make_robot("random", secrets.randbits(32))

    async def do_act(self, client: Client, wire_action: dict[str, Any]) -> None:
        seat = self.seat_of(client)
        if seat is None:
            raise ProtocolError("not_seated", "you do not sit at this table")
        if self.game is None or self.state != "playing":
            raise ProtocolError("wrong_phase", "no game is being played at this table")
        if self.paused:
            raise ProtocolError("wrong_phase", f"the game is paused: {self.paused}")
        try:
            action = action_from_wire(wire_action)
        except ActionParseError as exc:
            raise ProtocolError("invalid_field", f"action: {exc}") from None
        await self._apply(seat.index, action)

    async def _apply(self, index: int, action: Any) -> None:
        assert self.game is not None and self.game_id is not None
        started = time.perf_counter()
        try:
            events = self.game.apply(action, index)
        except IllegalAction as exc:
            raise ProtocolError(exc.code, str(exc)) from None
        seat, wire = self.game.actions[-1]
        self._acted[index] += 1
        await self.store.append_action(self.game_id, len(self.game.actions) - 1, seat,
                                       wire.to_wire())
        if self.game.phase == "game_over":
            # The game's end (and any rating changes) is stored before anyone hears of it,
            # and the game-over message carries the changes with how they were calculated.
            ratings = await self._finish()
            for e in events:
                wire_event = e.to_wire()
                if e.kind == "game_over":
                    wire_event["ratings"] = ratings
                self._emit(wire_event, e.to)
            self._game_finished()
        else:
            self._emit_game_events(events)
        METRICS.actions.inc()
        METRICS.action_seconds.observe(time.perf_counter() - started)
        self._after_change()

    def _after_change(self) -> None:
        """Whatever follows a change: the next deal, the end, prompts, robots and timers."""
        game = self.game
        if game is None or self.state != "playing" or self.paused:
            return
        if game.phase == "hand_over":
            if self._ends_after_hand():
                self.post(self.do_abandon)
            else:
                self._later("deal", self.settings.hand_pause, self.do_next_hand, self.seq)
            return
        for index in game.awaiting:
            seat = self.seats[index]
            if seat.robot_plays:
                self._later(f"robot-{index}", self.settings.robot_delay, self.do_robot_move,
                            index, self.seq)
            else:
                self._prompt(seat)
                self._later(f"turn-{index}", self.turn_seconds, self.do_robot_move,
                            index, self.seq)

    def _prompt(self, seat: Seat) -> None:
        """Send the seat its turn, once per turn (a rejoining connection gets it again).

        A turn ends when the seat acts (or its robot does). Other events on the way
        (a drop, a vote, another seat's pass) do not prompt again: a client that had
        already answered would answer twice, and its second answer would be refused.
        A pause is the exception: an answer sent during it was refused, so the turn
        is prompted again when the game goes on.
        """
        game = self.game
        if game is None or seat.client is None or seat.index not in game.awaiting:
            return
        turn = (self.game_id, self._acted[seat.index], self._pauses)
        if self._prompted.get(seat.index) == turn:
            return
        self._prompted[seat.index] = turn
        view = game.view(seat.index).to_wire()  # hand and legal actions come from the view
        prompt: dict[str, Any] = {
            "type": "prompt", "table": self.id, "seq": self.seq, "seat": seat.index,
            "phase": game.phase, "seconds": self.turn_seconds, "hand": view["hand"],
            "legal": view["legal"], "view": view,
        }
        if game.phase == "pass":
            prompt["pass_count"] = game.rules.pass_count
        seat.client.send_text(json.dumps(prompt))

    async def do_robot_move(self, index: int, seq: int) -> None:
        """A robot plays one action for a seat, if that seat is still to act at ``seq``."""
        game = self.game
        if game is None or self.state != "playing" or index not in game.awaiting:
            return
        if self.seq != seq and not self.seats[index].robot_plays:
            return  # a stale turn timer: the human has acted since
        seat = self.seats[index]
        assert seat.robot is not None
        view = game.view(index)
        if seat.robot_level == "search":
            # Search thinks for ~200 ms: off the event loop, so other tables keep moving.
            # The table's task waits for it, so its game cannot change meanwhile.
            action = await asyncio.to_thread(seat.robot.choose, view)
        else:
            action = seat.robot.choose(view)
        if isinstance(action, Pass) and action not in game.legal_actions(index):
            return
        await self._apply(index, action)

    async def do_next_hand(self, seq: int) -> None:
        if self.game is None or self.game.phase != "hand_over":
            return
        self._emit_game_events(self.game.next_hand())
        self._after_change()

    async def _finish(self) -> list[dict[str, Any]]:
        """Store the game's end (finished or abandoned); returns its rating changes."""
        assert self.game is not None
        return await self._end_records(self.game.result().to_wire(), self.game.record())

    def _game_finished(self) -> None:
        self.state = "over"
        self.paused = None
        for key in list(self._timers):
            self._timers.pop(key).cancel()
        METRICS.games_finished.inc()
        self._changed()

    async def do_abandon(self) -> None:
        """End the game now, on the score so far (a points room after a drop)."""
        game = self.game
        if game is None or self.state != "playing":
            return
        ratings = await self._finish()
        outcome = game.result()
        self._emit({"type": "game_over", "scores": list(outcome.scores), "winners": [],
                    "abandoned": True, "ratings": ratings})
        self._game_finished()

    async def do_chat(self, client: Client, text: str, ignores: dict[str, set[str]]) -> None:
        if self.seat_of(client) is None and client not in self.watchers:
            raise ProtocolError("not_seated", "sit at or watch a table to chat there")
        message = Shared(json.dumps({"type": "chat", "name": client.name, "text": text,
                                     "table": self.id}))
        for other in self.audience():
            if client.name not in ignores.get(other.name, set()):
                other.send_text(message)

    async def _save_seats(self) -> None:
        if self.game_id:
            await self.store.update_seats(self.game_id, [s.stored() for s in self.seats])

    # -- restart ---------------------------------------------------------------------------------

    def restore(self, game: TrickGame, game_id: str, seats: list[dict[str, Any]]) -> None:
        """Resume a stored game: seats wait for their players; robots play away seats."""
        self.game, self.game_id, self.state = game, game_id, "playing"
        self._acted = [sum(1 for s, _ in game.actions if s == i) for i in range(4)]
        now = self.clock()
        for stored in seats:
            seat = self.seats[stored["seat"]]
            seat.name, seat.kind = stored["name"], stored["kind"]
            seat.token_hash, seat.robot_level = stored.get("token_hash"), stored["robot_level"]
            seat.starter, seat.substitute = stored.get("starter"), stored.get("substitute", False)
            if seat.kind == "human":
                seat.away_since = now
        self._robots()
        # Past any seq issued before the restart. A table's seq runs on across its games and
        # counts unstored events (deals, drops, rejoins), so this game's actions alone are no
        # bound: a second game resumed below the first's seqs, and clients skipped its
        # prompts as already answered. The wall clock in microseconds outruns any table's
        # event rate. (In milliseconds it did not: a table whose four seats are away, robots
        # playing them with no delay, issues well over 1,000 events a second. Its seq ran
        # ahead of the clock, the next restart numbered below seqs already sent, and a seat
        # rejoining with such a last_seq was answered from the log past it, skipping
        # everything in between, or had its prompts skipped as already answered.)
        # Microseconds since 1970 stay below 2**53, exact in JavaScript.
        self.seq = max(10 * len(game.actions) + 1000, time.time_ns() // 1000)

    def resume(self) -> None:
        for seat in self.seats:
            if seat.kind == "human":
                self._later(f"window-{seat.index}", self.settings.reconnect_seconds,
                            self.do_window_over, seat.index)
        self.post(self._resume)

    async def _resume(self) -> None:
        game = self.game
        if game is not None and game.phase == "game_over":
            # The game's last action was stored, but the process died before the game's end
            # was: nobody awaits a turn, so without this the table stays "playing" for ever.
            # Store the end now and say so (that last action was never acknowledged: its
            # events and the game_over were to go out after the end was stored).
            ratings = await self._finish()
            outcome = game.result()
            self._emit({"type": "game_over", "scores": list(outcome.scores),
                        "winners": list(outcome.winners), "ratings": ratings})
            self._game_finished()
            return
        self._after_change()
