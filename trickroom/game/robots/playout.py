"""Play-outs and what their results are worth, shared by every search decision.

A play-out finishes a hand with the heuristic for all four seats
(:func:`play_out`); :func:`hand_value` says what the finished hand is worth to
one seat; :func:`bid_weight` says how well a sampled deal fits the bids the
other seats made, so that the searches for cards and for bids count a deal in
proportion to how likely it is. :meth:`DecisionSearch.compare` plays a
decision's candidates on the same deals, dropping those clearly beaten, for
the card, pass and bid searches alike.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from trickroom.game.robots import hearts_heuristic, spades_heuristic
from trickroom.game.robots.position import Position
from trickroom.game.spades import score_hand
from trickroom.game.trickgame import TrickView

PRUNE_EVERY = 10
"""Deals between two looks at which candidates are clearly beaten."""

Deal = TypeVar("Deal")


def play_out(pos: Position) -> None:
    """Finish the hand in ``pos`` with the heuristic for every seat."""
    choose = hearts_heuristic.choose_card if pos.hearts else spades_heuristic.choose_card
    while pos.tricks_done < 13:
        seat = pos.turn
        pos.play(choose(pos, seat, pos.legal()))


def hand_value(pos: Position, seat: int) -> float:
    """What the finished hand in ``pos`` is worth to ``seat``: its margin over the others.

    In Spades a bag is valued at what it costs in the long run (``bag_penalty``
    every ``bag_limit`` bags, less the point it scores) rather than at the one
    point it scores now.
    """
    if pos.hearts:
        scores = pos.hearts_scores()
        own = scores[seat]
        return (scores[0] + scores[1] + scores[2] + scores[3] - own) / 3.0 - own
    rules = pos.rules
    bids = [b if b >= 0 else 0 for b in pos.bids]
    result = score_hand(rules, 0, 0, bids, pos.blind, pos.tricks_won, pos.scores, pos.bags)
    bag = 1.0 - rules.bag_penalty / rules.bag_limit if rules.bag_limit else 1.0
    ours, theirs = result.sides[seat & 1], result.sides[1 - (seat & 1)]
    return (ours.contract_points + ours.nil_points + bag * ours.bags
            - theirs.contract_points - theirs.nil_points - bag * theirs.bags)


def bid_weight(view: TrickView, seat: int) -> Callable[[list[int]], float] | None:
    """Spades: how well a sampled deal fits the other seats' bids (None in Hearts).

    Each seat's hand as dealt (its cards now and those it has played) is
    valued as the heuristic would bid it (:func:`expected_bid`); a bid far
    from that makes the deal less likely, a nil from a hand with winners much
    less.
    """
    if view.game != "spades":
        return None
    bids = getattr(view, "bids", ())
    blind = getattr(view, "blind", ())
    played = [0, 0, 0, 0]
    for t in view.tricks:
        for k, c in enumerate(t.cards):
            played[(t.leader + k) & 3] |= 1 << c
    for s, c in view.trick:
        played[s] |= 1 << c
    seats = [s for s in range(4) if s != seat and bids[s] is not None and not blind[s]]

    def weight(hands: list[int]) -> float:
        w = 1.0
        for s in seats:
            dealt = hands[s] | played[s]
            bid = bids[s]
            if bid == 0:
                if not spades_heuristic.nil_worthy(dealt):
                    w *= 0.3 if spades_heuristic.sure_tricks(dealt) <= 2.5 else 0.08
            else:
                gap = bid - expected_bid(spades_heuristic.sure_tricks(dealt))
                w *= math.exp(-gap * gap / 4.5)
        return w

    return weight


def expected_bid(tricks: float) -> float:
    """The bid a hand valued at ``tricks`` sure tricks gets, on average, from the rules of thumb.

    :func:`~game.robots.spades_heuristic.bid_value` shades its estimate of a
    strong hand and rounds it down, so a bid of 4 comes from hands of about
    4.7 sure tricks, not 4; a deal is weighed by how far a bid is from this,
    not from the sure tricks themselves, or the sampled hands would be weaker
    than the bids say.
    """
    return max(1.0, tricks - 0.2 * max(0.0, tricks - 4.0) - 0.7)


def prune(active: list[int], totals: list[float], values: list[list[float]],
           weights: list[float]) -> list[int]:
    """Drop the candidates clearly worse than the best on the same deals.

    A candidate goes when its mean loss to the leader over the deals so far
    exceeds three standard errors; the budget it frees buys more deals for
    the close calls.
    """
    best = max(active, key=lambda i: totals[i])
    mean_w = sum(weights, 0.0) / len(weights) or 1.0
    top = values[best]
    kept = []
    k = len(weights)
    for i in active:
        if i == best:
            kept.append(i)
            continue
        diffs = [w * (a - b) / mean_w for w, a, b in zip(weights, top, values[i], strict=True)]
        mean = sum(diffs, 0.0) / k
        var = sum(((d - mean) ** 2 for d in diffs), 0.0) / (k - 1)
        if mean <= 3.0 * math.sqrt(var / k) + 0.05:
            kept.append(i)
    return kept


def clearly_better(a: list[float], b: list[float], weights: list[float], margin: float) -> bool:
    """Whether values ``a`` beat ``b`` on the same weighted deals by ``margin`` standard errors."""
    k = len(weights)
    if k < 2:
        return False
    mean_w = sum(weights, 0.0) / k or 1.0
    diffs = [w * (x - y) / mean_w for w, x, y in zip(weights, a, b, strict=True)]
    mean = sum(diffs, 0.0) / k
    var = sum(((d - mean) ** 2 for d in diffs), 0.0) / (k - 1)
    return mean > margin * math.sqrt(var / k)


@dataclass
class Trials:
    """What playing a decision's candidates on the same deals found
    (:meth:`DecisionSearch.compare`).

    Each candidate is played on every deal until it is dropped, so
    ``values[i]`` holds its values on the first ``len(values[i])`` deals, and
    the first as many ``weights`` are theirs.
    """

    active: list[int]  # the candidates not dropped, in their first order
    totals: list[float]  # per candidate, its values times the deals' weights, summed
    values: list[list[float]]  # per candidate, its value on each deal it was played on
    weights: list[float]  # per deal, how much it counts
    playouts: int = 0

    def best(self, deviate_se: float | None = None) -> int:
        """The candidate not dropped with the highest total, the first of a tie.

        With ``deviate_se``, candidate 0 (the rules of thumb's) is kept unless
        the best beats it by that many standard errors on the same deals.
        """
        active, totals = self.active, self.totals
        best = active[0]
        for i in active[1:]:
            if totals[i] > totals[best] + 1e-9:
                best = i
        if deviate_se is not None and best != 0 and active[0] == 0 and not clearly_better(
                self.values[best], self.values[0], self.weights, deviate_se):
            best = 0
        return best


class DecisionSearch:
    """What a search for one decision (a card, a bid, a pass) holds: its RNG and play-out budget.

    Args:
        rng: the robot's RNG; with ``simulations`` it fixes every choice.
        simulations: play-outs for one decision, over all candidates.
        clock, deadline: when ``clock`` is given, the search also stops once
            it reads ``deadline`` or later.
    """

    def __init__(self, rng: random.Random, simulations: int,
                 clock: Callable[[], float] | None = None, deadline: float = 0.0) -> None:
        self.rng = rng
        self.simulations = simulations
        self.clock = clock
        self.deadline = deadline
        self.playouts = 0  # how many the last decision ran

    def out_of_time(self) -> bool:
        return self.clock is not None and self.clock() >= self.deadline

    def compare(self, n: int, deal: Callable[[], Deal], value: Callable[[Deal, int], float],
                weigh: Callable[[Deal], float] | None = None, once: bool = False) -> Trials:
        """Play candidates ``0`` to ``n - 1`` on the same deals while the budget and the
        clock allow.

        ``deal()`` draws a deal, ``weigh(deal)`` says how much it counts (1
        without ``weigh``) and ``value(deal, i)`` is what candidate ``i`` is
        worth on it. With ``once`` one deal is played (the true one, whose
        play-outs are certain). Every :data:`PRUNE_EVERY` deals the candidates
        clearly beaten are dropped while more than two remain (:func:`prune`).
        """
        trials = Trials(list(range(n)), [0.0] * n, [[] for _ in range(n)], [])
        totals, values, weights = trials.totals, trials.values, trials.weights
        while trials.playouts + len(trials.active) <= self.simulations:
            if self.out_of_time():
                break
            dealt = deal()
            w = weigh(dealt) if weigh is not None else 1.0
            weights.append(w)
            for i in trials.active:
                v = value(dealt, i)
                values[i].append(v)
                totals[i] += w * v
            trials.playouts += len(trials.active)
            if once:
                break
            if len(trials.active) > 2 and len(weights) % PRUNE_EVERY == 0:
                trials.active = prune(trials.active, totals, values, weights)
        self.playouts = trials.playouts
        return trials
