"""Hearts by rules of thumb: what to pass, which card to play, how to score a moon.

Passing gets rid of danger: the high spades (the queen, and the ace and king
that catch her) unless enough low spades guard them, the cards of a short
minor suit so that the hand is void in it, and high cards in general; it keeps
low hearts, which lose tricks, and one high heart to stop a moon.

In play the seat ducks: it follows with the highest card under the trick's
winner, leads the card least likely to win, flushes the queen of spades by
leading spades below her, and dumps the queen (then the high spades, then
hearts, then its highest card) the first time it cannot follow. Two states
change that: a seat that has taken every point so far with the hand under
control runs its winners to shoot the moon, and when another seat has taken
every point so far in quantity, the others try to take one point themselves
and never feed the shooter.
"""

from __future__ import annotations

from trickroom.game.cards import HEARTS, SPADES, SUIT_MASKS
from trickroom.game.robots.position import (
    HEARTS_MASK,
    POINT_CARDS,
    QS_BIT,
    QUEEN_OF_SPADES,
    Position,
    above,
    below,
    highest,
    lowest,
    safest_lead,
    suit_tops,
)

KING_OF_SPADES, ACE_OF_SPADES = 50, 51
HIGH_SPADES = (1 << KING_OF_SPADES) | (1 << ACE_OF_SPADES)
LOW_SPADES = SUIT_MASKS[SPADES] & ((1 << QUEEN_OF_SPADES) - 1)


# -- passing -------------------------------------------------------------------------------


def pass_danger(card: int, hand: int) -> float:
    """How much ``card`` hurts in ``hand`` (the cards not yet chosen to pass)."""
    suit, rank = divmod(card, 13)
    bit = 1 << card
    if suit == SPADES:
        guards = (hand & LOW_SPADES).bit_count()
        if bit == QS_BIT:
            return 5.0 if guards >= 4 else 100.0
        if bit & HIGH_SPADES:
            if guards >= 4:
                return 4.0
            return 80.0 + rank if not hand & QS_BIT else 85.0 + rank
        return -5.0
    if suit == HEARTS:
        if rank <= 5:
            return -10.0
        top = highest(hand & HEARTS_MASK)
        others_high = (hand & HEARTS_MASK & ~(1 << top) & above(HEARTS * 13 + 8)).bit_count()
        if card == top and others_high == 0:
            return 3.0  # the moon stopper
        return 2.0 * rank
    length = (hand & SUIT_MASKS[suit]).bit_count()
    danger = 2.5 * rank
    if length <= 3:
        danger += 25.0 - 6.0 * length
    return danger


def choose_pass(hand: int, count: int) -> tuple[int, ...]:
    """The ``count`` cards to pass from ``hand``, ascending."""
    chosen: list[int] = []
    left = hand
    for _ in range(count):
        best, best_danger = -1, -1e9
        rest = left
        while rest:
            low = rest & -rest
            c = low.bit_length() - 1
            rest ^= low
            d = pass_danger(c, left)
            if d > best_danger:
                best, best_danger = c, d
        chosen.append(best)
        left &= ~(1 << best)
    return tuple(sorted(chosen))


# -- the moon ---------------------------------------------------------------------------------


def sure_winners(hand: int, outstanding: int) -> int:
    """How many tricks ``hand`` takes by leading from the top, suit by suit."""
    total = 0
    for suit_mask in SUIT_MASKS:
        mine = hand & suit_mask
        if not mine:
            continue
        theirs = outstanding & suit_mask
        top_theirs = highest(theirs) if theirs else -1
        total += (mine & ~((2 << top_theirs) - 1) if top_theirs >= 0 else mine).bit_count()
    return total


def moon_state(pos: Position, seat: int) -> tuple[bool, int]:
    """(whether ``seat`` should run for the moon, the seat to stop or -1)."""
    taken = pos.taken
    owner = -1
    for s in range(4):
        if taken[s] & POINT_CARDS:
            if owner >= 0:
                return False, -1  # points are shared: no moon for anyone
            owner = s
    hand = pos.hands[seat]
    if owner < 0 or owner == seat:
        mine = (taken[seat] & POINT_CARDS).bit_count() + (hand & POINT_CARDS).bit_count()
        if hand and mine >= 8:
            out = pos.outstanding(seat)
            if sure_winners(hand, out) >= hand.bit_count() - 1 and (
                    hand & HEARTS_MASK or not out & HEARTS_MASK):
                return True, -1
        return False, -1
    total = (taken[owner] & POINT_CARDS).bit_count()
    if total >= 8 or (taken[owner] & QS_BIT and total >= 4):
        return False, owner
    return False, -1


# -- play ---------------------------------------------------------------------------------------


