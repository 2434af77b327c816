"""Everything that can happen to a table, as a value: the machine's only input.

A command is a frozen dataclass. Requests come from a client (``who`` says
which connection and account, ``rid`` is the request's id, echoed in the
reply); timers come back as the command they were set with; answers come
back from effects that needed the outside world (a robot's choice, the
players' standings, the store's confirmation). The runner builds requests out
of the clients' messages, after any lookup they need (ranked eligibility), so
the machine never waits on anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from trickroom.game.actions import Action
from trickroom.game.engine import Engine
from trickroom.ratings import Standing

ClientId = int
"""A connection, as the machine knows it: an opaque number the runner maps to a socket."""

RequestId = str | int | None

Turn = tuple[int, int, int]
"""A seat's turn: (game number at this table, the seat's actions so far, pauses ended).

A prompt, a turn timer or a robot's answer is for one turn; once the seat has
acted (or the game paused and went on), anything keyed by the old turn is stale.
"""


class Command:
    """Base of every command (dispatch is by type).

    ``seats_kept``: the command's handling never changes who sits where, who watches, or
    a ranked game's record of leavers (a move, a turn's clock, the next deal), so undoing
    it needs no copy of them. The property test checks it: a failed write leaves the
    whole table as it was.
    """

    __slots__ = ()
    seats_kept: ClassVar[bool] = False


@dataclass(frozen=True, slots=True)
class Who:
    """The sender of a request: its connection, the account (or guest) it speaks for, and
    the address group it comes from (``group_of``: what tells one person's accounts
    apart from another's, for ranked eligibility; "" where none is known)."""

    client: ClientId
    name: str
    guest: bool = True
    group: str = ""


@dataclass(frozen=True, slots=True)
class Request(Command):
    who: Who
    rid: RequestId = None


# -- requests ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sit(Request):
    """Take ``seat`` (or any free one). ``refusal``: why this player may not sit at a
    ranked table (eligibility, looked up by the runner), or None; ``ban``: why they may
    not even substitute in a ranked game (a ban), or None; ``invite``: a private table's
    invite code, as sent; ``bot``: the account is a BOT's (shown at the seat)."""

    seat: int | None = None
    refusal: str | None = None
    ban: str | None = None
    invite: str | None = None
    bot: bool = False


@dataclass(frozen=True, slots=True)
class SitReserved(Request):
    """The random queue seats a matched player at ``seat``; the game starts at four."""

    seat: int = 0
    bot: bool = False  # a BOT account (the bot ladder's queue)


@dataclass(frozen=True, slots=True)
class SitWithRobots(Request):
    """``seek``: the seeker takes seat 0 of its new table, robots of ``level`` the rest,
    and the game starts (``bot``: a BOT account)."""

    level: Literal["random", "heuristic", "search"] = "heuristic"
    bot: bool = False


@dataclass(frozen=True, slots=True)
class Stand(Request):
    """Free the seat before a game; during one, leave it (a quit in ranked rooms)."""


@dataclass(frozen=True, slots=True)
class Watch(Request):
    invite: str | None = None  # a private table's invite code, as sent


@dataclass(frozen=True, slots=True)
class Unwatch(Request):
    pass


@dataclass(frozen=True, slots=True)
class Fill(Request):
    """Robots of ``level`` in every empty seat (casual rooms)."""

    level: Literal["random", "heuristic", "search"] = "heuristic"


@dataclass(frozen=True, slots=True)
class Start(Request):
    pass


@dataclass(frozen=True, slots=True)
class PlayAgain(Request):
    """Play the next game; ``rotate``: with new partners (if most of the table asks)."""

    rotate: bool = False


@dataclass(frozen=True, slots=True)
class Act(Request):
    """A game action in its wire form (parsed by the machine, refused if malformed)."""

    seats_kept = True

    action: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Rejoin(Request):
    token: str = ""
    last_seq: int = 0


@dataclass(frozen=True, slots=True)
class CastVote(Request):
    vote: str = ""
    choice: str = ""


@dataclass(frozen=True, slots=True)
class Chat(Request):
    """Say ``text`` at the table; ``ignored_by`` names the accounts that ignore the sender."""

    text: str = ""
    ignored_by: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Invite(Request):
    """A private table's invite: see it, ``renew`` it, or ``revoke`` it."""

    renew: bool = False
    revoke: bool = False


@dataclass(frozen=True, slots=True)
class Reserve(Request):
    """Keep ``seat`` of a private table for ``name`` (None: for no one)."""

    seat: int = 0
    name: str | None = None


@dataclass(frozen=True, slots=True)
class MoveSeat(Request):
    seat: int = 0
    to: int = 0


@dataclass(frozen=True, slots=True)
class RemovePlayer(Request):
    seat: int = 0


@dataclass(frozen=True, slots=True)
class Options(Request):
    """Change the table's options: whether spectators chat to the players of a game."""

    spectator_chat: bool = False


@dataclass(frozen=True, slots=True)
class Disconnect(Command):
    """A connection closed: its seat (if any) is away, its watching ends."""

    client: ClientId


# -- lifecycle -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Open(Command):
    """The table is new: the lobby lists it and its idle clock starts."""


@dataclass(frozen=True, slots=True)
class Resume(Command):
    """A stored, unfinished game after a restart: seats wait for their players."""

    game: Engine
    game_id: str
    seats: tuple[Mapping[str, Any], ...]


# -- timers (each comes back as the command it was set with) -----------------------------


@dataclass(frozen=True, slots=True)
class TimerCommand(Command):
    """A command that comes back from a timer; ``key`` names the timer (one per key: a new
    one replaces it). The keys are spelled here alone: a timer is set by its command and
    cancelled by its kind (:meth:`key_of`)."""

    timer: ClassVar[str] = ""

    @classmethod
    def key_of(cls, seat: int | None = None) -> str:
        """The key of this kind's timer (for ``seat``, if its timers are a seat's)."""
        return cls.timer if seat is None else f"{cls.timer}-{seat}"

    @property
    def key(self) -> str:
        return self.timer


@dataclass(frozen=True, slots=True)
class SeatTimer(TimerCommand):
    """A timer of one seat's: keyed by its seat, so each seat has its own."""

    seat: int

    @property
    def key(self) -> str:
        return f"{self.timer}-{self.seat}"


@dataclass(frozen=True, slots=True)
class WindowOver(SeatTimer):
    """The reconnect window of an away seat has passed."""

    timer = "window"


@dataclass(frozen=True, slots=True)
class TurnOver(SeatTimer):
    """A connected player's time for a turn ran out: the seat's robot plays it once."""

    seats_kept = True

    timer = "turn"

    turn: Turn


@dataclass(frozen=True, slots=True)
class RobotTurn(SeatTimer):
    """A robot-played seat's pause before acting is over (people can follow the play)."""

    seats_kept = True

    timer = "robot"

    turn: Turn


@dataclass(frozen=True, slots=True)
class BoardPoll(TimerCommand):
    """Look again whether the other tables of the board set have played this table's
    deals (they may be on other nodes: the store is where they meet)."""

    seats_kept = True

    timer = "board"


@dataclass(frozen=True, slots=True)
class NextHand(TimerCommand):
    """The pause after hand ``hand`` is over: deal the next one."""

    seats_kept = True

    timer = "deal"

    hand: int


@dataclass(frozen=True, slots=True)
class VoteOver(TimerCommand):
    """A vote's time is up: no answer counts as Wait (Zone) or no (an invited robot)."""

    timer = "vote"

    vote: str


@dataclass(frozen=True, slots=True)
class IdleOver(TimerCommand):
    """Nobody sat at a waiting table, or a finished one stayed idle, for the setting's time."""

    timer = "idle"


@dataclass(frozen=True, slots=True)
class AgainOver(TimerCommand):
    """The players who went away just before the game ended had their moment to come back
    for the next one: the others' *play again* goes on without them."""

    timer = "again"


@dataclass(frozen=True, slots=True)
class Retry(TimerCommand):
    """Try again what a store failure undid when no request was waiting for it."""

    timer = "retry"


# -- answers to effects --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RobotChose(Command):
    """A robot's action for ``seat`` at ``turn``; ``timeout``: it played for a player out of
    time (otherwise for a robot-played seat, and stale if a player has taken it back)."""

    seats_kept = True

    seat: int
    turn: Turn
    action: Action
    timeout: bool = False
    why: str = ""  # the robot's own reason for a bid, for the review after the game
    told: str = ""  # what the table may hear of it meanwhile: no fact of the hand


@dataclass(frozen=True, slots=True)
class StandingsLoaded(Command):
    """The starting players' ratings in the room's system, for a ranked game."""

    standings: Mapping[str, Standing]


@dataclass(frozen=True, slots=True)
class BoardJoined(Command):
    """A board set's table was claimed for ``players``: the set, the slot, seed and dealer."""

    set_id: str
    slot: int
    slots: int
    seed: int
    dealer: int
    players: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BoardRead(Command):
    """A board set as the store holds it (``store.board``), and the standings asked for."""

    seats_kept = True

    board: Mapping[str, Any]
    standings: Mapping[str, Standing] | None = None  # None: not asked for


@dataclass(frozen=True, slots=True)
class Stored(Command):
    """The store wrote a :class:`~server.tables.effects.Persist` effect's records."""

    ref: int


@dataclass(frozen=True, slots=True)
class StoreFailed(Command):
    """The store could not write them: nothing of that command happened (``moved``: it
    refused them because another node runs the table now)."""

    ref: int
    reason: str
    moved: bool = False
