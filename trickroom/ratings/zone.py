"""Zone: the MSN Gaming Zone's rated Spades and Hearts (seed pages 000 and 002).

Every game is a set of matches between a player and an opponent rating ``R2``::

    f   = max(min((R2 - R1) / 400, 1), -1)
    win:  R1 + max(16 (1 + f), 1)      # at least one point, at most 32
    loss: R1 + min(16 (-1 + f), -1)    # at least one point lost
    tie:  R1 + 16 f

In Spades there is one match, against the average of the two opponents. In
Hearts there are three, one against each opponent by final score (lower wins,
equal ties), and the new rating is the average of the three results. Ratings
start at 1600 and never fall below 100.

Zone rates only complete games between four people: a robot at the start makes
the game unrated, and when a player leaves, the "Don't wait" vote leaves the
others unrated and charges the leaver an incomplete game (the stats do that).

The win probability is the expectation the formula implies: a win pays
``16 (1 + f)`` and a loss costs ``16 (1 - f)``, which break even when the chance
of winning is ``(1 - f) / 2``: a straight line in the rating gap, reaching
certainty at 400 points.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from trickroom.i18n import Listing, Msg
from trickroom.ratings.change import (
    Rating,
    RatingChange,
    Term,
    num,
    rated_list,
    signed,
    unrated,
)
from trickroom.ratings.result import GameKind, GameResult, PlayerOutcome
from trickroom.ratings.system import (
    RatesWithTheGame,
    ShownAsRated,
    chances_from_pairs,
    check_rateable,
    unrated_reason,
)

_OUTCOME: dict[float, PlayerOutcome] = {1.0: "win", 0.5: "tie", 0.0: "loss"}


@dataclass(frozen=True)
class Zone(RatesWithTheGame, ShownAsRated):
    """The Zone formula with its constants; ``Zone()`` is the faithful preset."""

    name: str = "zone"
    start: float = 1600.0
    floor: float | None = 100.0
    step: float = 16.0  # half the most a game can move a rating
    spread: float = 400.0  # rating gap at which f reaches ±1
    minimum: float = 1.0  # least a win gains and a loss costs

    @property
    def start_rating(self) -> Rating:
        return Rating(self.start)

    # The match formula

    def f(self, own: float, opponent: float) -> float:
        """``(R2 - R1) / 400`` clamped to [-1, 1]."""
        return max(min((opponent - own) / self.spread, 1.0), -1.0)

    def match(self, own: float, opponent: float, score: float) -> tuple[float, list[Term]]:
        """The rating change of one match (``score`` 1, ½ or 0) and the terms explaining it."""
        raw = (opponent - own) / self.spread
        f = self.f(own, opponent)
        said = Msg("f = ({opponent} − {own}) / {spread} = {f}", opponent=num(opponent),
                   own=num(own), spread=num(self.spread), f=num(raw, 3))
        if f != raw:
            said = Msg("{said}, clamped to {f}", said=said, f=num(f))
        terms = [Term(said, f)]
        if score == 1.0:
            delta = self.step * (1 + f)
            terms.append(Term(Msg("won: {step} × (1 + {f}) = {delta}", step=num(self.step),
                                  f=num(f, 3), delta=signed(delta)),
                              delta))
            if delta < self.minimum:
                delta = self.minimum
                terms.append(Term(Msg("minimum of {minimum} point applied: {delta}",
                                      minimum=num(self.minimum), delta=signed(delta)), delta))
        elif score == 0.0:
            delta = self.step * (-1 + f)
            terms.append(Term(Msg("lost: {step} × (−1 + {f}) = {delta}", step=num(self.step),
                                  f=num(f, 3), delta=signed(delta)),
                              delta))
            if delta > -self.minimum:
                delta = -self.minimum
                terms.append(Term(Msg("minimum of {minimum} point applied: {delta}",
                                      minimum=num(self.minimum), delta=signed(delta)), delta))
        else:
            delta = self.step * f
            terms.append(Term(Msg("tied: {step} × {f} = {delta}", step=num(self.step),
                                  f=num(f, 3), delta=signed(delta)), delta))
        return delta, terms

    def _floored(self, new: float, terms: list[Term]) -> float:
        if self.floor is not None and new < self.floor:
            terms.append(Term(Msg("floor {floor} applied", floor=num(self.floor)), self.floor))
            return self.floor
        return new

    # Rating a game

    def rate(self, result: GameResult, ratings: Mapping[str, Rating]) -> list[RatingChange]:
        """Each starting human's change; all unrated if the game does not count for Zone."""
        check_rateable(self.name, result, ratings)
        humans = [s.player for s in result.starters if s.is_rated_human]
        why = unrated_reason(result)
        if why is None and result.departures:
            return [self._leaver_or_remaining(result, p, ratings[p]) for p in humans]
        if why is None and not result.completed:
            why = Msg("the game was not completed")
        if why is not None:
            return [unrated(p, ratings[p], why) for p in humans]
        rate_one = self._spades_player if result.kind == "spades" else self._hearts_player
        return [rate_one(result, p, ratings) for p in humans]

    def _leaver_or_remaining(self, result: GameResult, player: str, rating: Rating
                             ) -> RatingChange:
        first = result.departures[0]
        if result.left(player):
            return unrated(player, rating,
                           Msg("left before the end: charged an incomplete game"))
        if first.vote == "dont_wait":
            return unrated(player, rating,
                           Msg("{player} left and the table voted Don't wait",
                               player=first.player))
        return unrated(player, rating, Msg("{player} left and the game was not completed",
                                           player=first.player))

    def _spades_player(self, result: GameResult, player: str, ratings: Mapping[str, Rating]
                       ) -> RatingChange:
        own = ratings[player].value
        opponents = result.opponents(player)
        opp = sum(ratings[o].value for o in opponents) / 2
        score = result.score_against(player, opponents[0])
        terms = [
            Term(Msg("rating {before} before", before=num(own)), own),
            Term(Msg("opponents' average {average} ({ratings})", average=num(opp),
                     ratings=rated_list(ratings, opponents)),
                 opp),
        ]
        delta, match_terms = self.match(own, opp, score)
        terms += match_terms
        new = self._floored(own + delta, terms)
        terms.append(Term(Msg("new rating {after}", after=num(new)), new))
        return RatingChange(player, ratings[player], Rating(new), tuple(terms), _OUTCOME[score])

    def _hearts_player(self, result: GameResult, player: str, ratings: Mapping[str, Rating]
                       ) -> RatingChange:
        own = ratings[player].value
        terms = [Term(Msg("rating {before} before", before=num(own)), own)]
        results: list[float] = []
        for opponent in result.opponents(player):
            opp = ratings[opponent].value
            score = result.score_against(player, opponent)
            delta, match_terms = self.match(own, opp, score)
            steps = match_terms[0].text
            for t in match_terms[1:]:
                steps = Msg("{steps}; {step}", steps=steps, step=t.text)
            terms.append(Term(Msg("against {opponent} {rating}: {steps} → {after}",
                                  opponent=opponent, rating=num(opp), steps=steps,
                                  after=num(own + delta)), own + delta))
            results.append(own + delta)
        mean = sum(results) / len(results)
        terms.append(Term(Msg("average of the three: ({results}) / 3 = {mean}",
                              results=Listing([num(r) for r in results], "sum"), mean=num(mean)),
                          mean))
        new = self._floored(mean, terms)
        return RatingChange(player, ratings[player], Rating(new), tuple(terms),
                            result.outcome_of(player))

    # Expectation

    def pair_probability(self, own: float, opponent: float) -> float:
        """The chance ``own`` beats ``opponent`` implied by the formula: ``(1 - f) / 2``."""
        return (1.0 - self.f(own, opponent)) / 2.0

    def win_probability(self, kind: GameKind, players: Sequence[str],
                        ratings: Mapping[str, Rating]) -> tuple[float, ...]:
        """Zone's linear expectation per side in Spades (team averages); in Hearts, its
        logistic twin :meth:`pair_logistic` read into Plackett-Luce (:mod:`ratings.fourway`)."""
        if kind == "spades":
            return chances_from_pairs(self.name, kind, players, ratings, self.pair_probability)
        return chances_from_pairs(self.name, kind, players, ratings, self.pair_logistic)

    def pair_logistic(self, own: float, opponent: float) -> float:
        """The logistic curve the line ``(1 - f) / 2`` is the tangent of at an even match.

        ``1 / (1 + e^{-2 (own - opponent) / spread})``: the same chance for a small
        gap, but never certain. A four-way model built on the line itself would
        call any game with a 400-point gap certain.
        """
        return 1.0 / (1.0 + math.exp(-2.0 * (own - opponent) / self.spread))


ZONE = Zone()
