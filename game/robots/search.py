"""The ``search`` robot: determinised Monte Carlo over deals the seat cannot rule out.

For a card to play, it samples the other seats' hands consistently with the
view (:mod:`game.robots.sampling`), and in each sampled deal plays every
candidate card and then the rest of the hand with the heuristic for all four
seats, scoring the result for its own side: in Spades its side's points for
the hand minus the opponents' (nil included, a bag at its long-run cost), in
Hearts the other seats' average points minus its own (the moon included). The
candidate with the best total over the same deals wins; comparing candidates
on the same deals cancels most of the luck of the sample. Every few deals a
candidate clearly beaten on the deals so far is dropped, so the close calls
get the rest of the budget. In Spades a deal counts in proportion to how well
it fits the bids: a sampled hand far from what its seat bid weighs little.

Candidates are the legal cards with equivalent ones merged (cards of one suit
with no card still out between them take the same tricks); a single candidate
is played at once. Bids, passes and the moon choice are the heuristic's.

The budget is a number of play-outs, so a seed and a count fix every choice.
``DEFAULT_SIMULATIONS`` is calibrated to about 200 ms for an early decision on
the reference machine, later ones being cheaper. A caller that wants a wall
clock bound (the server) passes ``clock`` (seconds, e.g. ``time.monotonic``)
and ``budget_ms``: the search then stops at the deadline or the count,
whichever comes first, and is anytime: with no deal searched it plays the
heuristic's card. ``game/`` itself never reads a clock.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from game.actions import PLAYS, Action
from game.robots import hearts_heuristic, spades_heuristic
from game.robots.heuristic import heuristic_action, heuristic_card, legal_mask
from game.robots.position import JD_BIT, QS_BIT, Position, above
from game.robots.sampling import DealSampler, known_cards
from game.spades import score_hand
from game.trickgame import TrickView

DEFAULT_SIMULATIONS = 800
"""Play-outs per decision when no clock is given (about 200 ms early in a hand)."""

PRUNE_EVERY = 10
"""Deals between two looks at which candidates are clearly beaten."""


def candidates(pos: Position, seat: int, legal: int) -> list[int]:
    """The legal cards, one of each group that plays the same (lowest first)."""
    out = pos.outstanding(seat)
    special = QS_BIT | (JD_BIT if pos.hearts and pos.rules.jack_of_diamonds else 0)
    cards: list[int] = []
    prev = -1
    mask = legal
    while mask:
        low = mask & -mask
        c = low.bit_length() - 1
        mask ^= low
        if (prev >= 0 and prev // 13 == c // 13 and not (above(prev) & ~above(c - 1)) & out
                and not (1 << c | 1 << prev) & special):
            prev = c
            continue
        cards.append(c)
        prev = c
    return cards


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
    valued as the heuristic would bid it; a bid far from that makes the deal
    less likely, a nil from a hand with winners much less.
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
                gap = bid - spades_heuristic.sure_tricks(dealt)
                w *= math.exp(-gap * gap / 4.5)
        return w

    return weight


class SearchRobot:
    """Samples deals, plays each candidate out with the heuristic, keeps the best.

    Args:
        seed: the robot's RNG seed; with ``simulations`` it fixes every choice.
        simulations: play-outs per decision (default ``DEFAULT_SIMULATIONS``).
        budget_ms: with ``clock``, the time a decision may take.
        clock: a function returning seconds; when given, the search also stops
            at ``budget_ms``.
    """

    name = "search"

    def __init__(self, seed: int = 0, *, simulations: int | None = None,
                 budget_ms: float = 200.0, clock: Callable[[], float] | None = None) -> None:
        self.rng = random.Random(seed)
        self.simulations = simulations if simulations is not None else DEFAULT_SIMULATIONS
        self.budget = budget_ms / 1000.0
        self.clock = clock
        self.last_playouts = 0

    def choose(self, view: TrickView) -> Action:
        self.last_playouts = 0
        if view.phase != "play" or view.seat is None:
            return heuristic_action(view)
        return PLAYS[self.choose_card(view)]

    def choose_card(self, view: TrickView) -> int:
        """The card to play in ``view`` (the play phase, this seat to act)."""
        clock = self.clock
        deadline = clock() + self.budget if clock is not None else 0.0
        seat = view.seat
        assert seat is not None
        pos = Position.from_view(view)
        legal = legal_mask(view)
        cands = candidates(pos, seat, legal)
        if len(cands) == 1:
            return cands[0]
        preferred = heuristic_card(view, pos)
        # The heuristic's card (or its group) first, so that ties keep it.
        for i, c in enumerate(cands):
            if c == preferred or _same_group(cands, i, preferred):
                cands.insert(0, cands.pop(i))
                break
        sampler = DealSampler(pos, seat, view.hand_sizes, known_cards(view, pos))
        weigh = bid_weight(view, seat)
        n = len(cands)
        totals = [0.0] * n
        values: list[list[float]] = [[] for _ in range(n)]
        weights: list[float] = []
        active = list(range(n))
        playouts = 0
        rng = self.rng
        while playouts + len(active) <= self.simulations:
            if clock is not None and clock() >= deadline:
                break
            hands = sampler.sample(rng)
            w = weigh(hands) if weigh is not None else 1.0
            weights.append(w)
            for i in active:
                p = pos.copy()
                p.hands = list(hands)
                p.play(cands[i])
                play_out(p)
                v = hand_value(p, seat)
                values[i].append(v)
                totals[i] += w * v
            playouts += len(active)
            if len(active) > 2 and len(weights) % PRUNE_EVERY == 0:
                active = _prune(active, totals, values, weights)
        self.last_playouts = playouts
        if not weights:
            return preferred
        best = active[0]
        for i in active[1:]:
            if totals[i] > totals[best] + 1e-9:
                best = i
        return cands[best]


def _prune(active: list[int], totals: list[float], values: list[list[float]],
           weights: list[float]) -> list[int]:
    """Drop the candidates clearly worse than the best on the same deals.

    A candidate goes when its mean loss to the leader over the deals so far
    exceeds three standard errors; the budget it frees buys more deals for
    the close calls.
    """
    best = max(active, key=lambda i: totals[i])
    mean_w = sum(weights) / len(weights) or 1.0
    top = values[best]
    kept = []
    k = len(weights)
    for i in active:
        if i == best:
            kept.append(i)
            continue
        diffs = [w * (a - b) / mean_w for w, a, b in zip(weights, top, values[i], strict=True)]
        mean = sum(diffs) / k
        var = sum((d - mean) ** 2 for d in diffs) / (k - 1)
        if mean <= 3.0 * math.sqrt(var / k) + 0.05:
            kept.append(i)
    return kept


def _same_group(cands: list[int], i: int, card: int) -> bool:
    """Whether ``card`` was merged into candidate ``i`` (same suit, between it and the next)."""
    c = cands[i]
    if card // 13 != c // 13 or card < c:
        return False
    nxt = cands[i + 1] if i + 1 < len(cands) else 52
    return card < nxt or nxt // 13 != c // 13
