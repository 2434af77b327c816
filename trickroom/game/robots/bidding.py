"""Spades bids by search: each candidate bid played out on deals the seat cannot rule out.

For a bid, the other seats' hands are sampled as for a card
(:mod:`game.robots.sampling`, a deal counted in proportion to how well it fits
the bids already made), the seats still to bid bid as the rules of thumb would
with their sampled hands (after this seat's candidate, so a partner's reply to
it is in the play-out), and the hand is played out with the heuristic for all
four seats. A candidate is worth the mean change of the game it gives the
seat's side: its points for the hand less the opponents', a bag at its
long-run cost, nil and blind nil won or lost, and a bonus for a hand that ends
the game won (less for one that ends it lost), each played-out hand valued over
the tricks a table of searching players would take in its stead
(:func:`table_tricks`: the play-outs' heuristic sets fewer contracts at the
edge than such a table does). All candidates are compared on
the same deals, and those clearly beaten are dropped as the budget runs, as in
the card search.

Candidates are few, so that the budget decides between close calls: the
rules-of-thumb bid, one under and two over it, and nil when the hand is near
enough to one to be worth a look and partner has not bid nil. Before the seat
looks at its cards (blind nil offered), blind nil is weighed against looking
and bidding by the rules of thumb on a sampled hand of its own. The
rules-of-thumb bid is the fallback (no time, or no deal searched) and wins
ties.

:class:`BidSearch` keeps the one-line reason for its last bid, for a table or
a review to show: "4: about 3.6 tricks expected, 6.1 with partner; nil too
risky: a high spade". The other players read it, so it names no card of the
hand: counts and kinds only.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable, Sequence

from trickroom.game.actions import BIDS, BLIND_NIL, LOOK, Action, Bid
from trickroom.game.cards import SUIT_MASKS
from trickroom.game.robots import spades_heuristic
from trickroom.game.robots.playout import DecisionSearch, bid_weight, play_out
from trickroom.game.robots.position import SPADES_MASK, Position
from trickroom.game.robots.sampling import DealSampler
from trickroom.game.spades import SpadesRules, score_hand, winning_side
from trickroom.game.trickgame import TrickView
from trickroom.i18n import Msg, PluralMsg

GAME_VALUE = 100.0
"""Points a hand that ends the game is worth beyond its score: won plus, lost minus."""

NIL_LOOK = 3.5
"""Nil is searched only for a hand the rules of thumb value at no more tricks than this."""

NIL_DOUBT = 0.1
"""How much less often a nil is made at the table than in the play-outs.

The play-outs' defenders are the heuristic, which sets a nil less often than
a searching opponent or a good player: over self-play the search's nils were
made about ten points less often than its play-outs said. A nil (or blind nil)
candidate is charged that share of the swing between making and losing it.
"""

TABLE_SPREAD = 1.0
"""How widely a table of searching players' tricks spread about a play-out's (a standard
deviation, in tricks, of the tricks that pass between the sides).

A play-out plays every seat by the heuristic; at a table where every seat
searches its cards the tricks fall otherwise, and contracts at the edge of
what the play-out makes are set more often. Measured on the same deals played
both ways, the rules of thumb's bids and a trick either side of them, and on
the search's own bids (``bench/bid_calibration.py --deals 100``, which fits
0.95): with tricks spread this widely about the play-out's, the model's set
rates are the table's (12% at the rules of thumb's bids, 31% a trick over, 6%
a trick under, 14% at the search's bids, where the table sets 12%, 32%, 3%
and 13% and the play-outs alone say 5%, 28%, 0% and 4%). The spread does not
lean toward the side short of its contract: at the table a trick more bid
moved the side's tricks by -0.02 (in the play-out by +0.21), so a higher bid
is not paid back in tricks.
"""

TABLE_SHIFTS = 4
"""The most tricks the table model moves between the sides."""

DEVIATE_SE = 1.0
"""Standard errors by which a bid must beat the rules of thumb's on the same deals to replace it.

