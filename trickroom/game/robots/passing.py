"""Hearts passes by search: a few candidate passes played out on sampled deals.

The rules of thumb rank the hand's cards by how much each hurts
(:func:`~game.robots.hearts_heuristic.pass_danger`); the candidates are their
pass, the passes that swap one of its cards for one of the next most
dangerous, and, for a hand with many high cards, the pass that keeps them and
gives away the lowest cards (a run at the moon). For each sampled deal of the
other 39 cards, every other seat passes by the rules of thumb, the cards
change hands, and the hand is played out with the heuristic for all four seats
(which runs for the moon and stops one), valued as the card search values a
hand: the other seats' average points less the seat's own. All candidates meet
the same deals; those clearly beaten are dropped as the budget runs. The rules
of thumb's pass is the fallback, and is kept unless another beats it clearly
(:data:`DEVIATE_SE`).
"""

from __future__ import annotations

from collections.abc import Sequence

from trickroom.game.actions import Pass
from trickroom.game.cards import cards_of
from trickroom.game.robots import hearts_heuristic
from trickroom.game.robots.playout import (
    DecisionSearch,
    clearly_better,
    hand_value,
    play_out,
    prune,
)
from trickroom.game.robots.position import Position
from trickroom.game.robots.sampling import PASS_OFFSETS, DealSampler
from trickroom.game.trickgame import TrickView

DEVIATE_SE = 2.0
"""Standard errors by which a pass must beat the rules of thumb's on the same deals to replace it.

With up to eight candidates the best estimate is biased upward; a pass only as
good as the rule-of-thumb one within the noise is not taken.
"""

PRUNE_EVERY = 10
"""Deals between two looks at which candidates are clearly beaten."""

SWAP_DEPTH = 2
"""How many of the next most dangerous cards may replace a card of the heuristic's pass."""

MOON_HIGH_CARDS = 6
"""A hand with at least this many aces, kings and queens also tries keeping them."""


def danger_order(hand: int) -> list[int]:
    """The hand's cards from most to least dangerous, as the rules of thumb pick them."""
    order: list[int] = []
    left = hand
    while left:
        best, best_danger = -1, -1e9
        for c in cards_of(left):
            d = hearts_heuristic.pass_danger(c, left)
            if d > best_danger:
                best, best_danger = c, d
        order.append(best)
        left &= ~(1 << best)
    return order


def candidate_passes(hand: int, count: int) -> list[tuple[int, ...]]:
    """The passes worth searching, the rules of thumb's first."""
    preferred = hearts_heuristic.choose_pass(hand, count)
    order = danger_order(hand)
    spare = [c for c in order if c not in preferred][:SWAP_DEPTH]
    found = [preferred]
    for out in preferred:
        for c in spare:
            found.append(tuple(sorted((*(p for p in preferred if p != out), c))))
    high = sum(1 for c in cards_of(hand) if c % 13 >= 10)
    if high >= MOON_HIGH_CARDS:
        found.append(tuple(sorted(sorted(cards_of(hand), key=lambda c: (c % 13, c))[:count])))
    unique: list[tuple[int, ...]] = []
    for p in found:
        if p not in unique:
            unique.append(p)
    return unique


class PassSearch(DecisionSearch):
    """Chooses a Hearts pass by play-outs on sampled deals (arguments as
    :class:`DecisionSearch`'s)."""

    def choose(self, view: TrickView, deal: Sequence[int] | None = None) -> Pass:
        """The pass for the seat of ``view`` (the pass phase); ``deal``: the true hands."""
        seat = view.seat
        assert seat is not None
        count = view.rules.pass_count
        cands = candidate_passes(view.hand, count)
        if len(cands) == 1:
            return Pass(cands[0])
        offset = PASS_OFFSETS[getattr(view, "pass_direction", "hold")]
        pos = Position.from_view(view)
        sampler = DealSampler(pos, seat, (13, 13, 13, 13)) if deal is None else None
        n = len(cands)
        totals = [0.0] * n
        values: list[list[float]] = [[] for _ in range(n)]
        weights: list[float] = []
        active = list(range(n))
        playouts = 0
        while playouts + len(active) <= self.simulations:
            if self.out_of_time():
                break
            hands = sampler.sample(self.rng) if sampler is not None else list(deal or ())
            theirs = [sum(1 << c for c in hearts_heuristic.choose_pass(hands[s], count))
                      if s != seat else 0 for s in range(4)]
            weights.append(1.0)
            for i in active:
                out = list(theirs)
                out[seat] = sum(1 << c for c in cands[i])
                p = pos.copy()
                p.hands = [(hands[s] & ~out[s]) | out[(s - offset) % 4] for s in range(4)]
                p.leader = p.turn = next(s for s in range(4) if p.hands[s] & 1)
                play_out(p)
                v = hand_value(p, seat)
                values[i].append(v)
                totals[i] += v
            playouts += len(active)
            if deal is not None:
                break
            if len(active) > 2 and len(weights) % PRUNE_EVERY == 0:
                active = prune(active, totals, values, weights)
        self.playouts = playouts
        if not weights:
            return Pass(cands[0])
        best = active[0]
        for i in active[1:]:
            if totals[i] > totals[best] + 1e-9:
                best = i
        if best != 0 and active[0] == 0 and deal is None and not clearly_better(
                values[best], values[0], weights, DEVIATE_SE):
            best = 0
        return Pass(cands[best])
