"""Luck learned from the room: a tuned preset's constants fitted on the room's own games.

How much a single game says about skill depends on the room: on the game,
its rules and its players. The tuned presets carry constants (Zone's step,
WoCG's K, Weng-Lin's beta and prior sigma) and a luck scale (Zone's spread,
Elo's scale, Weng-Lin's ``luck``: the spread of its predictions over its
update's) that :func:`refit` fits on a room's finished games, replayed in time
order from the start rating: each game is predicted with the candidate's own
``win_probability`` before the candidate rates it, and the constants with the
lowest mean log-loss of those predictions win (:func:`replay_loss`).

The search walks one constant at a time along a grid of factors of its
current value (halving and doubling, then a quarter, then 6%), keeping a move
only while the log-loss falls, and repeats over the constants until none
moves. The final-score model's constants are per game, and a room's games
move only those of the games it holds; its ``par`` (a side's expected final
score) is not walked but read off the games first, as their mean final score
(:meth:`ratings.margin.Margin.with_par`): the log-loss of who won hardly
depends on it, while the mean score measures it directly. The result says
the constants before and after with their log-losses, so a host can see the
gain before adopting them in the room's configuration. The faithful presets
are never refitted: their constants are the seed pages'.

>>> from trickroom.ratings.result import GameResult
>>> from trickroom.ratings.zone import Zone
>>> games = [GameResult.of("spades", "zone_tuned", "ABCD", (500, 0, 500, 0))] * 20
>>> fit = refit(Zone(name="zone_tuned", step=4.0), games)
>>> fit.after < fit.before and fit.system.step > 4.0
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from trickroom.ratings.change import Rating
from trickroom.ratings.errors import UnknownSystem
from trickroom.ratings.margin import OFFSETS, Margin
from trickroom.ratings.openskill_system import WengLin
from trickroom.ratings.result import GAME_KINDS, GameResult
from trickroom.ratings.system import RatingSystem
from trickroom.ratings.wocg import Wocg
from trickroom.ratings.zone import Zone

CLIP = 1e-3
"""Predictions are kept in [0.001, 0.999], so one confident miss costs 6.9, not infinity."""

FACTORS = (2.0, 1.25, 1.06)
"""The walk's strides: multiply or divide a constant by 2, then by 1.25, then by 1.06."""

FAITHFUL = frozenset({"zone", "wocg", "points_en", "points_el"})


def fitted_fields(system: RatingSystem) -> tuple[str, ...]:
    """The constants :func:`refit` fits for this kind of system."""
    if isinstance(system, Zone):
        return ("step", "spread")
    if isinstance(system, Wocg):
        return ("k", "scale")
    if isinstance(system, WengLin):
        return ("beta", "sigma", "luck")
    if isinstance(system, Margin):
        return ("sigma", "luck", "spades_beta", "spades_par", "hearts_beta", "hearts_par")
    raise UnknownSystem(f"no constants to fit for {system.name!r}")


def outcome(result: GameResult) -> tuple[float, ...]:
    """What happened as chances: the sides in Spades, the seats in Hearts (ties share)."""
    if result.kind == "spades":
        side = result.winning_side()
        return (0.5, 0.5) if side is None else (1.0 - side, float(side))
    low = min(result.scores)
    winners = [s for s in range(4) if result.scores[s] == low]
    return tuple(1.0 / len(winners) if s in winners else 0.0 for s in range(4))


def replay_loss(system: RatingSystem, results: Sequence[GameResult]) -> float:
    """Mean log-loss of ``system``'s predictions, each made before it rates the game.

    Every player starts at the system's start rating; results are in time order.
    """
    ratings: dict[str, Rating] = {}
    total = 0.0
    for result in results:
        for p in result.players:
            ratings.setdefault(p, system.start_rating)
        chances = system.win_probability(result.kind, result.players, ratings)
        total -= sum(y * math.log(min(max(p, CLIP), 1.0 - CLIP))
                     for y, p in zip(outcome(result), chances, strict=True) if y)
        for change in system.rate(result, ratings):
            ratings[change.player] = change.after
    return total / len(results) if results else 0.0


def game_of(field: str) -> str | None:
    """The game a per-game constant is for (``spades_beta``: Spades), or ``None``."""
    game = field.split("_")[0]
    return game if game in GAME_KINDS else None


@dataclass(frozen=True)
class Fit:
    """A refit: the system with its new constants, and the log-loss before and after."""

    system: RatingSystem
    before: float
    after: float
    games: int

    @property
    def gain(self) -> float:
        """The fall in mean log-loss per game (positive is better)."""
        return self.before - self.after


def refit(system: RatingSystem, results: Sequence[GameResult], rounds: int = 3) -> Fit:
    """``system`` with the constants that best predict ``results`` (see the module docstring).

    Raises :class:`UnknownSystem` for a faithful preset or a system without
    fitted constants.
    """
    if system.name in FAITHFUL:
        raise UnknownSystem(f"{system.name!r} is a faithful preset: its constants are the "
                            "seed's; refit a tuned preset instead")
    kinds = {r.kind for r in results}
    fields = tuple(f for f in fitted_fields(system)
                   if game_of(f) in (None, *kinds) and f not in OFFSETS)
    seen: dict[RatingSystem, float] = {}

    def loss(candidate: RatingSystem) -> float:
        if candidate not in seen:
            seen[candidate] = replay_loss(candidate, results)
        return seen[candidate]

    best = system.with_par(results) if isinstance(system, Margin) else system
    for _ in range(rounds):
        start = best
        for name in fields:
            for factor in FACTORS:
                for direction in (factor, 1.0 / factor):
                    while True:
                        value = getattr(best, name) * direction
                        candidate = replace(best, **{name: value})  # type: ignore[type-var]
                        if loss(candidate) >= loss(best):
                            break
                        best = candidate
        if best == start:
            break
    if loss(best) > loss(system):  # a measured par that happens to predict worse
        best = system
    return Fit(best, loss(system), loss(best), len(results))
