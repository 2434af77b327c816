"""Duplicate ratings: each player scored against the field who held the same cards.

Every other system here rates a game on its own, and the luck of the deal is
in every result: on whole games between robots of known skill the best of
them needs about 300 Spades games to order 28 players as well as the games
allow. Duplicate bridge removes that luck by playing the same deals at several
tables and comparing each side with the others who held the same cards. This
system rates such a *board set*.

The input. A :class:`DuplicateResult` is the same deals played at two or more
tables: at every table seat ``s`` was dealt the same cards on deal ``d``
(a seed deals the same hands by seat whatever is played). In Spades the
players usually move one seat between two tables, so the cards a side held at
one table were held by the other side at the other; in Hearts they move one
seat on over four tables, so each player holds each seat's cards once. Each
table carries its four players by seat and, deal by deal, each seat's points
for the hand as the game scored it (a Spades side's points, the same for both
partners; a Hearts seat's points, fewer being better). Only the deals every
table reached are compared (a game may end sooner at one table).

The model. A *position* is one set of cards: a side's (seats 0 and 2, or 1
and 3) in Spades, a seat's in Hearts. On deal ``d`` the points scored on
position ``c`` at table ``t`` ("more is better": Hearts points change sign) are

    y[t, c] = par + cards[d, c] + points × (own skill − rho × opponents' skill) + noise,

``own`` being the summed skill of the players who held the cards at that
table (from a newcomer's ``mu``), ``opponents'`` the others', and ``noise``
normal with spread ``beta`` (the per-deal noise), independent between tables.
``cards[d, c]`` is what the cards were worth: exactly the luck a duplicate
removes. It is the same at every table, so the *differences between tables on
the same cards* (the ``n − 1`` orthonormal contrasts of ``n`` tables) do not
hold it, and the model reads them with noise ``beta``. The tables' sum (scaled
to the contrasts' length) holds it ``n`` times over: the model takes the
cards' worth as normal around 0 with a learned spread ``cards``, so the sum is
read with noise ``beta² + n cards²``. Where the cards decide the points the
spread is large and the sum says nothing (``cards`` infinite: a pure
duplicate, the field alone); where they matter little the sum says what a
normal game says, a side's points against ``par``. On the bench's robots they
matter little (the same cards' points at two tables correlate 0.02 in Spades,
0.08 in Hearts: the robots' own random choices are the luck there), and
reading the sum took Spades' Spearman after 100 games from 0.73 to 0.86.

In Hearts ``rho`` is ⅓: a hand's points sum to 26, so what one player avoids
another takes, and a seat's points depend on its skill against the mean of
the other three. The rows of a table then sum to zero over the seats, as the
noise does, and treating the four seats' noise as independent is exact in
the only directions the skills reach. In Spades ``rho`` is ``margin``'s 0.2
and the two sides' noise is independent (as there). When the same four
players meet at every table ``rho`` cancels except as a scale.

Each player's skill is a normal belief ``N(mu, sigma²)`` (the prior is the
newcomer's ``Rating(mu, sigma)``). The observations are linear in the skills
with Gaussian noise, so the belief after a board set is computed exactly, as
:mod:`ratings.margin` does for one game: the seats are fixed through a game,
so the ``D`` deals' observations share their weights and their mean over the
deals is the whole evidence, with a ``D``-th of one deal's noise. Rating a board set at once
is rating it deal by deal while keeping the players' correlations; only each
player's mean and spread are kept afterwards.

Predictions. A player's *margin* on a deal is their points on the cards they
held minus the mean of the other tables' points on the same cards, averaged
over the tables they sat at (as :mod:`game.duplicate` scores a match). The
model gives its expectation and spread before the deal
(:meth:`Duplicate.forecast`), so the chance that a player beats the field on
a deal is ``Φ(mean / (luck × sd))``, and a bench can score those chances.

The constants are per game (``spades_*``, ``hearts_*``), in the game's points
a hand; ``points`` is fixed (it sets the unit: Spades' 0.075 is ``margin``'s,
so the two systems' numbers read alike, Hearts' 0.012 is ``margin``'s 0.1 a
game over a typical game's eight or nine hands). ``par``, ``beta`` (the noise
of one deal) and ``cards`` are learned on a season's board sets by :func:`fit`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from trickroom.i18n import Msg, PluralMsg
from trickroom.ratings.change import Rating, RatingChange, Term, num, signed
from trickroom.ratings.errors import InvalidResult, MissingRating, PlayerInTwoSeats, WrongSystem
from trickroom.ratings.margin import solve
from trickroom.ratings.result import GAME_KINDS, GameKind, PlayerOutcome

POSITIONS: Mapping[GameKind, tuple[tuple[int, ...], ...]] = {
    "spades": ((0, 2), (1, 3)),
    "hearts": ((0,), (1,), (2,), (3,)),
}
"""The seats that hold one position's cards: a side in Spades, a seat in Hearts."""


