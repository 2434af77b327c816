"""A table's state as one value, and the one rule that copies it to undo a command.

Every part of a table (:mod:`.seating`, :mod:`.play`, :mod:`.drops`, :mod:`.rating`,
the timers) changes its own slice of one :class:`TableState`. Before each command
the machine copies the state; a refused command, or one whose records could not be
stored, puts the copy back. The copy is made field by field by the type of each
value (:mod:`.copying`), so a field added to the state is rolled back with no line
naming it. Two kinds of field are marked instead:

* ``KEPT``: the game, which is rolled back by replaying its record (a copy of an
  engine would cost every move its whole hand);
* ``SEATING``: who sits and watches, and a ranked game's record of leavers, which a
  move never changes (``Command.seats_kept``): shared, not copied, for one. The
  machine's property test checks that a failed write leaves the whole table as it
  was.

What a field may hold, so that a copy is a copy: values (numbers, strings, tuples,
frozen dataclasses), objects with a ``copy()`` of their own (a seat, the ranked
record), and lists, sets and dicts of those (a dict's values must be values): the
rule is :mod:`.copying`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any

from trickroom.game.duplicate import MATCH_GAMES, PlayedGame
from trickroom.game.engine import Engine
from trickroom.ratings import Departure, Standing
from trickroom.server.tables.commands import ClientId, TimerCommand, Turn
from trickroom.server.tables.copying import copy_fields
from trickroom.server.tables.seats import Seat, Vote

KEPT = {"undo": "kept"}
SEATING = {"undo": "seating"}


class Phase(StrEnum):
    WAITING = "waiting"  # seats filling; no game yet
    PLAYING = "playing"
    OVER = "over"  # the game is over; the seats may play again
    CLOSED = "closed"  # gone from the lobby; every command is refused


@dataclass(slots=True)
class RankedState:
    """What a ranked game remembers for its rating: the starters' ratings, who left and
    how, who disconnected first, who is already rated, and where the game may end."""

    standings: dict[str, Standing] = field(default_factory=dict)
    departures: list[Departure] = field(default_factory=list)
    first_disconnect: str | None = None
    already_rated: set[str] = field(default_factory=set)
    end_after: int | None = None  # points: the dropped seat whose hand ends the game
    open_seats: set[int] = field(default_factory=set)  # wocg: seats a substitute may take

    def copy(self) -> RankedState:
        return copy_fields(self)


@dataclass(slots=True)
class Sandbox:
    """A sandbox's deals (issue 36, item 4): every game of the table is dealt from
    ``seed``, its first hands from ``deals`` (each four hands of card texts) when given,
    so a bot's test repeats exactly. ``duplicate``: the games make matches (two in Spades,
    four in Hearts), each player one seat on in each game; ``played``: the match's games
    so far, and ``first_seats``: where each player sat in its first. ``known``: the opener
    chose the seed or deals (else the seed was drawn, and no one knows it)."""

    seed: int
    deals: tuple[tuple[tuple[str, ...], ...], ...] = ()
    duplicate: bool = False
    known: bool = True
    played: list[PlayedGame] = field(default_factory=list)
    first_seats: dict[str, int] = field(default_factory=dict)

    def copy(self) -> Sandbox:
        return copy_fields(self)

    def match_games(self, kind: str) -> int:
        return MATCH_GAMES[kind] if self.duplicate else 1

    def stored(self) -> dict[str, Any]:
        return {"seed": self.seed, "deals": [[list(h) for h in d] for d in self.deals],
                "duplicate": self.duplicate, "known": self.known,
                "played": [g.to_wire() for g in self.played],
                "first_seats": dict(self.first_seats)}

    @classmethod
    def from_stored(cls, stored: dict[str, Any]) -> Sandbox:
        return cls(int(stored["seed"]),
                   tuple(tuple(tuple(h) for h in d) for d in stored.get("deals", ())),
                   bool(stored.get("duplicate", False)), bool(stored.get("known", True)),
                   [PlayedGame.from_wire(g) for g in stored.get("played", ())],
                   {str(k): int(v) for k, v in stored.get("first_seats", {}).items()})


@dataclass(slots=True)
class Board:
    """A duplicate room's table of a board set (issue 39, server/tables/board.py): the set,
    this table's ``slot`` of its ``slots``, the set's seed and first dealer, the people it
    was claimed for; once its game started, the deals it has played and stored
    (``played``), those it has told the field of (``told``), whether its game ended and
    whether it has told the set's result."""

    set_id: str
    slot: int
    slots: int
    seed: int
    dealer: int
    players: tuple[str, ...] = ()
    started: bool = False
    played: int = 0
    told: set[int] = field(default_factory=set)
    finished: bool = False
    result_told: bool = False

    def copy(self) -> Board:
        return copy_fields(self)


