"""The table machine: one table's rules of the room, with no I/O.

``TableMachine.handle(command, now)`` takes one command (a request, a timer,
a robot's answer, the store's answer) and returns the effects to carry out.
It never touches a socket, a clock or a database: ``now`` is the wall time the
runner read, its randomness comes from the ``rng`` it was given, and what it
must store, send or schedule comes back as effects. So a drop, a vote or a
timer is tested by feeding commands and reading effects, in microseconds.

The machine holds one :class:`~.state.TableState` and hands each command to the
part of the table it concerns (:data:`HANDLERS`): :mod:`.seating`, :mod:`.play`,
:mod:`.drops` (with the room's policy, :mod:`.policies`), :mod:`.chat` and
:mod:`.life`, each a module of functions over the :class:`~.table.Table` this
machine is. What it keeps for itself is what every part says through: the one
publish point (:mod:`.log`), the records to store, the timers, and the undo.

A command is all or nothing. The machine copies its state before each one; a
refused command (a ``ProtocolError``) puts the copy back, so it changes nothing.
A command that must store records returns one :class:`~.effects.Persist` and
holds everything else it caused; ``Stored`` releases it, ``StoreFailed`` puts
the copy back (the game is rebuilt from its record without the unstored
actions) and tells the player.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from trickroom.game.engine import ENGINES
from trickroom.game.events import Event
from trickroom.i18n import Msg
from trickroom.server.config import Room, ServerSettings
from trickroom.server.protocol import (
    BoardInfo,
    Error,
    ProtocolError,
    SandboxInfo,
    SeatInfo,
    ServerMessage,
    Snapshot,
    TableChanged,
    TableInfo,
)
from trickroom.server.tables import board, chat, drops, life, play, privacy, seating
from trickroom.server.tables.commands import (
    Act,
    AgainOver,
    BoardJoined,
    BoardPoll,
    BoardRead,
    CastVote,
    Chat,
    ClientId,
    Command,
    Disconnect,
    Fill,
    IdleOver,
    Invite,
    MoveSeat,
    NextHand,
    Open,
    Options,
    PlayAgain,
    Rejoin,
    RemovePlayer,
    Request,
    RequestId,
    Reserve,
    Resume,
    Retry,
    RobotChose,
    RobotTurn,
    Sit,
    SitReserved,
    SitWithRobots,
    Stand,
    StandingsLoaded,
    Start,
    Stored,
    StoreFailed,
    TimerCommand,
    TurnOver,
    Unwatch,
    VoteOver,
    Watch,
    Who,
    WindowOver,
)
from trickroom.server.tables.effects import (
    CancelTimer,
    Changed,
    Effect,
    Note,
    Persist,
    Send,
    SetTimer,
)
from trickroom.server.tables.log import EventLog, Shared, shared, with_texts
from trickroom.server.tables.policies import DropPolicy, policy_for
from trickroom.server.tables.records import Record, SeatsChanged
from trickroom.server.tables.seats import Seat
from trickroom.server.tables.state import Phase, Privacy, TableState

STORE_RETRY_SECONDS = 1.0


@dataclass(slots=True)
class _Mark:
    """Where the table stood before a command: its state, and where its game and log
    were (the game is rebuilt from its record, the log cut back)."""

    state: TableState
    seq: int
    actions: int
    hand_no: int


@dataclass(slots=True)
class _Pending:
    """A command waiting for the store: what it will send, and how to undo it."""

    mark: _Mark
    effects: list[Effect]
    requester: tuple[ClientId, RequestId] | None


class TableMachine:
    """One table: its state, its room's rules and policy, its log, its timers."""

    def __init__(self, table_id: str, room: Room, settings: ServerSettings, rules: Any,
                 seating: str, rng: random.Random, seq: int = 0,
                 creator: str | None = None, spectator_chat: bool = False,
                 private: Privacy | None = None) -> None:
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
        self.state = TableState(spectator_chat=spectator_chat, private=private)
        self.log = EventLog(table_id, settings.event_log_size, seq)
        self.now = 0.0
        self._out: list[Effect] = []
        self._writes: list[Record] = []
        self._pending: dict[int, _Pending] = {}
        self._refs = 0

    # -- the one way in --------------------------------------------------------------------

    def handle(self, command: Command, now: float) -> list[Effect]:
        """Run one command; return its effects (or raise ``ProtocolError``, changing nothing)."""
        if isinstance(command, Stored):
            return self._pending.pop(command.ref).effects
        if isinstance(command, StoreFailed):
            return self._store_failed(command.ref, command.reason, command.moved)
        if self._pending:
            raise RuntimeError("a command arrived while another waits for the store")
        state = self.state
        if state.phase is Phase.CLOSED:
            if isinstance(command, Request):
                raise ProtocolError("no_such_table", Msg("table {id!r} is closed", id=self.id),
                                    command.rid)
            return []
        if isinstance(command, TimerCommand):
            key = command.key
            if state.timers.get(key) == command:
                del state.timers[key]  # it fired: the runner holds it no more
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

    def _store_failed(self, ref: int, reason: str, moved: bool = False) -> list[Effect]:
        pending = self._pending.pop(ref)
        self._restore(pending.mark)
        effects: list[Effect] = [Note("store_failed", f"a write failed and was undone: {reason}")]
        if pending.requester is not None:
            client, rid = pending.requester
            # The write's outcome may be unknown (the database went away mid-commit): the
            # runner reads the table back from the store before it takes another request.
            said = (Msg("the table moved to another server, which did not take that: "
                        "rejoin the table and send it again") if moved else
                    Msg("the server could not confirm it stored that; the table shows what "
                        "stands once the database answers: send it again if it is still "
                        "your turn"))
            error = Error(id=rid, code="unavailable", retry_after=1.0, message=said)
            effects.append(Send((client,), with_texts(error, message=said)))
        else:  # a timer's or a robot's work: try again shortly
            retry = Retry()
            self.state.timers[retry.key] = retry
            effects.append(SetTimer(retry.key, STORE_RETRY_SECONDS, retry))
        return effects

    def _mark(self, seats_kept: bool) -> _Mark:
        """Note the table before a command. A move keeps seats, watchers and the ranked
        record as they are (``Command.seats_kept``): those are shared, not copied, and
        the action's hot path copies only what a move changes."""
        game = self.state.game
        return _Mark(self.state.copy(seats_kept), self.log.seq,
                     len(game.actions) if game else 0, game.hand_no if game else 0)

    def _restore(self, mark: _Mark) -> None:
        game = mark.state.game
        if game is not None and (len(game.actions) != mark.actions
                                 or game.hand_no != mark.hand_no):
            record = game.record()
            game = ENGINES[game.kind].replay({**record,
                                              "actions": record["actions"][:mark.actions]})
            # A replay stops at the end of the hand its last action finished; the table may
            # have dealt the next one since (next_hand is no action): deal it again.
            while game.hand_no < mark.hand_no and game.phase == "hand_over":
                game.next_hand()
        self.state = mark.state
        self.state.game = game
        self.log.truncate(mark.seq)

    # -- what a command says -----------------------------------------------------------------

    def send(self, to: tuple[ClientId, ...], message: Shared) -> None:
        if to:
            self._out.append(Send(to, message))

    def reply(self, who: Who, message: ServerMessage) -> None:
        self._out.append(Send((who.client,), shared(message)))

    def publish(self, event: dict[str, Any] | ServerMessage, to: int | None = None,
                turn: dict[str, Any] | None = None, texts: bool = False) -> None:
        """Number, log and send one table event to whoever may see it (a game event with
        its ``turn``)."""
        if isinstance(event, ServerMessage):
            event = event.model_dump()
        entry = self.log.publish(event, to, turn, texts)
        if to is None:
            self.send(self.audience(), entry.message)
        else:
            client = self.state.seats[to].client
            if client is not None:
                self.send((client,), entry.message)
            others = tuple(c for c in self.audience() if c != client)
            if others and entry.skip is not None:
                self.send(others, entry.skip)

    def publish_game(self, events: list[Event], why: str = "") -> None:
        """Publish one action's (or deal's) game events, each with the turn they lead to
        (a bid with the robot's ``why`` as the table may hear it: no fact of its hand)."""
        turn = play.turn_info(self)
        for event in events:
            wire = event.to_wire()
            if why and wire["type"] == "bid":
                wire["why"] = why
                self.publish(wire, event.to, turn, texts=True)
            else:
                self.publish(wire, event.to, turn)

    def write(self, record: Record) -> None:
        self._writes.append(record)

    def emit(self, effect: Effect) -> None:
        self._out.append(effect)

    def note(self, event: str, text: str, seat: Seat | None = None) -> None:
        self._out.append(Note(event, text, seat.index if seat else None,
                              seat.account if seat else None))

    def set_timer(self, delay: float, command: TimerCommand) -> None:
        """Schedule ``command``; a timer already set to the same command runs on unchanged
        (a turn's clock does not restart when another seat acts)."""
        timers, key = self.state.timers, command.key
        if timers.get(key) == command:
            return
        timers[key] = command
        self._out.append(SetTimer(key, max(0.0, delay), command))

    def cancel(self, kind: type[TimerCommand], seat: int | None = None) -> None:
        key = kind.key_of(seat)
        if self.state.timers.pop(key, None) is not None:
            self._out.append(CancelTimer(key))

    def cancel_kinds(self, *kinds: type[TimerCommand]) -> None:
        """Cancel every timer of these kinds, every seat's (no kind: every timer)."""
        names = tuple(kind.timer for kind in kinds)
        timers = self.state.timers
        for key in [k for k, command in timers.items() if not names or command.timer in names]:
            del timers[key]
            self._out.append(CancelTimer(key))

    def changed(self) -> None:
        """A seat changed: tell the table (a ``table`` event) and the lobby."""
        info = self.info()
        self.publish(TableChanged(info=info))
        self._out.append(Changed(info))

    # -- what it is ---------------------------------------------------------------------------

    def audience(self) -> tuple[ClientId, ...]:
        """Every connection at the table: seated players, then watchers."""
        seated = [s.client for s in self.state.seats if s.client is not None]
        return (*seated, *(c for c in self.state.watchers if c not in seated))

    def seat_of(self, client: ClientId) -> Seat | None:
        for seat in self.state.seats:
            if seat.client == client:
                return seat
        return None

    def seated(self, who: Who) -> Seat:
        seat = self.seat_of(who.client)
        if seat is None:
            raise ProtocolError("not_seated", Msg("you do not sit at this table"))
        return seat

    def info(self) -> TableInfo:
        state = self.state
        return TableInfo(
            id=self.id, room=self.room.name, game=self.room.game, state=state.phase.value,
            seating=self.seating,
            seats=[SeatInfo(seat=s.index, name=s.name, kind=s.kind, away=s.away, bot=s.bot,
                            robot_level=s.robot_level if s.robot_plays else None,
                            reserved_for=state.private.reserved.get(s.index)
                            if state.private else None)
                   for s in state.seats],
            watchers=len(state.watchers), game_id=state.game_id,
            chances=state.chances if state.phase in (Phase.PLAYING, Phase.OVER) else None,
            spectator_chat=state.spectator_chat, private=state.private is not None,
            sandbox=self._sandbox_info(), duplicate=self.room.duplicate,
            board=self._board_info())

    def _board_info(self) -> BoardInfo | None:
        found = self.state.board
        if found is None or not found.started:
            return None
        return BoardInfo(board_set=found.set_id, slot=found.slot, tables=found.slots,
                         played=found.played, told=len(found.told))

    def _sandbox_info(self) -> SandboxInfo | None:
        sandbox = self.state.private.sandbox if self.state.private else None
        if sandbox is None:
            return None
        return SandboxInfo(deals=len(sandbox.deals), known_deals=sandbox.known,
                           duplicate=sandbox.duplicate, match_played=len(sandbox.played),
                           match_games=sandbox.match_games(self.room.game))

    def snapshot(self, seat: int | None, rid: RequestId = None) -> Snapshot:
        state = self.state
        view = state.game.view(seat).to_wire() if state.game else None
        vote = None
        if state.vote is not None:
            vote = {**drops.vote_started(self, state.vote).model_dump(),
                    "cast": {str(s): c for s, c in state.vote.choices}}
        over = state.over if view is not None and view["phase"] == "game_over" else None
        return Snapshot.of(rid, self.id, self.log.seq, self.info(), view, state.paused, vote,
                           over)

    def save_seats(self) -> None:
        state = self.state
        if state.game_id is not None and state.phase is Phase.PLAYING:
            self.write(SeatsChanged(state.game_id, tuple(s.stored() for s in state.seats)))

    # -- what one part asks of another ------------------------------------------------------

    def advance(self) -> None:
        play.advance(self)

    def tidy(self) -> None:
        life.tidy(self)


