"""What the rating benches play with: robots of graded strength, a game played through by
them, and the rank correlation their figures are read with.

Its own module so that ``bench.ratings_real`` (whole games) and ``bench.ratings_duplicate``
(board sets, which ``ratings_real`` runs too) share them without importing each other.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

from trickroom.game.actions import Action
from trickroom.game.robots.heuristic import heuristic_action
from trickroom.game.trickgame import TrickView

LEVELS = (0.0, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0)
MAX_HANDS = 200


class GradedRobot:
    """The heuristic robot, taking a uniformly random legal action with probability ``eps``."""

    def __init__(self, eps: float, rng: random.Random) -> None:
        self.eps = eps
        self.rng = rng

    def choose(self, view: TrickView) -> Action:
        if self.rng.random() < self.eps:
            return self.rng.choice(view.legal)
        return heuristic_action(view)


def play_through(game: Any, players: Sequence[Any], max_hands: int = MAX_HANDS) -> None:
    """Play ``game`` to its end (or ``max_hands`` hands), each seat's robot choosing."""
    while True:
        while game.phase in ("bid", "pass", "play", "moon"):
            seat = game.awaiting[0]
            game.apply(players[seat].choose(game.view(seat)), seat)
        if game.phase == "game_over" or game.hand_no >= max_hands:
            break
        game.next_hand()


def ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=values.__getitem__)
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2
        i = j + 1
    return out


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    return cov / math.sqrt(vx * vy) if vx and vy else 0.0