@dataclass(slots=True)
class Privacy:
    """A private table's way in: its invite code (None: revoked) and until when it lets
    players in (the table's clock), the seats kept for named players, and who was
    removed (accounts, case-folded)."""

    invite: str | None = None
    invite_until: float = 0.0
    reserved: dict[int, str] = field(default_factory=dict)  # seat -> name
    removed: set[str] = field(default_factory=set)
    sandbox: Sandbox | None = None  # fixed deals (a sandbox table is always private)

    def copy(self) -> Privacy:
        return copy_fields(self)

    def stored(self) -> dict[str, Any]:
        """As kept with a game in play (a restart resumes the table private, as it was)."""
        return {"invite": self.invite, "invite_until": self.invite_until,
                "reserved": {str(seat): name for seat, name in self.reserved.items()},
                "removed": sorted(self.removed),
                **({"sandbox": self.sandbox.stored()} if self.sandbox else {})}

    @classmethod
    def from_stored(cls, stored: dict[str, Any]) -> Privacy:
        sandbox = stored.get("sandbox")
        return cls(stored.get("invite"), float(stored.get("invite_until", 0.0)),
                   {int(seat): name for seat, name in stored.get("reserved", {}).items()},
                   set(stored.get("removed", ())),
                   Sandbox.from_stored(sandbox) if sandbox else None)

    def kept_for(self, name: str) -> int | None:
        """The seat kept for ``name``, if any."""
        folded = name.lower()
        for seat, kept in self.reserved.items():
            if kept.lower() == folded:
                return seat
        return None


def _four_seats() -> list[Seat]:
    return [Seat(i) for i in range(4)]


@dataclass(slots=True)
class TableState:
    """Everything a table is (but its event log, which numbers what it has said)."""

    # -- who sits and watches (seating) --------------------------------------------------------
    seats: list[Seat] = field(default_factory=_four_seats, metadata=SEATING)
    watchers: dict[ClientId, str] = field(default_factory=dict, metadata=SEATING)
    # -- the game (play) -------------------------------------------------------------------------
    phase: Phase = Phase.WAITING
    game: Engine | None = field(default=None, metadata=KEPT)
    game_id: str | None = None
    games: int = 0  # games started at this table
    acted: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # each seat's actions
    prompted: dict[int, Turn] = field(default_factory=dict)  # seat -> turn last prompted
    # seat -> its turn, and when that turn's clock runs out (the table's wall clock)
    turn_ends: dict[int, tuple[Turn, float]] = field(default_factory=dict)
    whys: dict[int, str] = field(default_factory=dict)  # a robot's reason, by action index
    resuming: bool = False  # a restored game waits for its standings before going on
    back_by: float = 0.0  # a resumed game's away players' robots wait until then
    # -- pauses and votes (drops) ------------------------------------------------------------
    paused: str | None = None  # why the game waits (a vote, a drop), or None
    pauses: int = 0  # pauses ended: a turn refused during one is prompted again
    vote: Vote | None = None
    # -- a ranked game (rating) ----------------------------------------------------------------
    ranked: RankedState = field(default_factory=RankedState, metadata=SEATING)
    chances: list[float] | None = None  # the sides' chances at the start
    # The ``game_over`` event as told (its rating changes with their breakdowns): a
    # snapshot of a finished game carries it, so a player back after the end reads them.
    over: dict[str, Any] | None = None
    # -- a private table (privacy) ---------------------------------------------------------
    private: Privacy | None = field(default=None, metadata=SEATING)
    # -- a duplicate room's board set (board) ---------------------------------------------
    board: Board | None = None
    # Earlier games' board sets whose other tables have yet to play what this one did:
    # the table is still told of them (board_deal, board_result) while it stays open.
    past_boards: list[Board] = field(default_factory=list)
    joining: tuple[str, ...] | None = None  # a board set asked for these people, not yet had
    # -- chat ----------------------------------------------------------------------------------
    spectator_chat: bool = False  # spectators chat to the players of a game in play
    # The spectators' chat credit, all of them together (a token bucket) as of
    # ``spectator_credit_at`` (the table's clock); None: full.
    spectator_credit: float | None = None
    spectator_credit_at: float = 0.0
    # -- what the runner has scheduled, by key (timers) --------------------------------------
    timers: dict[str, TimerCommand] = field(default_factory=dict)

    def copy(self, seats_kept: bool = False) -> TableState:
        """The state to put back if the command now run is undone."""
        return copy_fields(self, _SHARED[seats_kept])


_SHARED = {kept: frozenset(f.name for f in fields(TableState)
                           if f.metadata in ((KEPT, SEATING) if kept else (KEPT,)))
           for kept in (False, True)}
"""The fields a copy shares with the state, by whether the command keeps the seats."""
