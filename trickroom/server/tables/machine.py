"""The table machine: one table's rules of the room, with no I/O.

``TableMachine.handle(command, now)`` takes one command (a request, a timer,
a robot's answer, the store's answer) and returns the effects to carry out.
It never touches a socket, a clock or a database: ``now`` is the wall time the
runner read, its randomness comes from the ``rng`` it was given, and what it
must store, send or schedule comes back as effects. So a drop, a vote or a
timer is tested by feeding commands and reading effects, in microseconds.

A command is all or nothing. The machine notes where it stood before each one
(:class:`_Mark`); a refused command (a ``ProtocolError``) is undone from that
note, so it changes nothing. A command that must store records returns one
:class:`~server.tables.effects.Persist` and holds everything else it caused;
``Stored`` releases it, ``StoreFailed`` undoes the command (the game is
rebuilt from its record without the unstored actions) and tells the player.

How a game goes, in the order the machine runs it::

    waiting --(four seats filled)--> [ranked: LoadStandings] --> playing
    playing --(an action)--> ActionTaken stored --> events, reply, next prompts
    playing --(hand over)--> NextHand timer --> deal --> prompts / robot timers
    playing --(game over, or a points drop at hand's end)--> GameEnded (+Rated) --> over
    over --(every player gone, or idle)--> closed    waiting --(idle, nobody sat)--> closed

What a room does on a drop, a return or a quit is its policy's table
(:mod:`server.tables.policies`); each step is one function of
:mod:`server.tables.drops`, which also holds the votes.
"""

from __future__ import annotations

import base64
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from trickroom.game.actions import Action, ActionParseError, IllegalAction, Pass, action_from_wire
from trickroom.game.engine import ENGINES, Engine
from trickroom.game.events import Event
from trickroom.game.outcome import Outcome
from trickroom.ratings import Departure, Rating, RatingError, Standing
from trickroom.server.auth import token_hash, token_matches
from trickroom.server.config import Room, ServerSettings
from trickroom.server.protocol import (
    WHY_LENGTH,
    Error,
    GameOver,
    GameStarted,
    Ok,
    Prompt,
    ProtocolError,
    Seated,
    SeatInfo,
    ServerMessage,
    Snapshot,
    Substituted,
    TableChanged,
    TableClosed,
    TableInfo,
    TakenOver,
)
from trickroom.server.protocol import ChatMessage as ChatOut
from trickroom.server.tables import drops
from trickroom.server.tables.commands import (
    Act,
    CastVote,
    Chat,
    ClientId,
    Command,
    Disconnect,
    Fill,
    IdleOver,
    NextHand,
    Open,
    PlayAgain,
    Rejoin,
    Request,
    RequestId,
    Resume,
    Retry,
    RobotChose,
    RobotTurn,
    Sit,
    SitReserved,
    Stand,
    StandingsLoaded,
    Start,
    Stored,
    StoreFailed,
    TimerCommand,
    Turn,
    TurnOver,
    Unwatch,
    VoteOver,
    Watch,
    Who,
    WindowOver,
)
from trickroom.server.tables.effects import (
    AskRobot,
    CancelTimer,
    Changed,
    Closed,
    Effect,
    LoadStandings,
    Note,
    Persist,
    Send,
    SetTimer,
)
from trickroom.server.tables.log import EventLog, Shared
from trickroom.server.tables.policies import DropPolicy, Trigger, policy_for
from trickroom.server.tables.rating import RankedState, game_result
from trickroom.server.tables.records import (
    ActionTaken,
    GameCreated,
    GameEnded,
    Rated,
    Record,
    SeatsChanged,
)
from trickroom.server.tables.seats import Seat, Vote, robot_name

HOUR = 3600.0
STORE_RETRY_SECONDS = 1.0


class Phase(StrEnum):
    WAITING = "waiting"  # seats filling; no game yet
    PLAYING = "playing"
    OVER = "over"  # the game is over; the seats may play again
    CLOSED = "closed"  # gone from the lobby; every command is refused


@dataclass(slots=True)
class _Mark:
    """Where the table stood before a command: enough to undo it."""

    seats: list[Seat]
    watchers: dict[ClientId, str]
    phase: Phase
    game: Engine | None
    game_id: str | None
    actions: int
    hand_no: int
    seq: int
    paused: str | None
    pauses: int
    vote: Vote | None
    ranked: RankedState
    prompted: dict[int, Turn]
    timers: dict[str, Command]
    acted: list[int]
    games: int
    resuming: bool
    chances: list[float] | None


@dataclass(slots=True)
class _Pending:
    """A command waiting for the store: what it will send, and how to undo it."""

    mark: _Mark
    effects: list[Effect]
    requester: tuple[ClientId, RequestId] | None


