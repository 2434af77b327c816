"""Cards, hands and the deal.

Two forms of a card exist. The *text* form (``"AS"``, ``"TH"``, ``"2C"``: rank
then suit) is the only one on the wire and in stored records. Inside the
engines a card is an int ``suit * 13 + rank`` (ranks ``2`` = 0 .. ``A`` = 12,
suits clubs 0, diamonds 1, hearts 2, spades 3) and a hand is a 52-bit mask with
bit ``card`` set. That order is chosen so that:

* a suit is 13 consecutive bits (``SUIT_MASKS[suit]``), so "cards of the led
  suit" is one ``&``;
* within a suit a higher card is a higher int, so a trick's winner is a ``max``;
* spades, the Spades trump suit, are the highest ints of all.

>>> parse_card("QS"), card_text(49)
(49, 'QS')
>>> cards_of(parse_cards(["2C", "AS", "TH"]))
[0, 34, 51]
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator

from trickroom.i18n import Msg

RANKS = "23456789TJQKA"
SUITS = "CDHS"
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
# Words for people, which the catalogs translate (each is the English str itself).
SUIT_NAMES = (Msg("clubs"), Msg("diamonds"), Msg("hearts"), Msg("spades"))
SEAT_NAMES = (Msg("North"), Msg("East"), Msg("South"), Msg("West"))

DECK_SIZE = 52
HAND_SIZE = 13
FULL_DECK = (1 << DECK_SIZE) - 1
SUIT_MASKS = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))

CARD_TEXT = tuple(RANKS[c % 13] + SUITS[c // 13] for c in range(DECK_SIZE))
_TEXT_TO_CARD = {text: c for c, text in enumerate(CARD_TEXT)}


class CardParseError(ValueError):
    """Raised for text that is not a card, naming the text and why."""


def parse_card(text: object) -> int:
    """The int form of a card written as rank then suit (``"QS"``).

    Lower-case is accepted (``"qs"``) and so is ``10`` for ten, since people type
    both; anything else raises :class:`CardParseError`. ``text`` is typed ``object``:
    compiled by mypyc, a ``str`` parameter would refuse a number with a bare TypeError.
    """
    if not isinstance(text, str):
        raise CardParseError(Msg("{text!r} is not a card: a card is a string such as 'QS'",
                                 text=text))
    card = _TEXT_TO_CARD.get(text)
    if card is not None:
        return card
    norm = text.strip().upper()
    if norm.startswith("10"):
        norm = "T" + norm[2:]
    card = _TEXT_TO_CARD.get(norm)
    if card is not None:
        return card
    if len(norm) != 2:
        raise CardParseError(
            Msg("{text!r} is not a card: write rank then suit, two characters, such as 'QS' or "
                "'TH'", text=text)
        )
    rank, suit = norm[0], norm[1]
    if rank not in RANKS:
        raise CardParseError(Msg("{text!r} is not a card: rank {rank!r} is not one of {ranks}",
                                 text=text, rank=rank, ranks=RANKS))
    raise CardParseError(Msg("{text!r} is not a card: suit {suit!r} is not one of {suits}",
                             text=text, suit=suit, suits=SUITS))


def parse_cards(texts: Iterable[object]) -> int:
    """A hand mask from card texts; a repeated card is an error."""
    mask = 0
    for text in texts:
        card = parse_card(text)
        bit = 1 << card
        if mask & bit:
            raise CardParseError(Msg("{text!r} is listed twice", text=text))
        mask |= bit
    return mask


def card_text(card: int) -> str:
    return CARD_TEXT[card]


def suit_of(card: int) -> int:
    return card // 13


def rank_of(card: int) -> int:
    return card % 13


def cards_of(mask: int) -> list[int]:
    """The cards of a mask, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def iter_cards(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def texts_of(mask: int) -> list[str]:
    """Card texts of a mask, grouped by suit (clubs first), low to high."""
    return [CARD_TEXT[c] for c in cards_of(mask)]


def mask_of(cards: Iterable[int]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def count(mask: int) -> int:
    return mask.bit_count()


def deal(rng: random.Random) -> list[int]:
    """Four 13-card hand masks from a shuffled deck, seat 0 first.

    The RNG is the game's own (never the global one), so a seed fixes the deal.
    """
    deck = list(range(DECK_SIZE))
    rng.shuffle(deck)
    hands = []
    for seat in range(4):
        mask = 0
        for c in deck[seat * 13 : seat * 13 + 13]:
            mask |= 1 << c
        hands.append(mask)
    return hands


def hands_from_texts(hands: Iterable[Iterable[str]]) -> list[int]:
    """Validate an explicit deal: four hands of 13 distinct cards covering the deck."""
    masks = [parse_cards(h) for h in hands]
    if len(masks) != 4:
        raise CardParseError(Msg("a deal is 4 hands, got {n}", n=len(masks)))
    seen = 0
    for seat, m in enumerate(masks):
        if m.bit_count() != HAND_SIZE:
            raise CardParseError(Msg("hand {seat} has {n} cards, not {size}",
                                     seat=seat, n=m.bit_count(), size=HAND_SIZE))
        if seen & m:
            dup = texts_of(seen & m)
            raise CardParseError(Msg("cards dealt twice: {cards}", cards=", ".join(dup)))
        seen |= m
    return masks
