"""How well each rating system predicts: simulated ranked Spades and Hearts with hidden skill.

Simulation model (the same for every system, and not shaped to any of them):

* A population of ``--players`` players (default 100) with a hidden true skill
  drawn from a standard normal distribution, fixed for the season.
* Each game draws four different players uniformly at random (a random queue)
  and seats them at random: seats 0 and 2 against 1 and 3.
* North–South wins with probability ``1 / (1 + exp(-gap / s))``, where ``gap``
  is North–South's average true skill minus East–West's (across games its
  standard deviation is 1) and ``s`` is the luck scale. ``s`` is set from the
  chance ``q`` that a side one standard deviation stronger wins: high luck,
  like Spades, ``q = 0.60`` (``s ≈ 2.47``); low luck ``q = 0.80`` (``s ≈ 0.72``).
  Games are complete, with no ties and no quits. The scores follow a model too: the
  game is decided by North–South's performance ``d = gap + s · L`` (``L`` logistic, so
  North–South wins with the chance above exactly when ``d > 0``), the winners end on
  500 and the losers ``MARGIN_SD · |d| / sd(d)`` below them (at least 10): margins of
  150 points a standard deviation, at either luck, and a stronger side wins by more.
* Hearts (``--hearts-games``, default 4,000): four players drawn the same way;
  each plays a performance drawn from a normal around their skill, the best
  performance wins (takes the lowest score) and the others follow in order.
  The spread of a performance is set so that, one against one, a player one
  standard deviation stronger finishes ahead with the same ``q`` as above;
  the true chances of a table are Thurstonian order statistics
  (:func:`ratings.fourway.thurstone`). A seat's score is ``HEARTS_PAR`` plus
  ``HEARTS_SD`` points for each spread its performance fell below the table's mean
  (rounded, and at least a point above the seat before it in the finishing order).
* ``--games`` games (default 12,000: 480 per player) are played in time order.
  Every system sees the same games; each predicts a game with its own
  ``win_probability`` before its ``rate`` is applied.

Measures, per system and luck level:

* ``log-loss`` and ``Brier``: on the observed results (predictions clipped to
  [0.001, 0.999], so one certain miss costs 6.9 nats instead of infinity).
* ``oracle gain``: the share of the gap between a coin flip and the oracle that
  knows the true chances which the system closes,
  ``(L_coin − L_system) / (L_coin − L_oracle)``: 0 is no better than a coin,
  1 is perfect knowledge, below 0 is worse than a coin. The headline figure
  scores each prediction against the game's true chance (the expected log-loss
  given the simulation's truth), which removes the noise of the coin flips
  themselves; ``gain obs`` is the same ratio on the observed results.
* ``calib``: calibration slope, the ``b`` of a logistic regression of the
  result on ``a + b · logit(prediction)`` (fitted against the true chance, like
  the headline gain): 1 is calibrated, below 1 overconfident, above 1 timid.
  In Hearts, the ``b`` of ``p^b`` renormalised over the four seats.
* Hearts log-loss and Brier score the four chances (``−Σ y log p``,
  ``Σ (p − y)²``); the coin is log 4.
* ``ρ@25/50/100``: Spearman rank correlation of ratings with true skill when
  players have played 25, 50 and 100 games on average.
* ``drift``: the change of the population's mean rating per 1000 games, in the
  system's own rating points (zero for a zero-sum system).

Tuned systems (``zone_tuned``, ``wocg_tuned``, ``openskill_tuned``, ``margin``)
have their constants (Zone's step, WoCG's K, Weng-Lin's beta, model, tau and
the luck of its predictions; the final-score model's by
:func:`ratings.refit.refit`, one round) fitted on a season with ``--fit-seed``
by minimising the *observed* log-loss (what a host could do with real games),
then are reported on a fresh season with ``--seed``. The simulation has no
score model but the one above (before it, a Spades game ended 500 to 300 whoever won,
and ``margin``, seeing a constant margin, learnt from who won alone: its calibration was
1.18). The faithful presets and plain
``openskill`` keep their constants. ``--no-fit`` reports the registry's tuned presets instead.

Then the same systems rate real games (``bench.ratings_real``: whole games of
Spades and Hearts between robots of known skill; ``--real-games`` of each kind,
0 to skip).

Run: ``python -m bench.rating_systems [--players N] [--games G] [--seed S] [--fit-seed F]``.
The best system has the highest mean oracle gain over the two luck levels in
Spades; the calibration printed is its slope farthest from 1. On real games the best system
of each kind is the one with the lowest log-loss, and its log-loss over the
oracle's is printed. The last line is::

  ratings best=<system> oracle_gain_high_luck=<x.xx> oracle_gain_low_luck=<y.yy> \
calibration=<z.zz> real_spades_logloss_vs_oracle=<a.aa> real_hearts_logloss_vs_oracle=<b.bb>
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, is_dataclass, replace
from functools import partial

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from bench import graded, ratings_real
from bench.figures import command_line
from trickroom.ratings import SYSTEMS, GameResult, Rating, RatingSystem, WengLin, Wocg, Zone
from trickroom.ratings.fourway import thurstone
from trickroom.ratings.margin import Margin
from trickroom.ratings.refit import refit
from trickroom.ratings.result import GameKind

CLIP = 1e-3
CHECKPOINTS = (25, 50, 100)
MARGIN_SD = 150.0  # points: a Spades margin's standard deviation
HEARTS_PAR, HEARTS_SD = 70.0, 25.0  # points: a Hearts seat's mean score, a spread's worth


@dataclass(frozen=True)
class Luck:
    """A luck level: ``q`` is the chance a side one standard deviation stronger wins."""

    name: str
    q: float

    @property
    def scale(self) -> float:
        return 1.0 / math.log(self.q / (1.0 - self.q))

    @property
    def spread(self) -> float:
        """A Hearts performance's standard deviation: ``Φ(1 / (√2 spread)) = q``."""
        return 1.0 / (math.sqrt(2.0) * normal_quantile(self.q))