# -- the board set's result --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DuplicateTable:
    """One table of a board set: its players by seat and, deal by deal, each seat's points
    for the hand as the game scored it (Spades: the side's, the same for partners;
    Hearts: the seat's, fewer being better)."""

    players: tuple[str, str, str, str]
    points: tuple[tuple[float, float, float, float], ...]


@dataclass(frozen=True, slots=True)
class DuplicateResult:
    """The same deals played at two or more tables, seat ``s`` dealt the same cards on every
    table: what :class:`Duplicate` rates.

    >>> r = DuplicateResult.of("spades", "duplicate", [
    ...     ("ABCD", [(60, 20, 60, 20)]), ("DABC", [(40, 30, 40, 30)])])
    >>> r.deals, r.margins("A"), r.margins("B")
    (1, (15.0,), (-15.0,))
    """

    kind: GameKind
    system: str
    tables: tuple[DuplicateTable, ...]

    @classmethod
    def of(cls, kind: GameKind, system: str,
           tables: Sequence[tuple[Sequence[str], Sequence[Sequence[float]]]]
           ) -> DuplicateResult:
        """A result from ``(players by seat, points by deal and seat)`` per table."""
        built = []
        for players, points in tables:
            if len(players) != 4 or any(len(deal) != 4 for deal in points):
                raise InvalidResult("a duplicate table is four players and four points a deal")
            seated = (players[0], players[1], players[2], players[3])
            built.append(DuplicateTable(seated, tuple(
                (float(p[0]), float(p[1]), float(p[2]), float(p[3])) for p in points)))
        return cls(kind, system, tuple(built))

    def __post_init__(self) -> None:
        if self.kind not in GAME_KINDS:
            raise InvalidResult(f"unknown game kind {self.kind!r}; expected one of {GAME_KINDS}")
        if len(self.tables) < 2:
            raise InvalidResult("a duplicate result is the same deals at two or more tables")
        for n, table in enumerate(self.tables):
            if len(set(table.players)) != 4:
                raise PlayerInTwoSeats(f"table {n} seats a player twice: {table.players}")
            for d, deal in enumerate(table.points):
                if not all(math.isfinite(p) for p in deal):
                    raise InvalidResult(f"table {n}, deal {d}: points must be finite")
                if self.kind == "spades" and (deal[0] != deal[2] or deal[1] != deal[3]):
                    raise InvalidResult(f"table {n}, deal {d}: partners score the same points")

    @property
    def deals(self) -> int:
        """The deals every table reached: the ones compared."""
        return min(len(t.points) for t in self.tables)

    @property
    def players(self) -> tuple[str, ...]:
        """Every player of the board set, once, in order of first seat."""
        return tuple(dict.fromkeys(p for t in self.tables for p in t.players))

    def score(self, table: int, deal: int, position: int) -> float:
        """The points scored on ``position``'s cards at ``table`` on ``deal``, more being
        better."""
        seat = POSITIONS[self.kind][position][0]
        points = self.tables[table].points[deal][seat]
        return -points if self.kind == "hearts" else points

    def margins(self, player: str) -> tuple[float, ...]:
        """``player``'s margin deal by deal: their points on the cards they held minus the
        mean of the other tables' points on the same cards, averaged over their tables."""
        held = seats_of(self.kind, [t.players for t in self.tables], player)
        n = len(self.tables)
        out = []
        for d in range(self.deals):
            edge = 0.0
            for t, c in held:
                others = [self.score(u, d, c) for u in range(n) if u != t]
                edge += self.score(t, d, c) - sum(others) / len(others)
            out.append(round(edge / len(held), 9))  # a tie stays a tie
        return tuple(out)


