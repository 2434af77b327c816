"""What a finished or abandoned game tells the ratings: the :class:`GameResult` value.

The game engine knows scores, winners and nil counts; the server knows who sat
where, who was a robot, who left and how, and how the table was formed. The
server joins the two into one ``GameResult`` (DESIGN sections 3 and 6), which is
all a rating system ever sees. A result checks itself when it is built, so a
system can trust it: every seat has one starting occupant, no player sits twice,
a Spades result is two partnerships (seats 0 and 2 against 1 and 3), and the
winners, when given, really have the best score.

>>> r = GameResult.of("spades", "wocg", ("A", "B", "C", "D"), (520, 310, 520, 310))
>>> r.winning_side(), r.outcome_of("B")
(0, 'loss')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, get_args

from trickroom.i18n import Msg
from trickroom.ratings.errors import InvalidResult, NotTwoTeams, PlayerInTwoSeats

GameKind = Literal["spades", "hearts"]
SeatingMode = Literal["random_queue", "random_seating", "fixed_seating"]
SeatKind = Literal["human", "robot", "substitute"]
LeaveKind = Literal["quit", "dropped"]
Vote = Literal["wait", "dont_wait"]
PlayerOutcome = Literal["win", "loss", "tie"]

GAME_KINDS: tuple[GameKind, ...] = get_args(GameKind)
SEATING_MODES: tuple[SeatingMode, ...] = get_args(SeatingMode)
SEAT_KINDS: tuple[SeatKind, ...] = get_args(SeatKind)
LEAVE_KINDS: tuple[LeaveKind, ...] = get_args(LeaveKind)

SIDES: tuple[tuple[int, int], tuple[int, int]] = ((0, 2), (1, 3))
"""Spades partnerships by side: side 0 is seats 0 and 2 (North–South), side 1 is 1 and 3."""

SIDE_NAMES = (Msg("North–South"), Msg("East–West"))


@dataclass(frozen=True, slots=True)
class NilRecord:
    """One player's nil record in one game; the field names match ``game.NilStats``.

    ``bid``/``made``/``set`` count the player's own nil bids; ``faced`` counts the
    opponents' nil bids and ``set_opponents`` how many of them this player's side
    set: the two numbers of the nil-setting skill ratio.
    """

    bid: int = 0
    made: int = 0
    set: int = 0
    blind: int = 0
    faced: int = 0
    set_opponents: int = 0


NO_NILS = NilRecord()


@dataclass(frozen=True, slots=True)
class Seat:
    """Who occupied a seat. A seat has exactly one starting occupant (``at_start``).

    A substitute or an invited robot who took a seat later is listed as a second
    entry for the same seat with ``at_start=False``; such occupants are never
    rated. The starting occupant stays the seat's rated player even after leaving.
    """

    seat: int  # 0..3 clockwise: North, East, South, West
    player: str
    kind: SeatKind = "human"
    at_start: bool = True
    nil: NilRecord = NO_NILS

    @property
    def is_rated_human(self) -> bool:
        """A human who sat here from the start: the only kind of occupant a system rates."""
        return self.kind == "human" and self.at_start


@dataclass(frozen=True, slots=True)
class Departure:
    """A starting player who left before the end and did not come back.

    ``how`` is ``"quit"`` (left on purpose, or treated as a quit by the room) or
    ``"dropped"`` (connection lost, not back within the window). ``hand`` is the
    number of hands completed when the player left, for the review; a result
    lists its departures in the order they happened. ``vote`` is the remaining
    players' answer in a Zone room, when one was asked.
    """

    player: str
    how: LeaveKind
    hand: int = 0
    vote: Vote | None = None


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished or abandoned game, as the ratings see it (DESIGN section 6).

    ``scores`` are per seat: in Spades both partners carry their side's score.
    ``winners`` are seats; they may be left empty, and are then read from the
    scores (higher wins in Spades, lower in Hearts, equal is a tie), which is
    how an abandoned game ranked on its score so far is judged. ``progress`` is
    the leading score over the target, 0..1. ``first_disconnect`` names the
    player responsible for the first disconnection (the points system's
    multipliers); when it is ``None`` the first departure is taken. Departures
    are listed in the order they happened. ``hands`` is the number of hands
    played, 0 when not known: a final score is a sum over the hands, so the
    systems that read scores read them as points a hand (:mod:`ratings.margin`).
    """

    kind: GameKind
    system: str
    seating: SeatingMode
    seats: tuple[Seat, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...] = ()
    completed: bool = True
    progress: float = 1.0
    departures: tuple[Departure, ...] = ()
    first_disconnect: str | None = None
    hands: int = 0
    _starters: tuple[Seat, ...] = field(init=False, repr=False, compare=False)
    _players: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check(self)
        starters = tuple(sorted((s for s in self.seats if s.at_start), key=lambda s: s.seat))
        object.__setattr__(self, "_starters", starters)
        object.__setattr__(self, "_players", tuple(s.player for s in starters))

    @classmethod
    def of(
        cls,
        kind: GameKind,
        system: str,
        players: Sequence[str],
        scores: Sequence[int],
        *,
        seating: SeatingMode = "random_queue",
        winners: Sequence[int] = (),
        completed: bool = True,
        progress: float = 1.0,
        departures: Sequence[Departure] = (),
        first_disconnect: str | None = None,
        robots: Sequence[int] = (),
        hands: int = 0,
    ) -> GameResult:
        """Build a result for four starting players given in seat order (``robots``: seats)."""
        seats = tuple(
            Seat(seat, player, "robot" if seat in robots else "human")
            for seat, player in enumerate(players)
        )
        return cls(kind, system, seating, seats, tuple(scores), tuple(winners), completed,
                   progress, tuple(departures), first_disconnect, hands)

    # Who sat where

    @property
    def starters(self) -> tuple[Seat, ...]:
        """The starting occupant of each seat, in seat order 0..3."""
        return self._starters

    @property
    def players(self) -> tuple[str, ...]:
        """The starting players in seat order: the players a result is about."""
        return self._players

    @property
    def robot_at_start(self) -> bool:
        """True when a robot held a seat when the game began (such a game is not rated)."""
        return any(s.kind == "robot" for s in self.starters)

    def seat_of(self, player: str) -> int:
        """The seat a starting player held."""
        for s in self._starters:
            if s.player == player:
                return s.seat
        raise InvalidResult(f"player {player!r} did not start this game")

    def starter(self, player: str) -> Seat:
        """The starting seat record of ``player``."""
        return self._starters[self.seat_of(player)]

    def opponents(self, player: str) -> tuple[str, ...]:
        """In Spades the two players of the other side; in Hearts the three others."""
        seat = self.seat_of(player)
        if self.kind == "spades":
            return tuple(self.players[s] for s in SIDES[1 - seat % 2])
        return tuple(p for p in self.players if p != player)

    def partner(self, player: str) -> str | None:
        """The Spades partner (seat opposite), or ``None`` in Hearts."""
        if self.kind != "spades":
            return None
        return self.players[(self.seat_of(player) + 2) % 4]

    # Who left

    def departure_of(self, player: str) -> Departure | None:
        """How ``player`` left, or ``None`` when they stayed to the end."""
        return next((d for d in self.departures if d.player == player), None)

    def left(self, player: str) -> bool:
        """True when ``player`` left before the end and did not come back."""
        return self.departure_of(player) is not None

    def left_before(self, player: str) -> tuple[str, ...]:
        """The players who left before ``player`` did (all leavers if ``player`` stayed)."""
        order = [d.player for d in self.departures]
        return tuple(order[: order.index(player)] if player in order else order)

    @property
    def responsible(self) -> str | None:
        """Who is responsible for the first disconnection, if anyone left."""
        if self.first_disconnect is not None:
            return self.first_disconnect
        return self.departures[0].player if self.departures else None

    # Who won

    def winning_side(self) -> int | None:
        """Spades: 0 (seats 0 and 2) or 1 (seats 1 and 3) won, ``None`` for a tie."""
        if self.winners:
            return self.winners[0] % 2
        north_south, east_west = self.scores[0], self.scores[1]
        if north_south == east_west:
            return None
        return 0 if north_south > east_west else 1

    def score_against(self, player: str, opponent: str) -> float:
        """Elo's actual score of ``player`` against ``opponent``: 1 beat, ½ tied, 0 lost.

        Spades compares the sides; Hearts compares the two final scores, lower
        winning.
        """
        a, b = self.seat_of(player), self.seat_of(opponent)
        if self.kind == "spades":
            side = self.winning_side()
            if side is None or a % 2 == b % 2:
                return 0.5
            return 1.0 if a % 2 == side else 0.0
        if self.scores[a] == self.scores[b]:
            return 0.5
        return 1.0 if self.scores[a] < self.scores[b] else 0.0

    def outcome_of(self, player: str) -> PlayerOutcome:
        """The player's result as the stats count it: win, loss or tie.

        Spades: the side's result. Hearts: a win for the lowest score alone, a
        tie when the lowest score is shared, else a loss.
        """
        seat = self.seat_of(player)
        if self.kind == "spades":
            side = self.winning_side()
            if side is None:
                return "tie"
            return "win" if seat % 2 == side else "loss"
        low = min(self.scores)
        if self.scores[seat] != low:
            return "loss"
        return "win" if self.scores.count(low) == 1 else "tie"


