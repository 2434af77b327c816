"""A hand in play as the robots read it and simulate it.

:class:`Position` is the robots' working copy of the play phase: hands as
masks, the trick so far, what each seat has shown (voids, tricks, points), and
the bids or points that decide what a trick is worth. Built from a view
(:meth:`Position.from_view`) it knows only the seat's own hand; the search
fills in the other hands from a sampled deal and then plays cards on it with
:meth:`Position.play`, which follows the engines' rules for every variant the
rules dataclasses offer (a test checks it against the engines move by move).

It is a plain mutable object with slots, copied once per simulated play-out,
because the play-outs are the search's hot loop and a frozen view or a full
engine would cost several times more per card.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from trickroom.game.cards import SUIT_MASKS
from trickroom.game.trickgame import TrickView

CLUBS_MASK, DIAMONDS_MASK, HEARTS_MASK, SPADES_MASK = SUIT_MASKS
QUEEN_OF_SPADES = 49
QS_BIT = 1 << QUEEN_OF_SPADES
JD_BIT = 1 << 22
POINT_CARDS = HEARTS_MASK | QS_BIT
FULL_DECK = (1 << 52) - 1


def lowest(mask: int) -> int:
    """The lowest card of a non-empty mask."""
    return (mask & -mask).bit_length() - 1


def highest(mask: int) -> int:
    """The highest card of a non-empty mask."""
    return mask.bit_length() - 1


def below(card: int) -> int:
    """Mask of the cards of ``card``'s suit ranked under it."""
    return ((1 << card) - 1) & SUIT_MASKS[card // 13]


def above(card: int) -> int:
    """Mask of the cards of ``card``'s suit ranked over it."""
    return SUIT_MASKS[card // 13] & ~((2 << card) - 1)


def suit_tops(mask: int, suits: Sequence[int] = SUIT_MASKS) -> list[int]:
    """The highest card of ``mask`` in each of ``suits`` it holds, suit by suit."""
    return [(mask & suit_mask).bit_length() - 1 for suit_mask in suits if mask & suit_mask]


def safest_lead(legal: int, out: int, risk: Callable[[int, int, int, float], float]) -> int:
    """The lowest legal card of the suit where leading it risks least (-1 if none is legal).

    A suit's lowest card starts at the odds of it winning: the cards of its
    suit still out (``out``) below it against those above, each plus one.
    ``risk(suit, mine, theirs, odds)`` weighs those odds into the risk of
    leading that suit (``mine``: the legal cards of the suit; ``theirs``: its
    cards still out). The first suit of least risk wins.
    """
    best, best_risk = -1, 1e9
    for suit, suit_mask in enumerate(SUIT_MASKS):
        mine = legal & suit_mask
        if not mine:
            continue
        c = lowest(mine)
        theirs = out & suit_mask
        odds = ((theirs & below(c)).bit_count() + 1) / ((theirs & above(c)).bit_count() + 1)
        r = risk(suit, mine, theirs, odds)
        if r < best_risk:
            best, best_risk = c, r
    return best


class Position:
    """The play phase of one hand: what is known, or (in a simulation) everything.

    ``hands`` holds the four hands; in a position read from a view only the
    viewer's is filled. ``voids[s]`` has bit ``suit`` set once seat ``s`` has
    failed to follow that suit. ``taken[s]`` is the mask of cards seat ``s``
    has won in tricks.
    """

    __slots__ = (
        "bags",
        "bids",
        "blind",
        "broken",
        "hands",
        "hearts",
        "leader",
        "played",
        "rules",
        "scores",
        "taken",
        "trick",
        "tricks_done",
        "tricks_won",
        "turn",
        "voids",
        "win_card",
        "win_seat",
    )

    hearts: bool
    rules: Any
    hands: list[int]
    turn: int
    leader: int
    trick: list[int]
    win_card: int
    win_seat: int
    played: int
    voids: list[int]
    tricks_done: int
    broken: bool
    tricks_won: list[int]
    taken: list[int]
    bids: tuple[int, ...]
    blind: tuple[bool, ...]
    bags: tuple[int, ...]
    scores: tuple[int, ...]

    def copy(self) -> Position:
        p = Position.__new__(Position)
        p.hearts = self.hearts
        p.rules = self.rules
        p.hands = list(self.hands)
        p.turn = self.turn
        p.leader = self.leader
        p.trick = list(self.trick)
        p.win_card = self.win_card
        p.win_seat = self.win_seat
        p.played = self.played
        p.voids = list(self.voids)
        p.tricks_done = self.tricks_done
        p.broken = self.broken
        p.tricks_won = list(self.tricks_won)
        p.taken = list(self.taken)
        p.bids = self.bids
        p.blind = self.blind
        p.bags = self.bags
        p.scores = self.scores
        return p

    @classmethod
    def from_view(cls, view: TrickView) -> Position:
        """What the viewing seat knows of a hand in play (or about to be played)."""
        p = Position.__new__(Position)  # (mypyc compiles no cls.__new__)
        p.hearts = view.game == "hearts"
        p.rules = view.rules
        p.hands = [0, 0, 0, 0]
        if view.seat is not None:
            p.hands[view.seat] = view.hand
        voids = [0, 0, 0, 0]
        taken = [0, 0, 0, 0]
        played = 0
        for t in view.tricks:
            cards = t.cards
            led = cards[0] // 13
            mask = 0
            for i, c in enumerate(cards):
                mask |= 1 << c
                if c // 13 != led:
                    voids[(t.leader + i) & 3] |= 1 << led
            taken[t.seat] |= mask
            played |= mask
        p.trick = []
        p.leader = view.leader if view.leader is not None else 0
        p.win_card = p.win_seat = 0
        p.voids = voids
        p.played = played
        p.taken = taken
        p.tricks_done = len(view.tricks)
        p.tricks_won = list(view.tricks_won)
        p.turn = view.to_act if view.to_act is not None else p.leader
        if p.hearts:
            p.broken = bool(getattr(view, "hearts_broken", False))
            p.bids = p.blind = p.bags = ()
        else:
            p.broken = bool(getattr(view, "spades_broken", False))
            p.bids = tuple(b if b is not None else -1 for b in getattr(view, "bids", ()))
            p.blind = tuple(getattr(view, "blind", ()))
            p.bags = tuple(getattr(view, "bags", ()))
        p.scores = tuple(view.scores)
        for seat, card in view.trick:
            p._add_to_trick(seat, card)
        p.turn = view.to_act if view.to_act is not None else p.turn
        return p

    # -- rules ---------------------------------------------------------------------------

    def legal(self) -> int:
        """Mask of the cards the seat to act may play, by the engines' rules."""
        hand = self.hands[self.turn]
        if self.trick:
            led = self.trick[0] // 13
            follow = hand & SUIT_MASKS[led]
            if follow:
                return follow
            if self.hearts and self.tricks_done == 0 and not self.rules.blood_on_first_trick:
                return (hand & ~POINT_CARDS) or hand
            return hand
        if self.hearts:
            if self.tricks_done == 0:
                return hand & CLUBS_MASK if self.rules.any_club_first else 1
            if self.broken:
                return hand
            return (hand & ~HEARTS_MASK) or hand
        if self.tricks_done == 0:
            if self.rules.two_of_clubs_leads:
                return 1
            return (hand & ~SPADES_MASK) or hand
        if self.broken or self.rules.spades_always_leadable:
            return hand
        return (hand & ~SPADES_MASK) or hand

    def _add_to_trick(self, seat: int, card: int) -> None:
        bit = 1 << card
        trick = self.trick
        if trick:
            win = self.win_card
            led = trick[0] // 13
            if card // 13 != led:
                self.voids[seat] |= 1 << led
            if card // 13 == win // 13:
                if card > win:
                    self.win_card, self.win_seat = card, seat
            elif card >= 39 and not self.hearts:
                self.win_card, self.win_seat = card, seat
        else:
            self.leader = seat
            self.win_card, self.win_seat = card, seat
        trick.append(card)
        self.played |= bit
        if self.hearts:
            if bit & HEARTS_MASK or (bit == QS_BIT and self.rules.queen_breaks_hearts):
                self.broken = True
        elif card >= 39:
            self.broken = True

    def play(self, card: int) -> None:
        """The seat to act plays ``card`` (no legality check: the caller chose from legal())."""
        seat = self.turn
        self.hands[seat] &= ~(1 << card)
        self._add_to_trick(seat, card)
        if len(self.trick) < 4:
            self.turn = (seat + 1) & 3
            return
        winner = self.win_seat
        for c in self.trick:
            self.taken[winner] |= 1 << c
        self.tricks_won[winner] += 1
        self.tricks_done += 1
        self.trick = []
        self.leader = self.turn = winner

    # -- what the hand is worth ------------------------------------------------------------

    def points(self, seat: int) -> int:
        """Hearts: points in the tricks ``seat`` has taken so far (no moon adjustment)."""
        mask = self.taken[seat]
        pts = (mask & HEARTS_MASK).bit_count() + (13 if mask & QS_BIT else 0)
        if mask & JD_BIT and self.rules.jack_of_diamonds:
            pts += self.rules.jack_value
        return pts

    def hearts_scores(self) -> list[int]:
        """Hearts, at the end of the hand: what each seat scores, the moon applied."""
        pts = [self.points(s) for s in range(4)]
        for s in range(4):
            if self.taken[s] & POINT_CARDS == POINT_CARDS:
                jack = [self.rules.jack_value if self.rules.jack_of_diamonds
                        and self.taken[o] & JD_BIT else 0 for o in range(4)]
                if self.rules.moon == "subtract_from_shooter":
                    return [(-26 if o == s else 0) + jack[o] for o in range(4)]
                return [(0 if o == s else 26) + jack[o] for o in range(4)]
        return pts

    def outstanding(self, seat: int) -> int:
        """Cards neither played nor in ``seat``'s hand: held by the other seats."""
        return FULL_DECK & ~self.played & ~self.hands[seat]
