"""The ``search`` robot: determinised Monte Carlo over deals the seat cannot rule out.

For a card to play, it samples the other seats' hands consistently with the
view (:mod:`game.robots.sampling`), and in each sampled deal plays every
candidate card and then the rest of the hand with the heuristic for all four
seats, scoring the result for its own side: in Spades its side's points for
the hand minus the opponents' (bags and nil included), in Hearts the other
seats' average points minus its own (the moon included). The candidate with
the best total over the same deals wins; comparing candidates on the same
deals cancels most of the luck of the sample.

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

import random
from collections.abc import Callable

from game.actions import PLAYS, Action
from game.robots import hearts_heuristic, spades_heuristic
from game.robots.heuristic import heuristic_action, heuristic_card, legal_mask
from game.robots.position import JD_BIT, QS_BIT, Position, above
from game.robots.sampling import DealSampler, known_cards
from game.spades import score_hand
from game.trickgame import TrickView

DEFAULT_SIMULATIONS = 600
"""Play-outs per decision when no clock is given (about 200 ms early in a hand)."""


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
    """What the finished hand in ``pos`` is worth to ``seat``: its margin over the others."""
    if pos.hearts:
        scores = pos.hearts_scores()
        own = scores[seat]
        return (scores[0] + scores[1] + scores[2] + scores[3] - own) / 3.0 - own
    bids = [b if b >= 0 else 0 for b in pos.bids]
    result = score_hand(pos.rules, 0, 0, bids, pos.blind, pos.tricks_won,
                        pos.scores, pos.bags)
    side = seat & 1
    return float(result.sides[side].points - result.sides[1 - side].points)


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
        n = len(cands)
        totals = [0.0] * n
        worlds = 0
        budget = self.simulations
        rng = self.rng
        while (worlds + 1) * n <= budget:
            if clock is not None and clock() >= deadline:
                break
            hands = sampler.sample(rng)
            for i, c in enumerate(cands):
                p = pos.copy()
                p.hands = list(hands)
                p.play(c)
                play_out(p)
                totals[i] += hand_value(p, seat)
            worlds += 1
        self.last_playouts = worlds * n
        if not worlds:
            return preferred
        best = 0
        for i in range(1, n):
            if totals[i] > totals[best] + 1e-9:
                best = i
        return cands[best]


def _same_group(cands: list[int], i: int, card: int) -> bool:
    """Whether ``card`` was merged into candidate ``i`` (same suit, between it and the next)."""
    c = cands[i]
    if card // 13 != c // 13 or card < c:
        return False
    nxt = cands[i + 1] if i + 1 < len(cands) else 52
    return card < nxt or nxt // 13 != c // 13
