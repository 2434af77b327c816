"""A table machine on the test bench: commands in, effects out, no socket, clock or database.

``Bench`` does what the runner does, synchronously: it stores records (in a
list; or fails the next write on request), answers standings and robots, keeps
the timers the machine set (a test fires them by key) and decodes every message
into the inbox of the client it was sent to. Everything a test asserts reads
these: ``inbox``, ``stored``, ``timers``, ``notes``, ``lobby``.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from trickroom.game.robots import make_robot
from trickroom.ratings import Rating, Standing
from trickroom.server.config import Room, ServerSettings, load_config
from trickroom.server.protocol import ProtocolError, TableInfo
from trickroom.server.tables import effects as fx
from trickroom.server.tables.commands import (
    Act,
    CastVote,
    ClientId,
    Command,
    Disconnect,
    Open,
    Rejoin,
    RobotChose,
    Sit,
    StandingsLoaded,
    Stored,
    StoreFailed,
    Who,
)
from trickroom.server.tables.machine import TableMachine
from trickroom.server.tables.records import ActionTaken, Record

SETTINGS = load_config().settings
ROOMS = load_config().rooms
NOW = 1_800_000_000.0


@dataclass
class Bench:
    machine: TableMachine
    now: float = NOW
    robot_seed: int = 0
    standing: float = 1600.0
    inbox: dict[ClientId, list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))
    stored: list[Record] = field(default_factory=list)
    timers: dict[str, Command] = field(default_factory=dict)
    notes: list[fx.Note] = field(default_factory=list)
    lobby: list[TableInfo] = field(default_factory=list)
    closed: str | None = None
    effects: list[fx.Effect] = field(default_factory=list)  # every effect, in order
    fail_writes: int = 0  # the next N writes fail
    tokens: dict[ClientId, str] = field(default_factory=dict)
    handling: list[Command] = field(default_factory=list)  # the commands being carried out
    failed: list[Command] = field(default_factory=list)  # those whose write failed

    # -- driving the machine ----------------------------------------------------------------

    def do(self, command: Command) -> None:
        """Hand the machine one command and carry its effects out, as the runner does."""
        effects = self.machine.handle(command, self.now)
        self.handling.append(command)
        try:
            self.carry_out(effects)
        finally:
            self.handling.pop()

    def refused(self, command: Command) -> ProtocolError:
        """Send a command that must be refused; return the error."""
        try:
            self.do(command)
        except ProtocolError as exc:
            return exc
        raise AssertionError(f"{command} was not refused")

    def carry_out(self, effects: list[fx.Effect]) -> None:
        for effect in effects:
            self.effects.append(effect)
            if isinstance(effect, fx.Persist):
                assert len(effects) == 1, "a Persist comes alone: the rest waits for the store"
                if self.fail_writes:
                    self.fail_writes -= 1
                    self.failed.append(self.handling[-1])
                    self.do(StoreFailed(effect.ref, "the disk is full"))
                else:
                    self.stored.extend(effect.records)
                    self.do(Stored(effect.ref))
            elif isinstance(effect, fx.Send):
                for client in effect.to:
                    message = json.loads(effect.message.data)
                    self.inbox[client].append(message)
            elif isinstance(effect, fx.SetTimer):
                self.timers[effect.key] = effect.command
            elif isinstance(effect, fx.CancelTimer):
                self.timers.pop(effect.key, None)
            elif isinstance(effect, fx.AskRobot):
                robot = make_robot(effect.level, self.robot_seed)
                self.robot_seed += 1
                action = robot.choose(effect.view)
                self.do(RobotChose(effect.seat, effect.turn, action, effect.timeout))
            elif isinstance(effect, fx.LoadStandings):
                self.do(StandingsLoaded({p: Standing(Rating(self.standing))
                                         for p in effect.players}))
            elif isinstance(effect, fx.Changed):
                self.lobby.append(effect.info)
            elif isinstance(effect, fx.Closed):
                self.closed = effect.reason
                self.lobby.append(effect.info)
            elif isinstance(effect, fx.Note):
                self.notes.append(effect)

    def fire(self, key: str) -> None:
        """The timer ``key`` goes off."""
        self.do(self.timers.pop(key))

    def run_timers(self, limit: int = 100_000, keys: tuple[str, ...] = ("robot-", "deal")) -> int:
        """Fire robot and deal timers until none is left (robots play on); returns how many."""
        for fired in range(limit):
            key = next((k for k in self.timers if k.startswith(keys)), None)
            if key is None:
                return fired
            self.fire(key)
        return limit

    # -- players ------------------------------------------------------------------------------

    @staticmethod
    def who(client: ClientId, name: str | None = None, guest: bool = False) -> Who:
        return Who(client, name or f"p{client}", guest)

    def sit(self, client: ClientId, seat: int | None = None, **kw: Any) -> None:
        self.do(Sit(self.who(client, kw.pop("name", None)), client * 100, seat, **kw))
        seated = [m for m in self.inbox[client] if m["type"] == "seated"]
        self.tokens[client] = seated[-1]["seat_token"]

    def seat_four(self) -> None:
        """Clients 1..4 sit at seats 0..3."""
        for seat in range(4):
            self.sit(seat + 1, seat)

    def act(self, client: ClientId, action: dict[str, Any]) -> None:
        self.do(Act(self.who(client), None, action))

    def prompts(self, client: ClientId) -> list[dict[str, Any]]:
        return [m for m in self.inbox[client] if m["type"] == "prompt"]

    def events(self, client: ClientId, kind: str | None = None) -> list[dict[str, Any]]:
        return [m["event"] for m in self.inbox[client]
                if m["type"] == "event" and (kind is None or m["event"]["type"] == kind)]

    def answer(self, client: ClientId, rng: random.Random | None = None) -> bool:
        """Answer the client's newest prompt if it is still its turn; whether it acted."""
        game = self.machine.state.game
        seat = self.machine.seat_of(client)
        if (game is None or seat is None or seat.index not in game.awaiting
                or self.machine.state.paused):
            return False
        prompt = self.prompts(client)[-1]
        rng = rng or random.Random(0)
        if prompt["phase"] == "pass":
            action = {"type": "pass", "cards": rng.sample(prompt["hand"], prompt["pass_count"])}
        else:
            action = rng.choice(prompt["legal"])
        self.act(client, action)
        return True

    def drop(self, client: ClientId) -> None:
        self.do(Disconnect(client))

    def rejoin(self, client: ClientId, new_client: ClientId | None = None,
               last_seq: int = 0) -> None:
        new = new_client or client
        self.do(Rejoin(self.who(new, f"p{client}"), None, self.tokens[client], last_seq))

    def vote(self, client: ClientId, choice: str) -> None:
        vote = self.machine.state.vote
        assert vote is not None
        self.do(CastVote(self.who(client), None, vote.id, choice))

    def stored_actions(self) -> list[ActionTaken]:
        return [r for r in self.stored if isinstance(r, ActionTaken)]


def bench(room: str = "spades", rules: dict[str, Any] | None = None, seating: str = "fixed_seating",
          seed: int = 1, **settings: Any) -> Bench:
    """A new table in ``room`` (a room of the default room file), opened."""
    base = ROOMS[room]
    made = base.make_rules(rules or {})
    fast = {"robot_delay": 0.0, "hand_pause": 0.0, **settings}
    config = ServerSettings(**{**SETTINGS.__dict__, **fast})
    machine = TableMachine("t1", base, config, made, seating, random.Random(seed))
    table = Bench(machine)
    table.do(Open())
    return table


def custom_room(game: str = "spades", rated: bool = False, system: str | None = None) -> Room:
    return Room("custom", game, rated, system)

