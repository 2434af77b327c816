"""Ratings learned from the final scores, not only from who won: a Gaussian score model.

Every other system here learns one bit a game, who won. A game's final
scores say much more: a side that wins 520 to −210 has shown more than one
that wins 505 to 480, and in Hearts all four scores order and space the
players. This system models those scores and updates every player's skill by
Bayes' rule, as a Kalman filter does.

The model. Player ``i`` has a skill ``x_i``, a normal belief ``N(mu_i,
sigma_i²)`` (``Rating(value=mu, sigma=sigma)``), measured from a newcomer's
``mu``. A side's score (in Spades a partnership's points a hand, in Hearts a
player's final score) is

    score = par + points × (own skill − rho × opponents' skill) + noise,

``own skill`` being the sum of the side's players' skills, ``opponents'``
the sum of the others', ``noise`` normal with spread ``beta`` and
independent between sides. In Hearts the sign is reversed (a lower score is
better). ``par`` is the final score of a side of newcomers; ``rho`` says how
much stronger opponents hold a side's score down (in Spades they take its
tricks and set its bids; in Hearts they pass it points); ``points`` converts
rating points into the game's points. The scores are linear in the skills with
Gaussian noise, so the belief after a game is again Gaussian and is computed
exactly (the joint update of the four players, kept per player as a mean and
a spread): a player moves in proportion to how far the scores were from what
was expected and to how unsure the system was of them.

On whole games between robots of known skill (``bench/ratings_real.py``) a
side's score depends on its own skill about five times as much as on its
opponents' (Spades ``rho`` about 0.2, Hearts about 0.3), and the two sides'
surprises are nearly independent: the model fits, and the sum of the sides'
scores tells something about both sides that the margin alone does not.

Spades is read a hand at a time. A Spades game ends when a side reaches the
target or falls to the mercy floor, so a final score says as much about how
long the game lasted as about the sides: a weak side's final scores pile up
at the floor whatever its opponents, and a winner's at the target. Its points
a hand do not: over ``H`` hands a side's final score is the sum of ``H`` hand
scores, so its points a hand are ``par + points × (…)`` with noise
``beta / √H`` (``beta`` being the spread of one hand), and a longer game is
more evidence. On the real games this predicted Spades a fifth of the way
closer to the oracle than the final scores did (1.03 × the oracle's log-loss
against 1.05), with the spread of a side's points a hand about the same at
every level of skill (where a final score's spread was 2.5 times as wide for a
strong side as for a weak one). A result that does not say how many hands it
took is read over ``spades_hands``, a typical game's, which is also the length
a prediction assumes (the median real game). A Hearts game is read whole:
every player plays the same hands and the lowest total wins, and reading its
scores a hand predicted worse there (1.055 against 1.017).

Chances. A side wins when its score beats the other's. The difference of two
sides' scores is normal, so North–South wins with chance
``Φ(points (1 + rho) Δ / (luck √(2 beta² / H + (points (1 + rho))² Σ sigma²)))``
(``H`` a typical game's hands, ``spades_hands``; 1 in Hearts),
``Δ`` the difference of the sides' summed skills (``par`` cancels). In Hearts
the lowest score wins; ranking the scores is ranking the independent normal
performances ``points (1 + rho) x_i − noise_i`` (the opponents' term is common
to every player), so the chances are Thurstonian order statistics
(:func:`ratings.fourway.thurstone`). ``luck`` widens the predictions alone:
final scores are not quite normal (a winner's score piles up at the target),
and a refit fits it.

The constants are per game (``spades_*``, ``hearts_*``) in that game's own
points (a hand in Spades), but for ``sigma``, ``luck`` and ``tau``. ``points`` is fixed per game
(not fitted: it only sets the unit) so that at the preset's constants 400
rating points are about 10-to-1 odds, as in Elo.

Leavers: only a completed game is rated. A player who left is rated as if
every other side had scored as expected and their own side (in Hearts, they)
one spread of the game's score (``beta / √H``) worse than expected, or worse
still if the real score was: a quitter
always loses rating and cannot profit from a partner or a robot who played
on. Everyone else is rated on the real scores.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from trickroom.i18n import Msg
from trickroom.ratings.change import Rating, RatingChange, Term, num, skill_change
from trickroom.ratings.fourway import thurstone
from trickroom.ratings.openskill_system import ELO_PER_BETA
from trickroom.ratings.result import GAME_KINDS, SIDE_NAMES, SIDES, GameKind, GameResult
from trickroom.ratings.system import RatesWithTheGame, lineup_ratings, unless_finished

OFFSETS = ("spades_par", "hearts_par")
"""The constants that are signed offsets (a final score), not positive scales."""


@dataclass(frozen=True)
class KindModel:
    """One game's constants, read off a :class:`Margin` for the game being rated."""

    par: float
    rho: float
    beta: float
    points: float
    hands: float
    lower_wins: bool


