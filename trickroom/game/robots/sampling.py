"""Deals consistent with what one seat knows, for the search to play out.

A seat knows its own hand, every card played, how many cards each seat holds,
the suits each seat has shown out of (failing to follow), and in Hearts the
cards it passed and to whom: that seat holds them until it plays them. A
sampled deal gives every other seat exactly its number of cards, none of a
suit it is void in, and the passed cards to their receiver.

Cards are dealt suit by suit, the suits the fewest seats may hold first, each
card to a seat drawn with weight equal to the cards that seat still lacks. A
dead end (a seat left needing cards no remaining suit can give it) starts the
deal again; after a few dead ends the deal checks, before each card, that the
rest can still be placed (Hall's condition over the seven sets of seats), so
it always ends with a consistent deal when one exists. Only a view with no
consistent deal at all (which a real game never gives) drops the voids.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from trickroom.game.cards import SUIT_MASKS, cards_of
from trickroom.game.robots.position import Position
from trickroom.game.trickgame import TrickView

PASS_OFFSETS = {"left": 1, "across": 2, "right": 3, "hold": 0}
MAX_TRIES = 6


def known_cards(view: TrickView, pos: Position) -> list[int]:
    """Per seat, the cards the viewer knows that seat holds (Hearts: what it was passed)."""
    known = [0, 0, 0, 0]
    seat = view.seat
    passed = getattr(view, "passed", ())
    if seat is None or not passed or not getattr(view, "received", ()):
        return known
    target = (seat + PASS_OFFSETS.get(getattr(view, "pass_direction", "hold"), 0)) % 4
    if target != seat:
        for c in passed:
            if not pos.played >> c & 1:
                known[target] |= 1 << c
    return known


class DealSampler:
    """Draws the other seats' hands for one decision, many times over."""

    def __init__(self, pos: Position, seat: int, sizes: Sequence[int],
                 known: Sequence[int] = (0, 0, 0, 0)) -> None:
        self.seat = seat
        self.base = [known[s] if s != seat else pos.hands[seat] for s in range(4)]
        pool = pos.outstanding(seat)
        for s in range(4):
            pool &= ~known[s]
        self.need = [0 if s == seat else max(0, sizes[s] - known[s].bit_count())
                     for s in range(4)]
        others = [s for s in range(4) if s != seat]
        groups = []
        for suit, suit_mask in enumerate(SUIT_MASKS):
            cards = cards_of(pool & suit_mask)
            if cards:
                eligible = [s for s in others if not pos.voids[s] >> suit & 1]
                groups.append((eligible, cards))
        groups.sort(key=lambda g: len(g[0]))
        self.groups = groups
        self.others = others

    def sample(self, rng: random.Random) -> list[int]:
        """Four hand masks: the seat's own, and a consistent guess at the others."""
        for _ in range(MAX_TRIES):
            hands = self._try(rng, strict=True)
            if hands is not None:
                return hands
        hands = self._checked(rng)
        if hands is None:
            hands = self._try(rng, strict=False)
        assert hands is not None
        return hands

    def _checked(self, rng: random.Random) -> list[int] | None:
        """A deal made card by card, never leaving the rest impossible to place."""
        hands = list(self.base)
        need = list(self.need)
        left = [len(cards) for _, cards in self.groups]
        eligible_sets = [frozenset(e) for e, _ in self.groups]
        subsets = [frozenset(s for i, s in enumerate(self.others) if bits >> i & 1)
                   for bits in range(1, 1 << len(self.others))]

        def feasible() -> bool:
            for sub in subsets:
                must = sum(n for n, e in zip(left, eligible_sets, strict=True) if e <= sub)
                if must > sum(need[s] for s in sub):
                    return False
            return True

        if not feasible():
            return None
        for g, (eligible, cards) in enumerate(self.groups):
            order = list(cards)
            rng.shuffle(order)
            for c in order:
                seats = [s for s in eligible if need[s]]
                rng.shuffle(seats)
                seats.sort(key=lambda s: -need[s] * rng.random())
                left[g] -= 1
                for s in seats:
                    need[s] -= 1
                    if feasible():
                        hands[s] |= 1 << c
                        break
                    need[s] += 1
                else:
                    return None
        return hands

    def _try(self, rng: random.Random, *, strict: bool) -> list[int] | None:
        hands = list(self.base)
        need = list(self.need)
        rand = rng.random
        for eligible, cards in self.groups:
            seats = eligible if strict else self.others
            order = list(cards)
            rng.shuffle(order)
            for c in order:
                total = 0
                for s in seats:
                    total += need[s]
                if total == 0:
                    return None
                pick = rand() * total
                chosen = seats[-1]
                for s in seats:
                    pick -= need[s]
                    if pick < 0 and need[s]:
                        chosen = s
                        break
                if not need[chosen]:
                    chosen = next(s for s in seats if need[s])
                hands[chosen] |= 1 << c
                need[chosen] -= 1
        return hands


