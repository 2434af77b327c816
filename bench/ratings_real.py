"""How well each rating system predicts real games: whole games between robots of known skill.

Where ``bench.rating_systems`` flips a weighted coin, this bench plays the games.

Players. ``--per-level`` players (default 4) at each level ``ε`` of
``--levels`` (default 0, .1, .2, .35, .5, .75, 1: 28 players). A player at
level ``ε`` is the heuristic robot that takes a uniformly random legal action
instead of its own with probability ``ε`` at every decision (bids, passes, the
moon choice and cards); ``ε = 0`` is the heuristic robot, ``ε = 1`` the random
one. The true order of skill is the order of ``ε``, lower is stronger.

Games. ``--games`` whole games of each kind (default 2,000) through the
engines, each at a table of four players drawn uniformly at random in random
seats. Spades is played with a mercy rule of 200 (a side at −200 loses: without
it two random sides can dig down forever) and Hearts with the default rules;
a game that reaches ``MAX_HANDS`` hands is ended on its score. Every game is a
function of ``--seed`` and its number alone, so the games are generated in
parallel (``--jobs``) and cached in ``--cache`` (default
``/tmp/trickroom-ratings-real``; ``--fresh`` plays them again).

Rating. Every system in the registry rates the games in time order from its
start rating, predicting each game with its own ``win_probability`` before
rating it: North–South's chance in Spades, each seat's chance of the lowest
score in Hearts (a shared lowest score shares the win).

Measures, per system and game kind:

* ``ρ`` and ``τ``: Spearman and Kendall (tau-b) rank correlation of the final
  ratings with the true level (ties share ranks: four players a level).
  ``ρ@300``: Spearman after 300 games. ``ρ≥.9 from``/``ρ≥.98 from``: the game
  after which Spearman stays at or above 0.9 (0.98) to the end, "never" if it
  does not.
* ``log-loss`` and ``Brier`` of the system's own prediction before each game,
  clipped to [0.001, 0.999]. Hearts scores the four chances: log-loss
  ``−Σ y log p`` and Brier ``Σ (p − y)²`` over the seats.
* ``×oracle``: log-loss over the oracle's. The oracle knows each player's level
  and has one strength per level fitted on all the games by maximum likelihood
  (Spades: a side's chance is the logistic of its strengths' sum minus the
  other side's; Hearts: a seat's chance is ``e^{s} / Σ e^{s}`` over the table).
* ``late``: ``×oracle`` over the second half of the season only, when the
  ratings have had time to learn.
* ``gain``: oracle gain, ``(L_coin − L) / (L_coin − L_oracle)``: 0 is a coin
  (log 2 in Spades, log 4 in Hearts), 1 is the oracle.
* ``calib``: the calibration slope ``b`` that maximises the likelihood of
  ``p^b`` renormalised over the sides or seats (in Spades this is the logistic
  regression of the result on ``logit p``): 1 is calibrated, below 1
  overconfident, above 1 too flat.
* Under the Spades table, ``ρ@300`` of a filter keeping every correlation
  between the players on ``margin``'s model (:func:`joint_rho`): the ranking
  the scores and hand counts of the first 300 games support, which a rating a
  player approaches but cannot pass.
* ``ratings`` and ``shown``: the lowest and highest final rating, raw
  (``Rating.value``) and as a player reads it (``RatingSystem.shown``).

Refitted presets. Below the registry's systems, each tuned preset
(``zone_tuned``, ``wocg_tuned``, ``openskill_tuned``, ``margin``) is refitted by
:func:`ratings.refit.refit` on a season of its own (``--fit-seed``, default 2:
the same players, other games) and reported on the main season as
``<name>_refit``, so its gain is measured on games it was not fitted on
(``--no-refit`` skips this). The fitted constants are printed under the table.

Two baselines sit under each table: the oracle and "share won", a naive
predictor that knows nothing of ratings: each player's share of games won so
far, ``(wins + 1) / (games + 2)`` in Spades (added per side) and
``(wins + 1) / (games + 4)`` in Hearts, normalised to chances.

Duplicate seasons (``bench.ratings_duplicate``; ``--no-duplicate`` skips them).
The same players play as many games again, each game's deals replayed at a
second table with the players moved one seat (Spades) or at four tables with
each player one seat on (Hearts), rated against the field by the ``duplicate``
system (:mod:`ratings.duplicate`), its per-deal noise also learned on the
``--fit-seed`` season (``duplicate_fit``). Its table sets the duplicate
ratings' Spearman after 100 games beside the best normal system's after 300,
and scores its deal-by-deal chances against an oracle's.

Run: ``python -m bench.ratings_real`` (about a minute of play, then the
ratings), ``--quick`` for a small run. The last line is::

  ratings_real best_spades=<system> best_hearts=<system> \
real_spades_logloss_vs_oracle=<x.xx> real_hearts_logloss_vs_oracle=<y.yy> \
duplicate_spades_rho_at_100=<r> normal_spades_rho_at_300=<r> \
duplicate_hearts_rho_at_100=<r> normal_hearts_rho_at_300=<r> \
duplicate_spades_logloss_vs_oracle=<x.xx> duplicate_hearts_logloss_vs_oracle=<y.yy>

the best system being the one with the lowest log-loss in that game, whose
``ρ@300`` the ``normal_*`` fields carry; the ``duplicate_*`` fields are the
preset ``duplicate`` system's (without ``--no-duplicate``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from bench import ratings_duplicate as duplicate
from bench.figures import command_line
from bench.graded import LEVELS, MAX_HANDS, GradedRobot, play_through, spearman
from bench.ratings_duplicate import DuplicateScore
from trickroom.game.hearts import HeartsGame, HeartsRules
from trickroom.game.spades import SpadesGame, SpadesRules
from trickroom.game.trickgame import TrickGame
from trickroom.ratings import SYSTEMS, GameResult, Rating, RatingSystem, WengLin
from trickroom.ratings.duplicate import DUPLICATE
from trickroom.ratings.fourway import mean_of_pairs
from trickroom.ratings.margin import Margin
from trickroom.ratings.refit import Fit, fitted_fields, game_of, refit
from trickroom.ratings.result import GameKind

KINDS: tuple[GameKind, ...] = ("spades", "hearts")
CLIP = 1e-3
CACHE = Path("/tmp/trickroom-ratings-real")
FORMAT = 2  # bump when the games played, or what is kept of them, change


# -- the players ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Played:
    """One whole game: the players (indices) in seat order, scores per seat, winning seats,
    hands played."""

    seats: tuple[int, int, int, int]
    scores: tuple[int, ...]  # one a seat
    winners: tuple[int, ...]
    hands: int


def play_one(kind: GameKind, eps: Sequence[float], seed: int, number: int) -> Played:
    """Game ``number`` of the season ``seed``: its table, deal and robots' choices."""
    rng = random.Random(f"{seed}:{kind}:{number}")
    north, east, south, west = rng.sample(range(len(eps)), 4)
    seats = (north, east, south, west)
    game: TrickGame
    if kind == "spades":
        game = SpadesGame(SpadesRules(mercy=200), seed=rng.getrandbits(32))
    else:
        game = HeartsGame(HeartsRules(), seed=rng.getrandbits(32))
    robots = [GradedRobot(eps[p], random.Random(rng.getrandbits(64))) for p in seats]
    play_through(game, robots)
    outcome = game.result()
    scores = tuple(outcome.seat_scores)
    return Played(seats, scores, tuple(outcome.winners), outcome.hands_played)


