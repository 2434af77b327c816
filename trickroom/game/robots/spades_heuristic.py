"""Spades by rules of thumb: the bid, nil, and which card to play.

Bidding counts sure tricks: side aces, guarded kings, queens in three- or
four-card suits, the top and the long spades, and ruffs from voids and short
suits as far as spare spades reach. A hand with almost no winners, no top
spades, few spades and low cards in every suit bids nil; blind nil is bid only
when the room allows it and the side is far behind.

In play each seat decides, trick by trick, whether it wants the trick:

* its own nil: never (highest card under the winner, discard high cards);
* a partner's live nil: cover it (lead high, overtake the partner whenever the
  partner is winning, play high before the partner plays);
* an opponent's live nil: set it (stay under the nil bidder when the bidder is
  winning, play low before the bidder, lead low in suits the bidder must follow);
* otherwise it wants tricks until the side's contract is made, then ducks to
  avoid bags, except to set an opposing contract that is in reach.
"""

from __future__ import annotations

from collections.abc import Sequence

from trickroom.game.actions import BIDS, BLIND_NIL, LOOK, Action
from trickroom.game.cards import SPADES, SUIT_MASKS, cards_of
from trickroom.game.robots.position import (
    SPADES_MASK,
    Position,
    above,
    highest,
    lowest,
    safest_lead,
    suit_tops,
)
from trickroom.game.spades import SpadesRules, SpadesView

SIDE_SUITS = SUIT_MASKS[:3]


# -- bidding -------------------------------------------------------------------------------


def sure_tricks(hand: int) -> float:
    """The tricks ``hand`` should take with spades as trumps."""
    spades = hand & SPADES_MASK
    n_spades = spades.bit_count()
    honours = 0
    for rank, need in ((12, 1), (11, 2), (10, 3)):
        if spades >> (39 + rank) & 1 and n_spades >= need:
            honours += 1
    tricks = float(honours + max(0, n_spades - 3))
    spare = max(0, min(n_spades, 3) - honours)
    for suit_mask in SIDE_SUITS:
        mine = hand & suit_mask
        n = mine.bit_count()
        base = (suit_mask & -suit_mask).bit_length() - 1
        if mine >> (base + 12) & 1:
            tricks += 1.0 if n <= 6 else 0.8
        if mine >> (base + 11) & 1 and n >= 2:
            tricks += 0.9 if mine >> (base + 12) & 1 else 0.7
            if n >= 6:
                tricks -= 0.3
        if mine >> (base + 10) & 1 and 3 <= n <= 4:
            tricks += 0.5 if mine >> (base + 11) & 1 or mine >> (base + 12) & 1 else 0.35
        if spare:
            ruffs = {0: 1.6, 1: 1.0, 2: 0.4}.get(n, 0.0)
            ruffs = min(ruffs, float(spare))
            tricks += ruffs
            spare -= int(ruffs + 0.5)
    return tricks


def nil_worthy(hand: int) -> bool:
    """Almost no winners, no top spades, few spades and low cards in every suit."""
    spades = hand & SPADES_MASK
    if spades & above(39 + 9) or spades.bit_count() > 3:
        return False
    if spades & above(39 + 7) and spades.bit_count() < 3:
        return False
    for suit_mask in SIDE_SUITS:
        mine = hand & suit_mask
        if not mine:
            continue
        base = (suit_mask & -suit_mask).bit_length() - 1
        n = mine.bit_count()
        if mine >> (base + 12) & 1:
            return False
        if mine >> (base + 11) & 1 and n <= 3:
            return False
        low = (mine & ((1 << (base + 6)) - 1)).bit_count()
        if low == 0 or (n >= 3 and low < 2):
            return False
    return sure_tricks(hand) <= 1.6


def bid_range(rules: SpadesRules, partner: int | None) -> tuple[int, int, bool]:
    """(lowest, highest) number a seat may bid after its partner's bid, and whether nil is allowed.

    The engine's own rule (team cap of 13, minimum team bid), for a seat in a
    sampled deal that has no view to read its legal bids from.
    """
    hi, lo, nil_ok = 13, 1, True
    if partner is not None:
        if rules.team_bid_cap_13:
            hi = 13 - partner
        if rules.min_team_bid:
            lo = max(1, rules.min_team_bid - partner)
            nil_ok = partner >= rules.min_team_bid
    return lo, hi, nil_ok


def bid_value(hand: int, partner: int | None, rules: SpadesRules) -> int:
    """The bid (0 is nil) the rules of thumb make with ``hand`` once it is seen."""
    lo, hi, nil_ok = bid_range(rules, partner)
    if nil_ok and partner != 0 and nil_worthy(hand):
        return 0
    if hi < lo:
        return 0
    estimate = sure_tricks(hand)
    value = int(estimate - 0.2 * max(0.0, estimate - 4.0) - 0.2)
    return min(max(value, lo), hi)