def seats_of(kind: GameKind, lineups: Sequence[Sequence[str]], player: str
             ) -> list[tuple[int, int]]:
    """Each ``(table, position)`` whose cards ``player`` held."""
    return [(t, c) for t, lineup in enumerate(lineups)
            for c, seats in enumerate(POSITIONS[kind]) if player in (lineup[s] for s in seats)]


@dataclass(frozen=True, slots=True)
class DealModel:
    """One game's constants, read off a :class:`Duplicate` for the game being rated."""

    rho: float
    beta: float
    points: float
    cards: float
    par: float


@dataclass(frozen=True, slots=True)
class Observation:
    """One number a deal shows: a combination of a position's scores over the tables
    (``tables``, its weights), its weights on the players' skills, what it is expected to
    be for newcomers, and its variance on one deal."""

    position: int
    tables: tuple[float, ...]
    skills: tuple[float, ...]
    offset: float
    noise: float


@dataclass(frozen=True, slots=True)
class Forecast:
    """A player's margin against the field on one deal, before it is played: its mean and
    spread (points a deal), and the chance it is above zero."""

    mean: float
    sd: float
    chance: float


# -- the system -----------------------------------------------------------------------


@dataclass(frozen=True)
class Duplicate:
    """The duplicate model with its constants (module docstring); ``Duplicate()`` is the
    preset fitted on the real-games bench's duplicate seasons."""

    name: str = "duplicate"
    mu: float = 1500.0
    sigma: float = 300.0  # a newcomer's spread of skill, rating points
    tau: float = 0.0  # spread added before each board set, so settled ratings can still move
    luck: float = 1.0  # predictions' spread, a multiple of the update's
    shown_sigmas: float = 1.0
    spades_rho: float = 0.2
    spades_beta: float = 78.0  # a position's points on one deal around the model, one table
    spades_points: float = 0.075  # Spades points a hand per rating point (fixed: the unit)
    spades_cards: float = 18.0  # spread of what a position's cards are worth on a deal
    spades_par: float = -19.0  # a side of newcomers' points a hand
    hearts_rho: float = 1.0 / 3.0  # a hand's points sum to 26 (module docstring)
    hearts_beta: float = 6.8
    hearts_points: float = 0.012
    hearts_cards: float = 2.6
    hearts_par: float = -6.8  # minus a seat's points a hand: 26 shared by four, and moons

    @property
    def start_rating(self) -> Rating:
        return Rating(self.mu, self.sigma)

    @property
    def floor(self) -> float | None:
        return None

    def model(self, kind: GameKind) -> DealModel:
        """The constants of ``kind``'s model of a deal."""
        if kind == "spades":
            return DealModel(self.spades_rho, self.spades_beta, self.spades_points,
                             self.spades_cards, self.spades_par)
        return DealModel(self.hearts_rho, self.hearts_beta, self.hearts_points,
                         self.hearts_cards, self.hearts_par)

    def shown(self, rating: Rating) -> float:
        """The conservative skill ``mu − k sigma`` from 1500, within [0, 3000], as ``margin``
        shows it.

        >>> Duplicate().shown(Rating(1700.0, 150.0))
        1850.0
        """
        sigma = rating.sigma or self.sigma
        gap = (rating.value - self.shown_sigmas * sigma) - (self.mu - self.shown_sigmas
                                                             * self.sigma)
        return min(max(1500.0 + gap, 0.0), 3000.0)

    # The model's pieces

    def _row(self, kind: GameKind, lineup: Sequence[str], position: int,
             players: Sequence[str]) -> list[float]:
        """The weights of ``players``' skills on the points ``position`` scores at a table
        seating ``lineup`` (times ``points``)."""
        m = self.model(kind)
        own = {lineup[s] for s in POSITIONS[kind][position]}
        at_table = set(lineup)
        return [m.points * (1.0 if p in own else -m.rho if p in at_table else 0.0)
                for p in players]

    def _observations(self, kind: GameKind, lineups: Sequence[Sequence[str]],
                      players: Sequence[str]) -> list[Observation]:
        """What a deal shows, per position: the orthonormal (Helmert) contrasts of the tables,
        in which the cards' worth cancels, and (unless ``cards`` is infinite) the tables'
        scaled sum, which the cards' worth makes noisier."""
        m = self.model(kind)
        n = len(lineups)
        out = []
        for c in range(len(POSITIONS[kind])):
            rows = [self._row(kind, lineup, c, players) for lineup in lineups]
            bases = []
            for k in range(1, n):
                scale = 1.0 / math.sqrt(k * (k + 1))
                bases.append(([scale if t < k else -k * scale if t == k else 0.0
                               for t in range(n)], 0.0, m.beta ** 2))
            if math.isfinite(m.cards):
                bases.append(([1.0 / math.sqrt(n)] * n, math.sqrt(n) * m.par,
                               m.beta ** 2 + n * m.cards ** 2))
            for tables, offset, noise in bases:
                skills = [sum(w * row[i] for w, row in zip(tables, rows, strict=True))
                          for i in range(len(players))]
                out.append(Observation(c, tuple(tables), tuple(skills), offset, noise))
        return out

    def _prior(self, rating: Rating) -> Rating:
        sigma = rating.sigma or self.sigma
        return Rating(rating.value, math.sqrt(sigma * sigma + self.tau * self.tau))

    def _lineup_priors(self, kind: GameKind, lineups: Sequence[Sequence[str]],
                       ratings: Mapping[str, Rating]) -> tuple[list[str], list[Rating]]:
        players = list(dict.fromkeys(p for lineup in lineups for p in lineup))
        missing = [p for p in players if p not in ratings]
        if missing:
            raise MissingRating(f"no {self.name} {kind} rating for player {missing[0]!r}")
        return players, [self._prior(ratings[p]) for p in players]

    # Rating a board set

    def rate(self, result: DuplicateResult, ratings: Mapping[str, Rating]
             ) -> list[RatingChange]:
        """Every player's new skill from the board set's deals (module docstring)."""
        if result.system != self.name:
            raise WrongSystem(f"result is for rating system {result.system!r}, not "
                              f"{self.name!r}")
        kind = result.kind
        lineups = [t.players for t in result.tables]
        players, before = self._lineup_priors(kind, lineups, ratings)
        deals = result.deals
        if deals == 0:
            why = Msg("not rated: no deal was played at every table")
            return [RatingChange(p, ratings[p], ratings[p], (Term(why),), None, False)
                    for p in players]
        forecasts = self._forecasts(kind, lineups, players, before)
        after = self._update(result, players, before)
        m = self.model(kind)
        model = Term(Msg("duplicate model: the points on the same cards differ between "
                         "tables by {points} × (own skill − {rho} × opponents') ± {beta} a "
                         "deal", points=num(m.points, 4), rho=num(m.rho), beta=num(m.beta)),
                     m.beta)
        changes = []
        for i, p in enumerate(players):
            margins = result.margins(p)
            mean = sum(margins) / deals
            f = forecasts[p]
            tables = len(seats_of(kind, lineups, p))
            outcome: PlayerOutcome = "win" if mean > 0 else "loss" if mean < 0 else "tie"
            terms = (
                Term(Msg("skill {value} ± {sigma} before", value=num(before[i].value),
                         sigma=num(before[i].sigma)), before[i].value),
                Term(Msg("expected {mean} ± {sd} a deal against the field",
                         mean=signed(f.mean), sd=num(f.sd)), f.mean),
                Term(PluralMsg("{mean} a deal against the field over {n} deal at {tables} of "
                               "{of} tables (beat it on {beat}, level on {level})",
                               "{mean} a deal against the field over {n} deals at {tables} of "
                               "{of} tables (beat it on {beat}, level on {level})",
                               mean=signed(mean), n=deals, tables=tables, of=len(lineups),
                               beat=sum(m > 0 for m in margins),
                               level=sum(m == 0 for m in margins)), mean),
                model,
                Term(Msg("skill {value} ({change}) ± {sigma} after", value=num(after[i].value),
                         change=signed(after[i].value - before[i].value),
                         sigma=num(after[i].sigma)), after[i].value),
            )
            changes.append(RatingChange(p, ratings[p], after[i], terms, outcome))
        return changes

    def _update(self, result: DuplicateResult, players: Sequence[str],
                lineup: Sequence[Rating]) -> list[Rating]:
        """The players' beliefs after the board set: the Kalman update on the contrasts'
        means over the deals (each one's noise over ``deals``), as :meth:`Margin._update`
        does."""
        observed = self._observations(result.kind, [t.players for t in result.tables], players)
        deals = result.deals
        z = [sum(w * result.score(t, d, o.position) for t, w in enumerate(o.tables)
                 for d in range(deals)) / deals - o.offset for o in observed]
        rows = [o.skills for o in observed]
        x = [r.value - self.mu for r in lineup]
        var = [r.sigma * r.sigma for r in lineup]
        m, k = len(players), len(rows)
        s = [[sum(rows[a][i] * var[i] * rows[b][i] for i in range(m))
              + (observed[a].noise / deals if a == b else 0.0) for b in range(k)]
             for a in range(k)]
        surprise = [z[a] - sum(rows[a][i] * x[i] for i in range(m)) for a in range(k)]
        weights = solve(s, surprise)
        out = []
        for i, r in enumerate(lineup):
            column = [rows[a][i] for a in range(k)]
            shrink = sum(c * w for c, w in zip(column, solve(s, column), strict=True))
            value = r.value + var[i] * sum(c * w for c, w in zip(column, weights, strict=True))
            out.append(Rating(value, math.sqrt(max(var[i] * (1.0 - var[i] * shrink), 0.0))))
        return out

    # Expectation

    def forecast(self, kind: GameKind, lineups: Sequence[Sequence[str]],
                 ratings: Mapping[str, Rating]) -> dict[str, Forecast]:
        """Each player's margin against the field on one deal of a board set played at
        tables seating ``lineups``, before it is played."""
        if kind not in GAME_KINDS:
            raise InvalidResult(f"unknown game kind {kind!r}; expected one of {GAME_KINDS}")
        players, priors = self._lineup_priors(kind, lineups, ratings)
        return self._forecasts(kind, lineups, players, priors)

    def _forecasts(self, kind: GameKind, lineups: Sequence[Sequence[str]],
                   players: Sequence[str], priors: Sequence[Rating]) -> dict[str, Forecast]:
        beta = self.model(kind).beta
        n = len(lineups)
        out = {}
        for p in players:
            held = seats_of(kind, lineups, p)
            cells: dict[tuple[int, int], float] = {}  # the margin's weights on each score
            for t, c in held:
                for u in range(n):
                    w = 1.0 if u == t else -1.0 / (n - 1)
                    cells[u, c] = cells.get((u, c), 0.0) + w / len(held)
            loading = [0.0] * len(players)
            for (u, c), w in cells.items():
                for i, x in enumerate(self._row(kind, lineups[u], c, players)):
                    loading[i] += w * x
            mean = sum(a * (r.value - self.mu) for a, r in zip(loading, priors, strict=True))
            var = beta * beta * sum(w * w for w in cells.values()) + sum(
                (a * r.sigma) ** 2 for a, r in zip(loading, priors, strict=True))
            sd = math.sqrt(var)
            if sd == 0.0:  # the same cards at every table: they are their own field
                out[p] = Forecast(0.0, 0.0, 0.5)
                continue
            chance = 0.5 * math.erfc(-mean / (self.luck * sd * math.sqrt(2.0)))
            out[p] = Forecast(mean, sd, chance)
        return out