def normal_quantile(q: float) -> float:
    """``Φ⁻¹(q)`` by bisection (plenty for a bench constant)."""
    low, high = -10.0, 10.0
    for _ in range(100):
        mid = (low + high) / 2
        if 0.5 * math.erfc(-mid / math.sqrt(2.0)) < q:
            low = mid
        else:
            high = mid
    return (low + high) / 2


Chances = tuple[float, ...]


@dataclass(frozen=True)
class Game:
    """One simulated game: the players in seat order, the true chances, what happened.

    Chances and results are per side in Spades (North–South, East–West) and
    per seat in Hearts; ``scores`` are the per-seat scores the ratings see.
    """

    seats: tuple[int, int, int, int]
    truth: Chances
    result: Chances
    scores: tuple[int, ...]  # one a seat


@dataclass(frozen=True)
class Season:
    """The hidden skills and the games."""

    kind: GameKind
    skills: tuple[float, ...]
    games: tuple[Game, ...]


def simulate(players: int, games: int, luck: Luck, seed: int, kind: GameKind = "spades"
             ) -> Season:
    """One season of the model in the module docstring, from its own RNG."""
    rng = random.Random(seed if kind == "spades" else f"hearts:{seed}")
    skills = tuple(rng.gauss(0.0, 1.0) for _ in range(players))
    played = []
    for _ in range(games):
        north, east, south, west = rng.sample(range(players), 4)
        seats = (north, east, south, west)
        if kind == "spades":
            gap = (skills[north] + skills[south] - skills[east] - skills[west]) / 2
            p = 1.0 / (1.0 + math.exp(-gap / luck.scale))
            u = min(max(rng.random(), 1e-12), 1.0 - 1e-12)
            d = gap + luck.scale * math.log(u / (1.0 - u))  # won exactly when d > 0
            sd = math.sqrt(1.0 + (math.pi * luck.scale) ** 2 / 3)  # gap's and s·L's
            margin = max(10, round(MARGIN_SD * abs(d) / sd))
            won = d > 0
            ns, ew = (500, 500 - margin) if won else (500 - margin, 500)
            played.append(Game(seats, (p, 1.0 - p), (1.0, 0.0) if won else (0.0, 1.0),
                               (ns, ew, ns, ew)))
        else:
            means = [skills[p] for p in seats]
            truth = thurstone(means, [luck.spread] * 4)
            performance = [m + luck.spread * rng.gauss(0.0, 1.0) for m in means]
            order = sorted(range(4), key=lambda s: -performance[s])
            mean = sum(performance) / 4
            scores, last = [0] * 4, -10**9
            for seat in order:
                last = scores[seat] = max(
                    round(HEARTS_PAR + HEARTS_SD * (mean - performance[seat]) / luck.spread),
                    last + 1)
            played.append(Game(seats, truth,
                               tuple(1.0 if s == order[0] else 0.0 for s in range(4)),
                               tuple(scores)))
    return Season(kind, skills, tuple(played))


@dataclass(frozen=True)
class Score:
    """One system's figures on one season."""

    system: str
    logloss: float
    brier: float
    gain: float
    gain_obs: float
    calib: float
    rho: tuple[float, ...]
    drift: float