def wants_blind_nil(scores: Sequence[int], seat: int, partner: int | None,
                    rules: SpadesRules) -> bool:
    """Whether a seat that may bid blind nil does: only far behind, and not beside a nil."""
    side = seat % 2
    deficit = scores[1 - side] - scores[side]
    far_behind = deficit >= max(rules.blind_nil_deficit, 200) or (
        deficit >= rules.blind_nil_deficit and scores[1 - side] >= rules.target - 100)
    return far_behind and partner != 0


def choose_bid(view: SpadesView) -> Action:
    """The bid (or blind nil, or a look at the cards) for the seat to act."""
    legal = view.legal
    seat = view.seat
    assert seat is not None
    partner = view.bids[(seat + 2) % 4]
    if LOOK in legal:
        if BLIND_NIL in legal and wants_blind_nil(view.scores, seat, partner, view.rules):
            return BLIND_NIL
        return LOOK
    value = bid_value(view.hand, partner, view.rules)
    if BIDS[value] not in legal:
        return legal[0]
    return BIDS[value]


# -- play -----------------------------------------------------------------------------------


def choose_card(pos: Position, seat: int, legal: int) -> int:
    """The card ``seat`` plays from the ``legal`` mask."""
    if not legal & (legal - 1):
        return lowest(legal)
    bids = pos.bids
    won = pos.tricks_won
    partner = seat ^ 2
    if bids[seat] == 0 and won[seat] == 0:
        return _nil_play(pos, legal)
    if bids[partner] == 0 and won[partner] == 0:
        return _cover_play(pos, seat, legal)
    for opp in ((seat + 1) & 3, (seat + 3) & 3):
        if bids[opp] == 0 and won[opp] == 0:
            return _set_nil_play(pos, seat, opp, legal)
    return _contract_play(pos, seat, legal, _wants_tricks(pos, seat))


def _side_need(pos: Position, side: int) -> int:
    """Tricks the side still needs for its contract (0 or less once made)."""
    bids, won = pos.bids, pos.tricks_won
    contract = sum(bids[s] for s in (side, side + 2) if bids[s] > 0)
    if pos.rules.nil_tricks_count_for_partner:
        tricks = won[side] + won[side + 2]
    else:
        tricks = sum(won[s] for s in (side, side + 2) if bids[s] > 0)
    return contract - tricks


def _wants_tricks(pos: Position, seat: int) -> bool:
    """Whether the seat plays to win this trick (no nil in play).

    Until the contract is made, yes. After it, each overtrick is a bag: with
    no bag limit a bag is a free point, so yes; otherwise duck, except to set
    an opposing contract within reach while the side's bags are not near the
    limit.
    """
    need = _side_need(pos, seat & 1)
    if need > 0:
        return True
    limit = pos.rules.bag_limit
    if limit is None:
        return True
    remaining = 13 - pos.tricks_done
    their_need = _side_need(pos, (seat + 1) & 1)
    near_limit = pos.bags[seat & 1] - need >= limit - 3
    return their_need > 0 and remaining - their_need <= 1 and not near_limit


def _beats(card: int, win: int) -> bool:
    if card // 13 == win // 13:
        return card > win
    return card >= 39


