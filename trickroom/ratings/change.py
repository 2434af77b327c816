"""What a rating system returns: ratings, rating changes, and the terms that explain them.

A :class:`RatingChange` is shown to the player it affects in the game review, so
besides ``before``, ``after`` and ``delta`` it carries an ordered ``breakdown``:
:class:`Term` values, each a phrase with its number in it ("K 25", "expected
1.02 against B and D", "floor 100 applied") and the number itself for a client
that wants to lay it out differently.

>>> c = RatingChange("A", Rating(1512), Rating(1536.39), (Term("K 25", 25),), "win")
>>> round(c.delta, 2), str(c.breakdown[0])
(24.39, 'K 25')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from trickroom.i18n.message import Listing, Msg, Number
from trickroom.ratings.result import GameResult, PlayerOutcome


@dataclass(frozen=True, slots=True)
class Rating:
    """One player's rating in one system for one game kind.

    ``value`` is the number shown on the leaderboard. ``sigma`` is the
    uncertainty of a Bayesian system (Weng-Lin); Elo-like systems leave it 0.
    """

    value: float
    sigma: float = 0.0

    def to_wire(self) -> dict[str, float]:
        return {"value": self.value, "sigma": self.sigma}


@dataclass(frozen=True, slots=True)
class Term:
    """One step of a rating calculation: the words with the number, and the number."""

    text: str
    value: float | None = None

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class RatingChange:
    """How one game moved one player's rating, and why.

    ``rated`` is False when the game did not count for this player (a robot at
    the start, a Zone "Don't wait" vote, an unfinished game); ``before`` and
    ``after`` are then equal and the breakdown says why. ``outcome`` is the
    result the system rated the player on (a quitter's forfeit is a loss), or
    ``None`` when unrated; the stats count it.
    """

    player: str
    before: Rating
    after: Rating
    breakdown: tuple[Term, ...]
    outcome: PlayerOutcome | None = None
    rated: bool = True

    @property
    def delta(self) -> float:
        """The change of the shown rating, ``after - before``."""
        return self.after.value - self.before.value

    def to_wire(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "before": self.before.to_wire(),
            "after": self.after.to_wire(),
            "delta": self.delta,
            "rated": self.rated,
            "outcome": self.outcome,
            "breakdown": [{"text": t.text, "value": t.value} for t in self.breakdown],
        }


def unrated(player: str, rating: Rating, why: str) -> RatingChange:
    """A change that leaves the rating as it was, saying why the game did not count."""
    return RatingChange(player, rating, rating, (Term(Msg("not rated: {why}", why=why)),),
                        None, False)


def skill_change(result: GameResult, player: str, before: Rating, after: Rating, *,
                 spread: float, chance: float, reading: Term, model: Term) -> RatingChange:
    """A skill system's change (Weng-Lin, the final-score model), in the five terms they show.

    The skill before, ± ``spread`` (the uncertainty the game was rated from);
    the chance of winning before the game; ``reading``, what the game said of
    the player; ``model``, the model and its constants; the skill after. A
    player who left is rated on a loss.
    """
    terms = (
        Term(Msg("skill {before} ± {spread} before", before=num(before.value),
                 spread=num(spread)), before.value),
        Term(Msg("chance of winning {chance} before the game", chance=num(chance)), chance),
        reading,
        model,
        Term(Msg("skill {after} ({change}) ± {sigma} after", after=num(after.value),
                 change=signed(after.value - before.value), sigma=num(after.sigma)), after.value),
    )
    outcome = "loss" if result.left(player) else result.outcome_of(player)
    return RatingChange(player, before, after, terms, outcome)


def num(x: float, places: int = 2) -> Number:
    """A number as a player reads it: at most ``places`` decimals, a true minus sign (in
    English; each language formats it its own way).

    >>> num(1489.5), num(1.02447), num(25.0), num(-0.75), num(-0.0001), num(20.0, 0)
    ('1489.5', '1.02', '25', '−0.75', '0', '20')
    """
    return Number(x, places)


def signed(x: float, places: int = 2) -> Number:
    """A change with its sign: ``+24.39``, ``−8``, ``0``.

    >>> signed(24.389), signed(-8.0), signed(0.0)
    ('+24.39', '−8', '0')
    """
    return Number(x, places, signed=True)


def rated_list(ratings: Mapping[str, Rating], players: Iterable[str]) -> Listing:
    """Players each with their rating, as a list (``B 1500, D 1489.5``; each number in
    the reader's format).

    >>> rated_list({"B": Rating(1500), "D": Rating(1489.5)}, "BD")
    'B 1500, D 1489.5'
    """
    return Listing([Msg("{player} {rating}", player=p, rating=num(ratings[p].value))
                    for p in players], "comma")