@dataclass(frozen=True)
class Margin(RatesWithTheGame):
    """The final-score model with its constants (module docstring); ``Margin()`` is the
    preset fitted on the real-games bench."""

    name: str = "margin"
    mu: float = 1500.0
    sigma: float = 300.0  # a newcomer's spread of skill, rating points
    tau: float = 0.0  # spread added before each game, so settled ratings can still move
    luck: float = 1.0  # predictions' spread, a multiple of the update's
    floor: float | None = None
    shown_sigmas: float = 1.0  # how conservative the shown number is: mu − this × sigma
    spades_par: float = -42.0  # a side of newcomers' points a hand
    spades_rho: float = 0.2  # opponents' skill's weight on a side's score, against its own
    spades_beta: float = 66.0  # spread of a side's points in one hand around the expected
    spades_points: float = 0.075  # Spades points a hand per rating point (fixed: the unit)
    spades_hands: float = 3.0  # a typical game's hands: to predict, and for a result without
    hearts_par: float = 63.0  # Hearts reads a game whole (module docstring): a final score
    hearts_rho: float = 0.3
    hearts_beta: float = 24.0
    hearts_points: float = 0.1

    @property
    def start_rating(self) -> Rating:
        return Rating(self.mu, self.sigma)

    def with_par(self, results: Sequence[GameResult]) -> Margin:
        """This system with each game's ``par`` measured on ``results``: the mean points
        a hand of a side (a partnership in Spades, a player in Hearts) in their games.

        Under the model a side's mean score is ``par`` when the players' skills
        average a newcomer's; a room's scores depend on its rules (the target,
        a mercy rule) and its players, and the refit starts from them.

        >>> games = [GameResult.of("spades", "margin", "ABCD", (250, 50, 250, 50), hands=5)]
        >>> Margin().with_par(games).spades_par
        30.0
        """
        pars: dict[str, float] = {}
        for kind in GAME_KINDS:
            scores = [s for r in results if r.kind == kind
                      for s in self._observed(kind, self._rates(r))]
            if scores:
                pars[f"{kind}_par"] = sum(scores) / len(scores)
        return replace(self, **pars)  # type: ignore[arg-type]

    def kind_model(self, kind: GameKind) -> KindModel:
        """The constants of ``kind``'s score model."""
        if kind == "spades":
            return KindModel(self.spades_par, self.spades_rho, self.spades_beta,
                             self.spades_points, self.spades_hands, False)
        return KindModel(self.hearts_par, self.hearts_rho, self.hearts_beta,
                         self.hearts_points, 1.0, True)

    def _hands(self, result: GameResult) -> float:
        """The hands a Spades result's points are shared over: its own count, else a typical
        game's. A Hearts game is read whole, as one unit (module docstring)."""
        if result.kind == "hearts":
            return 1.0
        return float(result.hands) if result.hands > 0 else self.spades_hands

    def _rates(self, result: GameResult) -> list[float]:
        """Each seat's score as the model reads it: a hand at a time in Spades, whole in
        Hearts."""
        hands = self._hands(result)
        return [x / hands for x in result.scores]

    # The number a player reads

    def shown(self, rating: Rating) -> float:
        """The conservative skill ``mu − k sigma``, from 1500 and within [0, 3000].

        The raw skill is already on Elo's scale (``points`` is chosen so), so
        the shown number is the rating itself made conservative: a newcomer
        shows 1500 and a player gains shown points both by playing well and by
        becoming known (sigma falls). ``Rating.value`` keeps ``mu``.

        >>> system = Margin()
        >>> system.shown(system.start_rating), system.shown(Rating(1700.0, 150.0))
        (1500.0, 1850.0)
        """
        k = self.shown_sigmas
        sigma = rating.sigma or self.sigma
        gap = (rating.value - k * sigma) - (self.mu - k * self.sigma)
        return min(max(1500.0 + gap, 0.0), 3000.0)

    def elo_per_point(self, kind: GameKind) -> float:
        """Elo points one rating point is worth in ``kind`` at these constants (about 1).

        Two players one rating point apart, one against one in Hearts (in
        Spades, two sides whose averages are), are ``Φ(z)`` to win with ``z``
        read off the model; Elo gives ``Φ(z)`` to a gap of ``√2 z ×
        ELO_PER_BETA`` (:data:`ratings.openskill_system.ELO_PER_BETA`).
        """
        m = self.kind_model(kind)
        per_side = 2.0 if kind == "spades" else 1.0
        spread = m.beta / math.sqrt(m.hands)  # of a typical game's points a hand
        return per_side * m.points * (1 + m.rho) * ELO_PER_BETA / (spread * self.luck)

    # Rating a game

    def rate(self, result: GameResult, ratings: Mapping[str, Rating]) -> list[RatingChange]:
        """Every starting human's new skill, from the final scores."""
        humans = [s.player for s in result.starters if s.is_rated_human]
        skipped = unless_finished(self.name, result, ratings, humans)
        if skipped is not None:
            return skipped
        m = self.kind_model(result.kind)
        hands = self._hands(result)
        before = [self._prior(ratings[p]) for p in result.players]
        chances = self._chances(result.kind, before)
        rates = self._rates(result)
        after = self._update(result.kind, before, rates, hands)
        spades = result.kind == "spades"
        how = Msg("final-score model: a side scores {par}{unit} {sign} {points} × (own skill "
                  "− {rho} × opponents', over {mu} a player) ± {beta}", par=num(m.par),
                  unit=Msg(" a hand") if spades else "", sign="−" if m.lower_wins else "+",
                  points=num(m.points, 4), rho=num(m.rho), mu=num(self.mu, 0),
                  beta=num(m.beta, 0))
        changes = []
        for seat, p in enumerate(result.players):
            if p not in humans:
                continue
            seen = rates
            words = self._words(result, seat, hands)
            if result.left(p):
                seen = self._forfeit(result, before, seat, rates, hands)
                words = (Msg("left before the end: rated as scoring at least {points} a hand "
                             "below the expected", points=num(m.beta / math.sqrt(hands)))
                         if spades else
                         Msg("left before the end: rated as scoring at least {points} below "
                             "the expected", points=num(m.beta / math.sqrt(hands))))
            new = self._update(result.kind, before, seen, hands) if result.left(p) else after
            expected = self._expected(result.kind, before, seat)
            changes.append(skill_change(
                result, p, ratings[p], new[seat], spread=before[seat].sigma,
                chance=chances[seat % 2 if result.kind == "spades" else seat],
                reading=Term(Msg("{words}; expected {expected} a hand", words=words,
                                 expected=num(expected)) if spades else
                             Msg("{words}; expected {expected}", words=words,
                                 expected=num(expected)), rates[seat]),
                model=Term(how, m.beta)))
        return changes

    def _prior(self, rating: Rating) -> Rating:
        """The belief a game starts from: the rating, its spread grown by ``tau``."""
        sigma = rating.sigma or self.sigma
        return Rating(rating.value, math.sqrt(sigma * sigma + self.tau * self.tau))

    @staticmethod
    def _words(result: GameResult, seat: int, hands: float) -> str:
        if result.kind == "hearts":
            return Msg("finished on {score} points", score=result.scores[seat])
        over = (Msg("in {hands} hands", hands=result.hands) if result.hands else
                Msg("over a typical game's {hands} hands", hands=num(hands, 0)))
        return Msg("{side} finished on {score} {over} ({rate} a hand)",
                   side=SIDE_NAMES[seat % 2], score=result.scores[seat], over=over,
                   rate=num(result.scores[seat] / hands))

    def _forfeit(self, result: GameResult, lineup: Sequence[Rating], seat: int,
                 rates: Sequence[float], hands: float) -> list[float]:
        """The points a hand a leaver is rated on: every other side's as expected, the
        leaver's side's one spread of the game's (``beta / √hands``) worse than
        expected, or its real points a hand if that is worse."""
        m = self.kind_model(result.kind)
        seen = [self._expected(result.kind, lineup, i) for i in range(4)]
        mine = SIDES[seat % 2] if result.kind == "spades" else (seat,)
        spread = m.beta / math.sqrt(hands)
        for i in mine:
            worse = seen[i] + (spread if m.lower_wins else -spread)
            seen[i] = max(worse, rates[i]) if m.lower_wins else min(worse, rates[i])
        return seen

    def _rows(self, kind: GameKind) -> list[list[float]]:
        """Each observed score's weights on the four seats' skills (``points`` aside)."""
        m = self.kind_model(kind)
        sign = -1.0 if m.lower_wins else 1.0
        if kind == "spades":
            return [[sign * (1.0 if seat % 2 == side else -m.rho) for seat in range(4)]
                    for side in (0, 1)]
        return [[sign * (1.0 if seat == i else -m.rho) for seat in range(4)] for i in range(4)]

    @staticmethod
    def _observed(kind: GameKind, scores: Sequence[float]) -> list[float]:
        """The scores the model explains: one a side in Spades, one a seat in Hearts."""
        return list(scores[:2] if kind == "spades" else scores)

    def _expected(self, kind: GameKind, lineup: Sequence[Rating], seat: int) -> float:
        """The points a hand expected of ``seat``'s side before the game."""
        m = self.kind_model(kind)
        row = self._rows(kind)[seat % 2 if kind == "spades" else seat]
        return m.par + m.points * sum(w * (r.value - self.mu)
                                      for w, r in zip(row, lineup, strict=True))

    def _update(self, kind: GameKind, lineup: Sequence[Rating], rates: Sequence[float],
                hands: float) -> list[Rating]:
        """The four players' beliefs after seeing ``rates`` (points a hand, per seat) over
        ``hands`` hands: the Kalman update.

        With ``H`` the rows (times ``points``), ``P`` the four variances and
        ``R = beta² / hands I`` (a mean over the hands): ``S = H P Hᵀ + R``,
        each mean moves by ``P Hᵀ S⁻¹ (z − H x)`` and each variance falls by
        ``(P Hᵀ S⁻¹ H P)_ii``, the diagonal of the exact posterior (the
        players' new correlations are not kept).
        """
        m = self.kind_model(kind)
        rows = [[m.points * w for w in row] for row in self._rows(kind)]
        z = self._observed(kind, rates)
        x = [r.value - self.mu for r in lineup]
        var = [r.sigma * r.sigma for r in lineup]
        k = len(rows)
        noise = m.beta * m.beta / hands
        s = [[sum(rows[a][i] * var[i] * rows[b][i] for i in range(4))
              + (noise if a == b else 0.0) for b in range(k)] for a in range(k)]
        surprise = [z[a] - m.par - sum(rows[a][i] * x[i] for i in range(4)) for a in range(k)]
        weights = solve(s, surprise)
        out = []
        for i, r in enumerate(lineup):
            column = [rows[a][i] for a in range(k)]
            shrink = sum(c * w for c, w in zip(column, solve(s, column), strict=True))
            value = r.value + var[i] * sum(c * w for c, w in zip(column, weights, strict=True))
            sigma = math.sqrt(max(var[i] * (1.0 - var[i] * shrink), 0.0))
            out.append(Rating(value if self.floor is None else max(value, self.floor), sigma))
        return out

    # Expectation

    def win_probability(self, kind: GameKind, players: Sequence[str],
                        ratings: Mapping[str, Rating]) -> tuple[float, ...]:
        """Each side's chance of the better final score (module docstring)."""
        lineup = lineup_ratings(self.name, kind, players, ratings)
        return self._chances(kind, [self._prior(r) for r in lineup])

    def _chances(self, kind: GameKind, lineup: Sequence[Rating]) -> tuple[float, ...]:
        m = self.kind_model(kind)
        gain = m.points * (1.0 + m.rho)
        noise = m.beta ** 2 / m.hands  # of a typical game's points a hand
        if kind == "spades":
            gap = gain * (lineup[0].value + lineup[2].value - lineup[1].value - lineup[3].value)
            spread = math.sqrt(2 * noise + gain ** 2 * sum(r.sigma ** 2 for r in lineup))
            north_south = 0.5 * math.erfc(-gap / (self.luck * spread * math.sqrt(2.0)))
            return (north_south, 1.0 - north_south)
        return thurstone([gain * (r.value - self.mu) for r in lineup],
                         [self.luck * math.sqrt(noise + gain ** 2 * r.sigma ** 2)
                          for r in lineup])

    def pair_chance(self, own: Rating, opponent: Rating) -> float:
        """The chance ``own`` finishes a Hearts game below ``opponent``, the two alone."""
        m = self.kind_model("hearts")
        gain = m.points * (1.0 + m.rho)
        a, b = self._prior(own), self._prior(opponent)
        spread = math.sqrt(2 * m.beta ** 2 / m.hands + gain ** 2 * (a.sigma ** 2 + b.sigma ** 2))
        return 0.5 * math.erfc(-gain * (a.value - b.value) / (self.luck * spread * math.sqrt(2)))


def solve(a: Sequence[Sequence[float]], b: Sequence[float]) -> list[float]:
    """``x`` with ``a x = b`` for a small symmetric positive definite ``a`` (Cholesky).

    >>> solve([[4.0, 2.0], [2.0, 3.0]], [2.0, 1.0])
    [0.5, 0.0]
    """
    n = len(b)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            total = a[i][j] - sum(low[i][k] * low[j][k] for k in range(j))
            low[i][j] = math.sqrt(total) if i == j else total / low[j][j]
    y = [0.0] * n
    for i in range(n):
        y[i] = (b[i] - sum(low[i][k] * y[k] for k in range(i))) / low[i][i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - sum(low[k][i] * x[k] for k in range(i + 1, n))) / low[i][i]
    return x


MARGIN = Margin()
