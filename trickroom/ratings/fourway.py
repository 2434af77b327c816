"""Four-player chances for Hearts: a Plackett–Luce model on the system's own pairwise chances.

Every system here predicts pairs: Elo's expectation, Zone's straight line,
the points system's odds, Weng-Lin's two-player chance. Hearts has four
players and one winner (the lowest score), and averaging a player's three
pairwise chances is much too flat: a player who beats each of three others
three times in four averages 0.75 against opponents who average about 0.42,
and gets 0.37 of the win, where a model of a four-way result gives 0.5.

The model here is Plackett–Luce: player ``i`` has a strength ``w_i`` and
finishes first with chance ``e^{w_i} / Σ_j e^{w_j}``; removing the winner,
the next place is drawn the same way among the rest. It is the four-player
model whose pairwise chances are Bradley–Terry's, ``P(i above j) =
1 / (1 + e^{w_j - w_i})``, so it is read from the system's pairwise rule:
``w_i`` is the least-squares fit of ``w_i − w_j = log pair(i, j) − log pair(j, i)`` over the
pairs, which for four players is ``w_i = ¼ Σ_j (log pair(i, j) − log pair(j, i))``. For a
logistic pairwise rule (Elo, the points system's unclamped odds) the fit is
exact and the model agrees with every pairwise chance; for the others it is
the closest Plackett–Luce model.

>>> def pair(a, b):  # seat 0 beats each other seat 3 times in 4
...     return 0.75 if a == 0 else 0.25 if b == 0 else 0.5
>>> [round(p, 3) for p in hearts_from_pairs(pair)]
[0.5, 0.167, 0.167, 0.167]
>>> [round(p, 3) for p in mean_of_pairs(pair)]
[0.375, 0.208, 0.208, 0.208]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import permutations

TINY = 1e-300
"""A pairwise chance of 0 is read as this, where the log-odds would be infinite."""

Pair = Callable[[int, int], float]
"""``pair(a, b)``: the chance seat ``a`` finishes below (better than) seat ``b``."""


def strengths_from_pairs(pair: Pair, n: int = 4) -> tuple[float, ...]:
    """Plackett–Luce strengths (summing to 0) that best match the pairwise chances.

    Each pair's log-odds is read as ``log pair(a, b) − log pair(b, a)``: the
    logit for a rule with ``pair(a, b) + pair(b, a) = 1``, without losing the
    precision of the smaller chance, and the Bradley–Terry ratio for one that
    is not quite symmetric.
    """
    def odds(a: int, b: int) -> float:
        return math.log(max(pair(a, b), TINY)) - math.log(max(pair(b, a), TINY))

    return tuple(sum(odds(a, b) for b in range(n) if b != a) / n for a in range(n))


def plackett_luce(strengths: Sequence[float]) -> tuple[float, ...]:
    """Each player's chance of finishing first: ``e^{w_i} / Σ_j e^{w_j}``."""
    top = max(strengths)
    weights = [math.exp(w - top) for w in strengths]
    total = sum(weights)
    return tuple(w / total for w in weights)


def finishing_orders(strengths: Sequence[float]) -> dict[tuple[int, ...], float]:
    """The chance of every finishing order (best first), by Plackett–Luce.

    >>> orders = finishing_orders([0.0, 0.0, 0.0, 0.0])
    >>> len(orders), round(sum(orders.values()), 9), round(orders[(0, 1, 2, 3)], 4)
    (24, 1.0, 0.0417)
    """
    chances: dict[tuple[int, ...], float] = {}
    weights = plackett_luce(strengths)
    for order in permutations(range(len(strengths))):
        left, p = 1.0, 1.0
        for player in order[:-1]:
            p *= weights[player] / left
            left -= weights[player]
        chances[order] = p
    return chances


def thurstone(means: Sequence[float], spreads: Sequence[float]) -> tuple[float, ...]:
    """Each player's chance of the best performance when performances are normal.

    Player ``i`` performs ``N(means[i], spreads[i]²)``; the chance ``i`` beats all
    the others is ``∫ φ(t) Π_j Φ((m_i + s_i t − m_j) / s_j) dt``, computed by
    Simpson's rule over ``t`` in [−8, 8] (the tails beyond hold under 1e-15).

    >>> [round(p, 4) for p in thurstone([0, 0, 0, 0], [1, 1, 1, 1])]
    [0.25, 0.25, 0.25, 0.25]
    >>> round(thurstone([1, 0], [1, 1])[0], 4)  # Φ(1 / √2)
    0.7602
    """
    steps = 160
    h = 16.0 / steps
    chances = []
    for i, (m, s) in enumerate(zip(means, spreads, strict=True)):
        total = 0.0
        for k in range(steps + 1):
            t = -8.0 + k * h
            x = m + s * t
            value = math.exp(-t * t / 2)
            for j, (mj, sj) in enumerate(zip(means, spreads, strict=True)):
                if j != i:
                    value *= 0.5 * math.erfc((mj - x) / (sj * math.sqrt(2)))
            total += value * (1 if k in (0, steps) else 4 if k % 2 else 2)
        chances.append(total * h / 3 / math.sqrt(2 * math.pi))
    norm = sum(chances)
    return tuple(c / norm for c in chances)


def hearts_from_pairs(pair: Pair) -> tuple[float, ...]:
    """Four win chances from a pairwise rule, by Plackett–Luce (see the module docstring).

    >>> hearts_from_pairs(lambda a, b: 0.5)
    (0.25, 0.25, 0.25, 0.25)
    """
    return plackett_luce(strengths_from_pairs(pair))


def mean_of_pairs(pair: Pair) -> tuple[float, ...]:
    """The old rule, kept for comparison: each seat's mean pairwise chance, normalised.

    ``openskill``'s own ``predict_win`` does this for more than two teams.
    """
    means = [sum(pair(a, b) for b in range(4) if b != a) / 3 for a in range(4)]
    total = sum(means)
    return tuple(m / total for m in means)