@dataclass(frozen=True)
class Run:
    """What one system did on one season: its predictions and its ratings' course."""

    predictions: list[Chances]
    rho: tuple[float, ...]  # at each of CHECKPOINTS
    drift: float  # mean rating change per 1000 games


def play(system: RatingSystem, season: Season, tick: Callable[[int], None] | None = None
         ) -> Run:
    """Predict, then rate, every game in order."""
    names = [f"p{i}" for i in range(len(season.skills))]
    ratings: dict[str, Rating] = dict.fromkeys(names, system.start_rating)
    predictions: list[Chances] = []
    rho: list[float] = []
    marks = [m * len(names) / 4 for m in CHECKPOINTS]  # games at which players average m
    for n, game in enumerate(season.games, start=1):
        players = [names[s] for s in game.seats]
        predictions.append(system.win_probability(season.kind, players, ratings))
        result = GameResult.of(season.kind, system.name, players, game.scores)
        for change in system.rate(result, ratings):
            ratings[change.player] = change.after
        if marks and n >= marks[0]:
            marks.pop(0)
            rho.append(spearman([ratings[p].value for p in names], season.skills))
        if tick is not None and n % 500 == 0:
            tick(500)
    rho += [math.nan] * (len(CHECKPOINTS) - len(rho))
    mean_end = sum(r.value for r in ratings.values()) / len(names)
    drift = (mean_end - system.start_rating.value) / len(season.games) * 1000
    return Run(predictions, tuple(rho), drift)


def score(system: RatingSystem, season: Season, tick: Callable[[int], None] | None = None
          ) -> Score:
    run = play(system, season, tick)
    truth = [g.truth for g in season.games]
    results = [g.result for g in season.games]
    coin = math.log(len(truth[0]))
    expected = cross_entropy(truth, run.predictions)
    observed = cross_entropy(results, run.predictions)
    if season.kind == "spades":
        calib = calibration_slope([p[0] for p in run.predictions], [t[0] for t in truth])
    else:
        calib = ratings_real.calibration(truth, run.predictions)
    return Score(
        system=system.name,
        logloss=observed,
        brier=brier(season.kind, results, run.predictions),
        gain=(coin - expected) / (coin - cross_entropy(truth, truth)),
        gain_obs=(coin - observed) / (coin - cross_entropy(results, truth)),
        calib=calib,
        rho=run.rho,
        drift=run.drift,
    )


# Statistics

def clip(p: float) -> float:
    return min(max(p, CLIP), 1.0 - CLIP)


def cross_entropy(targets: Sequence[Chances], predictions: Sequence[Chances]) -> float:
    """Mean log-loss of ``predictions`` against (possibly fractional) ``targets``.

    Spades scores North–South's chance (clipped) against its result, Hearts
    the four seats' chances.
    """
    total = 0.0
    for ys, ps in zip(targets, predictions, strict=True):
        if len(ys) == 2:
            y, p = ys[0], clip(ps[0])
            total -= y * math.log(p) + (1.0 - y) * math.log(1.0 - p)
        else:
            total -= sum(y * math.log(clip(p)) for y, p in zip(ys, ps, strict=True) if y)
    return total / len(targets)


def brier(kind: GameKind, targets: Sequence[Chances], predictions: Sequence[Chances]) -> float:
    return ratings_real.brier(kind, targets, predictions)


def calibration_slope(predictions: Sequence[float], targets: Sequence[float]) -> float:
    """``b`` in a logistic regression of ``targets`` on ``a + b·logit(prediction)`` (Newton)."""
    xs = [math.log(clip(p) / (1.0 - clip(p))) for p in predictions]
    a, b = 0.0, 1.0
    for _ in range(50):
        g0 = g1 = h00 = h01 = h11 = 0.0
        for x, y in zip(xs, targets, strict=True):
            m = 1.0 / (1.0 + math.exp(-min(max(a + b * x, -30.0), 30.0)))
            w = m * (1.0 - m)
            g0 += y - m
            g1 += (y - m) * x
            h00 += w
            h01 += w * x
            h11 += w * x * x
        det = h00 * h11 - h01 * h01
        if det <= 1e-12:
            return math.nan
        da = (h11 * g0 - h01 * g1) / det
        db = (h00 * g1 - h01 * g0) / det
        shrink = max(1.0, (abs(da) + abs(db)) / 2.0)  # damp a wild first step
        da, db = da / shrink, db / shrink
        a, b = a + da, b + db
        if abs(da) + abs(db) < 1e-10:
            break
    return b


# Rank correlation is the rating benches' own (bench.graded: ties share their mean rank).
spearman = graded.spearman


