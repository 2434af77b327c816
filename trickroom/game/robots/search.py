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
is played at once. Spades bids (nil and blind nil included) are searched too,
by :mod:`game.robots.bidding` on the same budget, unless ``search_bids`` is
off; :meth:`SearchRobot.explain` gives the reason for the last bid in one
line. Hearts passes are searched by :mod:`game.robots.passing` unless
``search_passes`` is off; ``search_cards`` off plays the heuristic's cards
(for a bench that measures bids or passes alone). The moon choice is the
heuristic's.

The budget is a number of play-outs, so a seed and a count fix every choice.
Bids and passes draw from an RNG of their own, apart from the cards', so that
two robots of one seed that differ only in how they bid (or pass) play the
same cards whenever they bid the same: a duplicate bench then compares the
bids alone, not the luck of the card search.
``DEFAULT_SIMULATIONS`` is calibrated to about 200 ms for an early decision on
the reference machine, later ones being cheaper. A caller that wants a wall
clock bound (the server) passes ``clock`` (seconds, e.g. ``time.monotonic``)
and ``budget_ms``: the search then stops at the deadline or the count,
whichever comes first, and is anytime: with no deal searched it plays the
heuristic's card (or bid). ``game/`` itself never reads a clock.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from trickroom.game.actions import PLAYS, Action
from trickroom.game.robots.bidding import BidSearch
from trickroom.game.robots.heuristic import heuristic_action, heuristic_card, legal_mask
from trickroom.game.robots.passing import PassSearch
from trickroom.game.robots.playout import DecisionSearch, bid_weight, hand_value, play_out
from trickroom.game.robots.position import JD_BIT, QS_BIT, Position, above
from trickroom.game.robots.sampling import DealSampler, known_cards
from trickroom.game.trickgame import TrickView

DEFAULT_SIMULATIONS = 800
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


class SearchRobot:
    """Samples deals, plays each candidate out with the heuristic, keeps the best.

    Args:
        seed: the robot's RNG seed; with ``simulations`` it fixes every choice.
        simulations: play-outs per decision (default ``DEFAULT_SIMULATIONS``).
        budget_ms: with ``clock``, the time a decision may take.
        clock: a function returning seconds; when given, the search also stops
            at ``budget_ms``.
        search_bids, search_passes, search_cards: search that kind of
            decision (Spades bids, Hearts passes, cards); off, the heuristic's.
    """

    name = "search"

    def __init__(self, seed: int = 0, *, simulations: int | None = None,
                 budget_ms: float = 200.0, clock: Callable[[], float] | None = None,
                 search_bids: bool = True, search_passes: bool = True,
                 search_cards: bool = True) -> None:
        self.rng = random.Random(seed)
        self.decision_rng = random.Random(f"bids and passes {seed}")
        self.simulations = simulations if simulations is not None else DEFAULT_SIMULATIONS
        self.budget = budget_ms / 1000.0
        self.clock = clock
        self.search_bids = search_bids
        self.search_passes = search_passes
        self.search_cards = search_cards
        self.last_playouts = 0
        self.last_explanation = ""
        self.last_told = ""

    def explain(self) -> str:
        """One line on the last choice if it was a searched bid (Spades), else empty.

        E.g. "4: about 3.6 tricks expected, 6.1 with partner; nil too risky: a high
        spade". It names no card, but it tells facts of the hand: it is for the review
        of the finished game, not for the table while the hand is played (:meth:`tell`).
        """
        return self.last_explanation

    def tell(self) -> str:
        """What the table may hear of the last choice while the game is played: the bid
        and how it was chosen, with no fact of the hand (e.g. "4: the best in play-outs
        of sampled deals"); empty when :meth:`explain` is."""
        return self.last_told

    def choose(self, view: TrickView) -> Action:
        return self._choose(view, None)

    def choose_seeing(self, view: TrickView, deal: Sequence[int]) -> Action:
        """The choice of an all-seeing player: the same search on the true ``deal``.

        ``deal`` is the four hands as they are now. No real seat may know it:
        this is the bench's ceiling, the most the search could make of these
        cards if it never had to guess.
        """
        return self._choose(view, deal)

    def _choose(self, view: TrickView, deal: Sequence[int] | None) -> Action:
        self.last_playouts = 0
        self.last_explanation = self.last_told = ""
        if view.seat is None or not view.legal:
            return heuristic_action(view)
        if view.phase == "play" and self.search_cards:
            return PLAYS[self.choose_card(view, deal)]
        if view.phase == "bid" and view.game == "spades" and self.search_bids:
            return self.choose_bid(view, deal)
        if view.phase == "pass" and view.game == "hearts" and self.search_passes:
            return self.choose_pass(view, deal)
        return heuristic_action(view)

    def choose_pass(self, view: TrickView, deal: Sequence[int] | None = None) -> Action:
        """The cards to pass for the seat of ``view`` (Hearts), by search."""
        clock = self.clock
        deadline = clock() + self.budget if clock is not None else 0.0
        search = PassSearch(self.decision_rng, self.simulations, clock, deadline)
        action = search.choose(view, deal)
        self.last_playouts = search.playouts
        return action

    def choose_bid(self, view: TrickView, deal: Sequence[int] | None = None) -> Action:
        """The bid, blind nil or look for the bidding seat of ``view`` (Spades), by search.

        The reason is kept for :meth:`explain`.
        """
        clock = self.clock
        deadline = clock() + self.budget if clock is not None else 0.0
        search = BidSearch(self.decision_rng, self.simulations, clock, deadline)
        action = search.choose(view, deal)
        self.last_playouts = search.playouts
        self.last_explanation = search.explanation
        self.last_told = search.told
        return action

    def choose_card(self, view: TrickView, deal: Sequence[int] | None = None) -> int:
        """The card to play in ``view`` (the play phase, this seat to act).

        With ``deal`` (the true hands) the one deal is searched instead of
        sampled ones: the play-outs are then certain, so each candidate is
        played out once.
        """
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
        search = DecisionSearch(self.rng, self.simulations, clock, deadline)

        def sample() -> list[int]:
            return sampler.sample(search.rng) if deal is None else list(deal)

        def value(hands: list[int], i: int) -> float:
            p = pos.copy()
            p.hands = list(hands)
            p.play(cands[i])
            play_out(p)
            return hand_value(p, seat)

        trials = search.compare(len(cands), sample, value,
                                bid_weight(view, seat) if deal is None else None,
                                once=deal is not None)
        self.last_playouts = trials.playouts
        if not trials.weights:
            return preferred
        return cands[trials.best()]


def _same_group(cands: list[int], i: int, card: int) -> bool:
    """Whether ``card`` was merged into candidate ``i`` (same suit, between it and the next)."""
    c = cands[i]
    if card // 13 != c // 13 or card < c:
        return False
    nxt = cands[i + 1] if i + 1 < len(cands) else 52
    return card < nxt or nxt // 13 != c // 13
