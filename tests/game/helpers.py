"""Shared test helpers: explicit deals and simple ways to finish a hand."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from trickroom.game.actions import Action
from trickroom.game.cards import RANKS
from trickroom.game.trickgame import TrickGame

Policy = Callable[[TrickGame, Sequence[Action]], Action]


def suit(s: str) -> list[str]:
    """All 13 cards of one suit, low to high: ``suit("S")``."""
    return [r + s for r in RANKS]


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