The best of several noisy estimates is biased upward, the riskiest most; a
bid that is only as good as the rule-of-thumb bid within the noise is not
taken.
"""


def bid_text(bid: Bid) -> str:
    if bid.blind:
        return Msg("blind nil")
    return Msg("nil") if bid.value == 0 else str(bid.value)


def nil_danger(hand: int) -> str:
    """Why a hand is far from nil, in a few words that name no card.

    The reason is shown to the other players, who may not see the hand: it
    gives counts and kinds ("5 spades", "a high spade", "2 aces and kings
    outside spades"), never a card.
    """
    spades = hand & SPADES_MASK
    if spades.bit_count() > 3:
        return PluralMsg("{n} spade", "{n} spades", n=spades.bit_count())
    if spades >> (39 + 8):
        return Msg("a high spade")
    high = sum(hand >> ((suit_mask & -suit_mask).bit_length() - 1 + rank) & 1
               for suit_mask in SUIT_MASKS[:3] for rank in (11, 12))
    if high:
        return PluralMsg("an ace or king outside spades",
                         "{n} aces and kings outside spades", n=high)
    return Msg("too many winners")


def first_leader(rules: SpadesRules, dealer: int, hands: Sequence[int]) -> int:
    """Who leads the first trick: the holder of the 2♣ in that variant, else left of the dealer."""
    if rules.two_of_clubs_leads:
        for seat in range(4):
            if hands[seat] & 1:
                return seat
    return (dealer + 1) % 4


def game_value(pos: Position, seat: int) -> float:
    """What a played-out hand is worth to ``seat``'s side as a change of the game.

    The margin of :func:`~game.robots.playout.hand_value` (a bag at its
    long-run cost) plus :data:`GAME_VALUE` if the hand ends the game won, less
    it if lost; averaged over the tricks a searching table would have taken
    where the play-out took these (:func:`table_tricks`).
    """
    bids = tuple(b if b >= 0 else 0 for b in pos.bids)
    return sum((w * _value(pos.rules, bids, pos.blind, tuple(tricks), pos.scores, pos.bags, seat)
                for w, tricks in table_tricks(pos.bids, pos.tricks_won, seat)), 0.0)


def table_tricks(bids: Sequence[int], tricks: Sequence[int], seat: int, *,
                 spread: float | None = None) -> list[tuple[float, list[int]]]:
    """The tricks a table of searching players would take where a play-out took ``tricks``,
    each with its probability.

    Whole tricks move between the sides' contract holders (a nil bidder keeps
    his), as many either way, spread by ``spread`` (default
    :data:`TABLE_SPREAD`). A side with no contract holder keeps its tricks; a
    spread of 0 keeps the play-out's.
    """
    spread = TABLE_SPREAD if spread is None else spread
    base = list(tricks)
    ours = [s for s in (seat, seat ^ 2) if bids[s] > 0]
    theirs = [s for s in (seat ^ 1, seat ^ 3) if bids[s] > 0]
    if not ours or not theirs or spread <= 0:
        return [(1.0, base)]
    lo = -min(TABLE_SHIFTS, sum(base[s] for s in ours))
    hi = min(TABLE_SHIFTS, sum(base[s] for s in theirs))
    out: list[tuple[float, list[int]]] = []
    for k, w in _shift_weights(lo, hi, spread):
        shifted = list(base)
        if k > 0:
            _move(shifted, theirs, ours, k)
        elif k < 0:
            _move(shifted, ours, theirs, -k)
        out.append((w, shifted))
    return out


@functools.lru_cache(maxsize=256)
def _shift_weights(lo: int, hi: int, spread: float) -> tuple[tuple[int, float], ...]:
    """The tricks moved to the side (``lo`` to ``hi``) and their probabilities, for
    :func:`table_tricks`."""
    found = [(k, math.exp(-0.5 * (k / spread) ** 2)) for k in range(lo, hi + 1)]
    kept = [(k, w) for k, w in found if w >= 1e-3]
    total = sum((w for _, w in kept), 0.0)
    return tuple((k, w / total) for k, w in kept)


def _move(tricks: list[int], givers: list[int], takers: list[int], k: int) -> None:
    """Move ``k`` tricks from ``givers`` (one or two seats, the most-tricked first) to the
    first of ``takers``."""
    if len(givers) == 1:
        tricks[givers[0]] -= k
    else:
        a, b = givers
        for _ in range(k):
            if tricks[a] >= tricks[b]:
                tricks[a] -= 1
            else:
                tricks[b] -= 1
    tricks[takers[0]] += k


@functools.lru_cache(maxsize=8192)
def _value(rules: SpadesRules, bids: tuple[int, ...], blind: tuple[bool, ...],
           tricks: tuple[int, ...], scores: tuple[int, ...], bags: tuple[int, ...],
           seat: int) -> float:
    """:func:`game_value` of one outcome of the hand.

    Kept: a decision values the same few outcomes over and over (the table
    model's several per play-out), and scoring one is most of a play-out's cost.
    """
    result = score_hand(rules, 0, 0, bids, blind, tricks, scores, bags)
    bag = 1.0 - rules.bag_penalty / rules.bag_limit if rules.bag_limit else 1.0
    side = seat & 1
    ours, theirs = result.sides[side], result.sides[1 - side]
    value = (ours.contract_points + ours.nil_points + bag * ours.bags
             - theirs.contract_points - theirs.nil_points - bag * theirs.bags)
    won = winning_side(rules, (result.sides[0].score, result.sides[1].score))
    if won is not None:
        value += GAME_VALUE if won == side else -GAME_VALUE
    return value


SEARCHED = Msg("the best in play-outs of sampled deals")


class BidSearch(DecisionSearch):
    """Chooses a Spades bid (or blind nil, or a look) by play-outs on sampled deals
    (arguments as :class:`DecisionSearch`'s); ``forecast`` gives, for each bid searched,
    the seat's and its side's tricks expected.

    Two reasons, each one line that names no card. ``explanation`` says why from the
    hand: the tricks it is expected to take, a suit's length, how often a nil was made.
    That is for the review of the finished game: told at the table during play it would
    be table talk no player may give (a partner learns the hand's strength and shape).
    ``told`` is what the table hears meanwhile: the bid and how it was chosen, with no
    fact of the hand (as a card site's robots bid: the bid is the message).
    """

    explanation = ""
    told = ""
    forecast: dict[Bid, tuple[float, float]]

    def choose(self, view: TrickView, deal: Sequence[int] | None = None) -> Action:
        """The action for the bidding seat of ``view``, one of ``view.legal``.

        With ``deal`` (the true hands, the bench's all-seeing ceiling) that one
        deal is searched instead of sampled ones.
        """
        self.forecast = {}
        seat = view.seat
        assert seat is not None
        legal = view.legal
        if LOOK in legal:
            if BLIND_NIL not in legal:
                self.explanation = self.told = Msg("look at the cards: blind nil is not offered")
                return LOOK
            return self._blind_or_look(view, seat, deal)
        return self._bid(view, seat, deal)

    # -- a seen hand -------------------------------------------------------------------------

    def _bid(self, view: TrickView, seat: int, deal: Sequence[int] | None) -> Action:
        rules: SpadesRules = view.rules
        hand = view.hand
        bids: tuple[int | None, ...] = getattr(view, "bids", (None,) * 4)
        partner = bids[seat ^ 2]
        lo, hi, nil_ok = spades_heuristic.bid_range(rules, partner)
        preferred = spades_heuristic.bid_value(hand, partner, rules)
        estimate = spades_heuristic.sure_tricks(hand)
        numbers = [v for v in range(max(lo, preferred - 1), min(hi, max(preferred, 1) + 2) + 1)
                   if v > 0]
        cands = [preferred] + [v for v in numbers if v != preferred]
        nil_note = ""
        if nil_ok and partner != 0 and 0 not in cands:
            if estimate <= NIL_LOOK or spades_heuristic.nil_worthy(hand):
                cands.append(0)
            else:
                nil_note = Msg("nil too risky: {danger}", danger=nil_danger(hand))
        elif partner == 0 and preferred != 0:
            nil_note = Msg("no nil beside partner's nil")
        cands = [v for v in cands if BIDS[v] in view.legal]
        if not cands:
            self.explanation = self.told = Msg("the only bid left")
            return view.legal[0]
        if len(cands) == 1:
            self.explanation = Msg("{bid}: the only bid worth making", bid=bid_text(BIDS[cands[0]]))
            self.told = Msg("{bid}: the rule-of-thumb bid", bid=bid_text(BIDS[cands[0]]))
            return BIDS[cands[0]]

        pos = Position.from_view(view)
        pos.hands = [0, 0, 0, 0]
        pos.hands[seat] = hand
        sampler = DealSampler(pos, seat, (13, 13, 13, 13)) if deal is None else None
        weigh = bid_weight(view, seat) if deal is None else None
        later = _later_seats(view, seat)
        blind = tuple(getattr(view, "blind", (False,) * 4))

        def deals() -> list[int]:
            if sampler is None:
                assert deal is not None
                return list(deal)
            return sampler.sample(self.rng)

        # The number bids of one deal share one play-out: at a searching table a side's
        # tricks do not follow its bid (TABLE_SPREAD), where a play-out's heuristic
        # would take more for a higher one. Only a nil (anyone's) changes the play.
        shared: dict[tuple[bool, ...], Position] = {}
        dealt: list[list[int]] = []

        def outcome(hands: list[int], value: int) -> Position:
            if not dealt or dealt[0] is not hands:
                dealt[:] = [hands]
                shared.clear()
            made = list(bids)
            made[seat] = value
            for s in later:
                made[s] = spades_heuristic.bid_value(hands[s], made[s ^ 2], rules)
            nils = tuple(b == 0 for b in made)
            played = shared.get(nils)
            if played is None:
                played = shared[nils] = _played(pos, view, hands, made, blind)
                return played
            scored = played.copy()
            scored.bids = tuple(b if b is not None else 0 for b in made)
            return scored

        doubt = [NIL_DOUBT * 2 * rules.nil_value if v == 0 else 0.0 for v in cands]
        best, stats = self._search(cands, deals, weigh, outcome, seat, doubt,
                                   once=deal is not None)
        if stats is None:
            self.explanation = self.told = Msg("{bid}: the rule-of-thumb bid (no time to search)",
                                               bid=bid_text(BIDS[preferred]))
            return BIDS[preferred]
        self.forecast = {BIDS[v]: stats[i][:2] for i, v in enumerate(cands)}
        chosen = cands[best]
        tricks, side_tricks, _ = stats[best]
        if chosen == 0:
            made = stats[best][2]
            text = Msg("nil: made in {percent:.0f}% of the deals tried", percent=100 * made)
        else:
            text = Msg("{bid}: about {tricks:.1f} tricks expected, {side:.1f} with partner",
                       bid=chosen, tricks=tricks, side=side_tricks)
            if 0 in cands:
                made = stats[cands.index(0)][2]
                text = Msg("{reason}; nil made in only {percent:.0f}% of the deals tried",
                           reason=text, percent=100 * made)
            elif nil_note:
                text = Msg("{reason}; {note}", reason=text, note=nil_note)
        self.explanation = text
        self.told = Msg("{bid}: {how}", bid=bid_text(BIDS[chosen]), how=SEARCHED)
        return BIDS[chosen]

    # -- blind nil or look ------------------------------------------------------------------

    def _blind_or_look(self, view: TrickView, seat: int, deal: Sequence[int] | None) -> Action:
        """Blind nil against looking and bidding by the rules of thumb, on wholly sampled deals."""
        rules: SpadesRules = view.rules
        bids: tuple[int | None, ...] = getattr(view, "bids", (None,) * 4)
        pos = Position.from_view(view)
        weigh = bid_weight(view, seat) if deal is None else None
        rng = self.rng
        deck = list(range(52))

        def deals() -> list[int]:
            return list(deal) if deal is not None else whole_deal(rng, deck)

        def outcome(hands: list[int], value: int) -> Position:
            return blind_or_look(pos, view, hands, seat, value == 0)

        # 1 stands for looking (and then bidding by the rules of thumb), 0 for blind nil.
        heuristic = spades_heuristic.wants_blind_nil(view.scores, seat, bids[seat ^ 2], rules)
        cands = [0, 1] if heuristic else [1, 0]
        doubt = [NIL_DOUBT * 2 * rules.blind_nil_value if v == 0 else 0.0 for v in cands]
        best, stats = self._search(cands, deals, weigh, outcome, seat, doubt,
                                   once=deal is not None)
        if stats is None:
            self.explanation = self.told = Msg("the rule of thumb (no time to search)")
            return BLIND_NIL if heuristic else LOOK
        blind_made = stats[cands.index(0)][2]
        if cands[best] == 0:
            self.explanation = Msg("blind nil: made in {percent:.0f}% of the deals tried",
                                   percent=100 * blind_made)
            self.told = Msg("blind nil: {how}", how=SEARCHED)
            return BLIND_NIL
        self.explanation = Msg("look at the cards: blind nil made in only {percent:.0f}% of "
                               "the deals tried", percent=100 * blind_made)
        self.told = Msg("look at the cards: {how}", how=SEARCHED)
        return LOOK

    # -- the search ------------------------------------------------------------------------

    def _search(self, cands: list[int], deals: Callable[[], list[int]],
                weigh: Callable[[list[int]], float] | None,
                outcome: Callable[[list[int], int], Position], seat: int,
                doubt: list[float],
                once: bool) -> tuple[int, list[tuple[float, float, float]] | None]:
        """The best candidate's index and, per candidate, the seat's tricks, the side's and
        how often the seat took none (means over the deals that candidate was played on).

        ``doubt`` is charged to each candidate's value (:data:`NIL_DOUBT`).
        ``None`` for the means when no deal was searched; the first candidate
        (the rules of thumb) is kept unless another beats it by
        :data:`DEVIATE_SE` standard errors.
        """
        taken: list[list[tuple[int, int, bool]]] = [[] for _ in cands]

        def value(hands: list[int], i: int) -> float:
            p = outcome(hands, cands[i])
            won = p.tricks_won
            taken[i].append((won[seat], won[seat] + won[seat ^ 2], won[seat] == 0))
            return game_value(p, seat) - doubt[i]

        trials = self.compare(len(cands), deals, value, weigh, once)
        if not trials.weights:
            return 0, None
        best = trials.best(None if once else DEVIATE_SE)
        return best, [_means(t, trials.weights) for t in taken]


def _means(taken: list[tuple[int, int, bool]], weights: list[float]
           ) -> tuple[float, float, float]:
    """The weighted means of the seat's tricks, the side's and the seat taking none, over
    the deals a candidate was played on (the first ``len(taken)`` of ``weights``)."""
    tricks = side = zero = seen = 0.0
    for w, (own, both, none) in zip(weights, taken, strict=False):
        tricks += w * own
        side += w * both
        zero += w * none
        seen += w
    if not seen:
        return 0.0, 0.0, 0.0
    return tricks / seen, side / seen, zero / seen


def whole_deal(rng: random.Random, deck: list[int]) -> list[int]:
    """Four hands dealt from ``deck`` (all 52 cards, shuffled in place): a deal drawn whole,
    the seat's own hand too, for a seat that has seen none of its cards (blind nil)."""
    rng.shuffle(deck)
    hands = [0, 0, 0, 0]
    for i, c in enumerate(deck):
        hands[i // 13] |= 1 << c
    return hands


def blind_or_look(pos: Position, view: TrickView, hands: list[int], seat: int,
                  blind_nil: bool) -> Position:
    """The hand of ``hands`` played out after ``seat`` bids blind nil (``blind_nil``) or
    looks and bids by the rules of thumb, the seats after it by the rules of thumb too."""
    rules = view.rules
    bids: tuple[int | None, ...] = getattr(view, "bids", (None,) * 4)
    made = list(bids)
    flags = list(getattr(view, "blind", (False,) * 4))
    if blind_nil:
        made[seat] = 0
        flags[seat] = True
    else:
        made[seat] = spades_heuristic.bid_value(hands[seat], bids[seat ^ 2], rules)
    for s in _later_seats(view, seat):
        made[s] = spades_heuristic.bid_value(hands[s], made[s ^ 2], rules)
    return _played(pos, view, hands, made, tuple(flags))


def _later_seats(view: TrickView, seat: int) -> list[int]:
    """The seats that bid after ``seat`` this hand, in bidding order."""
    bids: tuple[int | None, ...] = getattr(view, "bids", (None,) * 4)
    return [(seat + k) & 3 for k in range(1, 4) if bids[(seat + k) & 3] is None]


def _played(base: Position, view: TrickView, hands: list[int], bids: Sequence[int | None],
            blind: tuple[bool, ...]) -> Position:
    """The hand of ``hands`` with ``bids`` played out from its first lead."""
    p = base.copy()
    p.hands = list(hands)
    p.bids = tuple(b if b is not None else 0 for b in bids)
    p.blind = blind
    p.leader = p.turn = first_leader(view.rules, view.dealer, hands)
    play_out(p)
    return p