def _winners(pos: Position, legal: int) -> int:
    """Cards of ``legal`` that would take the lead in the current trick."""
    win = pos.win_card
    over = legal & above(win)
    if win < 39 and not legal & SUIT_MASKS[win // 13]:
        over |= legal & SPADES_MASK
    return over


def _top(pos: Position, seat: int, card: int) -> bool:
    """Whether no card still out ranks ``card`` in its suit."""
    return not above(card) & pos.outstanding(seat)


def _partner_safe(pos: Position, seat: int) -> bool:
    """The partner is winning and no one after this seat can beat the card."""
    if pos.win_seat != seat ^ 2:
        return False
    if len(pos.trick) == 3:
        return True
    win = pos.win_card
    out = pos.outstanding(seat)
    if above(win) & out:
        return False
    return win >= 39 or not out & SPADES_MASK or not pos.voids[(seat + 1) & 3] >> (win // 13) & 1


def _cheap_discard(pos: Position, seat: int, legal: int) -> int:
    """A low card from the shortest side suit, keeping spades."""
    side = legal & ~SPADES_MASK
    if not side:
        return lowest(legal)
    hand = pos.hands[seat]
    best, best_key = -1, (99, 99)
    for suit_mask in SIDE_SUITS:
        mine = side & suit_mask
        if mine:
            c = lowest(mine)
            key = ((hand & suit_mask).bit_count(), c % 13)
            if key < best_key:
                best, best_key = c, key
    return best


def _high_discard(legal: int) -> int:
    """The highest card that is not a spade (or the lowest spade)."""
    side = legal & ~SPADES_MASK
    if side:
        best = -1
        for c in suit_tops(side, SIDE_SUITS):
            if best < 0 or c % 13 > best % 13:
                best = c
        return best
    return lowest(legal)


def _contract_play(pos: Position, seat: int, legal: int, want: bool) -> int:
    if not pos.trick:
        return _lead_for(pos, seat, legal) if want else _lead_low(pos, seat, legal)
    led = pos.trick[0] // 13
    following = bool(legal & SUIT_MASKS[led])
    winners = _winners(pos, legal)
    if want:
        if _partner_safe(pos, seat) or not winners:
            return lowest(legal) if following else _cheap_discard(pos, seat, legal)
        if len(pos.trick) == 3:
            return lowest(winners)
        sure = [c for c in cards_of(winners) if _top(pos, seat, c)]
        if following:
            if sure:
                return sure[0]
            if len(pos.trick) == 2:
                return highest(winners)
            return lowest(legal)
        return lowest(winners)
    return _duck(pos, legal, following, winners)


def _duck(pos: Position, legal: int, following: bool, winners: int) -> int:
    losers = legal & ~winners
    if losers:
        if following:
            return highest(losers)
        return _high_discard(losers)
    if len(pos.trick) == 3:
        return highest(legal)
    return lowest(legal)


def _lead_for(pos: Position, seat: int, legal: int) -> int:
    """Lead to take tricks: a sure winner, else low from a short side suit."""
    out = pos.outstanding(seat)
    best = -1
    for c in cards_of(legal):
        if above(c) & out or c % 13 < 8:
            continue
        suit_out = (out & SUIT_MASKS[c // 13]).bit_count()
        if (c >= 39 or suit_out >= 3) and (best < 0 or (best >= 39 and c < 39)):
            best = c
    if best >= 0:
        return best
    hand = pos.hands[seat]
    side = legal & ~SPADES_MASK
    if side and hand & SPADES_MASK:
        short = min((s for s in SIDE_SUITS if side & s), key=lambda s: (hand & s).bit_count())
        return lowest(side & short)
    return _lead_low(pos, seat, legal)


def _lead_low(pos: Position, seat: int, legal: int, target: int = -1) -> int:
    """Lead the card least likely to win, from a suit ``target`` must follow if given."""
    voids = pos.voids[target] if target >= 0 else 0

    def risk(suit: int, mine: int, theirs: int, odds: float) -> float:
        if suit == SPADES:
            odds += 2.0
        if voids >> suit & 1:
            odds += 5.0
        return odds

    return safest_lead(legal, pos.outstanding(seat), risk)


def _nil_play(pos: Position, legal: int) -> int:
    seat = pos.turn
    if not pos.trick:
        return _lead_low(pos, seat, legal)
    winners = _winners(pos, legal)
    losers = legal & ~winners
    led = pos.trick[0] // 13
    if losers:
        return highest(losers) if legal & SUIT_MASKS[led] else _high_discard(losers)
    if len(pos.trick) == 3:
        return highest(legal)
    return lowest(legal)


def _cover_play(pos: Position, seat: int, legal: int) -> int:
    partner = seat ^ 2
    if not pos.trick:
        hand = pos.hands[seat]
        out = pos.outstanding(seat)
        best, best_key = -1, (-1, -1)
        for c in suit_tops(legal):
            key = (0 if above(c) & out else 1, c % 13)
            if c >= 39 and hand & ~SPADES_MASK:
                key = (key[0], key[1] - 4)
            if key > best_key:
                best, best_key = c, key
        return best
    winners = _winners(pos, legal)
    played = [((pos.leader + i) & 3) for i in range(len(pos.trick))]
    if partner in played:
        if pos.win_seat == partner:
            if winners:
                return lowest(winners)
            return lowest(legal)
        return _contract_play(pos, seat, legal, _wants_tricks(pos, seat))
    led = pos.trick[0] // 13
    if legal & SUIT_MASKS[led]:
        return highest(legal)
    if winners:
        return lowest(winners)
    return _cheap_discard(pos, seat, legal)


def _set_nil_play(pos: Position, seat: int, nil_seat: int, legal: int) -> int:
    if not pos.trick:
        return _lead_low(pos, seat, legal, nil_seat)
    played = [((pos.leader + i) & 3) for i in range(len(pos.trick))]
    winners = _winners(pos, legal)
    led = pos.trick[0] // 13
    following = bool(legal & SUIT_MASKS[led])
    if nil_seat in played:
        if pos.win_seat == nil_seat:
            losers = legal & ~winners
            if losers:
                return highest(losers) if following else _high_discard(losers)
            return lowest(legal)
        return _contract_play(pos, seat, legal, _wants_tricks(pos, seat))
    if following:
        return lowest(legal)
    return _high_discard(legal & ~winners or legal)