# Fitting the tuned systems

Fit = Callable[[RatingSystem], float]


def fitter(season: Season, tick: Callable[[int], None]) -> Fit:
    """Observed log-loss of a candidate on ``season``, each candidate run once."""
    results = [g.result for g in season.games]
    seen: dict[RatingSystem, float] = {}

    def loss(system: RatingSystem) -> float:
        if system not in seen:
            seen[system] = cross_entropy(results, play(system, season).predictions)
            tick(len(season.games))
        return seen[system]

    return loss


def walk(best: RatingSystem, field: str, grid: Sequence[object], loss: Fit) -> RatingSystem:
    """Local search along one constant's ordered grid: strides of 2, then of 1.

    From the current value, step toward the better neighbour and keep going
    while the observed log-loss falls (log-loss is unimodal in these constants).
    """
    values = list(grid)
    for stride in (2, 1):
        i = values.index(getattr(best, field))
        for direction in (-1, 1):
            while 0 <= i + direction * stride < len(values):
                candidate = with_value(best, field, values[i + direction * stride])
                if loss(candidate) >= loss(best):
                    break
                best, i = candidate, i + direction * stride
    return best


def with_value(system: RatingSystem, field: str, value: object) -> RatingSystem:
    """``system`` with one constant changed (every system of the registry is a dataclass)."""
    assert is_dataclass(system) and not isinstance(system, type)
    return replace(system, **{field: value})


def choose(best: RatingSystem, field: str, options: Sequence[object], loss: Fit
           ) -> RatingSystem:
    """The best of a few unordered options (a model name)."""
    candidates = [with_value(best, field, o) for o in options]
    return min(candidates, key=loss)


ROOT2 = (250, 350, 500, 700, 1000, 1400, 2000, 2800, 4000, 5600, 8000)
LUCK = (0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0, 1.06, 1.12, 1.2, 1.3, 1.4)


def fit(name: str, season: Season, tick: Callable[[int], None]) -> RatingSystem:
    """The tuned preset ``name`` refitted on ``season``, from the faithful constants."""
    loss = fitter(season, tick)
    if name == "zone_tuned":
        return walk(Zone(name=name), "step", (0.5, 1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32), loss)
    if name == "wocg_tuned":
        return walk(Wocg(name=name), "k", (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 25, 32, 40),
                    loss)
    if name == "margin":
        results = [GameResult.of(season.kind, name, [f"p{s}" for s in g.seats], g.scores)
                   for g in season.games]
        tick(len(season.games))
        return refit(SYSTEMS[name], results, rounds=1).system
    system: RatingSystem = walk(WengLin(name=name), "beta", ROOT2, loss)
    system = choose(system, "model", ("plackett_luce", "thurstone_mosteller"), loss)
    system = walk(system, "beta", ROOT2, loss)
    system = walk(system, "tau", (0, 1, 2, 5, 10, 20), loss)
    return walk(system, "luck", LUCK, loss)


TUNED = ("zone_tuned", "wocg_tuned", "openskill_tuned", "margin")


def describe(system: RatingSystem) -> str:
    """The fitted constants of a tuned system, for the report."""
    if isinstance(system, Zone):
        return f"step {system.step:g}"
    if isinstance(system, Wocg):
        return f"K {system.k:g}"
    if isinstance(system, WengLin):
        model = "TM" if system.model == "thurstone_mosteller" else "PL"
        return f"{model}, beta {system.beta:g}, tau {system.tau:g}, luck {system.luck:g}"
    if isinstance(system, Margin):
        return (f"sigma {system.sigma:.4g}, luck {system.luck:.3g}, spades beta "
                f"{system.spades_beta:.4g} par {system.spades_par:.4g}, hearts beta "
                f"{system.hearts_beta:.4g} par {system.hearts_par:.4g}")
    return ""


# Report

def table(luck: Luck, scores: list[Score], season: Season) -> Table:
    who = "a side" if season.kind == "spades" else "a player (against one other)"
    t = Table(title=f"simulated {season.kind}, {luck.name} luck: {who} one standard deviation "
                    f"stronger wins {luck.q:.0%}")
    for column in ("system", "log-loss", "Brier", "oracle gain", "gain obs", "calib",
                   "ρ@25", "ρ@50", "ρ@100", "drift/1000"):
        t.add_column(column, justify="left" if column == "system" else "right")
    for s in scores:
        t.add_row(s.system, f"{s.logloss:.4f}", f"{s.brier:.4f}", f"{s.gain:.2f}",
                  f"{s.gain_obs:.2f}", f"{s.calib:.2f}", *(f"{r:.2f}" for r in s.rho),
                  f"{s.drift:+.2f}")
    truth = [g.truth for g in season.games]
    results = [g.result for g in season.games]
    t.add_row("[dim]oracle", f"{cross_entropy(results, truth):.4f}",
              f"{brier(season.kind, results, truth):.4f}", "1.00", "1.00", "1.00", "", "", "",
              "", style="dim")
    n = len(truth[0])
    t.add_row("[dim]coin flip", f"{math.log(n):.4f}", f"{0.25 if n == 2 else 0.75:.4f}",
              "0.00", "0.00", "", "", "", "", "", style="dim")
    return t