def play_chunk(kind: GameKind, eps: Sequence[float], seed: int, numbers: range
               ) -> list[Played]:
    return [play_one(kind, eps, seed, n) for n in numbers]


def season(kind: GameKind, eps: Sequence[float], games: int, seed: int, jobs: int,
           cache: Path | None, fresh: bool, tick: Callable[[int], None]) -> list[Played]:
    """The season's games, from the cache when it holds them (and ``fresh`` is false)."""
    key = json.dumps([FORMAT, kind, list(eps), games, seed, MAX_HANDS])
    path = None
    if cache is not None:
        path = cache / f"{kind}-{hashlib.sha1(key.encode()).hexdigest()[:16]}.json"
        if path.exists() and not fresh:
            tick(games)
            return [Played(tuple(s), tuple(c), tuple(w), h)
                    for s, c, w, h in json.loads(path.read_text())["games"]]
    step = 25
    chunks = [range(i, min(i + step, games)) for i in range(0, games, step)]
    played: list[Played] = []
    if jobs <= 1:
        for chunk in chunks:
            played += play_chunk(kind, eps, seed, chunk)
            tick(len(chunk))
    else:
        with ProcessPoolExecutor(jobs) as pool:
            futures = [pool.submit(play_chunk, kind, eps, seed, c) for c in chunks]
            for future in futures:
                part = future.result()
                played += part
                tick(len(part))
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"key": key, "games": [
            [list(p.seats), list(p.scores), list(p.winners), p.hands] for p in played]}))
    return played


