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
from trickroom.game.robots.playout import DecisionSearch, hand_value, play_out
from trickroom.game.robots.position import Position
from trickroom.game.robots.sampling import PASS_OFFSETS, DealSampler
from trickroom.game.trickgame import TrickView

DEVIATE_SE = 2.0
"""Standard errors by which a pass must beat the rules of thumb's on the same deals to replace it.

With up to eight candidates the best estimate is biased upward; a pass only as
good as the rule-of-thumb one within the noise is not taken.
"""

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

        def deal_and_passes() -> tuple[list[int], list[int]]:
            """A deal and the cards every other seat passes from it by the rules of thumb."""
            hands = sampler.sample(self.rng) if sampler is not None else list(deal or ())
            theirs = [sum(1 << c for c in hearts_heuristic.choose_pass(hands[s], count))
                      if s != seat else 0 for s in range(4)]
            return hands, theirs

        def value(dealt: tuple[list[int], list[int]], i: int) -> float:
            hands, theirs = dealt
            out = list(theirs)
            out[seat] = sum(1 << c for c in cands[i])
            p = pos.copy()
            p.hands = [(hands[s] & ~out[s]) | out[(s - offset) % 4] for s in range(4)]
            p.leader = p.turn = next(s for s in range(4) if p.hands[s] & 1)
            play_out(p)
            return hand_value(p, seat)

        trials = self.compare(len(cands), deal_and_passes, value, once=deal is not None)
        if not trials.weights:
            return Pass(cands[0])
        return Pass(cands[trials.best(None if deal is not None else DEVIATE_SE)])
