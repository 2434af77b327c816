"""Duplicate seasons for ``bench.ratings_real``: the same ε-robots, each game's deals replayed
at other tables with the players moved, rated against the field by ``ratings.duplicate``.

Board sets. Board set ``n`` of a season is normal game ``n`` (the same four
players in the same seats, the same seed, the same robots' choices: its first
table *is* that game) played again at more tables with every player moved one
seat on a table (``trickroom.game.duplicate``: a seed deals the same hands by
seat whatever is played): two tables in Spades, so a side holds at the second
table the cards the other side held at the first; four in Hearts, so each
player holds each seat's cards once. The robots at the other tables draw
their random choices afresh. A season has as many *games* (tables played) as
the normal season, so ``--games`` games are ``games / 2`` Spades and
``games / 4`` Hearts board sets, and a player spends as many games in either.

Measures:

* ``ρ@100``: Spearman of the duplicate ratings with the true levels after 100
  games (tables played; 50 Spades or 25 Hearts board sets), to set beside the
  best normal system's ``ρ@300``; ``ρ@100 sets`` after 100 board sets (200 or
  400 games), ``ρ@300`` after 300 games, and ``ρ`` at the end.
* Deal-by-deal log-loss: before a board set is rated, each player's chance of
  beating the field on a deal (:meth:`ratings.duplicate.Duplicate.forecast`),
  scored on every deal the set compared where someone beat the field
  (a level deal has no winner): in Spades the first table's North–South side,
  one event a deal; in Hearts each of the four players. ``×oracle`` divides it
  by the log-loss of an oracle that knows the levels: a logistic model with one
  strength per level fitted on all the season's events (the event's player or
  side's count per level minus its field's).

The robots, the game length and the rank statistics are ``bench.graded``'s, as
``bench.ratings_real``'s are (which runs these seasons too).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from bench.graded import MAX_HANDS, GradedRobot, play_through, spearman
from trickroom.game.actions import Action
from trickroom.game.duplicate import MATCH_GAMES
from trickroom.game.hearts import HeartsGame, HeartsRules
from trickroom.game.spades import SpadesGame, SpadesRules
from trickroom.game.trickgame import TrickGame, TrickView
from trickroom.ratings import Rating
from trickroom.ratings.duplicate import DUPLICATE, Duplicate, DuplicateResult, fit
from trickroom.ratings.margin import solve
from trickroom.ratings.result import GameKind

FORMAT = 1  # bump when the board sets played, or what is kept of them, change
CLIP = 1e-3


@dataclass(frozen=True)
class BoardSet:
    """One board set: the first table's players (indices) by seat, and each table's points
    hand by hand, one number a seat as the game scored the hand."""

    seats: tuple[int, int, int, int]
    tables: tuple[tuple[tuple[int, int, int, int], ...], ...]

    def lineups(self) -> list[tuple[int, int, int, int]]:
        """Each table's players by seat: at table ``k`` everyone sits ``k`` seats on."""
        out = []
        for k in range(len(self.tables)):
            lineup = [0, 0, 0, 0]
            for seat, player in enumerate(self.seats):
                lineup[(seat + k) % 4] = player
            out.append((lineup[0], lineup[1], lineup[2], lineup[3]))
        return out

    def result(self, system: str) -> DuplicateResult:
        kind: GameKind = "spades" if len(self.tables) == 2 else "hearts"
        return DuplicateResult.of(kind, system, [
            ([f"p{p}" for p in lineup], table)
            for lineup, table in zip(self.lineups(), self.tables, strict=True)])


class Chooser(Protocol):
    def choose(self, view: TrickView) -> Action: ...


def play_table(kind: GameKind, game_seed: int, players: Sequence[Chooser]
               ) -> tuple[tuple[int, int, int, int], ...]:
    """One whole game from ``game_seed``: each hand's points by seat."""

    game: TrickGame
    if kind == "spades":
        game = SpadesGame(SpadesRules(mercy=200), seed=game_seed)
    else:
        game = HeartsGame(HeartsRules(), seed=game_seed)
    play_through(game, players)
    hands = []
    for r in game.hand_results:
        if kind == "spades":
            ns, ew = r.sides[0].points, r.sides[1].points
            hands.append((ns, ew, ns, ew))
        else:
            hands.append((r.points[0], r.points[1], r.points[2], r.points[3]))
    return tuple(hands)