# -- targets and predictions ----------------------------------------------------------------


def target(kind: GameKind, game: Played) -> tuple[float, ...]:
    """What happened, as chances: (North–South, East–West) or one share per seat."""
    if kind == "spades":
        sides = {s % 2 for s in game.winners}
        if not sides:
            ns, ew = game.scores[0], game.scores[1]
            sides = {0} if ns > ew else {1} if ew > ns else {0, 1}
        return tuple(1.0 / len(sides) if side in sides else 0.0 for side in (0, 1))
    winners = set(game.winners)
    if not winners:
        low = min(game.scores)
        winners = {s for s in range(4) if game.scores[s] == low}
    return tuple(1.0 / len(winners) if s in winners else 0.0 for s in range(4))


def clip(p: float) -> float:
    return min(max(p, CLIP), 1.0 - CLIP)


def log_loss(targets: Sequence[Sequence[float]], predictions: Sequence[Sequence[float]]
             ) -> float:
    return -sum(y * math.log(clip(p)) for ys, ps in zip(targets, predictions, strict=True)
                for y, p in zip(ys, ps, strict=True)) / len(targets)


def brier(kind: GameKind, targets: Sequence[Sequence[float]],
          predictions: Sequence[Sequence[float]]) -> float:
    """Spades: ``(p − y)²`` of North–South; Hearts: summed over the four seats."""
    if kind == "spades":
        total = sum((ps[0] - ys[0]) ** 2 for ys, ps in zip(targets, predictions, strict=True))
    else:
        total = sum((p - y) ** 2 for ys, ps in zip(targets, predictions, strict=True)
                    for y, p in zip(ys, ps, strict=True))
    return total / len(targets)


def calibration(targets: Sequence[Sequence[float]], predictions: Sequence[Sequence[float]]
                ) -> float:
    """The ``b`` maximising the likelihood of ``p^b`` renormalised (Newton; concave)."""
    logs = [[math.log(clip(p)) for p in ps] for ps in predictions]
    b = 1.0
    for _ in range(100):
        grad = hess = 0.0
        for ys, zs in zip(targets, logs, strict=True):
            top = max(b * z for z in zs)
            ws = [math.exp(b * z - top) for z in zs]
            total = sum(ws)
            qs = [w / total for w in ws]
            mean = sum(q * z for q, z in zip(qs, zs, strict=True))
            grad += sum(y * z for y, z in zip(ys, zs, strict=True)) - sum(ys) * mean
            hess += sum(ys) * (sum(q * z * z for q, z in zip(qs, zs, strict=True)) - mean ** 2)
        if hess <= 1e-12:
            return math.nan
        step = max(min(grad / hess, 2.0), -2.0)
        b += step
        if abs(step) < 1e-9:
            break
    return b


# -- ranks ----------------------------------------------------------------------------------


