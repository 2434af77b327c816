"""Weng-Lin (OpenSkill): a Bayesian rating with an uncertainty, through ``openskill``.

Each player's skill is a Gaussian, ``mu`` (shown as the rating) and ``sigma``
(how sure the system is). A game updates both, moving a new or surprising
player a lot and a well-known player little; ``beta`` is the spread of one
game's performance around skill, which is where card-game luck goes (more
luck: larger beta, smaller updates, flatter predictions), and ``tau`` lets
sigma grow a little each game so ratings can follow a player who improves.
``luck`` widens the predictions alone (``win_probability``), as a multiple of
the spread the update assumes: the update's model need not be the best
predictor, and a room's refit (``ratings.refit``) fits both.
This is the "better system" beside the faithful ones: unlike a fixed K, the
step shrinks as evidence accumulates.

The numbers are the openskill defaults scaled by 60 (mu 1500 instead of 25) so
ratings read like the other systems'. Spades rates the two partnerships as
teams; Hearts rates the four players' finishing order (lower score is better,
equal scores share a place).

Leavers: only a completed game is rated. A player who left is ranked last, as
a team of their own, so a quitter cannot profit from a partner who goes on to
win, and the partner is rated on the real result. An unfinished game rates no
one (the stats still charge the leaver an incomplete game).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from openskill.models import BradleyTerryFull, PlackettLuce, ThurstoneMostellerFull

from trickroom.i18n import Msg
from trickroom.ratings.change import Rating, RatingChange, Term, num, skill_change
from trickroom.ratings.fourway import hearts_from_pairs, plackett_luce, thurstone
from trickroom.ratings.result import SIDE_NAMES, SIDES, GameKind, GameResult
from trickroom.ratings.system import RatesWithTheGame, lineup_ratings, unless_finished

ModelName = Literal["plackett_luce", "thurstone_mosteller", "bradley_terry"]
_MODELS: dict[str, Any] = {
    "plackett_luce": PlackettLuce,
    "thurstone_mosteller": ThurstoneMostellerFull,
    "bradley_terry": BradleyTerryFull,
}
ELO_PER_BETA = 400.0 * 1.702 / (math.sqrt(2.0) * math.log(10.0))
"""Elo points for a skill gap of one ``beta`` (about 209): see :meth:`WengLin.shown`."""

_MODEL_WORDS = {
    "plackett_luce": "Plackett-Luce",
    "thurstone_mosteller": "Thurstone-Mosteller",
    "bradley_terry": "Bradley-Terry",
}


@dataclass(frozen=True)
class WengLin(RatesWithTheGame):
    """A Weng-Lin model with its constants; ``WengLin()`` is openskill's defaults × 60."""

    name: str = "openskill"
    mu: float = 1500.0
    sigma: float = 500.0
    beta: float = 250.0
    tau: float = 5.0
    model: ModelName = "plackett_luce"
    floor: float | None = None
    shown_sigmas: float = 1.0  # how conservative the shown number is: mu − this × sigma
    luck: float = 1.0  # predictions' spread of a game's result, a multiple of the update's

    @property
    def start_rating(self) -> Rating:
        return Rating(self.mu, self.sigma)

    # The number a player reads

    def shown(self, rating: Rating) -> float:
        """The skill on Elo's familiar scale, conservative, from 1500 and within [0, 3000].

        ``mu − k sigma`` (``k`` is ``shown_sigmas``) is measured from a new
        player's and converted to Elo points: a skill gap ``d`` gives a
        one-against-one chance of about ``Φ(d / (√2 b))``, ``b`` being beta
        widened by ``luck`` as the predictions are, which Elo gives to a gap of
        ``d × ELO_PER_BETA / b`` (the logistic that best matches the normal,
        ``Φ(z) ≈ 1 / (1 + e^{−1.702 z})``). So 400 shown points are about
        10-to-1 odds in every preset whatever its beta, a new player shows
        1500, and a player gains shown points both by winning and by becoming
        known. The value is clamped to [0, 3000]; ``Rating.value`` keeps ``mu``.

        >>> system = WengLin()
        >>> system.shown(system.start_rating)
        1500.0
        >>> round(system.shown(Rating(1750.0, 500.0)))  # one beta of skill above a newcomer
        1709
        """
        k = self.shown_sigmas
        sigma = rating.sigma or self.sigma
        gap = (rating.value - k * sigma) - (self.mu - k * self.sigma)
        return min(max(1500.0 + gap * ELO_PER_BETA / (self.beta * self.luck), 0.0), 3000.0)

    @cached_property
    def _model(self) -> Any:
        return _MODELS[self.model](mu=self.mu, sigma=self.sigma, beta=self.beta, tau=self.tau)

    def _skill(self, rating: Rating) -> Any:
        """openskill's rating for ours; a rating without an uncertainty gets the prior's."""
        return self._model.rating(mu=rating.value, sigma=rating.sigma or self.sigma)

    # Rating a game

    def rate(self, result: GameResult, ratings: Mapping[str, Rating]) -> list[RatingChange]:
        """Every starting human's new skill, from the order the game finished in."""
        humans = [s.player for s in result.starters if s.is_rated_human]
        skipped = unless_finished(self.name, result, ratings, humans)
        if skipped is not None:
            return skipped
        teams, ranks, words = self._teams(result)
        chance = self._chances(teams, ratings)
        new = self._model.rate([[self._skill(ratings[p]) for p in team] for team in teams],
                               ranks=ranks)
        after = {p: Rating(float(r.mu), float(r.sigma))
                 for team, rated in zip(teams, new, strict=True)
                 for p, r in zip(team, rated, strict=True)}
        how = Msg("Weng-Lin ({model}), beta {beta}, tau {tau}", model=_MODEL_WORDS[self.model],
                  beta=num(self.beta), tau=num(self.tau))
        return [skill_change(result, p, ratings[p], after[p],
                             spread=ratings[p].sigma or self.sigma, chance=chance[p],
                             reading=Term(words[p], None), model=Term(how, self.beta))
                for p in humans]

    def _teams(self, result: GameResult
               ) -> tuple[list[list[str]], list[float], dict[str, str]]:
        """The teams openskill rates, their ranks (lower is better) and each player's words."""
        teams: list[list[str]] = []
        ranks: list[float] = []
        words: dict[str, str] = {}
        leavers = [d.player for d in result.departures]
        if result.kind == "spades":
            side = result.winning_side()
            for i, seats in enumerate(SIDES):
                team = [result.players[s] for s in seats if result.players[s] not in leavers]
                if team:
                    teams.append(team)
                    ranks.append(1.0 if side in (None, i) else 2.0)
                    verdict = (Msg("{side} tied", side=SIDE_NAMES[i]) if side is None else
                               Msg("{side} won", side=SIDE_NAMES[i]) if side == i else
                               Msg("{side} lost", side=SIDE_NAMES[i]))
                    for p in team:
                        words[p] = verdict
        else:
            for seat, p in enumerate(result.players):
                if p not in leavers:
                    teams.append([p])
                    ranks.append(float(result.scores[seat]))
                    words[p] = Msg("finished on {score} points", score=result.scores[seat])
        last = max(ranks, default=0.0) + 1.0
        for p in leavers:
            teams.append([p])
            ranks.append(last)
            words[p] = Msg("left before the end: ranked last")
        return teams, ranks, words

    def _chances(self, teams: list[list[str]], ratings: Mapping[str, Rating]
                 ) -> dict[str, float]:
        """Each player's team's chance of finishing first, before the game."""
        odds = self._model.predict_win([[self._skill(ratings[p]) for p in team]
                                        for team in teams])
        return {p: float(o) for team, o in zip(teams, odds, strict=True) for p in team}

    # Expectation

    def win_probability(self, kind: GameKind, players: Sequence[str],
                        ratings: Mapping[str, Rating]) -> tuple[float, ...]:
        """openskill's ``predict_win`` for the two sides in Spades; in Hearts, Plackett–Luce
        on its two-player chances (:mod:`ratings.fourway`)."""
        lineup = lineup_ratings(self.name, kind, players, ratings)
        if kind == "spades":
            return self.spades_chances(lineup)
        return self.hearts_chances(lineup)

    def spades_chances(self, lineup: Sequence[Rating]) -> tuple[float, float]:
        """North-South's and East-West's chances: openskill's ``predict_win`` for the two
        sides, its spread widened by ``luck``.

        Thurstone-Mosteller: ``Φ(Δ / (luck × √(2 beta² + Σ sigma²)))``, ``Δ`` the
        sides' summed skills' difference (openskill's own rule when ``luck`` is 1);
        the logistic models: openskill's log-odds divided by ``luck``.
        """
        if self.luck != 1.0 and self.model == "thurstone_mosteller":
            gap = lineup[0].value + lineup[2].value - lineup[1].value - lineup[3].value
            spread = math.sqrt(2 * self.beta ** 2 + sum((r.sigma or self.sigma) ** 2
                                                        for r in lineup))
            north_south = 0.5 * math.erfc(-gap / (self.luck * spread * math.sqrt(2.0)))
            return (north_south, 1.0 - north_south)
        r = [self._skill(x) for x in lineup]
        north_south = self._widen(float(self._model.predict_win([[r[0], r[2]],
                                                                 [r[1], r[3]]])[0]))
        return (north_south, 1.0 - north_south)

    def _widen(self, chance: float) -> float:
        """A logistic chance with its log-odds divided by ``luck``."""
        if self.luck == 1.0 or not 0.0 < chance < 1.0:
            return chance
        return 1.0 / (1.0 + math.exp(-math.log(chance / (1.0 - chance)) / self.luck))

    def hearts_chances(self, lineup: Sequence[Rating]) -> tuple[float, ...]:
        """Four players' chances of the best finish under the model the ratings are updated with.

        Plackett-Luce: strengths ``mu / c`` with ``c = √Σ(sigma² + beta²)``, as
        openskill's update assumes. Thurstone-Mosteller: each performance
        normal around ``mu`` with variance ``sigma² + beta²``
        (:func:`ratings.fourway.thurstone`). Bradley-Terry: Plackett-Luce read
        from the pairwise chances (:func:`ratings.fourway.hearts_from_pairs`).
        """
        sigmas = [r.sigma or self.sigma for r in lineup]
        if self.model == "plackett_luce":
            c = math.sqrt(sum(s * s + self.beta ** 2 for s in sigmas)) * self.luck
            return plackett_luce([r.value / c for r in lineup])
        if self.model == "thurstone_mosteller":
            return thurstone([r.value for r in lineup],
                             [math.sqrt(s * s + self.beta ** 2) * self.luck for s in sigmas])
        return hearts_from_pairs(lambda a, b: self.pair_chance(lineup[a], lineup[b]))

    def pair_chance(self, own: Rating, opponent: Rating) -> float:
        """openskill's chance that ``own`` beats ``opponent`` one against one (its log-odds
        divided by ``luck``)."""
        return self._widen(float(self._model.predict_win([[self._skill(own)],
                                                          [self._skill(opponent)]])[0]))


OPENSKILL = WengLin()