def fit(system: Duplicate, kind: GameKind, results: Sequence[DuplicateResult]) -> Duplicate:
    """``system`` with ``kind``'s model learned on ``results``: ``par``, the mean points a
    position scored on a deal; then the per-deal noise ``beta`` and the cards' spread
    ``cards`` under which the board sets, rated in order from newcomers, were best
    predicted (each deal's observations' likelihood before its board set was rated;
    golden-section searches over their logarithms, each twice in turn). A
    ``cards`` beyond ten times ``beta`` is taken as infinite (the sum's evidence is nil)."""
    scores = [r.score(t, d, c) for r in results if r.kind == kind
              for t in range(len(r.tables)) for d in range(r.deals)
              for c in range(len(POSITIONS[kind]))]
    if scores:
        system = replace(system, **{f"{kind}_par": round(sum(scores) / len(scores), 2)})  # type: ignore[arg-type]
    for field in ("beta", "cards", "beta", "cards"):
        name = f"{kind}_{field}"
        low, high = ((math.log(0.5), math.log(500.0)) if field == "beta"
                     else (math.log(0.5), math.log(10.0 * getattr(system, f"{kind}_beta"))))

        def loss(log_value: float, name: str = name, start: Duplicate = system) -> float:
            trial = replace(start, **{name: math.exp(log_value)})  # type: ignore[arg-type]
            return -predictive_log_likelihood(trial, [r for r in results if r.kind == kind])

        best = golden(loss, low, high)
        value = math.exp(best)
        if field == "cards" and best > high - 0.05:
            value = math.inf
        system = replace(system, **{name: value if math.isinf(value) else round(value, 2)})  # type: ignore[arg-type]
    return system


