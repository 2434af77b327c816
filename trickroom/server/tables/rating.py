"""The bridge from a game to the ratings: who played, who left, and what the game says.

``game`` and ``ratings`` never import each other (DESIGN section 3): the
game's :class:`~game.outcome.Outcome` holds what the game knows, and this
module adds what only the table knows (who sat where, substitutes, leavers,
the seating mode) to make the ratings' ``GameResult``. Pure, like both sides.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime

from trickroom.game.outcome import Outcome
from trickroom.ratings import Departure, GameResult, NilRecord, Seat, Standing


def game_result(kind: str, system: str, seating: str, starters: list[str],
                substitutes: list[tuple[int, str]], outcome: Outcome,
                departures: list[Departure], first_disconnect: str | None) -> GameResult:
    """The ratings' view of a game: starters, substitutes, scores, leavers, nil records."""
    seats = [Seat(i, name, "human", True, NilRecord(**asdict(outcome.nil[i])))
             for i, name in enumerate(starters)]
    seats += [Seat(i, name, "substitute", False) for i, name in substitutes]
    return GameResult(kind, system, seating, tuple(seats),  # type: ignore[arg-type]
                      tuple(outcome.seat_scores), tuple(outcome.winners), outcome.finished,
                      outcome.progress, tuple(departures), first_disconnect,
                      outcome.hands_played)


def when(ts: float) -> str:
    """A ban's end as players read it."""
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M UTC")


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
        return RankedState(dict(self.standings), list(self.departures), self.first_disconnect,
                           set(self.already_rated), self.end_after, set(self.open_seats))