def _check(r: GameResult) -> None:
    """Raise the typed error naming the first thing that makes ``r`` unratable."""
    if r.kind not in GAME_KINDS:
        raise InvalidResult(f"unknown game kind {r.kind!r}; expected one of {GAME_KINDS}")
    if r.seating not in SEATING_MODES:
        raise InvalidResult(f"unknown seating mode {r.seating!r}; expected one of {SEATING_MODES}")
    if not r.system:
        raise InvalidResult("the result names no rating system")
    _check_seats(r)
    if len(r.scores) != 4:
        raise InvalidResult(f"expected four scores, one per seat, got {len(r.scores)}")
    if not (isinstance(r.progress, int | float) and math.isfinite(r.progress)
            and 0.0 <= r.progress <= 1.0):
        raise InvalidResult(f"progress must be a fraction of the target in 0..1, got {r.progress}")
    if not (isinstance(r.hands, int) and r.hands >= 0):
        raise InvalidResult(
            f"hands must be a count of hands played (0: not known), got {r.hands!r}")
    if r.kind == "spades":
        _check_spades(r)
    else:
        _check_hearts(r)
    _check_departures(r)


def _check_seats(r: GameResult) -> None:
    where: dict[str, int] = {}
    for s in r.seats:
        if s.seat not in range(4):
            raise InvalidResult(f"seat {s.seat} of player {s.player!r} is not one of 0..3")
        if not s.player:
            raise InvalidResult(f"seat {s.seat} has an empty player id")
        if s.kind not in SEAT_KINDS:
            raise InvalidResult(f"seat {s.seat} has unknown kind {s.kind!r}")
        if s.kind == "human" and not s.at_start:
            raise InvalidResult(
                f"player {s.player!r} joined seat {s.seat} after the start: list them as a "
                "substitute or robot")
        if s.player in where:
            first = where[s.player]
            raise PlayerInTwoSeats(
                f"player {s.player!r} is listed twice, in seat {first} and seat {s.seat}"
                if first != s.seat else f"player {s.player!r} is listed twice in seat {s.seat}")
        where[s.player] = s.seat
    starting = sorted(s.seat for s in r.seats if s.at_start)
    if starting != [0, 1, 2, 3]:
        problem = f"seats with a starting player are {starting}, need exactly one in each of 0..3"
        if r.kind == "spades":
            raise NotTwoTeams(f"a Spades result needs two teams of two: {problem}")
        raise InvalidResult(problem)


