"""Small builders so the rating tests read like the seed pages' examples."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from trickroom.ratings import Departure, GameResult, Rating, RatingChange
from trickroom.ratings.result import SeatingMode

SCORES = {"NS": (500, 300, 500, 300), "EW": (300, 500, 300, 500), "tie": (400, 400, 400, 400)}


def at(**values: float) -> dict[str, Rating]:
    """Ratings by player name: ``at(A=1512, B=1562)``."""
    return {player: Rating(value) for player, value in values.items()}


def spades(system: str, players: Sequence[str], winners: str, *,
           seating: SeatingMode = "random_queue", completed: bool = True,
           progress: float = 1.0, departures: Sequence[Departure] = (),
           first_disconnect: str | None = None, robots: Sequence[int] = ()) -> GameResult:
    """A Spades result; ``winners`` is "NS" (seats 0 and 2), "EW" (1 and 3) or "tie"."""
    return GameResult.of("spades", system, players, SCORES[winners], seating=seating,
                         completed=completed, progress=progress, departures=departures,
                         first_disconnect=first_disconnect, robots=robots)


def hearts(system: str, scores: Mapping[str, int], *, completed: bool = True,
           progress: float = 1.0, departures: Sequence[Departure] = (),
           seating: SeatingMode = "random_queue", robots: Sequence[int] = ()) -> GameResult:
    """A Hearts result from final scores by player, in seat order."""
    return GameResult.of("hearts", system, list(scores), list(scores.values()),
                         completed=completed, progress=progress, departures=departures,
                         seating=seating, robots=robots)


def deltas(changes: Sequence[RatingChange]) -> dict[str, float]:
    """Each player's change, by name."""
    return {c.player: c.delta for c in changes}


def texts(change: RatingChange) -> list[str]:
    """The breakdown as the review shows it."""
    return [t.text for t in change.breakdown]