def kendall(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Kendall's tau-b, which allows ties in either ranking."""
    concordant = discordant = ties_x = ties_y = 0
    for i in range(len(xs)):
        for j in range(i + 1, len(xs)):
            dx, dy = xs[i] - xs[j], ys[i] - ys[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    n = concordant + discordant
    denominator = math.sqrt((n + ties_x) * (n + ties_y))
    return (concordant - discordant) / denominator if denominator else 0.0


def stays_from(trace: Sequence[float], bar: float) -> int | None:
    """The number of games after which ``trace`` stays at or above ``bar``; None if never."""
    if not trace or trace[-1] < bar:
        return None
    last_below = max((i for i, r in enumerate(trace) if r < bar), default=-1)
    return last_below + 2 if last_below + 1 < len(trace) else len(trace)


# -- the oracle and the naive baseline ------------------------------------------------------


def features(kind: GameKind, game: Played, level_of: Sequence[int], levels: int
             ) -> list[list[float]]:
    """Each outcome's count of players per level: the two sides, or the four seats."""
    groups = ((0, 2), (1, 3)) if kind == "spades" else ((0,), (1,), (2,), (3,))
    rows = []
    for group in groups:
        row = [0.0] * levels
        for seat in group:
            row[level_of[game.seats[seat]]] += 1.0
        rows.append(row)
    return rows


def oracle(kind: GameKind, games: Sequence[Played], level_of: Sequence[int], levels: int
           ) -> list[tuple[float, ...]]:
    """In-sample predictions of one strength per level, fitted by maximum likelihood.

    A conditional logit: an outcome's chance is ``e^{x·s} / Σ e^{x·s}``, ``x`` its
    players' count per level. Newton's method, the first level's strength fixed at 0.
    """
    xs = [features(kind, g, level_of, levels) for g in games]
    ys = [target(kind, g) for g in games]
    free = levels - 1
    s = [0.0] * levels

    def chances(rows: list[list[float]]) -> list[float]:
        us = [sum(a * b for a, b in zip(row, s, strict=True)) for row in rows]
        top = max(us)
        ws = [math.exp(u - top) for u in us]
        total = sum(ws)
        return [w / total for w in ws]

    for _ in range(50):
        grad = [0.0] * free
        hess = [[1e-9 * (i == j) for j in range(free)] for i in range(free)]
        for rows, targets in zip(xs, ys, strict=True):
            qs = chances(rows)
            mean = [sum(q * row[k + 1] for q, row in zip(qs, rows, strict=True))
                    for k in range(free)]
            for y, q, row in zip(targets, qs, rows, strict=True):
                for k in range(free):
                    grad[k] += y * row[k + 1]
                for i in range(free):
                    di = row[i + 1] - mean[i]
                    if di:
                        for j in range(free):
                            hess[i][j] += q * di * (row[j + 1] - mean[j])
            for k in range(free):
                grad[k] -= sum(targets) * mean[k]
        step = solve(hess, grad)
        for k in range(free):
            s[k + 1] += step[k]
        if max(abs(x) for x in step) < 1e-9:
            break
    return [tuple(chances(rows)) for rows in xs]


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """``x`` with ``a x = b``, by Gaussian elimination with partial pivoting."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(col + 1, n):
            f = m[r][col] / m[col][col]
            for c in range(col, n + 1):
                m[r][c] -= f * m[col][c]
    x = [0.0] * n
    for r in reversed(range(n)):
        x[r] = (m[r][n] - sum(m[r][c] * x[c] for c in range(r + 1, n))) / m[r][r]
    return x


def share_won(kind: GameKind, games: Sequence[Played], players: int
              ) -> list[tuple[float, ...]]:
    """The naive baseline: each player's share of games won so far, as chances."""
    wins = [0.0] * players
    played = [0] * players
    prior = 2 if kind == "spades" else 4
    out: list[tuple[float, ...]] = []
    for g in games:
        share = [(wins[p] + 1) / (played[p] + prior) for p in g.seats]
        if kind == "spades":
            ns, ew = share[0] + share[2], share[1] + share[3]
            out.append((ns / (ns + ew), ew / (ns + ew)))
        else:
            out.append(tuple(x / sum(share) for x in share))
        y = target(kind, g)
        for seat, p in enumerate(g.seats):
            played[p] += 1
            wins[p] += y[seat % 2] if kind == "spades" else y[seat]
    return out


# -- rating the season ----------------------------------------------------------------------


@dataclass(frozen=True)
class Score:
    """One system's figures on one kind of game."""

    system: str
    rho: float
    tau: float
    rho_300: float
    rho_100: float
    rho_90: int | None
    rho_98: int | None
    logloss: float
    brier: float
    vs_oracle: float
    vs_oracle_late: float  # the same over the second half of the season
    gain: float
    calib: float
    low: float
    high: float
    old_logloss: float  # Hearts: the mean-of-pairs rule's log-loss on the same ratings
    shown_low: float  # the lowest and highest number a player reads (RatingSystem.shown)
    shown_high: float


def old_hearts_rule(system: RatingSystem, lineup: Sequence[Rating]) -> tuple[float, ...]:
    """The Hearts chances the systems gave before the four-way model: mean pairwise chances."""
    if isinstance(system, WengLin | Margin):
        return mean_of_pairs(lambda a, b: system.pair_chance(lineup[a], lineup[b]))
    pair = getattr(system, "pair_probability")  # noqa: B009
    return mean_of_pairs(lambda a, b: float(pair(lineup[a].value, lineup[b].value)))


@dataclass(frozen=True)
class Course:
    """What one system did on one season."""

    predictions: list[tuple[float, ...]]  # its own, before each game
    old: list[tuple[float, ...]]  # Hearts: the old mean-of-pairs rule on the same ratings
    trace: list[float]  # Spearman with the true level after each game
    ratings: dict[str, Rating]  # at the end


def rate_season(system: RatingSystem, kind: GameKind, games: Sequence[Played],
                strength: Sequence[float], tick: Callable[[int], None]) -> Course:
    """Predict, then rate, every game in order."""
    names = [f"p{i}" for i in range(len(strength))]
    ratings: dict[str, Rating] = dict.fromkeys(names, system.start_rating)
    predictions: list[tuple[float, ...]] = []
    old: list[tuple[float, ...]] = []
    trace: list[float] = []
    for n, g in enumerate(games, start=1):
        players = [names[p] for p in g.seats]
        predictions.append(system.win_probability(kind, players, ratings))
        if kind == "hearts":
            old.append(old_hearts_rule(system, [ratings[p] for p in players]))
        result = GameResult.of(kind, system.name, players, g.scores, winners=g.winners,
                               hands=g.hands)
        for change in system.rate(result, ratings):
            ratings[change.player] = change.after
        trace.append(spearman([ratings[p].value for p in names], strength))
        if n % 100 == 0:
            tick(100)
    tick(len(games) % 100)
    return Course(predictions, old, trace, ratings)


def score(system: RatingSystem, kind: GameKind, games: Sequence[Played],
          strength: Sequence[float], best: Sequence[tuple[float, ...]],
          tick: Callable[[int], None]) -> Score:
    course = rate_season(system, kind, games, strength, tick)
    predictions, trace, ratings = course.predictions, course.trace, course.ratings
    targets = [target(kind, g) for g in games]
    loss = log_loss(targets, predictions)
    oracle_loss = log_loss(targets, best)
    half = len(games) // 2
    late = log_loss(targets[half:], predictions[half:]) / log_loss(targets[half:], best[half:])
    coin = math.log(2 if kind == "spades" else 4)
    values = [ratings[f"p{i}"].value for i in range(len(strength))]
    shown = [system.shown(ratings[f"p{i}"]) for i in range(len(strength))]
    return Score(
        system=system.name,
        rho=trace[-1],
        tau=kendall(values, strength),
        rho_300=trace[min(300, len(trace)) - 1],
        rho_100=trace[min(100, len(trace)) - 1],
        rho_90=stays_from(trace, 0.9),
        rho_98=stays_from(trace, 0.98),
        logloss=loss,
        brier=brier(kind, targets, predictions),
        vs_oracle=loss / oracle_loss,
        vs_oracle_late=late,
        gain=(coin - loss) / (coin - oracle_loss),
        calib=calibration(targets, predictions),
        low=min(values),
        high=max(values),
        old_logloss=log_loss(targets, course.old) if course.old else math.nan,
        shown_low=min(shown),
        shown_high=max(shown),
    )


@dataclass(frozen=True)
class Report:
    kind: GameKind
    scores: list[Score]  # the registry's systems, then the refitted tuned ones (``_refit``)
    oracle: float
    oracle_brier: float
    naive: float
    naive_brier: float
    games: int
    joint_rho_300: float = math.nan  # Spades: :func:`joint_rho` of the ``margin`` preset


def evaluate(kind: GameKind, games: Sequence[Played], eps: Sequence[float],
             levels: Sequence[float], systems: Sequence[RatingSystem],
             tick: Callable[[int], None]) -> Report:
    level_of = [levels.index(e) for e in eps]
    strength = [-e for e in eps]
    targets = [target(kind, g) for g in games]
    best = oracle(kind, games, level_of, len(levels))
    naive = share_won(kind, games, len(eps))
    scores = [score(s, kind, games, strength, best, tick) for s in systems]
    scores = [s if i < len(SYSTEMS) else replace(s, system=f"{s.system}_refit")
              for i, s in enumerate(scores)]
    joint = (joint_rho(games, strength, Margin()) if kind == "spades" and len(games) >= 300
             else math.nan)
    return Report(kind, scores, log_loss(targets, best), brier(kind, targets, best),
                  log_loss(targets, naive), brier(kind, targets, naive), len(games), joint)


# -- the most a season's scores can tell --------------------------------------------------


def joint_rho(games: Sequence[Played], strength: Sequence[float], system: Margin,
              upto: int = 300) -> float:
    """Spearman with the true level of the skills a filter keeping every correlation would
    hold after ``upto`` Spades games: the exact posterior mean of ``system``'s model.

    The final-score model is linear and Gaussian, so after ``n`` games the
    belief over all the players at once is ``N(m, (P⁻¹ + Hᵀ R⁻¹ H)⁻¹)``: a
    rating a player (``margin``) keeps only each player's marginal, and loses
    what the games told about pairs (partners' skills become anti-correlated).
    This is the ranking the scores and hand counts of those games support.
    """
    m = system.kind_model("spades")
    n = len(strength)
    info = [[(1.0 / system.sigma ** 2 if i == j else 0.0) for j in range(n)] for i in range(n)]
    rhs = [0.0] * n
    for g in games[:upto]:
        for side in (0, 1):
            row = [0.0] * n
            for seat, p in enumerate(g.seats):
                row[p] += m.points * (1.0 if seat % 2 == side else -m.rho)
            weight = g.hands / m.beta ** 2
            surprise = g.scores[side] / g.hands - m.par
            for i in range(n):
                if row[i]:
                    rhs[i] += weight * row[i] * surprise
                    for j in range(n):
                        if row[j]:
                            info[i][j] += weight * row[i] * row[j]
    return spearman(solve(info, rhs), strength)


# -- the tuned presets refitted on a season of their own -------------------------------------

TUNED = ("zone_tuned", "wocg_tuned", "openskill_tuned", "margin")


def results(kind: GameKind, system: str, games: Sequence[Played]) -> list[GameResult]:
    return [GameResult.of(kind, system, [f"p{p}" for p in g.seats], g.scores,
                          winners=g.winners, hands=g.hands) for g in games]


def refit_tuned(kind: GameKind, games: Sequence[Played]) -> list[Fit]:
    """Each tuned preset refitted (:func:`ratings.refit.refit`) on ``games``."""
    return [refit(SYSTEMS[name], results(kind, name, games)) for name in TUNED]


def describe(system: RatingSystem, kind: GameKind) -> str:
    """The constants a refit on ``kind`` fits, with their values."""
    return ", ".join(f"{f} {getattr(system, f):.4g}" for f in fitted_fields(system)
                     if game_of(f) in (None, kind))


# -- the report -----------------------------------------------------------------------------


def games_text(n: int | None) -> str:
    return "never" if n is None else str(n)


def table(report: Report) -> Table:
    t = Table(title=f"real {report.kind}: {report.games} whole games between graded robots")
    hearts = report.kind == "hearts"
    columns = ["system", "ρ", "τ", "ρ@300", "ρ≥.9 from", "ρ≥.98 from", "log-loss", "Brier",
               "×oracle", "late", "gain", "calib", "ratings", "shown"]
    if hearts:
        columns.insert(7, "old rule")
    for column in columns:
        t.add_column(column, justify="left" if column == "system" else "right")
    for s in report.scores:
        row = [s.system, f"{s.rho:.3f}", f"{s.tau:.3f}", f"{s.rho_300:.3f}",
               games_text(s.rho_90), games_text(s.rho_98), f"{s.logloss:.4f}",
               f"{s.brier:.4f}", f"{s.vs_oracle:.3f}", f"{s.vs_oracle_late:.3f}",
               f"{s.gain:.2f}", f"{s.calib:.2f}",
               f"{s.low:.0f} … {s.high:.0f}", f"{s.shown_low:.0f} … {s.shown_high:.0f}"]
        if hearts:
            row.insert(7, f"{s.old_logloss:.4f}")
        t.add_row(*row)
    coin = math.log(2 if report.kind == "spades" else 4)
    coin_brier = 0.25 if report.kind == "spades" else 0.75
    for name, loss, b in (("oracle", report.oracle, report.oracle_brier),
                          ("share won", report.naive, report.naive_brier),
                          ("coin", coin, coin_brier)):
        row = [f"[dim]{name}", "", "", "", "", "", f"{loss:.4f}", f"{b:.4f}",
               f"{loss / report.oracle:.3f}", "", f"{(coin - loss) / (coin - report.oracle):.2f}",
               "", "", ""]
        if hearts:
            row.insert(7, "")
        t.add_row(*row, style="dim")
    return t


def parse_levels(text: str) -> tuple[float, ...]:
    levels = tuple(float(x) for x in text.split(","))
    if any(not 0.0 <= e <= 1.0 for e in levels) or len(set(levels)) != len(levels):
        raise argparse.ArgumentTypeError("levels are different numbers in [0, 1]")
    return levels


def options(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = command_line(__doc__)
    parser.add_argument("--levels", type=parse_levels, default=LEVELS,
                        help="the robots' shares of random decisions, comma-separated")
    parser.add_argument("--per-level", type=int, help="players at each level (default 4)")
    parser.add_argument("--games", type=int, help="games of each kind (default 2,000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2, help="processes playing the games")
    parser.add_argument("--cache", type=Path, default=CACHE, help="folder of played games")
    parser.add_argument("--fresh", action="store_true", help="play the games again")
    parser.add_argument("--fit-seed", type=int, default=2,
                        help="season the tuned presets are refitted on")
    parser.add_argument("--no-refit", action="store_true", help="skip refitting the tuned presets")
    parser.add_argument("--no-duplicate", action="store_true",
                        help="skip the duplicate seasons (bench.ratings_duplicate)")
    parser.add_argument("--quick", action="store_true",
                        help="a small run: 2 players a level, 150 games of each kind (unless "
                             "--per-level or --games says otherwise)")
    args = parser.parse_args(argv)
    if args.per_level is None:
        args.per_level = 2 if args.quick else 4
    if args.games is None:
        args.games = 150 if args.quick else 2000
    return args


def run(args: argparse.Namespace, console: Console) -> dict[GameKind, Report]:
    """Play (or load) both seasons, rate them with every system and print the tables."""
    eps = [e for e in args.levels for _ in range(args.per_level)]
    systems = list(SYSTEMS.values())
    reports: dict[GameKind, Report] = {}
    fits: dict[GameKind, list[Fit]] = {}
    started = time.perf_counter()
    with Progress(console=console, transient=True) as progress:
        for kind in KINDS:
            def play(seed: int, kind: GameKind = kind) -> list[Played]:
                task = progress.add_task(f"real {kind}: playing season {seed}", total=args.games)
                games = season(kind, eps, args.games, seed, args.jobs, args.cache, args.fresh,
                               lambda n: progress.advance(task, n))
                progress.remove_task(task)
                return games

            games = play(args.seed)
            fitted: list[RatingSystem] = []
            if not args.no_refit:
                fit_games = play(args.fit_seed)
                task = progress.add_task(f"real {kind}: refitting {', '.join(TUNED)}", total=None)
                fits[kind] = refit_tuned(kind, fit_games)
                fitted = [f.system for f in fits[kind]]
                progress.remove_task(task)
            task = progress.add_task(f"real {kind}: rating with {len(systems + fitted)} systems",
                                     total=args.games * len(systems + fitted))
            reports[kind] = evaluate(kind, games, eps, args.levels, systems + fitted,
                                     partial(progress.advance, task))
            progress.remove_task(task)
    for kind in KINDS:
        console.print(table(reports[kind]))
        if not math.isnan(reports[kind].joint_rho_300):
            console.print(f"  a filter keeping every correlation between the {len(eps)} players "
                          f"(what a rating a player cannot keep), on margin's model: ρ@300 "
                          f"{reports[kind].joint_rho_300:.3f}", soft_wrap=True)
        if kind in fits:
            console.print(f"  refitted on season {args.fit_seed}: " + "; ".join(
                f"{f.system.name} {describe(f.system, kind)} "
                f"(log-loss {f.before:.4f} → {f.after:.4f})"
                for f in fits[kind]), soft_wrap=True)
    console.print(f"{len(eps)} players ({args.per_level} at each of ε = "
                  f"{', '.join(f'{e:g}' for e in args.levels)}), {args.games} games of each "
                  f"kind, seed {args.seed}; {time.perf_counter() - started:.0f} s",
                  soft_wrap=True)
    return reports


def best(report: Report) -> Score:
    return min(report.scores, key=lambda s: s.logloss)


def summary(reports: dict[GameKind, Report]) -> str:
    spades, hearts = best(reports["spades"]), best(reports["hearts"])
    return (f"real_spades_logloss_vs_oracle={spades.vs_oracle:.2f} "
            f"real_hearts_logloss_vs_oracle={hearts.vs_oracle:.2f}")


def run_duplicate(args: argparse.Namespace, console: Console,
                  reports: dict[GameKind, Report]) -> dict[GameKind, DuplicateScore]:
    """Play (or load) the duplicate seasons, rate them and print their table."""
    eps = [e for e in args.levels for _ in range(args.per_level)]
    scores: dict[GameKind, list[DuplicateScore]] = {}
    noise: list[str] = []
    with Progress(console=console, transient=True) as progress:
        for kind in KINDS:
            def play(seed: int, kind: GameKind = kind) -> list[duplicate.BoardSet]:
                count = duplicate.sets_in(kind, args.games)
                task = progress.add_task(f"duplicate {kind}: playing season {seed}", total=count)
                sets = duplicate.season(kind, eps, args.games, seed, args.jobs, args.cache,
                                        args.fresh, lambda n: progress.advance(task, n))
                progress.remove_task(task)
                return sets

            sets = play(args.seed)
            systems = [DUPLICATE]
            if not args.no_refit:
                learned = duplicate.fitted(kind, play(args.fit_seed))
                systems.append(replace(learned, name="duplicate_fit"))
                m = learned.model(kind)
                noise.append(f"{kind}: beta {m.beta:.4g}, cards {m.cards:.4g}, par {m.par:.4g}")
            scores[kind] = [duplicate.rate_season(s, kind, sets, eps, args.levels)
                            for s in systems]
    t = Table(title=f"duplicate seasons: {args.games} games of each kind, each game's deals "
                    "replayed with the players moved (a board set: 2 tables in Spades, 4 in "
                    "Hearts)")
    for column in ("game", "system", "sets", "ρ@100", "ρ@100 sets", "ρ@300", "ρ",
                   "best normal", "its ρ@100", "its ρ@300", "deals", "level", "log-loss",
                   "oracle", "×oracle", "calib"):
        text = column in ("game", "system", "best normal")
        t.add_column(column, justify="left" if text else "right", no_wrap=text)
    for kind in KINDS:
        normal = best(reports[kind])
        for s in scores[kind]:
            t.add_row(kind, s.system, str(s.sets), f"{s.rho_100:.3f}", f"{s.rho_100_sets:.3f}",
                      f"{s.rho_300:.3f}", f"{s.rho:.3f}", normal.system,
                      f"{normal.rho_100:.3f}", f"{normal.rho_300:.3f}", str(s.events),
                      str(s.level), f"{s.logloss:.4f}", f"{s.oracle:.4f}",
                      f"{s.vs_oracle:.3f}", f"{s.calib:.2f}")
    console.print(t)
    if noise:
        console.print(f"  duplicate_fit: the model learned on season {args.fit_seed}: "
                      + "; ".join(noise), soft_wrap=True)
    return {kind: scores[kind][0] for kind in KINDS}


def duplicate_summary(reports: dict[GameKind, Report],
                      scores: dict[GameKind, DuplicateScore]) -> str:
    """The last line's duplicate fields: the preset's ρ after 100 games beside the best normal
    system's after 300, and its deal-by-deal log-loss over the oracle's."""
    return (f"duplicate_spades_rho_at_100={scores['spades'].rho_100:.3f} "
            f"normal_spades_rho_at_300={best(reports['spades']).rho_300:.3f} "
            f"duplicate_hearts_rho_at_100={scores['hearts'].rho_100:.3f} "
            f"normal_hearts_rho_at_300={best(reports['hearts']).rho_300:.3f} "
            f"duplicate_spades_logloss_vs_oracle={scores['spades'].vs_oracle:.2f} "
            f"duplicate_hearts_logloss_vs_oracle={scores['hearts'].vs_oracle:.2f}")


def main(argv: Sequence[str] | None = None) -> Any:
    args = options(argv)
    console = Console(width=max(Console().width, 170))
    reports = run(args, console)
    line = (f"ratings_real best_spades={best(reports['spades']).system} "
            f"best_hearts={best(reports['hearts']).system} {summary(reports)}")
    if not args.no_duplicate:
        line += " " + duplicate_summary(reports, run_duplicate(args, console, reports))
    print(line)


if __name__ == "__main__":
    main()