class TableMachine:
    """One table: four seats, watchers, a game, its log, its timers, its room's policy."""

    def __init__(self, table_id: str, room: Room, settings: ServerSettings, rules: Any,
                 seating: str, rng: random.Random, seq: int = 0,
                 creator: str | None = None) -> None:
        self.id = table_id
        self.creator = creator  # who opened the table: may fill and start it unseated
        self.room = room
        self.settings = settings
        self.rules = rules
        self.seating = seating
        self.rng = rng
        self.policy: DropPolicy = policy_for(room.rated, room.system)
        self.system = room.system or "zone"
        self.rating_system = room.rating_system()  # with the constants the room adopted
        self.turn_seconds = room.turn_seconds or settings.turn_seconds
        self.seats = [Seat(i) for i in range(4)]
        self.watchers: dict[ClientId, str] = {}
        self.phase = Phase.WAITING
        self.game: Engine | None = None
        self.game_id: str | None = None
        self.log = EventLog(table_id, settings.event_log_size, seq)
        self.paused: str | None = None  # why the game waits (a vote, a drop), or None
        self.pauses = 0  # pauses ended: a turn refused during one is prompted again
        self.vote: Vote | None = None
        self.ranked = RankedState()
        self.prompted: dict[int, Turn] = {}  # seat -> the turn it was last prompted for
        self.timers: dict[str, Command] = {}  # what the runner has scheduled, by key
        self.acted = [0, 0, 0, 0]  # each seat's actions in this game
        self.whys: dict[int, str] = {}  # a robot's reason for a bid, by action index
        self.games = 0  # games started at this table
        self.resuming = False  # a restored game waits for its standings before going on
        self.chances: list[float] | None = None  # ranked: the sides' chances at the start
        self._out: list[Effect] = []
        self._writes: list[Record] = []
        self._pending: dict[int, _Pending] = {}
        self._refs = 0
        self.now = 0.0

    # -- the one way in --------------------------------------------------------------------

    def handle(self, command: Command, now: float) -> list[Effect]:
        """Run one command; return its effects (or raise ``ProtocolError``, changing nothing)."""
        if isinstance(command, Stored):
            return self._stored(command.ref)
        if isinstance(command, StoreFailed):
            return self._store_failed(command.ref, command.reason)
        if self._pending:
            raise RuntimeError("a command arrived while another waits for the store")
        if self.phase is Phase.CLOSED:
            if isinstance(command, Request):
                raise ProtocolError("no_such_table", f"table {self.id!r} is closed",
                                    command.rid)
            return []
        if isinstance(command, TimerCommand) and self.timers.get(command.key) == command:
            del self.timers[command.key]  # it fired: the runner holds it no more
        self.now = now
        mark = self._mark(command.seats_kept)
        self._out, self._writes = [], []
        try:
            HANDLERS[type(command)](self, command)
        except BaseException:
            self._restore(mark)
            self._out, self._writes = [], []
            raise
        out, writes = self._out, self._writes
        self._out, self._writes = [], []
        if not writes:
            return out
        self._refs += 1
        requester = (command.who.client, command.rid) if isinstance(command, Request) else None
        self._pending[self._refs] = _Pending(mark, out, requester)
        return [Persist(tuple(writes), self._refs)]

    def _stored(self, ref: int) -> list[Effect]:
        pending = self._pending.pop(ref)
        return pending.effects

    def _store_failed(self, ref: int, reason: str) -> list[Effect]:
        pending = self._pending.pop(ref)
        self._restore(pending.mark)
        effects: list[Effect] = [Note("store_failed", f"a write failed and was undone: {reason}")]
        if pending.requester is not None:
            client, rid = pending.requester
            error = Error(id=rid, code="internal",
                          message="the server could not store that and changed nothing; "
                                  "send it again")
            effects.append(Send((client,), Shared(error.encode())))
        else:  # a timer's or a robot's work: try again shortly
            self.timers["retry"] = Retry()
            effects.append(SetTimer("retry", STORE_RETRY_SECONDS, Retry()))
        return effects

    def _mark(self, seats_kept: bool = False) -> _Mark:
        """Note the table before a command. A move keeps seats, watchers and the ranked
        record as they are (``Command.seats_kept``): those are noted as they stand, and the
        action's hot path copies only what a move changes."""
        game = self.game
        if seats_kept:
            seats, watchers, ranked = self.seats, self.watchers, self.ranked
        else:
            seats, watchers = [s.copy() for s in self.seats], dict(self.watchers)
            ranked = self.ranked.copy()
        return _Mark(seats, watchers, self.phase, game, self.game_id,
                     len(game.actions) if game else 0, game.hand_no if game else 0,
                     self.log.seq, self.paused, self.pauses, self.vote, ranked,
                     dict(self.prompted), dict(self.timers), list(self.acted), self.games,
                     self.resuming, self.chances)

    def _restore(self, mark: _Mark) -> None:
        game = mark.game
        if game is not None and (len(game.actions) != mark.actions
                                 or game.hand_no != mark.hand_no):
            record = game.record()
            game = ENGINES[game.kind].replay({**record,
                                              "actions": record["actions"][:mark.actions]})
            # A replay stops at the end of the hand its last action finished; the table may
            # have dealt the next one since (next_hand is no action): deal it again.
            while game.hand_no < mark.hand_no and game.phase == "hand_over":
                game.next_hand()
        (self.seats, self.watchers, self.phase, self.game, self.game_id, self.paused,
         self.pauses, self.vote, self.ranked, self.prompted, self.timers, self.acted,
         self.games, self.resuming, self.chances) = (
            mark.seats, mark.watchers, mark.phase, game, mark.game_id, mark.paused,
            mark.pauses, mark.vote, mark.ranked, mark.prompted, mark.timers, mark.acted,
            mark.games, mark.resuming, mark.chances)
        self.log.truncate(mark.seq)

    # -- what a command produces -------------------------------------------------------------

    def send(self, to: tuple[ClientId, ...], message: Shared) -> None:
        if to:
            self._out.append(Send(to, message))

    def reply(self, who: Who, message: ServerMessage) -> None:
        self._out.append(Send((who.client,), Shared(message.encode())))

    def publish(self, event: dict[str, Any] | ServerMessage, to: int | None = None,
                turn: dict[str, Any] | None = None) -> None:
        """Number, log and send one table event to whoever may see it (a game event with
        its ``turn``)."""
        if isinstance(event, ServerMessage):
            event = event.model_dump()
        entry = self.log.publish(event, to, turn)
        if to is None:
            self.send(self.audience(), entry.message)
        else:
            client = self.seats[to].client
            if client is not None:
                self.send((client,), entry.message)
            others = tuple(c for c in self.audience() if c != client)
            if others and entry.skip is not None:
                self.send(others, entry.skip)

    def publish_game(self, events: list[Event], why: str = "") -> None:
        """Publish one action's (or deal's) game events, each with the turn they lead to
        (a bid with the robot's ``why``)."""
        turn = self.turn_info()
        for event in events:
            wire = event.to_wire()
            if why and wire["type"] == "bid":
                wire["why"] = why
            self.publish(wire, event.to, turn)

    def turn_info(self) -> dict[str, Any] | None:
        """Whose turn it is now, as game events carry it: the game's phase, the seat it
        waits on (the view's ``to_act``) and every seat it waits on (``awaiting``)."""
        game = self.game
        if game is None:
            return None
        return {"phase": game.phase, "to_act": game.to_act, "awaiting": list(game.awaiting)}

    def write(self, record: Record) -> None:
        self._writes.append(record)

    def note(self, event: str, text: str, seat: Seat | None = None) -> None:
        self._out.append(Note(event, text, seat.index if seat else None,
                              seat.account if seat else None))

    def set_timer(self, key: str, delay: float, command: Command) -> None:
        """Schedule ``command``; a timer already set to the same command runs on unchanged
        (a turn's clock does not restart when another seat acts)."""
        if self.timers.get(key) == command:
            return
        self.timers[key] = command
        self._out.append(SetTimer(key, max(0.0, delay), command))

    def cancel(self, *keys: str) -> None:
        for key in keys:
            if self.timers.pop(key, None) is not None:
                self._out.append(CancelTimer(key))

    def cancel_all(self, prefixes: tuple[str, ...] = ("",)) -> None:
        self.cancel(*[k for k in self.timers if k.startswith(prefixes)])

    def changed(self) -> None:
        """A seat changed: tell the table (a ``table`` event) and the lobby."""
        info = self.info()
        self.publish(TableChanged(info=info))
        self._out.append(Changed(info))

    # -- what clients see ---------------------------------------------------------------------

    def audience(self) -> tuple[ClientId, ...]:
        """Every connection at the table: seated players, then watchers."""
        seated = [s.client for s in self.seats if s.client is not None]
        return (*seated, *(c for c in self.watchers if c not in seated))

    def seat_of(self, client: ClientId) -> Seat | None:
        for seat in self.seats:
            if seat.client == client:
                return seat
        return None

    def info(self) -> TableInfo:
        return TableInfo(
            id=self.id, room=self.room.name, game=self.room.game,
            state=self.phase.value,
            seating=self.seating,
            seats=[SeatInfo(seat=s.index, name=s.name, kind=s.kind, away=s.away,
                            robot_level=s.robot_level if s.robot_plays else None)
                   for s in self.seats],
            watchers=len(self.watchers), game_id=self.game_id,
            chances=self.chances if self.phase in (Phase.PLAYING, Phase.OVER) else None)

    def snapshot(self, seat: int | None, rid: RequestId = None) -> Snapshot:
        view = self.game.view(seat).to_wire() if self.game else None
        return Snapshot.of(rid, self.id, self.log.seq, self.info(), view, self.paused,
                           self.vote_info())

    def vote_info(self) -> dict[str, Any] | None:
        vote = self.vote
        if vote is None:
            return None
        return {**drops.vote_started(self, vote).model_dump(),
                "cast": {str(s): c for s, c in vote.choices}}

    # -- seats ----------------------------------------------------------------------------------

    def _token(self) -> str:
        return base64.urlsafe_b64encode(self.rng.getrandbits(192).to_bytes(24, "big")).decode()

    def _take(self, seat: Seat, who: Who) -> str:
        """``who`` takes ``seat``; returns the seat token (only its hash is kept)."""
        token = self._token()
        seat.name, seat.account, seat.kind, seat.guest = who.name, who.name, "human", who.guest
        seat.client, seat.token_hash, seat.again = who.client, token_hash(token), False
        self.watchers.pop(who.client, None)
        return token

    def _already_seated(self, who: Who) -> None:
        """One account holds at most one seat at a table, in every room."""
        held = self.seat_of(who.client)
        if held is not None:
            raise ProtocolError("seat_taken", f"you already sit at seat {held.index} of "
                                              "this table")
        for seat in self.seats:
            if seat.kind == "human" and seat.account == who.name:
                raise ProtocolError(
                    "seat_taken", f"{who.name} already sits at seat {seat.index} of this "
                    "table (from another connection): send rejoin with that seat's token to "
                    "play it from here")

    def _on_sit(self, cmd: Sit) -> None:
        self._already_seated(cmd.who)
        if self.phase is Phase.PLAYING:
            self._substitute(cmd)
            return
        if self.phase is not Phase.WAITING:
            raise ProtocolError("table_full", "the game has started; watch it, or rejoin "
                                              "your own seat with its seat token")
        if self.room.rated and cmd.refusal:
            raise ProtocolError("not_eligible", cmd.refusal)
        free = [s for s in self.seats if s.kind == "empty"]
        if not free:
            raise ProtocolError("table_full", "every seat at this table is taken")
        if self.seating == "random_seating":
            seat = self.rng.choice(free)  # seats are drawn, whatever was asked
        elif cmd.seat is None:
            seat = free[0]
        else:
            seat = self.seats[cmd.seat]
            if seat.kind != "empty":
                raise ProtocolError("seat_taken", f"seat {cmd.seat} is taken by {seat.name}")
        token = self._take(seat, cmd.who)
        self.changed()
        self.cancel("idle")
        self._maybe_start()
        self.reply(cmd.who, Seated(id=cmd.rid, table=self.id, seat=seat.index,
                                    seat_token=token))

    def _on_sit_reserved(self, cmd: SitReserved) -> None:
        """The random queue: the seat was drawn for this player; the game starts at four."""
        seat = self.seats[cmd.seat]
        if seat.kind != "empty" or self.phase is not Phase.WAITING:
            raise ProtocolError("seat_taken", f"seat {cmd.seat} is taken")
        token = self._take(seat, cmd.who)
        self.changed()
        self.cancel("idle")
        self.reply(cmd.who, Seated(id=cmd.rid, table=self.id, seat=seat.index,
                                    seat_token=token))
        self._maybe_start()

    def _substitute(self, cmd: Sit) -> None:
        """A human takes a quitter's open seat, unrated (rooms whose policy allows it)."""
        open_seats = self.ranked.open_seats
        if not self.policy.substitutes or not open_seats:
            raise ProtocolError("table_full", "the game has started; watch it, or rejoin "
                                              "your own seat with its seat token")
        index = cmd.seat if cmd.seat is not None else min(open_seats)
        if index not in open_seats:
            raise ProtocolError("seat_taken", f"seat {index} is not open to a substitute")
        if cmd.who.name in {s.starter for s in self.seats}:
            raise ProtocolError("not_eligible", "a player who left this game may not come back "
                                                "as a substitute")
        seat = self.seats[index]
        token = self._take(seat, cmd.who)
        seat.substitute = True
        open_seats.discard(index)
        self.save_seats()
        # The substitute sees the table from here (a snapshot), then what follows it.
        self._out.append(Send((cmd.who.client,), Shared(self.snapshot(index).encode())))
        self.publish(Substituted(seat=index, name=cmd.who.name))
        self.changed()
        self.advance()
        self.reply(cmd.who, Seated(id=cmd.rid, table=self.id, seat=index, seat_token=token))

    def _on_stand(self, cmd: Stand) -> None:
        seat = self.seated(cmd.who)
        if self.phase is Phase.PLAYING:
            self.note("left", f"{seat.name} left the game", seat)
            drops.run(self, Trigger.LEAVE, seat)
            self.advance()
        else:
            seat.clear()
            self.changed()
            self._tidy()
        self.reply(cmd.who, Ok(id=cmd.rid))

    def _on_watch(self, cmd: Watch) -> None:
        self.watchers[cmd.who.client] = cmd.who.name
        self.reply(cmd.who, self.snapshot(None, cmd.rid))
        self._out.append(Changed(self.info()))

    def _on_unwatch(self, cmd: Unwatch) -> None:
        self.watchers.pop(cmd.who.client, None)
        self.reply(cmd.who, Ok(id=cmd.rid))
        self._out.append(Changed(self.info()))
        self._tidy()

    def _may_run(self, who: Who, what: str) -> None:
        """Only the table's players, or the player who opened it, fill or start it."""
        if self.seat_of(who.client) is None and who.name != self.creator:
            raise ProtocolError("not_seated", f"only this table's players or the player who "
                                              f"opened it may {what} it")

    def _on_fill(self, cmd: Fill) -> None:
        if self.room.rated:
            raise ProtocolError("not_authorized", "robots may not sit at a ranked table")
        self._may_run(cmd.who, "fill")
        if self.phase is not Phase.WAITING:
            raise ProtocolError("table_full", "the game has started")
        for seat in self.seats:
            if seat.kind == "empty":
                seat.kind, seat.robot_level = "robot", cmd.level
                seat.name = robot_name(seat.index, cmd.level)
        self.changed()
        self.cancel("idle")
        self._maybe_start()
        self.reply(cmd.who, Ok(id=cmd.rid))

    def _on_start(self, cmd: Start) -> None:
        self._may_run(cmd.who, "start")
        if self.phase is Phase.WAITING:
            if any(s.kind == "empty" for s in self.seats):
                raise ProtocolError("wrong_phase",
                                    "a game starts when all four seats are filled")
            self._maybe_start()
        self.reply(cmd.who, Ok(id=cmd.rid))

    def _on_play_again(self, cmd: PlayAgain) -> None:
        seat = self.seated(cmd.who)
        if self.phase is not Phase.OVER:
            raise ProtocolError("wrong_phase", "the game is not over")
        if self.room.rated and any(s.kind != "human" for s in self.seats):
            raise ProtocolError("wrong_phase", "a ranked game starts with four players; "
                                               "a seat is empty")
        seat.again = True
        if all(s.again for s in self.seats if s.connected):
            for s in self.seats:
                s.again = False
                if s.away:  # gone since the game: a robot plays the seat
                    s.kind, s.name, s.account, s.token_hash = (
                        "robot", f"{s.name} (robot)", None, None)
                elif s.kind == "empty":
                    s.kind, s.name = "robot", robot_name(s.index, s.robot_level)
            self.cancel("idle")
            self.phase = Phase.WAITING
            self._maybe_start()
        self.reply(cmd.who, Ok(id=cmd.rid))

    def _on_disconnect(self, cmd: Disconnect) -> None:
        if self.watchers.pop(cmd.client, None) is not None:
            self._out.append(Changed(self.info()))
        seat = self.seat_of(cmd.client)
        if seat is None:
            self._tidy()
            return
        if self.phase is not Phase.PLAYING:
            seat.clear()
            self.changed()
            self._tidy()
            return
        seat.client = None
        self.note("away", f"{seat.name} is away; the seat's robot plays until they rejoin",
                   seat)
        self.changed()
        self.cancel(f"turn-{seat.index}")
        self.set_timer(f"window-{seat.index}", self.settings.reconnect_seconds,
                        WindowOver(seat.index))
        drops.run(self, Trigger.DROP, seat)
        self.advance()

    def _on_rejoin(self, cmd: Rejoin) -> None:
        for seat in self.seats:
            if seat.kind == "human" and token_matches(cmd.token, seat.token_hash):
                break
        else:
            raise ProtocolError("not_authorized",
                                "that seat token does not match a seat waiting at this table "
                                "(the reconnect window may have passed)")
        if seat.account != cmd.who.name:
            # A token is the seat holder's: a copy in anyone else's hands is worth nothing.
            raise ProtocolError("not_authorized", f"seat {seat.index}'s token belongs to "
                                                  "another player; log in as them to rejoin")
        held = self.seat_of(cmd.who.client)
        if held is not None and held is not seat:
            raise ProtocolError("seat_taken", f"this connection already sits at seat "
                                              f"{held.index} of this table")
        if seat.client is not None and seat.client != cmd.who.client:
            self.send((seat.client,), Shared(TakenOver(
                table=self.id, seat=seat.index,
                message=f"{seat.account} rejoined seat {seat.index} from another connection; "
                        "this one no longer plays it").encode()))
            self.watchers[seat.client] = seat.account or ""  # it may still watch
        was_away = seat.client is None
        if was_away:
            self.note("rejoined", f"{seat.name} rejoined", seat)
        # The seat's own connection asking again (to catch up) changes nothing a table
        # or the lobby shows: told to everyone, its every rejoin was a write to each of them.
        moved = seat.client != cmd.who.client or cmd.who.client in self.watchers
        seat.client = cmd.who.client
        self.watchers.pop(cmd.who.client, None)
        self.prompted.pop(seat.index, None)  # this connection has seen no prompt yet
        self.cancel(f"window-{seat.index}", f"robot-{seat.index}")
        # A client that saw nothing (last_seq 0) gets a snapshot, not the whole log.
        missed = self.log.since(cmd.last_seq, seat.index) if cmd.last_seq else None
        if missed is None:
            self.reply(cmd.who, self.snapshot(seat.index, cmd.rid))
        else:
            self.reply(cmd.who, Ok(id=cmd.rid))
            for message in missed:
                self.send((cmd.who.client,), message)
        if moved:
            self.changed()
        # After the reply: what the return changes (a vote closed, the game going on)
        # reaches the client as events past its snapshot, and its turn is prompted once.
        if was_away and self.phase is Phase.PLAYING:
            drops.run(self, Trigger.REJOIN, seat)
        self.advance()

    def _on_chat(self, cmd: Chat) -> None:
        if self.seat_of(cmd.who.client) is None and cmd.who.client not in self.watchers:
            raise ProtocolError("not_seated", "sit at or watch a table to chat there")
        names = {s.client: s.account for s in self.seats if s.client is not None}
        names.update(self.watchers)
        to = tuple(c for c in self.audience() if names.get(c) not in cmd.ignored_by)
        message = ChatOut(name=cmd.who.name, text=cmd.text, table=self.id)
        self.send(to, Shared(message.encode()))
        self.reply(cmd.who, Ok(id=cmd.rid))

    def seated(self, who: Who) -> Seat:
        seat = self.seat_of(who.client)
        if seat is None:
            raise ProtocolError("not_seated", "you do not sit at this table")
        return seat

    def save_seats(self) -> None:
        if self.game_id is not None and self.phase is Phase.PLAYING:
            self.write(SeatsChanged(self.game_id, tuple(s.stored() for s in self.seats)))

    # -- the table's life -------------------------------------------------------------------

    def _on_open(self, cmd: Open) -> None:
        self._out.append(Changed(self.info()))
        self._tidy()

    def _tidy(self) -> None:
        """Close a finished table nobody plays at; start the idle clock of an empty one.

        A player who dropped during the game still holds a seat until their reconnect
        window ends, so a connection that blinked at the last trick comes back to the
        result; a table of robots only closes as its game ends.
        """
        if self.phase is Phase.OVER and not any(s.kind == "human" for s in self.seats):
            self._close("the game is over and every player has left")
        elif self.phase is Phase.WAITING and all(s.kind != "human" for s in self.seats):
            self.set_timer("idle", self.settings.table_idle_seconds, IdleOver())

    def _on_idle(self, cmd: IdleOver) -> None:
        if self.phase is Phase.OVER:
            self._close("the game is over and the table stayed idle")
        elif self.phase is Phase.WAITING and all(s.kind != "human" for s in self.seats):
            self._close("nobody sat at the table")

    def _close(self, reason: str) -> None:
        self.publish(TableClosed(reason=reason))
        self.cancel_all()
        self.phase = Phase.CLOSED
        self.note("closed", reason)
        self._out.append(Closed(self.info(), reason, self.audience()))

    # -- the game ---------------------------------------------------------------------------------

    def _maybe_start(self) -> None:
        if self.phase is not Phase.WAITING or any(s.kind == "empty" for s in self.seats):
            return
        if self.room.rated:
            players = tuple(s.account or "" for s in self.seats)
            self._out.append(LoadStandings(players, self.room.game, self.system))
        else:
            self._start_game({})

    def _on_standings(self, cmd: StandingsLoaded) -> None:
        if self.phase is Phase.WAITING:
            if all(s.kind != "empty" for s in self.seats):
                self._start_game(dict(cmd.standings))
        elif self.phase is Phase.PLAYING and self.resuming:
            self.ranked.standings = dict(cmd.standings)
            self.chances = self._chances()
            self._out.append(Changed(self.info()))
            self._resumed()

    def _start_game(self, standings: dict[str, Standing]) -> None:
        seed = self.rng.getrandbits(32)
        game = ENGINES[self.room.game](self.rules, seed)
        game_id = f"{self.id}-{self.rng.getrandbits(32):08x}"
        for seat in self.seats:
            seat.starter, seat.substitute, seat.again = seat.name, False, False
        self.write(GameCreated(game_id, self.id, self.room.name, self.room.game,
                                game.record()["rules"], seed, game.first_dealer,
                                tuple(s.stored() for s in self.seats), self.seating))
        self.game, self.game_id, self.phase = game, game_id, Phase.PLAYING
        self.games += 1
        self.acted = [0, 0, 0, 0]
        self.whys = {}
        self.prompted.clear()
        self.paused, self.vote = None, None
        self.ranked = RankedState(standings=standings)
        self.chances = self._chances() if self.room.rated else None
        self.changed()
        self.publish(GameStarted(game_id=game_id, rules=game.record()["rules"],
                                 system=self.system if self.room.rated else None,
                                 chances=self.chances))
        self.publish_game(game.opening_events())
        self.advance()

    def _on_act(self, cmd: Act) -> None:
        seat = self.seated(cmd.who)
        if self.game is None or self.phase is not Phase.PLAYING:
            raise ProtocolError("wrong_phase", "no game is being played at this table")
        if self.paused:
            raise ProtocolError("wrong_phase", f"the game is paused: {self.paused}")
        try:
            action = action_from_wire(dict(cmd.action))
        except ActionParseError as exc:
            raise ProtocolError("invalid_field", f"action: {exc}") from None
        self._apply(seat.index, action)
        self.reply(cmd.who, Ok(id=cmd.rid))

    def _apply(self, index: int, action: Action, why: str = "") -> None:
        """Apply one action: it is stored with everything it causes, or refused.

        ``why``: a robot's reason for a bid, told with the bid and kept in the record.
        """
        game, game_id = self.game, self.game_id
        assert game is not None and game_id is not None
        try:
            events = game.apply(action, index)
        except IllegalAction as exc:
            raise ProtocolError(exc.code, str(exc)) from None
        seat, done = game.actions[-1]
        self.acted[index] += 1
        wire = done.to_wire()
        idx = len(game.actions) - 1
        why = why if wire["type"] == "bid" else ""
        if why:
            wire["why"] = self.whys[idx] = why
        else:
            self.whys.pop(idx, None)
        self.write(ActionTaken(game_id, idx, seat, wire))
        if game.phase == "game_over":
            self._end_game(events)
        else:
            self.publish_game(events, why)
            self.advance()

    def _turn(self, index: int) -> Turn:
        return (self.games, self.acted[index], self.pauses)

    def advance(self) -> None:
        """What follows a change: the next deal, the end, prompts, robots and turn clocks."""
        game = self.game
        if game is None or self.phase is not Phase.PLAYING or self.paused or self.resuming:
            return
        if game.phase == "hand_over":
            if self.ranked.end_after is not None:
                self._end_game(abandoned=True)
            else:
                self.set_timer("deal", self.settings.hand_pause, NextHand(game.hand_no))
            return
        for index in game.awaiting:
            seat = self.seats[index]
            turn = self._turn(index)
            if seat.robot_plays:
                self.set_timer(f"robot-{index}", self.settings.robot_delay,
                                RobotTurn(index, turn))
            else:
                self._prompt(seat, turn)
                self.set_timer(f"turn-{index}", self.turn_seconds, TurnOver(index, turn))

    def _prompt(self, seat: Seat, turn: Turn) -> None:
        """Send the seat its turn, once per turn (a rejoining connection gets it again).

        A turn ends when the seat acts (or its robot does). Other events on the way
        (a drop, a vote, another seat's pass) do not prompt again: a client that had
        already answered would answer twice, and its second answer would be refused.
        A pause is the exception: an answer sent during it was refused, so the turn
        is prompted again when the game goes on (the turn's key counts pauses).
        """
        game = self.game
        if game is None or seat.client is None or self.prompted.get(seat.index) == turn:
            return
        self.prompted[seat.index] = turn
        view = game.view(seat.index).to_wire()  # hand, legal and illegal come from the view
        prompt = Prompt.wire(self.id, self.log.seq, seat.index, game.phase, view["legal"],
                             self.turn_seconds, view["hand"], view,
                             game.rules.pass_count if game.phase == "pass" else None,
                             view["illegal"])
        self.send((seat.client,), Shared(prompt))

    def _on_window_over(self, cmd: WindowOver) -> None:
        seat = self.seats[cmd.seat]
        if not seat.away:
            return
        self.note("window_over", f"{seat.name} did not come back in time", seat)
        if self.phase is Phase.PLAYING:
            drops.run(self, Trigger.WINDOW_OVER, seat)
            self.advance()
        elif self.phase is Phase.OVER:  # the game ended meanwhile: the seat is free
            seat.clear()
            self.changed()
            self._tidy()

    def _on_turn_over(self, cmd: TurnOver) -> None:
        if self._current(cmd.seat, cmd.turn):
            self._ask_robot(cmd.seat, cmd.turn, timeout=True)

    def _on_robot_turn(self, cmd: RobotTurn) -> None:
        if self._current(cmd.seat, cmd.turn) and self.seats[cmd.seat].robot_plays:
            self._ask_robot(cmd.seat, cmd.turn, timeout=False)

    def _current(self, index: int, turn: Turn) -> bool:
        game = self.game
        return (game is not None and self.phase is Phase.PLAYING and not self.paused
                and index in game.awaiting and self._turn(index) == turn)

    def _ask_robot(self, index: int, turn: Turn, timeout: bool) -> None:
        assert self.game is not None
        seat = self.seats[index]
        self._out.append(AskRobot(index, seat.robot_level, self.game.view(index), turn, timeout))

    def _on_robot_chose(self, cmd: RobotChose) -> None:
        seat = self.seats[cmd.seat]
        if not self._current(cmd.seat, cmd.turn) or not (cmd.timeout or seat.robot_plays):
            self.note("stale_robot", "a robot's answer came after its turn", seat)
            return
        game = self.game
        assert game is not None
        action = cmd.action
        if isinstance(action, Pass) and action not in game.legal_actions(cmd.seat):
            return
        try:
            self._apply(cmd.seat, action, _robot_reason(cmd))
        except ProtocolError as exc:  # a robot's mistake must not stall the table
            self.note("robot_illegal", f"robot chose {action}: {exc.message}", seat)
            self._apply(cmd.seat, game.legal_actions(cmd.seat)[0])

    def _on_next_hand(self, cmd: NextHand) -> None:
        game = self.game
        if (game is None or self.phase is not Phase.PLAYING or game.phase != "hand_over"
                or game.hand_no != cmd.hand):
            return
        self.publish_game(game.next_hand())
        self.advance()

    def _end_game(self, events: list[Event] | None = None, abandoned: bool = False,
                  announce: bool = False) -> None:
        """Store the game's end (with its rating changes) and tell the table.

        ``events``: the last action's, whose ``game_over`` gets the rating changes;
        ``abandoned``: ended early (a points room after a drop), on the score so far;
        ``announce``: a resumed game whose end was never stored nor told.
        """
        game, game_id = self.game, self.game_id
        assert game is not None and game_id is not None
        outcome = game.result()
        ratings = self._rate(outcome) if self.room.rated else None
        casual = () if self.room.rated or abandoned else self._casual_credit()
        record = game.record()
        for idx, why in self.whys.items():
            if idx < len(record["actions"]):
                record["actions"][idx]["why"] = why
        self.write(GameEnded(game_id, outcome.to_wire(), record,
                              tuple(ratings) if ratings is not None else None, casual))
        turn = self.turn_info()
        for event in events or ():
            if event.kind == "game_over":  # told with the rating changes it caused
                self.publish(GameOver(scores=list(outcome.scores),
                                       winners=list(outcome.winners), ratings=ratings or [],
                                       chances=self.chances), turn=turn)
            else:
                self.publish(event.to_wire(), event.to, turn)
        if abandoned or announce:
            self.publish(GameOver(scores=list(outcome.scores),
                                   winners=[] if abandoned else list(outcome.winners),
                                   ratings=ratings or [], abandoned=abandoned,
                                   chances=self.chances))
        self.phase = Phase.OVER
        self.paused, self.vote = None, None
        self.cancel_all(("turn-", "robot-", "deal", "vote", "retry"))
        self.changed()
        self._tidy()
        if self.phase is Phase.OVER:
            self.set_timer("idle", self.settings.table_idle_seconds, IdleOver())

    def _casual_credit(self) -> tuple[str, ...]:
        """Who a finished casual game counts toward ranked eligibility: each registered
        account present at the end, once, and only when at least two distinct accounts
        played (one account alone, or with guests and robots, earns nothing)."""
        accounts = sorted({s.account for s in self.seats
                           if s.connected and s.account and not s.guest})
        return tuple(accounts) if len(accounts) >= 2 else ()

    def hands_done(self) -> int:
        return len(self.game.hand_results) if self.game else 0

    # -- ratings ------------------------------------------------------------------------------

    def _chances(self) -> list[float] | None:
        """Each side's chance of winning by the room's system, from the starters' ratings
        at the start (a starter without a standing counts at the system's start rating).
        ``None`` when the system cannot tell (say, the same name in two seats)."""
        players = [s.starter or "" for s in self.seats]
        try:
            chances = self.rating_system.win_probability(
                self.room.game, players, self.start_ratings())  # type: ignore[arg-type]
        except RatingError:
            return None
        return [round(p, 4) for p in chances]

    def start_ratings(self) -> dict[str, Rating]:
        start = self.rating_system.start_rating
        return {s.starter or "": self.ranked.standings[s.starter].rating
                if s.starter in self.ranked.standings else start for s in self.seats}

    def result(self, outcome: Outcome) -> Any:
        ranked = self.ranked
        starters = [s.starter or "" for s in self.seats]
        subs = [(s.index, s.name or "") for s in self.seats if s.substitute]
        departures = list(ranked.departures)
        if ranked.end_after is not None:
            dropped = self.seats[ranked.end_after].starter or ""
            if not any(d.player == dropped for d in departures):
                departures.append(Departure(dropped, "dropped", self.hands_done()))
        return game_result(self.room.game, self.system, self.seating, starters, subs, outcome,
                           departures, ranked.first_disconnect)

    def _rate(self, outcome: Outcome) -> list[dict[str, Any]]:
        """Rate the game from the starters' ratings when it began; record the changes."""
        assert self.game_id is not None
        result = self.result(outcome)
        changes = [c for c in self.rating_system.rate(result, self.start_ratings())
                   if c.player not in self.ranked.already_rated]
        self.write(Rated(self.game_id, result, tuple(changes)))
        return [c.to_wire() for c in changes]

    def unpause(self) -> None:
        """The game goes on; a turn refused during the pause is prompted again."""
        if self.paused:
            self.paused = None
            self.pauses += 1

    # -- restart ---------------------------------------------------------------------------

    def _on_resume(self, cmd: Resume) -> None:
        """A stored game, resumed: seats wait for their players; robots play away seats."""
        game = cmd.game
        self.game, self.game_id, self.phase = game, cmd.game_id, Phase.PLAYING
        self.games += 1
        self.acted = [sum(1 for s, _ in game.actions if s == i) for i in range(4)]
        for stored in cmd.seats:
            seat = self.seats[stored["seat"]]
            seat.name, seat.kind = stored["name"], stored["kind"]
            seat.account = stored.get("account", stored["name"] if seat.kind == "human" else None)
            seat.guest = stored.get("guest", False)
            seat.token_hash, seat.robot_level = stored.get("token_hash"), stored["robot_level"]
            seat.starter, seat.substitute = stored.get("starter"), stored.get("substitute", False)
            if seat.kind == "human":
                self.set_timer(f"window-{seat.index}", self.settings.reconnect_seconds,
                                WindowOver(seat.index))
        # Past any seq issued before the restart. A table's seq runs on across its games and
        # counts unstored events (deals, drops, rejoins), so this game's actions alone are no
        # bound. The wall clock in microseconds outruns any table's event rate (in
        # milliseconds it did not: four robots with no delay issue well over 1,000 events a
        # second), and stays below 2**53, exact in JavaScript.
        self.log.seq = max(self.log.seq, 10 * len(game.actions) + 1000,
                           int(self.now * 1_000_000))
        self._out.append(Changed(self.info()))
        if self.room.rated:
            self.resuming = True
            self._out.append(LoadStandings(tuple(s.starter or "" for s in self.seats),
                                           self.room.game, self.system))
        else:
            self._resumed()

    def _resumed(self) -> None:
        self.resuming = False
        game = self.game
        if game is not None and game.phase == "game_over":
            # The game's last action was stored, but the process died before its end was:
            # store the end now and say so (that action's events were never sent).
            self._end_game(announce=True)
            return
        self.advance()

    def _on_retry(self, cmd: Retry) -> None:
        if self.phase is Phase.WAITING:
            self._maybe_start()
        else:
            self.advance()