def _check_spades(r: GameResult) -> None:
    for a, b in SIDES:
        if r.scores[a] != r.scores[b]:
            raise NotTwoTeams(
                f"partners in seats {a} and {b} must share their side's score, "
                f"got {r.scores[a]} and {r.scores[b]}")
    if r.winners:
        if tuple(sorted(r.winners)) not in SIDES:
            raise NotTwoTeams(
                f"winners {tuple(r.winners)} are not a partnership: seats 0 and 2, or 1 and 3")
        side = r.winners[0] % 2
        if r.scores[side] <= r.scores[1 - side]:
            raise InvalidResult(
                f"winners {tuple(sorted(r.winners))} scored {r.scores[side]}, not more than "
                f"the other side's {r.scores[1 - side]}")


def _check_hearts(r: GameResult) -> None:
    if r.winners:
        low = min(r.scores)
        lowest = tuple(s for s in range(4) if r.scores[s] == low)
        if tuple(sorted(r.winners)) != lowest:
            raise InvalidResult(
                f"Hearts winners must be the lowest scores {lowest}, got {tuple(r.winners)}")


def _check_departures(r: GameResult) -> None:
    starters = {s.player for s in r.seats if s.at_start}
    seen: set[str] = set()
    for d in r.departures:
        if d.player not in starters:
            raise InvalidResult(f"departure of {d.player!r}, who did not start this game")
        if d.player in seen:
            raise InvalidResult(f"player {d.player!r} departs twice")
        if d.how not in LEAVE_KINDS:
            raise InvalidResult(f"departure of {d.player!r} has unknown kind {d.how!r}")
        seen.add(d.player)
    if r.first_disconnect is not None and r.first_disconnect not in starters:
        raise InvalidResult(
            f"first disconnection charged to {r.first_disconnect!r}, who did not start this game")