def main(argv: Sequence[str] | None = None) -> None:
    parser = command_line(__doc__)
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--games", type=int, default=12_000)
    parser.add_argument("--hearts-games", type=int, default=4000,
                        help="simulated Hearts games a season; 0 skips them")
    parser.add_argument("--seed", type=int, default=2, help="season the report is on")
    parser.add_argument("--fit-seed", type=int, default=1, help="season tuned constants fit on")
    parser.add_argument("--high", type=float, default=0.60, help="q at high luck")
    parser.add_argument("--low", type=float, default=0.80, help="q at low luck")
    parser.add_argument("--no-fit", action="store_true", help="report the registry's presets")
    parser.add_argument("--real-games", type=int, default=2000,
                        help="real games of each kind (bench.ratings_real); 0 skips them")
    parser.add_argument("--real-cache", default=str(ratings_real.CACHE),
                        help="folder of the real games played")
    args = parser.parse_args(argv)

    console = Console(width=max(Console().width, 170))
    lucks = (Luck("high", args.high), Luck("low", args.low))
    kinds: dict[GameKind, int] = {"spades": args.games, "hearts": args.hearts_games}
    started = time.perf_counter()
    report: dict[tuple[GameKind, str], list[Score]] = {}
    seasons: dict[tuple[GameKind, str], Season] = {}
    fitted: dict[tuple[GameKind, str], dict[str, RatingSystem]] = {}
    with Progress(console=console, transient=True) as progress:
        for kind, games in kinds.items():
            if games <= 0:
                continue
            for luck in lucks:
                key = (kind, luck.name)
                tuned: dict[str, RatingSystem] = {}
                if args.no_fit:
                    tuned = {name: SYSTEMS[name] for name in TUNED}
                else:
                    fit_season = simulate(args.players, games, luck, args.fit_seed, kind)
                    for name in TUNED:
                        task = progress.add_task(
                            f"{kind}, {luck.name} luck: fitting {name} (games)", total=None)
                        tuned[name] = fit(name, fit_season, partial(progress.advance, task))
                        progress.remove_task(task)
                fitted[key] = tuned
                season = seasons[key] = simulate(args.players, games, luck, args.seed, kind)
                systems = [tuned.get(name, system) for name, system in SYSTEMS.items()]
                task = progress.add_task(f"{kind}, {luck.name} luck: rating {len(systems)} "
                                         "systems", total=len(systems) * games)
                report[key] = [score(s, season, partial(progress.advance, task))
                               for s in systems]

    for key in report:
        console.print(table(lucks[0] if key[1] == "high" else lucks[1], report[key],
                            seasons[key]))
        console.print("  tuned constants: " + "; ".join(
            f"{name} {describe(system)}" for name, system in fitted[key].items()))
    how = ("tuned constants are the registry's presets" if args.no_fit else
           f"tuned constants fitted on seed {args.fit_seed}")
    console.print(f"{args.players} players, {args.games} Spades and {args.hearts_games} Hearts "
                  f"games per season; {how}, reported on seed "
                  f"{args.seed}; {time.perf_counter() - started:.0f} s", soft_wrap=True)

    real = ""
    if args.real_games > 0:
        options = ratings_real.options(["--games", str(args.real_games),
                                        "--cache", args.real_cache])
        real = " " + ratings_real.summary(ratings_real.run(options, console))

    by_name = {luck.name: {s.system: s for s in report["spades", luck.name]} for luck in lucks}
    best = max(SYSTEMS, key=lambda n: by_name["high"][n].gain + by_name["low"][n].gain)
    high, low = by_name["high"][best], by_name["low"][best]
    calib = max((high.calib, low.calib), key=lambda c: abs(c - 1.0))
    print(f"ratings best={best} oracle_gain_high_luck={high.gain:.2f} "
          f"oracle_gain_low_luck={low.gain:.2f} calibration={calib:.2f}{real}")


if __name__ == "__main__":
    main()