def choose_card(pos: Position, seat: int, legal: int) -> int:
    """The card ``seat`` plays from the ``legal`` mask."""
    if not legal & (legal - 1):
        return lowest(legal)
    shoot, threat = moon_state(pos, seat)
    if not pos.trick:
        return _lead(pos, seat, legal, shoot, threat)
    led = pos.trick[0] // 13
    if legal & SUIT_MASKS[led]:
        return _follow(pos, seat, legal, shoot, threat)
    return _discard(pos, seat, legal, shoot, threat)


def _trick_points(pos: Position) -> int:
    pts = 0
    for c in pos.trick:
        if c >= 26:
            if c < 39:
                pts += 1
            elif c == QUEEN_OF_SPADES:
                pts += 13
    return pts


def _lead(pos: Position, seat: int, legal: int, shoot: bool, threat: int) -> int:
    out = pos.outstanding(seat)
    if shoot:
        best = -1
        for c in suit_tops(legal):
            if not above(c) & out and (best < 0 or c // 13 != HEARTS):
                best = c
        return best if best >= 0 else highest(legal)
    if threat >= 0 and legal & HEARTS_MASK:
        top = highest(legal & HEARTS_MASK)
        if not above(top) & out:
            return top
    hand = pos.hands[seat]
    queen_out = bool(out & QS_BIT)
    if queen_out and legal & LOW_SPADES and not hand & HIGH_SPADES:
        return lowest(legal & LOW_SPADES)
    spades_catch_me = bool(hand & QS_BIT or (queen_out and hand & HIGH_SPADES))

    def risk(suit: int, mine: int, theirs: int, odds: float) -> float:
        if suit == SPADES and spades_catch_me:
            odds += 10.0
        elif suit == HEARTS:
            odds += 0.5
        if not theirs:
            odds += 5.0
        return odds + 0.05 * mine.bit_count()

    return safest_lead(legal, out, risk)


def _follow(pos: Position, seat: int, legal: int, shoot: bool, threat: int) -> int:
    win = pos.win_card
    last = len(pos.trick) == 3
    if shoot:
        over = legal & above(win)
        return highest(over) if over else lowest(legal)
    pts = _trick_points(pos)
    if threat >= 0 and pos.win_seat == threat and (pts or not last):
        over = legal & above(win)
        if over:
            return highest(over)
    if (last and pts == 0) or (pos.tricks_done == 0 and not pos.rules.blood_on_first_trick):
        safe = legal & ~QS_BIT
        if safe:
            return highest(safe)
    under = legal & below(win)
    if under:
        return highest(under)
    safe = legal & ~QS_BIT or legal
    if last:
        return highest(safe)
    return lowest(safe)


def _discard(pos: Position, seat: int, legal: int, shoot: bool, threat: int) -> int:
    if shoot:
        safe = legal & ~POINT_CARDS or legal
        return lowest(safe)
    if threat >= 0:
        if pos.win_seat == threat:
            safe = legal & ~POINT_CARDS
            if safe:
                return _highest_danger(pos, seat, safe)
        elif legal & POINT_CARDS:
            return QUEEN_OF_SPADES if legal & QS_BIT else highest(legal & HEARTS_MASK)
    if legal & QS_BIT:
        return QUEEN_OF_SPADES
    out = pos.outstanding(seat)
    if legal & HIGH_SPADES and out & QS_BIT:
        return highest(legal & HIGH_SPADES)
    if legal & HEARTS_MASK:
        hearts = legal & HEARTS_MASK
        top = highest(hearts)
        if top % 13 >= 7 or not legal & ~HEARTS_MASK:
            return top
    return _highest_danger(pos, seat, legal)


def _highest_danger(pos: Position, seat: int, legal: int) -> int:
    """The card most likely to win a trick later: high, in a short suit, few cards under it."""
    hand = pos.hands[seat]
    out = pos.outstanding(seat)
    best, best_score = -1, -1e9
    for c in suit_tops(legal):
        score = float((out & below(c)).bit_count() - (out & above(c)).bit_count())
        score -= 0.3 * (hand & SUIT_MASKS[c // 13]).bit_count()
        if c // 13 == HEARTS:
            score += 1.0
        if score > best_score:
            best, best_score = c, score
    return best


# -- scoring a moon -----------------------------------------------------------------------------


def choose_moon(scores: tuple[int, ...], seat: int, target: int) -> str:
    """``"add"`` (26 to each other seat) unless that ends the game with this seat not winning."""
    added = [s + (0 if i == seat else 26) for i, s in enumerate(scores)]
    if max(added) >= target:
        best_other = min(a for i, a in enumerate(added) if i != seat)
        return "add" if added[seat] < best_other else "subtract"
    return "add"
