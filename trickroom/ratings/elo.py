"""Plain Elo: the expected score and the update, as the WoCG page quotes them.

These are the chess formulas the team systems build on. They are kept apart so
the seed's own chess example can be checked against them directly:

>>> games = [(1609, 0), (1477, 0.5), (1388, 1), (1586, 1), (1720, 0)]
>>> round(sum(expected(1613, r) for r, _ in games), 3)
2.867
>>> round(tournament(1613, games, k=32))
1601
"""

from __future__ import annotations

import math
from collections.abc import Sequence

SCALE = 400.0
"""Elo's rating difference for 10-to-1 odds."""


def expected(rating: float, opponent: float, scale: float = SCALE) -> float:
    """The expected score of ``rating`` against ``opponent``: ``1 / (1 + 10^((Ro - R)/400))``."""
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / scale))


def update(rating: float, actual: float, expected_score: float, k: float) -> float:
    """Elo's new rating ``R + K (S - E)``, with ``S`` and ``E`` summed over the games rated."""
    return rating + k * (actual - expected_score)


def tournament(rating: float, games: Sequence[tuple[float, float]], k: float) -> float:
    """The rating after a set of games rated together: ``(opponent rating, score)`` pairs."""
    actual = sum(score for _, score in games)
    return update(rating, actual, sum(expected(rating, opp) for opp, _ in games), k)