HANDLERS: dict[type[Command], Callable[[TableMachine, Any], None]] = {
    Open: life.on_open,
    IdleOver: life.on_idle,
    Sit: seating.on_sit,
    SitReserved: seating.on_sit_reserved,
    SitWithRobots: seating.on_sit_with_robots,
    Stand: seating.on_stand,
    Watch: seating.on_watch,
    Unwatch: seating.on_unwatch,
    Fill: seating.on_fill,
    Start: seating.on_start,
    PlayAgain: seating.on_play_again,
    AgainOver: seating.on_again_over,
    Rejoin: seating.on_rejoin,
    Disconnect: seating.on_disconnect,
    Chat: chat.on_chat,
    Options: chat.on_options,
    Invite: privacy.on_invite,
    Reserve: privacy.on_reserve,
    MoveSeat: privacy.on_move_seat,
    RemovePlayer: privacy.on_remove_player,
    Act: play.on_act,
    Resume: play.on_resume,
    WindowOver: play.on_window_over,
    TurnOver: play.on_turn_over,
    RobotTurn: play.on_robot_turn,
    NextHand: play.on_next_hand,
    Retry: play.on_retry,
    RobotChose: play.on_robot_chose,
    StandingsLoaded: play.on_standings,
    BoardJoined: play.on_board_joined,
    BoardRead: board.on_read,
    BoardPoll: board.on_poll,
    CastVote: drops.on_cast,
    VoteOver: drops.on_vote_over,
}
"""Which part of the table handles each command."""