CARD_WORDS = re.compile(r"[♣♦♥♠]|\b(10|[2-9TJQKA])[CDHS]\b|\b(ace|king|queen|jack|ten) of\b",
                        re.IGNORECASE)
"""What could name a card in a robot's reason: a code, a suit symbol, "ace of ..."."""


def _robot_reason(cmd: RobotChose) -> str:
    """The robot's reason for its action as the table may tell it: one line, at most
    ``WHY_LENGTH`` characters, and none at all if it could name a card (the others at the
    table may not see the robot's hand; the robots' own reasons never do)."""
    why = " ".join(cmd.why.split())
    if not why or len(why) > WHY_LENGTH or CARD_WORDS.search(why):
        return ""
    return why


HANDLERS: dict[type[Command], Callable[[TableMachine, Any], None]] = {
    Open: TableMachine._on_open,
    Sit: TableMachine._on_sit,
    SitReserved: TableMachine._on_sit_reserved,
    Stand: TableMachine._on_stand,
    Watch: TableMachine._on_watch,
    Unwatch: TableMachine._on_unwatch,
    Fill: TableMachine._on_fill,
    Start: TableMachine._on_start,
    PlayAgain: TableMachine._on_play_again,
    Act: TableMachine._on_act,
    Rejoin: TableMachine._on_rejoin,
    CastVote: drops.on_cast,
    Chat: TableMachine._on_chat,
    Disconnect: TableMachine._on_disconnect,
    Resume: TableMachine._on_resume,
    WindowOver: TableMachine._on_window_over,
    TurnOver: TableMachine._on_turn_over,
    RobotTurn: TableMachine._on_robot_turn,
    NextHand: TableMachine._on_next_hand,
    VoteOver: drops.on_vote_over,
    IdleOver: TableMachine._on_idle,
    Retry: TableMachine._on_retry,
    RobotChose: TableMachine._on_robot_chose,
    StandingsLoaded: TableMachine._on_standings,
}
