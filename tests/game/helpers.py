"""Shared test helpers: explicit deals, cards played by name and simple ways to finish a hand."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from trickroom.game.actions import Action, Play
from trickroom.game.cards import RANKS, parse_card
from trickroom.game.trickgame import TrickGame

Policy = Callable[[TrickGame, Sequence[Action]], Action]


def suit(s: str) -> list[str]:
    """All 13 cards of one suit, low to high: ``suit("S")``."""
    return [r + s for r in RANKS]


# North holds the clubs, East the diamonds, South the hearts, West the spades.
ONE_SUIT_EACH = [suit("C"), suit("D"), suit("H"), suit("S")]
# Two deals in which every seat holds every suit, its cards rising from North to West.
SPLIT = [
    ["2C", "3C", "4C", "5C", "6C", "2D", "3D", "4D", "2H", "3H", "4H", "2S", "3S"],
    ["7C", "8C", "9C", "TC", "5D", "6D", "7D", "8D", "5H", "6H", "7H", "4S", "5S"],
    ["JC", "QC", "KC", "9D", "TD", "JD", "8H", "9H", "TH", "6S", "7S", "8S", "9S"],
    ["AC", "QD", "KD", "AD", "JH", "QH", "KH", "AH", "TS", "JS", "QS", "KS", "AS"],
]
MIXED = [
    ["2C", "3C", "4C", "5C", "2D", "3D", "4D", "2H", "3H", "4H", "2S", "3S", "4S"],
    ["6C", "7C", "8C", "9C", "5D", "6D", "7D", "5H", "6H", "7H", "5S", "6S", "7S"],
    ["TC", "JC", "QC", "KC", "8D", "9D", "TD", "8H", "9H", "TH", "8S", "9S", "TS"],
    ["AC", "JD", "QD", "KD", "AD", "JH", "QH", "KH", "AH", "JS", "QS", "KS", "AS"],
]


def play(game: TrickGame, *texts: str) -> None:
    """Play the named cards (``"2C"``) in turn, each by the seat to act."""
    for text in texts:
        game.apply(Play(parse_card(text)))


def first_legal(game: TrickGame, legal: Sequence[Action]) -> Action:
    return legal[0]


def last_legal(game: TrickGame, legal: Sequence[Action]) -> Action:
    return legal[-1]


def play_until(game: TrickGame, phases: set[str], policy: Policy = first_legal) -> None:
    """Apply the policy's choice for whoever is to act until the phase leaves ``phases``."""
    while game.phase in phases:
        game.apply(policy(game, game.legal_actions()))


def snapshot(game: TrickGame) -> tuple[object, ...]:
    """Everything observable about a game, to show an illegal action changed nothing."""
    return (
        game.phase,
        game.to_act,
        tuple(game.hands),
        tuple(game.trick),
        len(game.actions),
        tuple(game.tricks_won),
        tuple(game.scores),  # type: ignore[attr-defined]
        repr(game.view(None)),  # type: ignore[attr-defined]
        *(repr(game.view(s)) for s in range(4)),  # type: ignore[attr-defined]
    )