def play_set(kind: GameKind, eps: Sequence[float], seed: int, number: int) -> BoardSet:
    """Board set ``number`` of season ``seed``: normal game ``number``'s table, seed and
    robots at the first table, the players moved one seat on at each other table."""

    rng = random.Random(f"{seed}:{kind}:{number}")  # as bench.ratings_real.play_one draws
    north, east, south, west = rng.sample(range(len(eps)), 4)
    seats = (north, east, south, west)
    game_seed = rng.getrandbits(32)
    first = [random.Random(rng.getrandbits(64)) for _ in range(4)]
    tables = []
    for k, lineup in enumerate(BoardSet(seats, ((),) * MATCH_GAMES[kind]).lineups()):
        if k == 0:
            robots = [GradedRobot(eps[p], first[s]) for s, p in enumerate(seats)]
        else:
            fresh = random.Random(f"{seed}:{kind}:{number}:table {k}")
            robots = [GradedRobot(eps[p], random.Random(fresh.getrandbits(64))) for p in lineup]
        tables.append(play_table(kind, game_seed, robots))
    return BoardSet(seats, tuple(tables))


def play_chunk(kind: GameKind, eps: Sequence[float], seed: int, numbers: range
               ) -> list[BoardSet]:
    return [play_set(kind, eps, seed, n) for n in numbers]


def sets_in(kind: GameKind, games: int) -> int:
    """Board sets in a season of ``games`` tables played."""
    return max(games // MATCH_GAMES[kind], 1)


def season(kind: GameKind, eps: Sequence[float], games: int, seed: int, jobs: int,
           cache: Path | None, fresh: bool, tick: Callable[[int], None]) -> list[BoardSet]:
    """The season's board sets (``games`` tables in all), from the cache when it holds them."""
    from concurrent.futures import ProcessPoolExecutor


    count = sets_in(kind, games)
    key = json.dumps([FORMAT, "duplicate", kind, list(eps), count, seed, MAX_HANDS])
    path = None
    if cache is not None:
        path = cache / f"duplicate-{kind}-{hashlib.sha1(key.encode()).hexdigest()[:16]}.json"
        if path.exists() and not fresh:
            tick(count)
            return [BoardSet((s[0], s[1], s[2], s[3]),
                             tuple(tuple((h[0], h[1], h[2], h[3]) for h in t) for t in ts))
                    for s, ts in json.loads(path.read_text())["sets"]]
    chunks = [range(i, min(i + 10, count)) for i in range(0, count, 10)]
    played: list[BoardSet] = []
    if jobs <= 1:
        for chunk in chunks:
            played += play_chunk(kind, eps, seed, chunk)
            tick(len(chunk))
    else:
        with ProcessPoolExecutor(jobs) as pool:
            for future in [pool.submit(play_chunk, kind, eps, seed, c) for c in chunks]:
                part = future.result()
                played += part
                tick(len(part))
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"key": key, "sets": [
            [list(b.seats), [[list(h) for h in t] for t in b.tables]] for b in played]}))
    return played