def golden(loss: Callable[[float], float], low: float, high: float, rounds: int = 16
           ) -> float:
    """The ``x`` in ``[low, high]`` where ``loss`` is least (golden-section search)."""
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    a, b = high - ratio * (high - low), low + ratio * (high - low)
    fa, fb = loss(a), loss(b)
    for _ in range(rounds):
        if fa < fb:
            high, b, fb = b, a, fa
            a = high - ratio * (high - low)
            fa = loss(a)
        else:
            low, a, fa = a, b, fb
            b = low + ratio * (high - low)
            fb = loss(b)
    return (low + high) / 2.0


def predictive_log_likelihood(system: Duplicate, results: Sequence[DuplicateResult]) -> float:
    """The log-likelihood of every deal's observations, each board set predicted from the
    ratings before it and then rated: how well ``system``'s constants explain a season."""
    ratings: dict[str, Rating] = {}
    total = 0.0
    for result in results:
        lineups = [t.players for t in result.tables]
        for p in result.players:
            ratings.setdefault(p, system.start_rating)
        players, priors = system._lineup_priors(result.kind, lineups, ratings)
        for o in system._observations(result.kind, lineups, players):
            mean = o.offset + sum(a * (r.value - system.mu)
                                  for a, r in zip(o.skills, priors, strict=True))
            var = o.noise + sum((a * r.sigma) ** 2 for a, r in zip(o.skills, priors, strict=True))
            for d in range(result.deals):
                z = sum(w * result.score(t, d, o.position) for t, w in enumerate(o.tables))
                total -= 0.5 * (math.log(2 * math.pi * var) + (z - mean) ** 2 / var)
        for change in system.rate(result, ratings):
            ratings[change.player] = change.after
    return total


DUPLICATE = Duplicate()