# -- rating a season ----------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """One deal's question, "does this player (or side) beat the field?": the player index
    the model's chance is read for, the answer, and the oracle's features (count per level
    of the player or side, minus the field's)."""

    player: int
    chance: float
    beat: bool
    features: tuple[float, ...]


@dataclass(frozen=True)
class DuplicateScore:
    """The duplicate system's figures on one season."""

    system: str
    kind: GameKind
    sets: int
    tables: int
    rho: float
    rho_100: float  # after 100 games (tables played)
    rho_100_sets: float  # after 100 board sets
    rho_300: float  # after 300 games
    logloss: float
    oracle: float
    events: int
    level: int  # deals compared where nobody beat the field (no winner: not scored)
    calib: float

    @property
    def vs_oracle(self) -> float:
        return self.logloss / self.oracle


def events_of(kind: GameKind, board: BoardSet, forecasts: dict[str, float],
              result: DuplicateResult, level_of: Sequence[int], levels: int
              ) -> tuple[list[Event], int]:
    """The set's deal-by-deal events, and how many were level."""
    seats = board.seats
    if kind == "spades":
        askers = [(seats[0], [seats[0], seats[2]], [seats[1], seats[3]])]
    else:
        askers = [(p, [p], [q for q in seats if q != p]) for p in seats]
    out, level = [], 0
    for player, own, field in askers:
        x = [0.0] * levels
        for p in own:
            x[level_of[p]] += 1.0
        for p in field:
            x[level_of[p]] -= len(own) / len(field)
        for m in result.margins(f"p{player}"):
            if m == 0:
                level += 1
                continue
            out.append(Event(player, forecasts[f"p{player}"], m > 0, tuple(x)))
    return out, level


def rate_season(system: Duplicate, kind: GameKind, sets: Sequence[BoardSet],
                eps: Sequence[float], levels: Sequence[float]) -> DuplicateScore:
    """Forecast each board set's deals, then rate it; the Spearman trace and the log-loss."""

    strength = [-e for e in eps]
    level_of = [levels.index(e) for e in eps]
    names = [f"p{i}" for i in range(len(eps))]
    ratings: dict[str, Rating] = dict.fromkeys(names, system.start_rating)
    trace: list[float] = []
    events: list[Event] = []
    level = 0
    for board in sets:
        result = board.result(system.name)
        lineups = [t.players for t in result.tables]
        chances = {p: f.chance for p, f in system.forecast(kind, lineups, ratings).items()}
        found, tied = events_of(kind, board, chances, result, level_of, len(levels))
        events += found
        level += tied
        for change in system.rate(result, ratings):
            ratings[change.player] = change.after
        trace.append(spearman([ratings[p].value for p in names], strength))
    tables = MATCH_GAMES[kind]
    loss = binary_log_loss([e.beat for e in events], [e.chance for e in events])
    best = oracle_chances(events, len(levels))
    return DuplicateScore(
        system=system.name, kind=kind, sets=len(sets), tables=tables, rho=trace[-1],
        rho_100=trace[min(max(100 // tables, 1), len(trace)) - 1],
        rho_100_sets=trace[min(100, len(trace)) - 1],
        rho_300=trace[min(max(300 // tables, 1), len(trace)) - 1],
        logloss=loss, oracle=binary_log_loss([e.beat for e in events], best),
        events=len(events), level=level,
        calib=slope([e.beat for e in events], [e.chance for e in events]))


def binary_log_loss(beats: Sequence[bool], chances: Sequence[float]) -> float:
    if not beats:
        return math.nan
    return -sum(math.log(min(max(p if y else 1.0 - p, CLIP), 1.0 - CLIP))
                for y, p in zip(beats, chances, strict=True)) / len(beats)


def logistic(beats: Sequence[bool], xs: Sequence[Sequence[float]]) -> list[float]:
    """Maximum-likelihood weights of ``P(beat) = 1 / (1 + e^{−x·w})`` (Newton, a light ridge
    so a level no event separates stays finite)."""
    n = len(xs[0]) if xs else 0
    w = [0.0] * n
    for _ in range(50):
        grad = [-1e-6 * v for v in w]
        hess = [[1e-6 if i == j else 0.0 for j in range(n)] for i in range(n)]
        for y, x in zip(beats, xs, strict=True):
            p = 1.0 / (1.0 + math.exp(-sum(a * b for a, b in zip(x, w, strict=True))))
            for i in range(n):
                grad[i] += (float(y) - p) * x[i]
                for j in range(n):
                    hess[i][j] += p * (1.0 - p) * x[i] * x[j]
        step = solve(hess, grad)
        w = [a + b for a, b in zip(w, step, strict=True)]
        if max((abs(s) for s in step), default=0.0) < 1e-9:
            break
    return w


def oracle_chances(events: Sequence[Event], levels: int) -> list[float]:
    """In-sample chances of one strength per level (the first fixed at 0)."""
    xs = [e.features[1:] for e in events]
    w = logistic([e.beat for e in events], xs)
    return [1.0 / (1.0 + math.exp(-sum(a * b for a, b in zip(x, w, strict=True)))) for x in xs]


def slope(beats: Sequence[bool], chances: Sequence[float]) -> float:
    """The calibration slope: the logistic regression of the answer on ``logit p``."""
    xs = [[math.log(min(max(p, CLIP), 1 - CLIP) / (1 - min(max(p, CLIP), 1 - CLIP)))]
          for p in chances]
    return logistic(beats, xs)[0] if xs else math.nan


def fitted(kind: GameKind, sets: Sequence[BoardSet]) -> Duplicate:
    """The preset with ``kind``'s per-deal noise learned on ``sets`` (:func:`fit`)."""
    system = fit(DUPLICATE, kind, [b.result(DUPLICATE.name) for b in sets])
    return replace(system, name=DUPLICATE.name)
